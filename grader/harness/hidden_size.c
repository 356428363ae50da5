/* hidden_size.c - a hidden correctness size as the CPU emulator runs it. See hidden_size.h. */
#include "hidden_size.h"

#include <string.h>

static double task_work(const lab_info *lab, int task, const long long size[LAB_MAX_DIMS])
{
    lab_footprint f;
    memset(&f, 0, sizeof f);
    lab->footprint(task, size, &f);
    return f.work;
}

double emu_hidden_cap(const lab_info *lab, int task)
{
    double cap = 0;
    for (int i = 0; i < lab->n_checks; i++) {
        const lab_check *v = &lab->checks[i];
        if (v->kind != CHECK_VISIBLE || v->task != task)
            continue;
        const double w = task_work(lab, task, lab_check_size(v, 1));
        cap = w > cap ? w : cap;
    }
    return cap * EMU_HIDDEN_SLACK;
}

void emu_hidden_size(const lab_info *lab, const lab_check *c, hidden_draw_fn draw, rng *r,
                     long long size[LAB_MAX_DIMS])
{
    const double cap = emu_hidden_cap(lab, c->task);
    if (cap <= 0)
        return;
    double best_w = task_work(lab, c->task, size);
    for (int k = 1; k < EMU_HIDDEN_DRAWS && best_w > cap; k++) {
        long long s[LAB_MAX_DIMS];
        memcpy(s, c->size, sizeof s);
        draw(r, s);
        const double w = task_work(lab, c->task, s);
        if (w < best_w) {
            memcpy(size, s, sizeof s);
            best_w = w;
        }
    }
}
