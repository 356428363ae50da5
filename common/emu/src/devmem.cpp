/*
 * devmem.cpp -- the memory behind cudaMalloc: POSIX shared memory, so that
 * CUDA IPC works between processes.
 *
 * Every device allocation is a shm_open object ("/cuda-emu.PID.N") mapped
 * between two guard pages: [guard][data rounded up to pages][guard]. The
 * bytes after the allocation's end, and the guard pages, are marked in
 * AddressSanitizer's shadow as a heap red zone, so an access past either end
 * gets the same heap-buffer-overflow report as memory from malloc. Another
 * process that opens the object by name (cudaIpcOpenMemHandle) maps the same
 * pages the same way.
 *
 * The owner unlinks an object when it frees the allocation and, for what is
 * left, at exit or when a sanitizer ends the run; objects of processes that
 * died without either (killed by a signal) are unlinked by the next emulated
 * program that allocates device memory.
 *
 * This file is compiled without AddressSanitizer: it writes the shadow.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <sanitizer/asan_interface.h>

#include "emu_internal.h"

namespace cuda_emu {

namespace {

const char kPrefix[] = "cuda-emu."; /* names in /dev/shm: cuda-emu.PID.SERIAL */
constexpr uint8_t kHeapRedzone = 0xfa; /* AddressSanitizer's heap red zone shadow value */

/* Names this process created and has not unlinked yet. Never destroyed: the
 * exit handler runs after static destructors. */
std::vector<DeviceMapping *> &g_owned = *new std::vector<DeviceMapping *>();
unsigned g_serial;  /* names made so far */

size_t page_size()
{
    static size_t p = (size_t)sysconf(_SC_PAGESIZE);
    return p;
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

/* Unlinks what this process still owns (at exit, or when a sanitizer stops it). */
void unlink_owned()
{
    for (DeviceMapping *m : g_owned)
        if (m->owner == getpid())
            shm_unlink(m->name);
    g_owned.clear();
}

/* Unlinks the objects of emulated programs that are no longer running. */
void sweep_stale()
{
    DIR *d = opendir("/dev/shm");
    if (d == nullptr)
        return;
    while (struct dirent *e = readdir(d)) {
        if (strncmp(e->d_name, kPrefix, sizeof kPrefix - 1) != 0)
            continue;
        long pid = strtol(e->d_name + sizeof kPrefix - 1, nullptr, 10);
        if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
            char name[300];
            snprintf(name, sizeof name, "/%s", e->d_name);
            shm_unlink(name);
        }
    }
    closedir(d);
}

/* Maps SIZE bytes of FD between guard pages into M; false on failure. */
bool map_object(int fd, size_t size, DeviceMapping *m)
{
    size_t page = page_size();
    size_t data_len = (size + page - 1) / page * page;
    m->map_len = data_len + 2 * page;
    void *base = mmap(nullptr, m->map_len, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return false;
    m->base = static_cast<char *>(base);
    if (mmap(m->base + page, data_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
        MAP_FAILED) {
        munmap(base, m->map_len);
        return false;
    }
    m->data = m->base + page;
    m->size = size;
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
    static bool once = [] {
        sweep_stale();
        atexit(unlink_owned);
        return true;
    }();
    (void)once;
    memset(m, 0, sizeof *m);
    m->owner = getpid();
    int fd = -1;
    /* CUDA_EMU_SHM_GROUP: the grader's harness, run as root, gives its buffers to the group of
     * its workers (each an unprivileged uid of its own, all of that group) so that they can
     * open what it hands them; anyone else keeps 0600. */
    static const long group = [] {
        const char *g = getenv("CUDA_EMU_SHM_GROUP");
        return g ? strtol(g, NULL, 10) : -1L;
    }();
    for (int tries = 0; fd < 0 && tries < 100; ++tries) {
        snprintf(m->name, sizeof m->name, "/%s%d.%u", kPrefix, (int)m->owner, ++g_serial);
        fd = shm_open(m->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    }
    if (fd >= 0 && group >= 0 && (fchown(fd, (uid_t)-1, (gid_t)group) != 0 || fchmod(fd, 0660) != 0)) {
        close(fd);
        shm_unlink(m->name);
        return false;
    }
    if (fd < 0)
        return false;
    size_t page = page_size();
    if (ftruncate(fd, (off_t)((size + page - 1) / page * page)) != 0 || !map_object(fd, size, m)) {
        close(fd);
        shm_unlink(m->name);
        return false;
    }
    close(fd);
    g_owned.push_back(m);
    return true;
}

bool devmem_open(const char *name, size_t size, DeviceMapping *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", name);
    m->owner = 0; /* not ours to unlink */
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && (size_t)st.st_size >= size && map_object(fd, size, m);
    close(fd);
    return ok;
}

void devmem_release(DeviceMapping *m)
{
    set_shadow(reinterpret_cast<uintptr_t>(m->base), m->map_len, 0);
    munmap(m->base, m->map_len);
    for (size_t i = 0; i < g_owned.size(); ++i)
        if (g_owned[i] == m) {
            if (m->owner == getpid())
                shm_unlink(m->name);
            g_owned.erase(g_owned.begin() + (long)i);
            break;
        }
}

void devmem_unlink_all() { unlink_owned(); }

} // namespace cuda_emu
