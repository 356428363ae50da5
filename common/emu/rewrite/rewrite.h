/*
 * rewrite.h -- turning a CUDA source into C++ the emulator can compile.
 *
 * rewrite_source() makes these changes and keeps every other byte, so line
 * numbers do not move and one #line directive maps the result back to the
 * .cu file (compiler errors and sanitizer reports then name .cu lines):
 *
 *   1. kernel<<<grid, block[, smem[, stream]]>>>(args) becomes a call of
 *      ::cuda_emu::launch (see include/cuda_emu/launch.h);
 *   2. __shared__ declarations become per-block allocations, and extern
 *      __shared__ arrays pointers to the block's dynamic shared memory;
 *   3. __launch_bounds__(N) on a kernel definition adds a check of the block
 *      size as the body's first statement;
 *   4. #pragma unroll (and nvcc's #pragma nv_*) lines are blanked, since a
 *      host compiler would warn about them.
 *   5. in device code, the condition of every if, while and for becomes
 *      ::cuda_emu::branch(static_cast<bool>(CONDITION), "FILE@OFFSET"), which make explain
 *      counts (see handle_branch in rewrite.cpp for what is left alone).
 * It also gives device-code shifts the GPU's meaning, reads special
 * registers for inline PTX, and registers kernels (see README.md).
 *
 * Comments, string and character literals (raw strings too) are never
 * rewritten. The rewrite is textual, not a C++ parse: see README.md for the
 * forms it understands.
 */
#ifndef CUDA_EMU_REWRITE_H
#define CUDA_EMU_REWRITE_H

#include <functional>
#include <string>

namespace emu_rewrite {

/* Decides what a quoted #include "NAME" in the file being rewritten becomes:
 * the text to put between the quotes, or "" to leave the directive alone. */
using IncludeMapper = std::function<std::string(const std::string &name)>;

/* Rewrites TEXT, the contents of the file shown as DISPLAY_PATH in #line
 * directives. PRELUDE adds the emulator's prelude include (for a main .cu
 * file, not for the headers it includes). On success returns true and sets
 * *OUT; on a construct it cannot handle returns false and sets *ERROR to
 * "path:line: error: ...". */
bool rewrite_source(const std::string &text, const std::string &display_path, bool prelude,
                    const IncludeMapper &includes, std::string *out, std::string *error);

} // namespace emu_rewrite

#endif /* CUDA_EMU_REWRITE_H */
