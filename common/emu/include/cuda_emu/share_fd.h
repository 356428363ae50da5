/*
 * cuda_emu/share_fd.h -- device memory shared by file descriptor: the
 * emulator's counterpart of the driver API's cuMemExportToShareableHandle and
 * cuMemImportFromShareableHandle with CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
 * (the driver API itself is not emulated).
 *
 * The descriptor is a memfd: it has no name anywhere, passes to another
 * process over a Unix socket (SCM_RIGHTS) like any descriptor, and the memory
 * lasts while some process holds it open or mapped. Only the emulator has
 * these (#if defined(CUDA_EMU)); the grader hands its buffers to its worker
 * processes this way.
 */
#ifndef CUDA_EMU_SHARE_FD_H
#define CUDA_EMU_SHARE_FD_H
#pragma GCC visibility push(default) /* the API compiled code calls (emu.mk: the rest is hidden) */

#include <stddef.h>

#include "../driver_types.h"

namespace cuda_emu {

/* *FD = a new descriptor (close-on-exec; the caller closes it) of the whole
 * allocation that holds DEV_PTR, from cudaMalloc in this process. Returns
 * cudaErrorInvalidValue for other memory, cudaErrorMemoryAllocation when the
 * system refuses (the first share of an allocation sizes a memfd, which
 * RLIMIT_FSIZE limits). */
cudaError_t export_fd(int *fd, void *dev_ptr);

/* Maps the shared allocation FD (SIZE bytes, at most its size) as device
 * memory of this process, as cudaIpcOpenMemHandle would, at *DEV_PTR; FD may
 * be closed afterwards. Unmap it with cudaIpcCloseMemHandle. Returns
 * cudaErrorMapBufferObjectFailed if FD is not such memory. */
cudaError_t import_fd(void **dev_ptr, int fd, size_t size);

} // namespace cuda_emu

#pragma GCC visibility pop
#endif /* CUDA_EMU_SHARE_FD_H */
