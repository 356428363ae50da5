# lab.mk - lab 05's build knobs (included by the Makefile).
#
# The lab's shim (grader/labs/05-streams/shim_untrusted.cu) counts the streams and events a call
# creates and destroys: the linker redirects every call of these CUDA runtime functions from
# any object in the implementation's shared object (the student's or the reference's, and the
# shim) to __wrap_<name> in the shim, which counts and calls the real function (__real_<name>).
# The shim reads the counters around each call, so a stream or event created and not
# destroyed in that call is reported. SHIM_LIBS_streams serves nvcc's link of the shared
# object (GPU), SHIM_LIBS_EMU_streams the host compiler's (CPU emulator). The harness itself
# is not wrapped: nothing of the implementations runs there.
STREAMS_WRAPPED := cudaStreamCreate cudaStreamCreateWithFlags cudaStreamCreateWithPriority \
                   cudaStreamDestroy cudaEventCreate cudaEventCreateWithFlags cudaEventDestroy
SHIM_LIBS_streams := $(foreach f,$(STREAMS_WRAPPED),-Xlinker --wrap=$(f))
SHIM_LIBS_EMU_streams := $(foreach f,$(STREAMS_WRAPPED),-Wl,--wrap=$(f))
# make profile draws a timeline of copies and kernels (no profiler counters).
PROFILE_streams := timeline
