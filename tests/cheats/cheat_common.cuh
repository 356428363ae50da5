/* cheat_common.cuh - pieces the cheat cases share: an honest lab 01 kernel (fast, coalesced,
 * one float per thread) and a wrong one, and lab 05's plain pipeline, so that each case shows
 * only its attack. Put into
 * the case's file in place of its #include when the case is graded (a student hands in one file). */
#ifndef CHEAT_COMMON_CUH
#define CHEAT_COMMON_CUH
#include <cuda_runtime.h>

static __global__ void honest_kernel(float *out, const float *in, const float *scale,
                                     const float *bias, int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const int r = (int)(i / cols);
        out[i] = in[i] * scale[r] + bias[r];
    }
}

static inline void honest_coalescing(float *out, const float *in, const float *scale,
                                     const float *bias, int rows, int cols, cudaStream_t s)
{
    const size_t n = (size_t)rows * cols;
    unsigned blocks = (unsigned)((n + 255) / 256);
    honest_kernel<<<blocks < 65535 ? blocks : 65535, 256, 0, s>>>(out, in, scale, bias, rows,
                                                                   cols);
}

/* Correct but slow: one thread per row, so a warp's 32 accesses fall in 32 different sectors
 * (the skeleton's mistake). A cheat that only adds an attack to this must stay slow. */
static __global__ void by_rows_kernel(float *out, const float *in, const float *scale,
                                      const float *bias, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows)
        for (int c = 0; c < cols; c++)
            out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

static inline void slow_coalescing(float *out, const float *in, const float *scale,
                                   const float *bias, int rows, int cols, cudaStream_t s)
{
    by_rows_kernel<<<(rows + 127) / 128, 128, 0, s>>>(out, in, scale, bias, rows, cols);
}

/* As fast as the reference: the matrix as one flat array of float4 (n need not be a multiple
 * of 4 of a row), a grid-stride loop, streaming loads and stores. */
static __global__ void flat_float4_kernel(float *out, const float *in, const float *scale,
                                          const float *bias, unsigned n, unsigned cols)
{
    const unsigned n4 = n / 4, stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 v = __ldcs((const float4 *)in + i);
        float *x = &v.x;
        for (int k = 0; k < 4; k++) {
            const unsigned r = (4 * i + k) / cols;
            x[k] = fmaf(x[k], scale[r], bias[r]);
        }
        __stcs((float4 *)out + i, v);
    }
    const unsigned tail = 4 * n4 + blockIdx.x * blockDim.x + threadIdx.x;
    if (tail < n)
        out[tail] = fmaf(in[tail], scale[tail / cols], bias[tail / cols]);
}

static inline void fast_coalescing(float *out, const float *in, const float *scale,
                                   const float *bias, int rows, int cols, cudaStream_t s)
{
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    flat_float4_kernel<<<sms * 8, 256, 0, s>>>(out, in, scale, bias, (unsigned)rows * cols,
                                               (unsigned)cols);
}

/* Writes zeros: wrong for every element. */
static __global__ void wrong_kernel(float *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = 0.f;
}

/* The ending of a case that tests a door of the sandbox: an honest answer (fast enough to pass)
 * when every attempt was refused, a wrong one when any succeeded, so that the verdicts say
 * which. */
static inline void honest_unless(int doors_open, float *out, const float *in, const float *scale,
                                 const float *bias, int rows, int cols, cudaStream_t s)
{
    if (doors_open > 0)
        wrong_kernel<<<64, 256, 0, s>>>(out, (size_t)rows * cols);
    else
        honest_coalescing(out, in, scale, bias, rows, cols, s);
}

/* The same, for a case whose attempts (DOORS_OPEN: how many succeeded) need another process
 * that may start late, such as the reference's worker at the speed check's first call: they
 * are made again at each new size, not in every timed call (a scan there would be slow). */
static inline void honest_unless_at_each_size(int (*doors_open)(void), float *out, const float *in,
                                              const float *scale, const float *bias, int rows,
                                              int cols, cudaStream_t s)
{
    static int doors, last_rows, last_cols;
    if (rows != last_rows || cols != last_cols) {
        doors += doors_open();
        last_rows = rows, last_cols = cols;
    }
    honest_unless(doors, out, in, scale, bias, rows, cols, s);
}

/* Allocate every byte of device memory this process can get (32 MiB at a time, then smaller
 * pieces down to 1 MiB; under the CPU emulator each piece is a file, which the sandbox keeps
 * under 64 MiB) and keep it for the process's life; once per process. Returns the bytes
 * held. */
static inline size_t hold_all_device_memory(void)
{
    static size_t held;
    static int done;
    if (done)
        return held;
    done = 1;
    for (size_t piece = (size_t)32 << 20; piece >= ((size_t)1 << 20); piece /= 2) {
        void *p = NULL;
        while (cudaMalloc(&p, piece) == cudaSuccess)
            held += piece;
        cudaGetLastError(); /* the failure that ended the loop is expected */
    }
    return held;
}

#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>

/* Point this shared object's import slot for `name` at `fn`: every call of `name` from this
 * object (the grader's shim lives in the same object) then goes to `fn`. */
static void *patch_target;
static const char *patch_name;
static void *patch_fn;

static int patch_scan(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    int mine = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const char *lo = (const char *)(info->dlpi_addr + ph->p_vaddr);
        if (ph->p_type == PT_LOAD && (const char *)patch_target >= lo &&
            (const char *)patch_target < lo + ph->p_memsz)
            mine = 1;
    }
    if (!mine)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_DYNAMIC)
            continue;
        const ElfW(Dyn) *dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        const ElfW(Rela) *rel = NULL;
        size_t relsz = 0;
        const ElfW(Sym) *sym = NULL;
        const char *str = NULL;
        for (; dyn->d_tag != DT_NULL; dyn++) {
            if (dyn->d_tag == DT_JMPREL) rel = (const ElfW(Rela) *)dyn->d_un.d_ptr;
            if (dyn->d_tag == DT_PLTRELSZ) relsz = dyn->d_un.d_val;
            if (dyn->d_tag == DT_SYMTAB) sym = (const ElfW(Sym) *)dyn->d_un.d_ptr;
            if (dyn->d_tag == DT_STRTAB) str = (const char *)dyn->d_un.d_ptr;
        }
        for (size_t k = 0; rel && sym && str && k < relsz / sizeof *rel; k++) {
            const ElfW(Sym) *s = &sym[ELF64_R_SYM(rel[k].r_info)];
            if (strcmp(str + s->st_name, patch_name))
                continue;
            void **slot = (void **)(info->dlpi_addr + rel[k].r_offset);
            char *page = (char *)((uintptr_t)slot & ~(uintptr_t)4095);
            mprotect(page, 8192, PROT_READ | PROT_WRITE);
            *slot = patch_fn;
            return 1;
        }
    }
    return 0;
}

static inline int patch_import(void *any_local_address, const char *name, void *fn)
{
    patch_target = any_local_address, patch_name = name, patch_fn = fn;
    return dl_iterate_phdr(patch_scan, NULL);
}

/* For the cases that attack make grade's WHERE line (c45-c54). Under the emulator the line names
 * the costliest line of the student's file in one counted call of the speed problem; in lab 01
 * that call is the only one with 8191 columns (no correctness check has as many), so an attack
 * can wait for it (where_run) and leave every graded call honest. The WHERE line then says what
 * happened: each kernel below recomputes every element again, one thread per row (a sector per
 * lane, 32 where 4 would do: a cost the WHERE line names, more than the whole reference's call,
 * and nothing else of an honest call costs as much), on a line that reads "counted here" (the
 * attack failed, and the count named this file's own line) or "attack worked", first on the line
 * so that the hint's quote of it (its first 60 bytes) shows the words. */
static inline int where_run(int cols) { return cols == 8191; }

static __global__ void where_blocked_kernel(float *out, const float *in, const float *scale,
                                            const float *bias, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    /* counted here: the attack did not work */ for (int c = 0; r < rows && c < cols; c++) out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

static __global__ void where_worked_kernel(float *out, const float *in, const float *scale,
                                           const float *bias, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    /* attack worked */ for (int c = 0; r < rows && c < cols; c++) out[(size_t)r * cols + c] = in[(size_t)r * cols + c] * scale[r] + bias[r];
}

/* The honest result, then the line that tells whether `worked`. */
static inline void where_says(int worked, float *out, const float *in, const float *scale,
                              const float *bias, int rows, int cols, cudaStream_t s)
{
    honest_coalescing(out, in, scale, bias, rows, cols, s);
    if (worked)
        where_worked_kernel<<<(rows + 31) / 32, 32, 0, s>>>(out, in, scale, bias, rows, cols);
    else
        where_blocked_kernel<<<(rows + 31) / 32, 32, 0, s>>>(out, in, scale, bias, rows, cols);
}
#ifdef CONTRACT_STREAMS_H
/* Lab 05 (a case that includes streams.h first): the whole array through one stream, in, the
 * grader's kernel, out; right, not overlapped. */
static inline void honest_streams(float *h_out, const float *h_in, float *d_out, float *d_in,
                                  size_t n, streams_kernel process)
{
    const size_t bytes = n * sizeof(float);
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, stream);
    process(d_out, d_in, n, stream);
    cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
}
#endif
#endif
