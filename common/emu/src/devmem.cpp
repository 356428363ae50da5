/*
 * devmem.cpp -- the memory behind cudaMalloc: anonymous memory of the process,
 * which becomes a memfd (shared memory without a name) when another process is
 * to map it too (CUDA IPC, or a descriptor handed over a socket).
 *
 * Every device allocation is mapped between two guard pages: [guard][data
 * rounded up to pages][guard]. The bytes after the allocation's end, and the
 * guard pages, are marked in AddressSanitizer's shadow as a heap red zone, so
 * an access past either end gets the same heap-buffer-overflow report as
 * memory from malloc. Another process that maps the memfd maps it the same way.
 *
 * Why anonymous, and a memfd rather than a file in /dev/shm: memory like a
 * GPU's. A named file outlives a process killed before it unlinks it, can be
 * opened by any process of the user that guesses its name, fills the file
 * system it lives in, and counts against RLIMIT_FSIZE when it is sized (a
 * sandbox that limits file sizes would cap device memory with them). Anonymous
 * memory has none of that: it ends with the process, and only the emulator's
 * own accounting (kGlobalMem) bounds it. Growing a memfd is subject to
 * RLIMIT_FSIZE too, so only memory that is shared pays that, once, when it is
 * first shared; a memfd has no name and ends with the last process that holds
 * it open or mapped. Its size is sealed: a process that maps it cannot cut it
 * short under the others' mappings (their next access would die of SIGBUS).
 *
 * This file is compiled without AddressSanitizer: it writes the shadow.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <sanitizer/asan_interface.h>

#include "emu_internal.h"

namespace cuda_emu {

namespace {

const char kMemfdName[] = "cuda-emu"; /* what /proc/PID/fd/N of a shared allocation reads */
constexpr int kSizeSeals = F_SEAL_SHRINK | F_SEAL_GROW; /* a shared allocation's size is fixed */
constexpr uint8_t kHeapRedzone = 0xfa; /* AddressSanitizer's heap red zone shadow value */

size_t page_size()
{
    static size_t p = (size_t)sysconf(_SC_PAGESIZE);
    return p;
}

size_t round_to_pages(size_t size)
{
    const size_t page = page_size();
    return (size + page - 1) / page * page;
}

/* Sets the shadow of [A, A+N) (A and N multiples of 8) to VALUE. */
void set_shadow(uintptr_t a, size_t n, uint8_t value)
{
    size_t scale = 0, offset = 0;
    __asan_get_shadow_mapping(&scale, &offset);
    /* Not memset: AddressSanitizer's interceptor refuses the shadow itself. */
    volatile uint8_t *sh = reinterpret_cast<volatile uint8_t *>((a >> scale) + offset);
    for (size_t i = 0; i < n >> scale; ++i)
        sh[i] = value;
}

/* Maps SIZE bytes between guard pages into M: anonymous memory when FD is -1,
 * else the memfd FD (which M does not keep). False on failure. */
bool map_guarded(int fd, size_t size, DeviceMapping *m)
{
    const size_t page = page_size(), data_len = round_to_pages(size);
    m->map_len = data_len + 2 * page;
    void *base = mmap(nullptr, m->map_len, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return false;
    m->base = static_cast<char *>(base);
    if (fd >= 0 && mmap(m->base + page, data_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                        fd, 0) == MAP_FAILED) {
        munmap(base, m->map_len);
        return false;
    }
    m->data = m->base + page;
    m->size = size;
    m->fd = -1;
    /* Red zones: the front guard page, the slack after SIZE (its first partial
     * granule says how many of its bytes are addressable), the back guard. */
    uintptr_t lo = reinterpret_cast<uintptr_t>(m->base);
    uintptr_t end = reinterpret_cast<uintptr_t>(m->data) + size;
    uintptr_t granule_end = (end + 7) & ~(uintptr_t)7;
    set_shadow(lo, page, kHeapRedzone);
    if (end & 7) {
        size_t scale = 0, offset = 0;
        __asan_get_shadow_mapping(&scale, &offset);
        *reinterpret_cast<uint8_t *>(((end & ~(uintptr_t)7) >> scale) + offset) = (uint8_t)(end & 7);
    }
    set_shadow(granule_end, lo + m->map_len - granule_end, kHeapRedzone);
    return true;
}

} // namespace

bool devmem_create(size_t size, DeviceMapping *m)
{
    memset(m, 0, sizeof *m);
    return map_guarded(-1, size, m);
}

bool devmem_share(DeviceMapping *m, char *why, size_t why_len)
{
    if (m->fd >= 0)
        return true;
    const size_t data_len = round_to_pages(m->size);
    /* Sizing a memfd past RLIMIT_FSIZE would raise SIGXFSZ, which ends the
     * process: say so instead. */
    struct rlimit limit;
    if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        data_len > limit.rlim_cur) {
        snprintf(why, why_len, "sharing %zu bytes needs a file of that size, over this process's "
                 "file-size limit (RLIMIT_FSIZE, %llu bytes)", data_len,
                 (unsigned long long)limit.rlim_cur);
        return false;
    }
    const int fd = memfd_create(kMemfdName, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)data_len) != 0) {
        snprintf(why, why_len, "no memfd of %zu bytes: %s", data_len, strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    /* The allocation's bytes so far into the memfd (not the slack after them:
     * AddressSanitizer checks the range, and the slack is a red zone), then the
     * memfd in the anonymous pages' place, at the same address (pointers and
     * the shadow stay valid). */
    for (size_t done = 0; done < m->size;) {
        const ssize_t w = pwrite(fd, m->data + done, m->size - done, (off_t)done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(why, why_len, "cannot fill the memfd: %s", strerror(errno));
            close(fd);
            return false;
        }
        done += (size_t)w;
    }
    if (fcntl(fd, F_ADD_SEALS, kSizeSeals | F_SEAL_SEAL) != 0 ||
        mmap(m->data, data_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
            MAP_FAILED) {
        snprintf(why, why_len, "cannot seal or map the memfd: %s", strerror(errno));
        close(fd);
        return false;
    }
    m->fd = fd;
    return true;
}

bool devmem_import(int fd, size_t size, DeviceMapping *m)
{
    memset(m, 0, sizeof *m);
    struct stat st;
    const int seals = fcntl(fd, F_GET_SEALS);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < size ||
        seals < 0 || (seals & kSizeSeals) != kSizeSeals)
        return false; /* not a shared allocation, or one whose size could change under us */
    return map_guarded(fd, size, m); /* no descriptor held per imported buffer */
}

bool devmem_open_shared(int pid, int fd, uint64_t inode, size_t size, DeviceMapping *m)
{
    memset(m, 0, sizeof *m);
    char path[64], link[64] = "";
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    /* Only the emulator's own memfds, and the very one the handle was made
     * for (a descriptor number is reused once its allocation is freed). */
    const ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0 || strncmp(link, "/memfd:", 7) != 0 ||
        strncmp(link + 7, kMemfdName, sizeof kMemfdName - 1) != 0)
        return false;
    const int f = open(path, O_RDWR | O_CLOEXEC);
    if (f < 0)
        return false;
    struct stat st;
    const bool ok = fstat(f, &st) == 0 && (uint64_t)st.st_ino == inode && devmem_import(f, size, m);
    close(f);
    return ok;
}

void devmem_release(DeviceMapping *m)
{
    set_shadow(reinterpret_cast<uintptr_t>(m->base), m->map_len, 0);
    munmap(m->base, m->map_len);
    if (m->fd >= 0)
        close(m->fd);
    m->fd = -1;
}

} // namespace cuda_emu
