/* problem.cu - lab 06's problem for the harness: its CPU answer and its sizes, on
 * grader/labs/lab_move.h (inputs, calls, verification and the ceiling, shared with lab 02).
 *
 * out (cols x rows) = transpose of in (rows x cols), row-major. The data only moves, so the
 * output is compared bit for bit with the CPU's transpose. The ceiling is cudaMemcpy of the
 * same number of bytes, device to device: a transpose reads and writes every byte once, as a
 * copy does, and cannot do better than the copy engine's best path. The copy runs here, in
 * the harness (trusted code); the student's file and the reference run in worker processes,
 * behind grader/labs/06-transpose/shim_untrusted.cu. */
#include "../../harness/harness.h"
#include "lab_manifest.h"
#include "transpose.h"
#include "../lab_move.h"

#include <stddef.h>

extern "C" const lab_info lab_transpose; /* the table, table.c */

/* Transpose in 64 x 64 blocks, so that both sides stay in the CPU's caches. */
static void cpu_transpose(float *out, const float *in, int rows, int cols)
{
    for (int rb = 0; rb < rows; rb += 64)
        for (int cb = 0; cb < cols; cb += 64) {
            const int re = rb + 64 < rows ? rb + 64 : rows, ce = cb + 64 < cols ? cb + 64 : cols;
            for (int r = rb; r < re; r++)
                for (int c = cb; c < ce; c++)
                    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
        }
}

/* transpose(out, in, rows, cols): out is cols x rows (a row of it is `rows` long) */
const lab_move lab_move_task = {cpu_transpose, LAB_ENTRY_transpose, LAB_WIRE_transpose, 1,
                                "%d x %d"};

static void hidden_size(rng *r, long long size[LAB_MAX_DIMS])
{
    size[0] = rng_range(r, 1, 1200);
    size[1] = rng_range(r, 1, 1200);
    switch (rng_range(r, 0, 3)) {
    case 0: /* both multiples of 4 (of 64 too, one draw in 16): the paths that use 16-byte accesses */
        size[0] = 4 * rng_range(r, 1, 300);
        size[1] = 4 * rng_range(r, 1, 300);
        break;
    case 1: /* a tile's edge plus or minus one */
        size[0] = 32 * rng_range(r, 1, 30) + (rng_range(r, 0, 1) ? 1 : -1);
        break;
    default: /* as drawn */
        break;
    }
}

const lab_info *const harness_lab = &lab_transpose;
const lab_task harness_tasks[] = {LAB_MOVE_TASK("transpose", hidden_size)};
const int harness_n_tasks = 1;
