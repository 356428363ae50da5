/* devcheck_test.cu - the grader's device checks (common/devcheck.cu) against the host.
 *
 * A speed check refreshes every input of every timed call on the device, hashes it before
 * and after the student's call, and compares every timed output with the reference's there.
 * Those kernels take 16 bytes at a time where the data is so aligned and 4 where it is not;
 * this program holds both paths to one definition:
 *   - a fill writes the same words at an aligned and an unaligned address, in its range;
 *   - a hash is the same for the same words at either address, and changes when a word
 *     changes (each bit of every word of a small buffer; three bits of words spread over a
 *     large one) or two differing words trade places;
 *   - a comparison finds the first and the number of bad elements, NaN never passes, and a
 *     bounded one gives its rule's verdict (computed here in double) on values a few ulps
 *     apart at every scale;
 *   - the sum of |x| matches the host's.
 * Sizes of 1 to 4 words past a multiple of 4 take every tail of the loops.
 *
 *   devcheck_test            the checks (make test runs it under the CPU emulator)
 *   devcheck_test --rate     on a GPU: also each kernel's rate on 1 GiB beside the copy
 *                            engine's (a memset's and a copy's), medians of 15 after a warm-up
 * Exit status 0 when every check holds. */
#include "check.h"
#include "devcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define EXPECT(cond, ...)                                                                      \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            failures++;                                                                        \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
            printf(__VA_ARGS__);                                                               \
            printf("\n");                                                                      \
        }                                                                                      \
    } while (0)

/* A device buffer of n words at a 16-byte aligned address (a) and one 4 bytes past one (u). */
typedef struct pair_of {
    unsigned *base_a, *base_u;
    unsigned *a, *u;
} pair_of;

static pair_of pair_alloc(size_t n)
{
    pair_of p;
    CUDA_CHECK(cudaMalloc(&p.base_a, (n + 4) * 4));
    CUDA_CHECK(cudaMalloc(&p.base_u, (n + 4) * 4));
    p.a = p.base_a;
    p.u = p.base_u + 1;
    return p;
}

static void pair_free(pair_of *p)
{
    CUDA_CHECK(cudaFree(p->base_a));
    CUDA_CHECK(cudaFree(p->base_u));
}

static unsigned *download(const unsigned *d, size_t n)
{
    unsigned *h = (unsigned *)malloc(n * 4 + 4);
    CUDA_CHECK(cudaMemcpy(h, d, n * 4, cudaMemcpyDeviceToHost));
    return h;
}

static void upload(unsigned *d, const unsigned *h, size_t n)
{
    CUDA_CHECK(cudaMemcpy(d, h, n * 4, cudaMemcpyHostToDevice));
}

static float as_float(unsigned w)
{
    float f;
    memcpy(&f, &w, 4);
    return f;
}

/* Fills: the same words at either address, within their range and step. */
static void check_fills(size_t n)
{
    pair_of p = pair_alloc(n);
    const float step = 1.f / 4096;
    dev_fill_f32((float *)p.a, n, 7, -1.f, 1.f, step, 0);
    dev_fill_f32((float *)p.u, n, 7, -1.f, 1.f, step, 0);
    unsigned *ha = download(p.a, n), *hu = download(p.u, n);
    EXPECT(!memcmp(ha, hu, n * 4), "fill_f32 of %zu words: the aligned and unaligned words differ", n);
    int in_range = 1, on_step = 1;
    for (size_t i = 0; i < n; i++) {
        const float x = as_float(ha[i]);
        in_range &= x >= -1.f && x <= 1.f;
        on_step &= floor(x / step) * step == x;
    }
    EXPECT(in_range, "fill_f32 of %zu words: a value outside [-1, 1]", n);
    EXPECT(on_step, "fill_f32 of %zu words: a value not a multiple of 2^-12", n);
    free(ha), free(hu);

    dev_fill_u32(p.a, n, 9, 0);
    dev_fill_u32(p.u, n, 9, 0);
    ha = download(p.a, n), hu = download(p.u, n);
    EXPECT(!memcmp(ha, hu, n * 4), "fill_u32 of %zu words: the aligned and unaligned words differ", n);
    size_t same_as_next = 0;
    for (size_t i = 0; i + 1 < n; i++)
        same_as_next += ha[i] == ha[i + 1];
    EXPECT(same_as_next == 0, "fill_u32 of %zu words: %zu words equal to the next", n, same_as_next);
    free(ha), free(hu);

    static const float values[3] = {-1.f, 0.f, 1.f};
    dev_fill_choice_f32((float *)p.a, n, 11, values, 3, 0);
    dev_fill_choice_f32((float *)p.u, n, 11, values, 3, 0);
    ha = download(p.a, n), hu = download(p.u, n);
    EXPECT(!memcmp(ha, hu, n * 4), "fill_choice of %zu words: the aligned and unaligned words differ", n);
    size_t seen[3] = {0, 0, 0}, other = 0;
    for (size_t i = 0; i < n; i++) {
        const float x = as_float(ha[i]);
        if (x == -1.f) seen[0]++;
        else if (x == 0.f) seen[1]++;
        else if (x == 1.f) seen[2]++;
        else other++;
    }
    EXPECT(other == 0, "fill_choice of %zu words: %zu values not among the three", n, other);
    if (n >= 3000) /* each of three values about n/3 times: within 10% of it */
        for (int v = 0; v < 3; v++)
            EXPECT(fabs((double)seen[v] - n / 3.0) < 0.1 * n / 3.0,
                   "fill_choice of %zu words: value %d drawn %zu times", n, v, seen[v]);
    free(ha), free(hu);
    pair_free(&p);
}

/* Hashes: one definition on either path; any changed word and any swap are seen. */
static void check_hash(size_t n, int every_bit)
{
    pair_of p = pair_alloc(n);
    dev_fill_u32(p.a, n, 13, 0);
    unsigned *h = download(p.a, n);
    upload(p.u, h, n);
    const uint64_t ha = dev_hash(p.a, n * 4, 0), hu = dev_hash(p.u, n * 4, 0);
    EXPECT(ha == hu, "hash of %zu words: %016llx aligned, %016llx unaligned", n,
           (unsigned long long)ha, (unsigned long long)hu);
    /* many at once: the same values as one at a time */
    const void *ps[2] = {p.a, p.u};
    const size_t bytes[2] = {n * 4, n * 4};
    uint64_t both[2] = {0, 0};
    dev_hash_many(ps, bytes, 2, both, 0);
    EXPECT(both[0] == ha && both[1] == ha, "dev_hash_many of %zu words differs from dev_hash", n);

    int missed = 0; /* every word of a small buffer; of a large one, 40 or so spread over it */
    for (size_t i = 0; i < n; i += n <= 70 ? 1 : n / 37)
        for (int bit = 0; bit < 32; bit += every_bit ? 1 : 13) {
            const unsigned was = h[i], now = was ^ (1u << bit);
            CUDA_CHECK(cudaMemcpy(p.u + i, &now, 4, cudaMemcpyHostToDevice));
            missed += dev_hash(p.u, n * 4, 0) == ha;
            CUDA_CHECK(cudaMemcpy(p.u + i, &was, 4, cudaMemcpyHostToDevice));
        }
    EXPECT(missed == 0, "hash of %zu words: %d one-bit changes not seen", n, missed);
    int swaps = 0, swaps_missed = 0;
    for (size_t i = 0; i + 1 < n && swaps < 64; i += 1 + i / 3, swaps++) {
        const size_t j = (i * 7 + 1) % n;
        if (h[i] == h[j])
            continue;
        CUDA_CHECK(cudaMemcpy(p.a + i, &h[j], 4, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(p.a + j, &h[i], 4, cudaMemcpyHostToDevice));
        swaps_missed += dev_hash(p.a, n * 4, 0) == ha;
        CUDA_CHECK(cudaMemcpy(p.a + i, &h[i], 4, cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(p.a + j, &h[j], 4, cudaMemcpyHostToDevice));
    }
    EXPECT(swaps_missed == 0, "hash of %zu words: %d of %d swaps not seen", n, swaps_missed, swaps);
    EXPECT(dev_hash(p.a, n * 4, 0) == ha, "hash of %zu words: not the same after restoring", n);
    free(h);
    pair_free(&p);
}

/* Comparisons: exact and within a bound, the first bad element and the count. */
static void check_compare(size_t n)
{
    pair_of g = pair_alloc(n), w = pair_alloc(n);
    dev_fill_f32((float *)w.a, n, 17, -1.f, 1.f, 0.f, 0);
    unsigned *h = download(w.a, n);
    upload(w.u, h, n);
    for (int path = 0; path < 2; path++) {
        unsigned *got = path ? g.u : g.a, *want = path ? w.u : w.a;
        const char *how = path ? "unaligned" : "aligned";
        upload(got, h, n);
        dev_compare_result r;
        dev_compare(got, want, n, DEV_F32, 0, 0, &r, 0);
        EXPECT(r.n_bad == 0, "compare of %zu equal words (%s): %llu bad", n, how, r.n_bad);
        /* two elements off, the later first */
        const size_t i1 = n - 1, i0 = n / 3;
        unsigned bad1 = h[i1] ^ 0x00400000u, bad0 = h[i0] + 1;
        CUDA_CHECK(cudaMemcpy(got + i1, &bad1, 4, cudaMemcpyHostToDevice));
        dev_compare(got, want, n, DEV_F32, 0, 0, &r, 0);
        EXPECT(r.n_bad == 1 && r.first_bad == i1, "compare of %zu words (%s): %llu bad from %llu, expected 1 from %zu",
               n, how, r.n_bad, r.first_bad, i1);
        if (i0 != i1) {
            CUDA_CHECK(cudaMemcpy(got + i0, &bad0, 4, cudaMemcpyHostToDevice));
            dev_compare(got, want, n, DEV_U32, 0, 0, &r, 0);
            EXPECT(r.n_bad == 2 && r.first_bad == i0, "compare of %zu words (%s): %llu bad from %llu, expected 2 from %zu",
                   n, how, r.n_bad, r.first_bad, i0);
            /* one ulp apart passes a bound of 2^-22, the flipped exponent bit does not */
            dev_compare(got, want, n, DEV_F32, 0x1p-22, 0, &r, 0);
            EXPECT(r.n_bad == 1 && r.first_bad == i1, "compare of %zu words (%s) within 2^-22: %llu bad from %llu",
                   n, how, r.n_bad, r.first_bad);
        }
        const unsigned nan = 0x7fc00000u;
        upload(got, h, n);
        CUDA_CHECK(cudaMemcpy(got + i1, &nan, 4, cudaMemcpyHostToDevice));
        dev_compare(got, want, n, DEV_F32, 1.0, 1.0, &r, 0);
        EXPECT(r.n_bad == 1 && r.first_bad == i1, "compare of %zu words (%s): a NaN passed a loose bound", n, how);
        /* the same NaN on both sides: still wrong within a bound, equal bit for bit */
        CUDA_CHECK(cudaMemcpy(want + i1, &nan, 4, cudaMemcpyHostToDevice));
        dev_compare(got, want, n, DEV_F32, 1.0, 1.0, &r, 0);
        EXPECT(r.n_bad == 1 && r.first_bad == i1, "compare of %zu words (%s): a NaN beside the same NaN passed a bound", n, how);
        dev_compare(got, want, n, DEV_F32, 0, 0, &r, 0);
        EXPECT(r.n_bad == 0, "compare of %zu words (%s): the same NaN on both sides failed the exact compare", n, how);
        CUDA_CHECK(cudaMemcpy(want + i1, &h[i1], 4, cudaMemcpyHostToDevice));
    }
    double host = 0;
    for (size_t i = 0; i < n; i++)
        host += fabs((double)as_float(h[i]));
    const double a = dev_abs_sum_f32((const float *)w.a, n, 0), u = dev_abs_sum_f32((const float *)w.u, n, 0);
    EXPECT(fabs(a - host) <= 1e-12 * host && fabs(u - host) <= 1e-12 * host,
           "sum of |x| of %zu words: %.17g aligned, %.17g unaligned, %.17g on the host", n, a, u, host);
    free(h);
    pair_free(&g), pair_free(&w);
}

/* y[i] = x[i] one unit in the last place away (the bits plus one): what an honest output
 * computed in another order looks like beside the reference's, at its worst. */
__global__ void one_ulp_off(unsigned *y, const unsigned *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        y[i] = x[i] + 1;
}

/* A bounded comparison gives the verdict of its rule, computed here in double, element by
 * element: on values a few ulps apart at every scale (subnormals, zeros of both signs, near
 * the largest float) and on values far apart, for exact, relative and absolute bounds. */
static void check_bounds_agree(void)
{
    enum { N = 4096 };
    static unsigned w[N], g[N];
    static const float scales[] = {1.f, 1.5f, 3e-38f, 1e-45f, 0.f, 3e38f, 7.25e-3f, 1e10f};
    for (int i = 0; i < N; i++) {
        float x = scales[i % 8] * (1.f + (float)(i % 97) / 97.f);
        if (i % 5 == 0)
            x = -x;
        memcpy(&w[i], &x, 4);
        const int k = (i / 8) % 13 - 6; /* -6 .. 6 units in the last place */
        g[i] = w[i] + (unsigned)k;
        if (i % 211 == 0)
            g[i] ^= 0x80000000u; /* the other sign */
        if (i % 97 == 3)
            g[i] = w[i] ^ 0x00400000u; /* far off */
    }
    static const double rels[] = {0x1p-22, 0x1p-23, 1e-5, 0.0, 0x1p-149};
    static const double abss[] = {0.0, 2e-6, 1e-44};
    unsigned *dg, *dw;
    CUDA_CHECK(cudaMalloc(&dg, sizeof g));
    CUDA_CHECK(cudaMalloc(&dw, sizeof w));
    upload(dg, g, N);
    upload(dw, w, N);
    for (size_t a = 0; a < sizeof rels / sizeof rels[0]; a++)
        for (size_t b = 0; b < sizeof abss / sizeof abss[0]; b++) {
            const double rel = rels[a], abs_tol = abss[b];
            if (rel == 0 && abs_tol == 0)
                continue; /* exact: another rule, checked above */
            unsigned long long bad = 0, first = ~0ull;
            for (int i = 0; i < N; i++) {
                const float gf = as_float(g[i]), wf = as_float(w[i]);
                int ok;
                if (g[i] == w[i])
                    ok = !isnan(gf);
                else if (!isfinite(gf) || !isfinite(wf))
                    ok = 0;
                else
                    ok = fabs((double)gf - wf) <= rel * fmax(fabs((double)gf), fabs((double)wf)) + abs_tol;
                if (!ok) {
                    bad++;
                    if ((unsigned long long)i < first)
                        first = (unsigned long long)i;
                }
            }
            dev_compare_result r;
            dev_compare(dg, dw, N, DEV_F32, rel, abs_tol, &r, 0);
            EXPECT(r.n_bad == bad && (bad == 0 || r.first_bad == first),
                   "compare within rel %g, abs %g: %llu bad from %llu on the device, %llu from %llu by the rule",
                   rel, abs_tol, r.n_bad, r.first_bad, bad, first);
        }
    CUDA_CHECK(cudaFree(dg));
    CUDA_CHECK(cudaFree(dw));
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of 15 timed runs of what `run` does (after one untimed), in ms. */
#define MEDIAN_MS(run)                                                                         \
    ({                                                                                         \
        double t_[15];                                                                         \
        cudaEvent_t e0_, e1_;                                                                  \
        CUDA_CHECK(cudaEventCreate(&e0_));                                                     \
        CUDA_CHECK(cudaEventCreate(&e1_));                                                     \
        run;                                                                                   \
        CUDA_CHECK(cudaDeviceSynchronize());                                                   \
        for (int r_ = 0; r_ < 15; r_++) {                                                      \
            float ms_;                                                                         \
            CUDA_CHECK(cudaEventRecord(e0_, 0));                                               \
            run;                                                                               \
            CUDA_CHECK(cudaEventRecord(e1_, 0));                                               \
            CUDA_CHECK(cudaEventSynchronize(e1_));                                             \
            CUDA_CHECK(cudaEventElapsedTime(&ms_, e0_, e1_));                                  \
            t_[r_] = ms_;                                                                      \
        }                                                                                      \
        qsort(t_, 15, sizeof t_[0], cmp_double);                                               \
        CUDA_CHECK(cudaEventDestroy(e0_));                                                     \
        CUDA_CHECK(cudaEventDestroy(e1_));                                                     \
        t_[7];                                                                                 \
    })

/* Each kernel's rate on 1 GiB (bytes moved: read plus written), beside the copy engine's. */
static void rates(void)
{
    const size_t bytes = (size_t)1 << 30, n = bytes / 4;
    unsigned *x, *y;
    CUDA_CHECK(cudaMalloc(&x, bytes));
    CUDA_CHECK(cudaMalloc(&y, bytes));
    unsigned *z;
    CUDA_CHECK(cudaMalloc(&z, bytes));
    dev_fill_f32((float *)x, n, 1, -1.f, 1.f, 0.f, 0);
    dev_fill_f32((float *)z, n, 2, -1.f, 1.f, 0.f, 0); /* every element differs from x's */
    dev_compare_result r;
    struct {
        const char *what;
        double moved, ms;
    } row[] = {
        {"cudaMemsetAsync (writes)", 1, MEDIAN_MS(CUDA_CHECK(cudaMemsetAsync(y, 0xff, bytes, 0)))},
        {"cudaMemcpyAsync D2D (reads, writes)", 2, MEDIAN_MS(CUDA_CHECK(cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice, 0)))},
        {"dev_fill_f32 (writes)", 1, MEDIAN_MS(dev_fill_f32((float *)y, n, 3, -1.f, 1.f, 0.f, 0))},
        {"dev_fill_f32, step 2^-12 (writes)", 1, MEDIAN_MS(dev_fill_f32((float *)y, n, 3, -1.f, 1.f, 1.f / 4096, 0))},
        {"dev_fill_u32 (writes)", 1, MEDIAN_MS(dev_fill_u32(y, n, 3, 0))},
        {"dev_hash (reads)", 1, MEDIAN_MS(dev_hash(x, bytes, 0))},
        {"(y = x: untimed)", 0, (CUDA_CHECK(cudaMemcpy(y, x, bytes, cudaMemcpyDeviceToDevice)), 0.0)},
        {"dev_compare, exact (reads two)", 2, MEDIAN_MS(dev_compare(x, y, n, DEV_F32, 0, 0, &r, 0))},
        {"dev_compare, bounded, same bits (reads two)", 2, MEDIAN_MS(dev_compare(x, y, n, DEV_F32, 0x1p-22, 1e-6, &r, 0))},
        {"dev_compare, bounded, all fail (reads two)", 2, MEDIAN_MS(dev_compare(x, z, n, DEV_F32, 0x1p-22, 1e-6, &r, 0))},
        {"(z = x one ulp off: untimed)", 0, (one_ulp_off<<<4096, 256>>>(z, x, n), CUDA_CHECK(cudaDeviceSynchronize()), 0.0)},
        {"dev_compare, bounded, all one ulp off (reads two)", 2, MEDIAN_MS(dev_compare(x, z, n, DEV_F32, 0x1p-22, 1e-6, &r, 0))},
        {"dev_abs_sum_f32 (reads)", 1, MEDIAN_MS(dev_abs_sum_f32((const float *)x, n, 0))},
    };
    printf("rates on 1 GiB, median of 15 (GB/s of bytes read plus written):\n");
    for (size_t i = 0; i < sizeof row / sizeof row[0]; i++)
        if (row[i].moved > 0)
            printf("  %-38s %8.3f ms %8.0f GB/s\n", row[i].what, row[i].ms,
               row[i].moved * bytes / (row[i].ms * 1e6));
    CUDA_CHECK(cudaFree(x));
    CUDA_CHECK(cudaFree(y));
    CUDA_CHECK(cudaFree(z));
}

int main(int argc, char **argv)
{
    const int rate = argc > 1 && !strcmp(argv[1], "--rate");
    static const size_t sizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 67, 1024, 4099};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        check_fills(sizes[i]);
        check_hash(sizes[i], sizes[i] <= 9);
        check_compare(sizes[i]);
    }
    check_fills((size_t)1 << 16); /* many blocks */
    check_bounds_agree();
    if (failures) {
        printf("devcheck: %d checks failed\n", failures);
        return 1;
    }
    printf("devcheck: fills, hashes and comparisons hold on both paths\n");
    if (rate)
        rates();
    return 0;
}
