/*
 * cuda_emu/testing.h -- switches for the emulator's own tests.
 *
 * A test of what fresh memory holds has to read memory nothing wrote, which
 * the uninitialized-read check exists to stop; these let it look anyway.
 */
#ifndef CUDA_EMU_TESTING_H
#define CUDA_EMU_TESTING_H

namespace cuda_emu {

/* Turns the race and uninitialized-read checks on or off (CUDA_EMU_CHECK). */
void set_checks(bool on);

} // namespace cuda_emu

#endif /* CUDA_EMU_TESTING_H */
