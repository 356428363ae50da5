/* sgemm_tiled.cuh - lab 09's tiled SGEMM kernel, written once: the reference (sgemm.cu, its
 * lesson in its opening comment) and ladder rungs 6 and 7 (steps/) are this kernel with one
 * pipeline or another: sgemm_pipelined<PIPE_NONE>, <PIPE_REGS> (the reference) and <PIPE_ASYNC>.
 * solutions/09-sgemm/tune.cu times it in every tile configuration it lists.
 *
 * Everything here is in an anonymous namespace: each file that includes it gets its own copy,
 * and only the entry point sgemm() of the including file is seen from outside. */
#ifndef SOLUTIONS_SGEMM_TILED_CUH
#define SOLUTIONS_SGEMM_TILED_CUH

#include "sgemm.h"
#include "check.h"

#include <stddef.h>
#include <stdint.h>
namespace {

/* ------------------------------------------------------------------------------------------ */
/* Tile shapes                                                                                 */

/* A kernel configuration. BM x BN: the block's tile of C; BK: depth of one shared-memory slice;
 * WM x WN: one warp's tile; MI x NI: 4x4 pieces per lane (a lane's tile is 4*MI x 4*NI);
 * STAGES: shared-memory slices in flight (cp.async); MIN_BLOCKS: blocks per SM the register
 * allocation must allow (__launch_bounds__). */
template <int BM_, int BN_, int BK_, int WM_, int WN_, int MI_, int NI_, int STAGES_,
          int MIN_BLOCKS_>
struct Tile {
    static constexpr int BM = BM_, BN = BN_, BK = BK_;
    static constexpr int WM = WM_, WN = WN_;
    static constexpr int MI = MI_, NI = NI_;
    static constexpr int TM = 4 * MI, TN = 4 * NI;       /* a lane's tile of C */
    static constexpr int LM = WM / TM, LN = WN / TN;     /* lanes along M and N in a warp */
    static constexpr int THREADS = 32 * (BM / WM) * (BN / WN);
    /* The A slice is stored transposed (k-major), so a lane's 4 consecutive rows are one
     * 16-byte word. The 4-float pad shifts each k row by 4 banks: the transposing stores of
     * a warp (16 rows x 2 k-groups) then land in 32 different banks. */
    static constexpr int AS = BM + 4; /* floats per k row of the A slice */
    static constexpr int BS = BN;     /* floats per k row of the B slice */
    static constexpr int STAGE = BK * (AS + BS);
    static constexpr int STAGES = STAGES_;
    static constexpr int SMEM_BYTES = STAGES * STAGE * (int)sizeof(float);
    static constexpr int MIN_BLOCKS = MIN_BLOCKS_;
    /* Global -> shared copies per thread and slice. */
    static constexpr int A_ELEMS = BM * BK / THREADS;    /* floats of A: one run of one row */
    static constexpr int B_ELEMS = BK * BN / THREADS;    /* floats of B */
    static constexpr int B_VECS = B_ELEMS / 4;           /* ... as float4s */
    static_assert(LM * LN == 32, "a warp is 32 lanes");
    static_assert(BM % WM == 0 && BN % WN == 0, "warps tile the block");
    static_assert(BM * BK % THREADS == 0 && BK % A_ELEMS == 0 && A_ELEMS % 4 == 0,
                  "a thread's A floats are whole 16-byte words of one row");
    static_assert(B_ELEMS % 4 == 0 && THREADS % BN == 0, "B splits into whole columns");
};

/* Ways of feeding shared memory: rung 6 (NONE), the reference (REGS), rung 7 (ASYNC). */
enum Pipe {
    PIPE_NONE = 0,  /* load a slice, barrier, multiply, barrier: loads and math never overlap */
    PIPE_REGS = 1,  /* double buffer: the next slice waits in registers while this one is used */
    PIPE_ASYNC = 2, /* cp.async into STAGES buffers; without cp.async, plain loads, same order */
};

/* ------------------------------------------------------------------------------------------ */
/* cp.async (sm_80+): global -> shared without passing through registers                       */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(CUDA_EMU)
#define SGEMM_HAVE_CP_ASYNC 1
#else
#define SGEMM_HAVE_CP_ASYNC 0 /* sm_75, host pass, CPU emulator: plain copies, same order */
#endif

#if SGEMM_HAVE_CP_ASYNC
/* Copy 4 bytes to shared address `dst`; when !valid, write 0 instead and read nothing. */
__device__ __forceinline__ void cp_async4(unsigned dst, const float *src, bool valid)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src),
                 "r"(valid ? 4 : 0));
}

/* Copy 16 bytes (both sides 16-byte aligned), caching in L2 only; zeros when !valid. */
__device__ __forceinline__ void cp_async16(unsigned dst, const float *src, bool valid)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(valid ? 16 : 0));
}
#endif

__device__ __forceinline__ void cp_async_commit()
{
#if SGEMM_HAVE_CP_ASYNC
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/* Wait until at most N of this thread's committed groups are still in flight. */
template <int N>
__device__ __forceinline__ void cp_async_wait()
{
#if SGEMM_HAVE_CP_ASYNC
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/* ------------------------------------------------------------------------------------------ */
/* Global -> shared: what each thread copies                                                   */

/* One thread's share of every slice copy, and where the copies are in K.
 *   A: A_ELEMS consecutive floats of one row (one or two 16-byte words when vectorized),
 *      stored transposed: element j goes to k row a_k0 + j, column a_m0 of the stage.
 *   B: NB loads (float4s, or floats) of one column group, in rows b_k0, b_k0 + B_ROWSTEP, ..
 * Rows of A past M and columns of B past N are clamped to the last valid one, so every load
 * is in bounds and the loop has no row or column test (they only feed elements of C that are
 * never stored). When K % BK != 0 the FIRST slice is the partial one: it starts at the
 * negative k_first = K % BK - BK and zero-fills k < 0, so every later slice is whole and the
 * steady-state loop tests nothing. Slices are copied in order; the pointers advance by one. */
template <class T, bool VEC>
struct Loader {
    static constexpr int NB = VEC ? T::B_VECS : T::B_ELEMS;  /* B loads per slice */
    static constexpr int BW = VEC ? 4 : 1;                    /* floats per B load */
    static constexpr int B_ROWSTEP = T::THREADS * BW / T::BN; /* slice rows between B loads */
    const float *a_src;   /* this thread's A floats of the next slice to copy */
    const float *b_src;   /* its first B load of that slice */
    size_t b_rowstep;     /* B_ROWSTEP rows of B, in floats */
    size_t b_slice;       /* BK rows of B, in floats */
    int a_k0, a_m0;       /* where the A floats go: k row and column in a stage */
    int b_k0, b_n0;       /* where the first B load goes */
    int k_first;          /* k of the first slice: 0, or negative when K % BK != 0 */

    __device__ __forceinline__ Loader(int M, int N, int K, const float *A, const float *B,
                                      int row0, int col0, int tid)
    {
        k_first = K % T::BK == 0 ? 0 : K % T::BK - T::BK;
        a_m0 = tid * T::A_ELEMS / T::BK;
        a_k0 = tid * T::A_ELEMS % T::BK;
        a_src = A + (size_t)min(row0 + a_m0, M - 1) * K + (k_first + a_k0);
        b_k0 = tid / (T::BN / BW);
        b_n0 = tid % (T::BN / BW) * BW;
        b_src = B + (ptrdiff_t)(k_first + b_k0) * N + min(col0 + b_n0, N - BW); /* VEC: N%4==0 */
        b_rowstep = (size_t)B_ROWSTEP * N;
        b_slice = (size_t)T::BK * N;
    }

    /* In the first slice, is A element j / B load i at k >= 0? (Always, after it.) */
    __device__ __forceinline__ bool a_ok(int j) const { return k_first + a_k0 + j >= 0; }
    __device__ __forceinline__ bool b_ok(int i) const
    {
        return k_first + b_k0 + i * B_ROWSTEP >= 0;
    }

    /* Register path: global -> registers (ra, rb) for the next slice. FIRST: the first slice. */
    template <bool FIRST>
    __device__ __forceinline__ void load(float (&ra)[T::A_ELEMS], float (&rb)[NB * BW])
    {
        if (VEC) {
#pragma unroll
            for (int q = 0; q < T::A_ELEMS / 4; q++) {
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (!FIRST || a_ok(4 * q)) /* K % 4 == 0: all 4 in or all out */
                    v = *reinterpret_cast<const float4 *>(a_src + 4 * q);
                ra[4 * q + 0] = v.x, ra[4 * q + 1] = v.y, ra[4 * q + 2] = v.z, ra[4 * q + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < NB; i++) {
                float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
                if (!FIRST || b_ok(i))
                    v = *reinterpret_cast<const float4 *>(b_src + i * b_rowstep);
                rb[4 * i + 0] = v.x, rb[4 * i + 1] = v.y, rb[4 * i + 2] = v.z, rb[4 * i + 3] = v.w;
            }
        } else {
#pragma unroll
            for (int j = 0; j < T::A_ELEMS; j++)
                ra[j] = (!FIRST || a_ok(j)) ? a_src[j] : 0.f;
#pragma unroll
            for (int i = 0; i < NB; i++)
                rb[i] = (!FIRST || b_ok(i)) ? b_src[i * b_rowstep] : 0.f;
        }
        a_src += T::BK;
        b_src += b_slice;
    }

    /* Register path: registers -> the stage at `stage`, A transposed to k-major. */
    __device__ __forceinline__ void store(const float (&ra)[T::A_ELEMS],
                                          const float (&rb)[NB * BW], float *stage) const
    {
        float *As = stage, *Bs = stage + T::BK * T::AS;
#pragma unroll
        for (int j = 0; j < T::A_ELEMS; j++)
            As[(a_k0 + j) * T::AS + a_m0] = ra[j];
#pragma unroll
        for (int i = 0; i < NB; i++) {
            float *dst = &Bs[(b_k0 + i * B_ROWSTEP) * T::BS + b_n0];
            if (VEC)
                *reinterpret_cast<float4 *>(dst) =
                    make_float4(rb[4 * i + 0], rb[4 * i + 1], rb[4 * i + 2], rb[4 * i + 3]);
            else
                *dst = rb[i];
        }
    }

    /* cp.async path: start copying the next slice into the stage `stage_bytes` bytes into
     * shared memory at `smem`. A goes 4 bytes at a time (a 16-byte copy cannot transpose).
     * `A`, `B`: any valid address, given to the copies that zero-fill. */
    template <bool FIRST>
    __device__ __forceinline__ void issue(float *smem, unsigned stage_bytes, const float *A,
                                          const float *B)
    {
#if SGEMM_HAVE_CP_ASYNC
        const unsigned base = (unsigned)__cvta_generic_to_shared(smem) + stage_bytes;
        const unsigned a_dst = base + 4u * (a_k0 * T::AS + a_m0);
        const unsigned b_dst = base + 4u * (T::BK * T::AS + b_k0 * T::BS + b_n0);
#pragma unroll
        for (int j = 0; j < T::A_ELEMS; j++) {
            const bool ok = !FIRST || a_ok(j);
            cp_async4(a_dst + 4u * j * T::AS, ok ? a_src + j : A, ok);
        }
#pragma unroll
        for (int i = 0; i < NB; i++) {
            const bool ok = !FIRST || b_ok(i);
            const unsigned dst = b_dst + 4u * i * B_ROWSTEP * T::BS;
            if (VEC)
                cp_async16(dst, ok ? b_src + i * b_rowstep : B, ok);
            else
                cp_async4(dst, ok ? b_src + i * b_rowstep : B, ok);
        }
        a_src += T::BK;
        b_src += b_slice;
#else
        (void)A, (void)B;
        float ra[T::A_ELEMS], rb[NB * BW];
        load<FIRST>(ra, rb);
        store(ra, rb, smem + stage_bytes / sizeof(float));
#endif
    }
};

/* ------------------------------------------------------------------------------------------ */
/* The multiply: one BK slice into the lane's registers                                        */

/* acc += A_slice * B_slice for this lane's tile. a_off / b_off: the lane's first row / column
 * within the slice. Per k: MI + NI 16-byte shared loads, 16 * MI * NI FFMAs. The fragment
 * of a lane is 4 consecutive floats; the LM (or LN) lanes that share a k read LM adjacent
 * 16-byte words, which fall in distinct banks: one shared-memory wavefront per load. */
template <class T>
__device__ __forceinline__ void multiply_slice(const float *__restrict__ As,
                                               const float *__restrict__ Bs, int a_off,
                                               int b_off, float (&acc)[T::TM][T::TN])
{
#pragma unroll
    for (int k = 0; k < T::BK; k++) {
        float a[T::TM], b[T::TN];
#pragma unroll
        for (int mi = 0; mi < T::MI; mi++) {
            const float4 v =
                *reinterpret_cast<const float4 *>(&As[k * T::AS + a_off + mi * T::LM * 4]);
            a[4 * mi + 0] = v.x, a[4 * mi + 1] = v.y, a[4 * mi + 2] = v.z, a[4 * mi + 3] = v.w;
        }
#pragma unroll
        for (int ni = 0; ni < T::NI; ni++) {
            const float4 v =
                *reinterpret_cast<const float4 *>(&Bs[k * T::BS + b_off + ni * T::LN * 4]);
            b[4 * ni + 0] = v.x, b[4 * ni + 1] = v.y, b[4 * ni + 2] = v.z, b[4 * ni + 3] = v.w;
        }
#pragma unroll
        for (int i = 0; i < T::TM; i++)
#pragma unroll
            for (int j = 0; j < T::TN; j++)
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* The kernel                                                                                  */

template <class T, int PIPE, bool VEC>
__global__ void __launch_bounds__(T::THREADS, T::MIN_BLOCKS)
sgemm_tiled(int M, int N, int K, float alpha, const float *__restrict__ A,
            const float *__restrict__ B, float beta, float *__restrict__ C)
{
    typedef Loader<T, VEC> Load;
    extern __shared__ float4 smem_raw[]; /* float4: 16-byte aligned */
    float *const smem = reinterpret_cast<float *>(smem_raw);

    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int row0 = blockIdx.y * T::BM, col0 = blockIdx.x * T::BN;
    /* This lane's place: warp tile (wm0, wn0) in the block, lane (lm, ln) in the warp. */
    const int wm0 = (warp / (T::BN / T::WN)) * T::WM, wn0 = (warp % (T::BN / T::WN)) * T::WN;
    const int lm = lane / T::LN, ln = lane % T::LN;
    const int a_off = wm0 + lm * 4, b_off = wn0 + ln * 4;

    Load L(M, N, K, A, B, row0, col0, tid);
    const int slices = (K + T::BK - 1) / T::BK;

    float acc[T::TM][T::TN];
#pragma unroll
    for (int i = 0; i < T::TM; i++)
#pragma unroll
        for (int j = 0; j < T::TN; j++)
            acc[i][j] = 0.f;

    if (PIPE == PIPE_NONE) {
        /* Copy a slice, barrier, multiply, barrier: the SM waits for memory every slice, with
         * only the other resident blocks to fill the gap. */
        float ra[T::A_ELEMS], rb[Load::NB * Load::BW];
        for (int s = 0; s < slices; s++) {
            if (s == 0)
                L.template load<true>(ra, rb);
            else
                L.template load<false>(ra, rb);
            L.store(ra, rb, smem);
            __syncthreads();
            multiply_slice<T>(smem, smem + T::BK * T::AS, a_off, b_off, acc);
            __syncthreads(); /* all done reading before the next slice overwrites it */
        }
    } else if (PIPE == PIPE_REGS) {
        /* Two stages. Slice s+1 is read into registers before slice s is multiplied (its
         * latency hides behind the FMAs) and stored to the other stage after: one barrier per
         * slice, and the loads cost registers (A_ELEMS + B_ELEMS per thread). */
        float ra[T::A_ELEMS], rb[Load::NB * Load::BW];
        L.template load<true>(ra, rb);
        L.store(ra, rb, smem);
        __syncthreads();
        float *cur = smem, *next = smem + T::STAGE;
        for (int s = 0; s < slices; s++) {
            const bool more = s + 1 < slices;
            if (more)
                L.template load<false>(ra, rb);
            multiply_slice<T>(cur, cur + T::BK * T::AS, a_off, b_off, acc);
            if (more)
                L.store(ra, rb, next);
            __syncthreads();
            float *t = cur;
            cur = next, next = t;
        }
    } else {
        /* STAGES-deep cp.async pipeline: STAGES-1 slices are in flight while one is multiplied.
         * One barrier per slice: it makes slice s visible to every thread, and tells every
         * thread that the stage about to be refilled (read in the previous iteration) is free. */
        constexpr unsigned STAGE_BYTES = T::STAGE * sizeof(float);
        L.template issue<true>(smem, 0, A, B);
        cp_async_commit();
#pragma unroll
        for (int s = 1; s < T::STAGES - 1; s++) {
            if (s < slices)
                L.template issue<false>(smem, s * STAGE_BYTES, A, B);
            cp_async_commit(); /* an empty group keeps the wait count below uniform */
        }
        const float *cur = smem;
        unsigned write = (T::STAGES - 1) * STAGE_BYTES;
        for (int s = 0; s < slices; s++) {
            cp_async_wait<T::STAGES - 2>(); /* this thread's copies of slice s have landed */
            __syncthreads();                /* ... and everyone else's */
            if (s + T::STAGES - 1 < slices)
                L.template issue<false>(smem, write, A, B);
            cp_async_commit();
            multiply_slice<T>(cur, cur + T::BK * T::AS, a_off, b_off, acc);
            cur += T::STAGE;
            if (cur == smem + T::STAGES * T::STAGE)
                cur = smem;
            write += STAGE_BYTES;
            if (write == T::STAGES * STAGE_BYTES)
                write = 0;
        }
        cp_async_wait<0>();
    }

    /* Epilogue: C = alpha * acc + beta * C for the elements inside C. With beta == 0, C is not
     * read (BLAS convention: it may hold anything, NaN included). */
#pragma unroll
    for (int mi = 0; mi < T::MI; mi++)
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const int row = row0 + wm0 + mi * T::LM * 4 + lm * 4 + r;
            if (row >= M)
                continue;
            float *const crow = C + (size_t)row * N;
#pragma unroll
            for (int ni = 0; ni < T::NI; ni++) {
                const int col = col0 + wn0 + ni * T::LN * 4 + ln * 4;
                const float *v = &acc[mi * 4 + r][ni * 4];
                if (VEC && col + 3 < N) {
                    float4 c = make_float4(0.f, 0.f, 0.f, 0.f);
                    if (beta != 0.f)
                        c = *reinterpret_cast<const float4 *>(crow + col);
                    c.x = alpha * v[0] + beta * c.x;
                    c.y = alpha * v[1] + beta * c.y;
                    c.z = alpha * v[2] + beta * c.z;
                    c.w = alpha * v[3] + beta * c.w;
                    *reinterpret_cast<float4 *>(crow + col) = c;
                } else {
#pragma unroll
                    for (int j = 0; j < 4; j++)
                        if (col + j < N)
                            crow[col + j] =
                                alpha * v[j] + (beta != 0.f ? beta * crow[col + j] : 0.f);
                }
            }
        }
}

/* ------------------------------------------------------------------------------------------ */
/* Launching                                                                                   */

/* Launch configuration T with pipeline PIPE; `vec` when 16-byte loads are legal (K and N
 * multiples of 4, 16-byte aligned pointers). */
template <class T, int PIPE>
void launch_tiled(int M, int N, int K, float alpha, const float *A, const float *B, float beta,
                  float *C, cudaStream_t stream)
{
    const bool vec = K % 4 == 0 && N % 4 == 0 && ((uintptr_t)A | (uintptr_t)B | (uintptr_t)C) % 16 == 0;
    const dim3 grid((N + T::BN - 1) / T::BN, (M + T::BM - 1) / T::BM);
    const int smem = PIPE == PIPE_NONE ? T::STAGE * (int)sizeof(float)
                     : PIPE == PIPE_REGS ? 2 * T::STAGE * (int)sizeof(float)
                                         : T::SMEM_BYTES;
    if (vec) {
#if !defined(CUDA_EMU)
        if (smem > 48 * 1024) /* above 48 KB a kernel must opt in; idempotent, so no caching */
            CUDA_CHECK(cudaFuncSetAttribute(sgemm_tiled<T, PIPE, true>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
#endif
        sgemm_tiled<T, PIPE, true><<<grid, T::THREADS, smem, stream>>>(M, N, K, alpha, A, B, beta, C);
        CUDA_CHECK_LAUNCH();
    } else {
#if !defined(CUDA_EMU)
        if (smem > 48 * 1024)
            CUDA_CHECK(cudaFuncSetAttribute(sgemm_tiled<T, PIPE, false>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
#endif
        sgemm_tiled<T, PIPE, false><<<grid, T::THREADS, smem, stream>>>(M, N, K, alpha, A, B, beta, C);
        CUDA_CHECK_LAUNCH();
    }
}

/* The configurations the reference chooses from (measured on an H200 with
 * solutions/09-sgemm/tune.cu against 21 others: BK 8/16/32, 128x256 and 256x128 tiles, 8x16
 * lane tiles, cp.async with 2-4 stages; this one was the fastest at 4096^3 and 2048^3).
 * Large: 128 x 128 tiles, BK = 8, 8 warps of 64 x 32, 8 x 8 per lane: 64 accumulators and
 * 16 fragment floats per k, 125 registers, so 2 blocks (16 warps) fit an SM's 64K registers;
 * 2 x 16.6 KB of shared memory per block. (STAGES = 3 is used by the cp.async variant only.)
 * Small: 64 x 64 tiles for problems with fewer 128 x 128 tiles than SMs. */
typedef Tile<128, 128, 8, 64, 32, 2, 2, 3, 2> TileLarge;
typedef Tile<64, 64, 8, 32, 32, 1, 2, 3, 3> TileSmall;

/* C = alpha * A * B + beta * C with pipeline PIPE, in the tile that suits the problem: the SM
 * count, read once per device, decides it. With fewer 128 x 128 tiles than SMs, some SMs would
 * idle, and 64 x 64 tiles give four times as many blocks. */
template <int PIPE>
void sgemm_pipelined(int M, int N, int K, float alpha, const float *A, const float *B,
                     float beta, float *C, cudaStream_t stream)
{
    static int cached_dev = -1, sms = 0;
    int dev = 0;
    CUDA_CHECK(cudaGetDevice(&dev));
    if (dev != cached_dev) {
        CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
        cached_dev = dev;
    }
    const long long large_tiles = (long long)((M + 127) / 128) * ((N + 127) / 128);
    if (large_tiles >= sms)
        launch_tiled<TileLarge, PIPE>(M, N, K, alpha, A, B, beta, C, stream);
    else
        launch_tiled<TileSmall, PIPE>(M, N, K, alpha, A, B, beta, C, stream);
}

} /* namespace */

#endif
