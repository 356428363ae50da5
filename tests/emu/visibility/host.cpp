/*
 * host.cpp -- a program that carries the emulator and loads compiled CUDA code
 * from a shared object, as the grader's worker does (linked the same way:
 * emu.mk's EMU_EXPORT_FLAGS): `host OBJECT.so` calls its shim_serve(0) and
 * exits with what it returns, or 3 when the object does not load.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    void *so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (so == nullptr) {
        fprintf(stderr, "host: cannot load %s: %s\n", argv[1], dlerror());
        return 3;
    }
    auto serve = reinterpret_cast<int (*)(int)>(dlsym(so, "shim_serve"));
    return serve != nullptr ? serve(0) : 2;
}
