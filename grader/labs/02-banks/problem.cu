/* problem.cu - lab 02's problem for the harness: its CPU answer and its sizes, on
 * grader/labs/lab_move.h (inputs, calls, verification and the ceiling, shared with lab 06).
 *
 * Rolling maximum over 32 steps of `series` time series stored time-major (contract:
 * labs/02-banks/banks.h). A maximum only selects one of its inputs, so the output is compared
 * bit for bit with the CPU result.
 *
 * The ceiling (IMPL_CEILING) is a device-to-device copy of the same bytes: one read and one
 * write of every element is the least any rolling maximum must move. The lesson's algorithm
 * (a window of 32 slots in shared memory, all read for every output) stays well below it: it
 * is bound by shared memory, not by DRAM, and removing bank conflicts is what brings it to
 * that bound (solutions/02-banks/steps/7-slot-major.cu, conflict-free by layout, is the rung
 * the reference should match). The student's file and the reference run in worker
 * processes, behind grader/labs/02-banks/shim_untrusted.cu. */
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "banks.h"
#include "../lab_move.h"

#include <stddef.h>
#include <string.h>

extern "C" const lab_info lab_banks; /* the table, table.c */

/* out[t][s] = max of in[u][s] over the window: one pass per window row, each a loop over the
 * contiguous series index that the compiler vectorizes. */
static void cpu_rolling_max(float *out, const float *in, int steps, int series)
{
    for (int t = 0; t < steps; t++) {
        float *o = out + (size_t)t * series;
        memcpy(o, in + (size_t)t * series, (size_t)series * sizeof(float));
        const int first = t - (ROLLING_WINDOW - 1) > 0 ? t - (ROLLING_WINDOW - 1) : 0;
        for (int u = first; u < t; u++) {
            const float *x = in + (size_t)u * series;
            for (int s = 0; s < series; s++)
                o[s] = x[s] > o[s] ? x[s] : o[s];
        }
    }
}

/* rolling_max(out, in, steps, series): the rows are the steps, the columns the series, and out
 * has in's shape (a wrong element shows as (step, series)) */
const lab_move lab_move_task = {cpu_rolling_max, LAB_ENTRY_rolling_max, LAB_WIRE_rolling_max, 0,
                                "%d steps x %d series"};

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 300);
    size[1] = rng_range(r, 1, 5000);
    if (rng_range(r, 0, 1)) /* a window's length, or a block's width, plus or minus one */
        size[0] = 32 * rng_range(r, 1, 8) + (rng_range(r, 0, 1) ? 1 : -1);
    if (rng_range(r, 0, 1))
        size[1] = 128 * rng_range(r, 1, 30) + (rng_range(r, 0, 1) ? 1 : -1);
}

const lab_info *const harness_lab = &lab_banks;
const lab_task harness_tasks[] = {LAB_MOVE_TASK("rolling_max", hidden_size)};
const int harness_n_tasks = 1;
