/*
 * figures.h -- what nvcc's build of a file for the emulated device says each kernel uses, as C++
 * the emulator compiles into the file's object.
 *
 * A GPU knows a kernel's registers, static shared memory, local and constant memory from its
 * compiled code before it ever runs it; g++ cannot tell them. Where a file asks
 * (cudaFuncGetAttributes, the occupancy API, a cooperative launch, cudaFuncSetAttribute),
 * emu-nvcc also compiles it with nvcc for the emulated device's architecture (nvcc -cubin -keep
 * -Xptxas -v) and hands the three things that build leaves to `emu-rewrite --figures`:
 *
 *   ptxas's log   "Compiling entry function 'NAME'", "Function properties for NAME" and its
 *                 "N bytes stack frame" line, "Used N registers, used N barriers, N bytes smem,
 *                 N bytes cumulative stack size" (the items in any order, any of them absent)
 *   the PTX       ".visible .entry NAME(" (external linkage; ".entry" alone is internal) and
 *                 ".maxntid X, Y, Z" / ".reqntid" (__launch_bounds__) after it
 *   the cubin     its ".nv.constant3" section: the file's __constant__ bytes
 *
 * figures_table() turns them into a table of kernel addresses and figures that registers itself
 * with the runtime when the program starts (cuda_emu::register_kernel_resources, launch.h). A
 * kernel is named by the symbol g++ gives it, through a weak reference: a name that g++ spells
 * otherwise, or a kernel it never compiled (fenced off for the emulator), resolves to null and is
 * left out, so the table never fails a build. The logs are the student's file's doing: a name
 * that is not a C identifier is dropped and every number is bounded, so nothing in them becomes
 * code.
 */
#ifndef CUDA_EMU_FIGURES_H
#define CUDA_EMU_FIGURES_H

#include <string>
#include <vector>

namespace emu_rewrite {

/* One kernel as nvcc built it. */
struct KernelFigures {
    std::string name;      /* its symbol, as nvcc mangles it */
    bool visible = true;   /* external linkage (PTX .visible or .weak .entry) */
    int registers = 0;     /* per thread */
    int barriers = 0;      /* named barriers (ptxas: "used N barriers") */
    long shared = 0;       /* static __shared__ bytes per block */
    long stack = 0;        /* local bytes per thread: its cumulative stack size (calls
                              included), else its own stack frame */
    int max_threads = 0;   /* .maxntid or .reqntid: X * Y * Z; 0 when none */
};

/* The kernels ptxas compiled (PTXAS_LOG), with what the PTX says of each. */
std::vector<KernelFigures> parse_figures(const std::string &ptxas_log, const std::string &ptx);

/* The size of the cubin's .nv.constant3 section (the module's __constant__ data); 0 when it has
 * none or is no 64-bit ELF file. */
long cubin_constant_bytes(const std::string &cubin);

/* The symbols g++ may give the kernel nvcc calls NAME: NAME itself for external linkage; for
 * internal linkage g++'s spelling, where it differs from nvcc's: "L" before the function's own
 * name (a static function; not for a template's instance at global scope), and an anonymous
 * namespace as _GLOBAL__N_1 (nvcc writes one of its own per file). */
std::vector<std::string> gxx_symbols(const std::string &name, bool visible);

/* The C++ appended to the rewritten file: weak references to each kernel's symbols, the table,
 * and its registration; "" when there is no kernel. CONSTANT_BYTES: the file's __constant__
 * bytes, which every kernel of it is given. */
std::string figures_table(const std::vector<KernelFigures> &kernels, long constant_bytes);

} // namespace emu_rewrite

#endif /* CUDA_EMU_FIGURES_H */
