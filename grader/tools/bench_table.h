/* bench_table.h - TRUSTED, NO GPU: make bench's table, from the records of a lab's bench run
 * (the harness's --bench): printed, and written as <logs>/<lab>.tsv, the TSV that bench-chart and
 * bench-tables (beside this file) read. */
#ifndef GRADER_TOOLS_BENCH_TABLE_H
#define GRADER_TOOLS_BENCH_TABLE_H

#include "../lab.h"
#include "../wire/records.h"

/* The table's heading line. */
void bench_table_heading(void);

/* A lab's rows: the device it ran on, then one row per in-process or computed "bench" record
 * of l, printed and written to tsv_path (with its header line). */
void bench_table_lab(const lab_info *lab, const record_list *l, const char *tsv_path);

#endif
