/* bench_table.c - TRUSTED, NO GPU: make bench's table (see bench_table.h). */
#include "bench_table.h"
#include "../../common/text.h"

#include <stdio.h>
#include <string.h>

void bench_table_heading(void)
{
    printf("#\tlab\ttask\tsize\tvariant\tms per call (events)\trate\tx ref\tx ceil\t"
           "x ref through the isolated path (difference)\n");
}

/* One row of the bench table (r: an in-process or computed "bench" record), printed and
 * written to tsv (or NULL): ms, rate and the ratio to the reference on each path, from the
 * lab's other records (l). The two paths' ratios must agree (the isolated path is what
 * grading uses). */
static void bench_row(const lab_info *lab, const record_list *l, const record *r, FILE *tsv)
{
    const char *task = record_get(r, "task"), *variant = record_get(r, "variant");
    /* The bench times student code in the harness's process, which can then write any
     * record: its text is shown as data (common/text.h), on this row alone. */
    char task_s[128], size_s[128], variant_s[128], unit_s[32];
    text_visible(task_s, sizeof task_s, task, 0);
    text_visible(size_s, sizeof size_s, record_get(r, "size"), 0);
    text_visible(variant_s, sizeof variant_s, variant, 0);
    text_visible(unit_s, sizeof unit_s, record_get(r, "unit"), 0);
    double ms = 0, rate = 0, ref_ms = 0, ceil_ms = 0, iso_ms = 0, iso_ref = 0;
    record_get_num(r, "ms", &ms);
    record_get_num(r, "rate", &rate);
    for (int j = 0; j < l->n; j++) {
        const record *q = &l->rec[j];
        double qi;
        const char *qp = record_get(q, "path");
        if (strcmp(q->type, "bench") || !record_get(q, "task") || !record_get(q, "variant") ||
            strcmp(record_get(q, "task"), task) || record_get_num(q, "impl", &qi) || !qp)
            continue;
        const int inproc = !strcmp(qp, "in-process events");
        if (qi == 1 && inproc)
            record_get_num(q, "ms", &ref_ms);
        if (qi == 1 && !strcmp(qp, "isolated host clock"))
            record_get_num(q, "ms", &iso_ref);
        if (qi == 2)
            record_get_num(q, "ms", &ceil_ms);
        if (!strcmp(qp, "isolated host clock") && !strcmp(record_get(q, "variant"), variant))
            record_get_num(q, "ms", &iso_ms);
    }
    const double x_ref = ref_ms > 0 ? ref_ms / ms : 0, x_ceil = ceil_ms > 0 ? ceil_ms / ms : 0;
    const double iso_x = iso_ms > 0 && iso_ref > 0 ? iso_ref / iso_ms : 0;
    printf("%s\t%-12s\t%-12s\t%-22s\t%-34s\t%9.4f\t%9.1f %-9s\t%6.3f\t%6.3f", lab->number,
           lab->name, task_s, size_s, variant_s, ms, rate, unit_s, x_ref, x_ceil);
    if (iso_x > 0)
        printf("\tisolated %6.3f (%+.1f%%)", iso_x, 100 * (iso_x / x_ref - 1));
    printf("\n");
    if (tsv)
        fprintf(tsv, "%s\t%s\t%s\t%s\t%.5f\t%.2f\t%s\t%.4f\t%.4f\n", lab->name, task_s,
                size_s, variant_s, ms, rate, unit_s, x_ref, x_ceil);
}

void bench_table_lab(const lab_info *lab, const record_list *l, const char *tsv_path)
{
    const record *dev = find_record(l, "device", 0);
    if (dev) {
        double mhz = 0;
        record_get_num(dev, "measured_clock_mhz", &mhz);
        char name[256];
        text_visible(name, sizeof name, record_get(dev, "name") ? record_get(dev, "name") : "?", 0);
        printf("%s %-12s on %s, SM clock under load %.0f MHz\n", lab->number, lab->name, name, mhz);
    }
    FILE *tsv = fopen(tsv_path, "w");
    if (tsv)
        fprintf(tsv, "lab\ttask\tsize\tvariant\tms\trate\tunit\tx_ref\tx_ceil\n");
    for (int i = 0; i < l->n; i++) {
        const record *r = &l->rec[i];
        const char *path = record_get(r, "path");
        if (strcmp(r->type, "bench") || !path ||
            (strcmp(path, "in-process events") && strcmp(path, "computed")))
            continue;
        if (!record_get(r, "task") || !record_get(r, "variant") || !record_get(r, "size") ||
            !record_get(r, "unit"))
            continue;
        bench_row(lab, l, r, tsv);
    }
    if (tsv)
        fclose(tsv);
}
