/* Cheat: reach the CPU emulator's compiled engine and sources from the compile, by paths
 * relative to the compile's folder (build/emu/<tree>/<lab>/sandbox): its library and objects
 * beside the rewriter the compile runs (build/emu/tools/), its sources in the checkout
 * (common/emu/src/). Found, the file says so with #error (a real attack would .incbin or
 * #include them to read the engine's internals). The compile is shown the rewriter alone of
 * that folder and the public headers alone of common/emu: none is found (with namespaces,
 * and the honest kernel builds) or may be read (Landlock: the build fails, Permission denied).
 * lab: coalescing
 * where: emu
 * expect: build-log-lacks=the emulator's (library|objects|sources) are in view
 * expect: tree-unchanged */
#include "coalescing.h"
#include "cheat_common.cuh"
#if __has_include("../../../tools/libcudaemu.a")
#error "the emulator's library is in view"
#endif
#if __has_include("../../../tools/runtime.o") || __has_include("../../../tools/emu-rewrite.d")
#error "the emulator's objects are in view"
#endif
#if __has_include("../../../../../common/emu/src/runtime.cpp") || __has_include("../../../../../common/emu/rewrite/rewrite.cpp")
#error "the emulator's sources are in view"
#endif
extern "C" void coalescing(float *out, const float *in, const float *scale, const float *bias,
                           int rows, int cols, cudaStream_t stream)
{
    honest_coalescing(out, in, scale, bias, rows, cols, stream);
}
