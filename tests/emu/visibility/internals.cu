/* internals.cu -- code that names the emulator's engine (cuda_emu/testing.h's
 * switch): it must not load into a program that carries the emulator, and
 * check-internal.sh must refuse it by name. */
namespace cuda_emu {
void set_checks(bool on);
}

extern "C" int shim_serve(int)
{
    cuda_emu::set_checks(false);
    return 0;
}
