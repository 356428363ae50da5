# lab_streams.mk - lab 05's build knobs (included by the Makefile).
#
# The runner counts the streams and events that code creates and destroys: the linker
# redirects every call of these CUDA runtime functions from any object (the student's, the
# reference's, the harness's) to __wrap_<name> in grader/lab_streams.cu, which counts and
# calls the real function (__real_<name>). The lab reads the counters around each call of an
# implementation, so a stream or event created and not destroyed in that call is reported.
# gcc and g++ accept -Xlinker too, so the same flags serve a host-compiler link.
STREAMS_WRAPPED := cudaStreamCreate cudaStreamCreateWithFlags cudaStreamCreateWithPriority \
                   cudaStreamDestroy cudaEventCreate cudaEventCreateWithFlags cudaEventDestroy
LIBS_streams := $(foreach f,$(STREAMS_WRAPPED),-Xlinker --wrap=$(f))

# The driver API and run-time entry-point lookup would create streams the counters cannot see.
FORBID_streams := ^cu[A-Z]|cudaGetDriverEntryPoint
