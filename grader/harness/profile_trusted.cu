/* profile_trusted.cu - TRUSTED PROCESS (the harness), for make profile: each speed check's
 * problem, built as the speed check builds it, and each implementation (yours, then the
 * reference) called once after a warm-up call, in a section of its own. The CPU emulator's
 * counts take the first call, with no warm-up: the emulator has no module to load and no cache
 * to warm, and counts work, not time, so a first call counts what a later one does (code that
 * does some work on its first call only, such as filling a workspace it keeps, shows that work
 * too). A warm-up call there doubled the count's time (lab 07's skeleton: 2.4 of the 8.4
 * CPU-seconds of its make grade).
 *
 * Counters (Nsight Compute, grader/feedback/profile.sh): a section is one profiler range
 * (cudaProfilerStart/Stop) that begins with grader_profile_section<<<section, 1>>>, so the
 * kernels of a section are those after its marker in the profiler's report. Timeline (a lab
 * whose lesson is overlap): the section's copies and kernels, from CUDA events
 * (timeline_trusted.c). Each section is announced on stdout:
 *   section N <tab> check C <tab> TASK <tab> yours|reference <tab> SIZE <tab> BYTES
 * BYTES: what one call touches in device memory (the lab's footprint, working_set), the least
 * a correct call moves. With a second count (the speed estimate's: --second-counts), each
 * speed problem is counted again at the lab's second size (lab.h's count_scale), its sections
 * announced the same way as `second N` lines and its counts written to a file of their own.
 *
 * For a profiler, calls run in this process (the harness is started with --isolation off): a
 * profiler follows one process, and profiling decides no grade.
 *
 * Under the CPU emulator (make explain, make grade's WHERE line: counts_path) the same sections
 * are ranges in which the emulator counts every warp's memory requests, branches and launches,
 * and writes down every copy, kernel and event in issue order (common/emu/src/count.cpp),
 * without the marker: make explain orders those on the engines (grader/feedback/timeline.awk).
 * The counting runs where grading runs the code, in each implementation's own sandboxed worker
 * (PROTO_COUNT_BEGIN / _END): the harness hands the worker a fresh memfd per section, and
 * afterwards copies what the worker wrote there into counts_path as data (relay_counts). A
 * measured timeline (--timeline) needs a GPU, since the emulator keeps no time.
 *
 * Counts kept between runs (profile_keep_counts; "Counts kept between runs" below): the
 * reference's at both sizes (--reference-counts) and, for make grade's WHERE count, the
 * student's at the first size (--student-counts), each keyed by the identities of this harness,
 * the lab's problem.so, the worker program and the implementation's object, the emulated SM
 * count, the check and the size; relayed from the kept file as data, as a worker's. */
#include "harness.h"
#include "harness_parts.h" /* call_verified: the correctness checks' test of a call */
#include "profile_trusted.h"
#include "timeline_trusted.h"
#include "worker_trusted.h"
#include "../../common/check.h"
#include "../../common/compare.h"
#include "../../common/devcheck.h"

#include <cuda_profiler_api.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The most a worker's counts of one section may be (bytes read back; a lab's run writes tens
 * of KiB). */
#define PROFILE_COUNTS_CAP (16 << 20)
#define PROFILE_COUNT_LINE 65536 /* longer lines are dropped */

/* Marks where a section's kernels begin in a profiler's report (its grid size is the
 * section's number). */
__global__ void grader_profile_section(int section) { (void)section; }

/* Copies what a worker wrote to fd (at most PROFILE_COUNTS_CAP bytes) into out as section
 * `section`'s counts. A worker numbers its own ranges, and holds student code: every line is
 * kept only if it starts with a count's keyword (range, request, loads, launch, op, atomics,
 * printf, sleep), a space, a number and a tab, and its number is replaced by the section's, so that nothing a student's
 * worker writes lands in the reference's sections. The rest of each line is the worker's, data
 * that make explain's tools read as numbers and line numbers (grader/feedback/counts.awk).
 * Returns the lines kept. */
static long relay_counts(int fd, off_t from, int section, FILE *out)
{
    static const char *const kinds[] = {"range ", "request ", "loads ", "launch ", "op ",
                                        "atomics ", "printf ", "sleep "};
    static char line[PROFILE_COUNT_LINE];
    size_t len = 0, total = 0;
    long kept = 0;
    int too_long = 0;
    char buf[65536];
    ssize_t n;
    if (lseek(fd, from, SEEK_SET) != from)
        return 0;
    while (total < PROFILE_COUNTS_CAP && (n = read(fd, buf, sizeof buf)) > 0) {
        total += (size_t)n;
        for (ssize_t i = 0; i < n; i++) {
            if (buf[i] != '\n') {
                if (len < sizeof line - 1)
                    line[len++] = buf[i];
                else
                    too_long = 1;
                continue;
            }
            line[len] = 0;
            for (size_t k = 0; !too_long && k < sizeof kinds / sizeof kinds[0]; k++) {
                const size_t kl = strlen(kinds[k]);
                if (strncmp(line, kinds[k], kl))
                    continue;
                size_t j = kl;
                while (j < len && line[j] >= '0' && line[j] <= '9')
                    j++;
                if (j > kl && j < len && line[j] == '\t') {
                    fprintf(out, "%.*s%d%s\n", (int)kl, kinds[k], section, line + j);
                    kept++;
                }
                break;
            }
            len = 0;
            too_long = 0;
        }
    }
    if (total >= PROFILE_COUNTS_CAP)
        fprintf(stderr, "profile: section %d's counts were cut at %d MiB\n", section,
                PROFILE_COUNTS_CAP >> 20);
    return kept;
}

/* One section: one call of implementation impl on problem p, counted into `counts` (the
 * emulator), drawn into the timeline `tl`, or else marked for Nsight Compute. */
static int profile_one(const lab_task *t, void *p, int impl, int section, FILE *counts, FILE *tl,
                       cudaStream_t s)
{
    harness_clear_problem(impl);
    t->prepare(p, impl, s);
    CUDA_CHECK(cudaDeviceSynchronize());
    int count_fd = -1;
    if (counts) { /* counted in the implementation's worker, into a file of ours */
        count_fd = memfd_create("counts", MFD_CLOEXEC);
        if (count_fd < 0) {
            fprintf(stderr, "profile: cannot make a file for the counts\n");
            return 1;
        }
        workers_count_begin(impl, count_fd);
    } else if (tl) {
#if !defined(CUDA_EMU)
        timeline_begin(s);
#endif
    } else {
        CUDA_CHECK(cudaProfilerStart());
#if !defined(CUDA_EMU) /* the emulator's counts need no marker: its range is the section */
        grader_profile_section<<<section, 1, 0, s>>>(section);
#endif
    }
    t->run(p, impl, s);
    CUDA_CHECK(cudaDeviceSynchronize());
    if (counts) {
        workers_count_end(impl);
        relay_counts(count_fd, 0, section, counts);
        close(count_fd);
    } else if (tl) {
#if !defined(CUDA_EMU)
        timeline_end();
        timeline_write(tl, section);
#endif
    } else {
        CUDA_CHECK(cudaProfilerStop());
    }
    return 0;
}

/* Speed check `check`'s problem at `size` (task t), the inputs of the check's own seed. For a
 * profiler (counted 0), made as its speed check makes it: device memory only. For the
 * emulator's count (counted 1), made as a correctness check makes its own: inputs drawn on the
 * host and uploaded, the CPU's answer beside them, so that the counted call is verified as a
 * correctness check's is (counted_call_right). */
static void *profile_problem(const lab_task *t, int check, const long long size[LAB_MAX_DIMS],
                             const device_info *d, int counted, cudaStream_t s)
{
    const uint64_t seed = 0x5eedull + (uint64_t)check;
    if (counted)
        return t->create(size, seed, d);
    harness_set_device_only(1);
    void *p = t->create(size, seed, d);
    harness_set_device_only(0);
    t->refresh(p, seed, s);
    return p;
}

/* ---- The counted call, checked ----------------------------------------------------------
 * A count is a picture of what the code did, and the WHERE line and the ESTIMATE are read from
 * it: only a call that did the task may be counted. Under the emulator each counted problem is
 * made as a correctness check makes its own (its inputs drawn on the host, the CPU's answer
 * beside them), and the counted call is verified as a correctness check verifies it, by the
 * lab's own verify: every output against the CPU's answer, every input unchanged after the call,
 * every guard intact, and what the lab's shim saw broken. A call right only because it changed
 * its inputs (the reference, run after it on the same buffers, would agree with it) is not. */
/* 0 when the counted call of `impl` on p did the task (as a correctness check decides); else
 * 1, said on stderr as one line that starts "profile: your counted call" (the WHERE log's). */
static int counted_call_right(const lab_task *t, void *p, int impl, const char *desc)
{
    verify_result v;
    memset(&v, 0, sizeof v);
    v.input_ok = 1;
    t->verify(p, &v);
    if (harness_problem(impl)[0] && !v.problem[0])
        snprintf(v.problem, sizeof v.problem, "%s", harness_problem(impl));
    if (call_verified(&v))
        return 0;
    const char *who = impl == IMPL_STUDENT ? "your counted call" : "the reference's counted call";
    char described[448];
    compare_describe(&v.out, v.cols, described, sizeof described);
    if (!v.input_ok)
        fprintf(stderr, "profile: %s at the counted size (%s) changed its input: byte %zu of an "
                "input differs after the call, which must leave its inputs as it found them; a "
                "count of that call is no picture of your code\n", who, desc, v.input_at);
    else if (v.out.n_bad || !v.out.n)
        fprintf(stderr, "profile: %s's answer at the counted size (%s) is wrong: %s; a count of "
                "a wrong call is no picture of your code\n", who, desc, described);
    else if (!v.guard_ok)
        fprintf(stderr, "profile: %s at the counted size (%s) wrote outside an output (byte "
                "%lld from its start); a count of that call is no picture of your code\n", who,
                desc, v.guard_at);
    else
        fprintf(stderr, "profile: %s at the counted size (%s) broke a rule of the lab: %s; a "
                "count of that call is no picture of your code\n", who, desc, v.problem);
    return 1;
}

/* ---- Counts kept between runs ----------------------------------------------------------
 * The reference's count of a speed problem depends only on the programs that make and count
 * it and on the problem: this harness (its emulator), the lab's problem object (problem.so: its
 * tasks, which make the inputs and the sizes), the worker program (the emulator that counts),
 * the reference's object, the emulated device's SM count and the problem's size (its seed is
 * the check's own). Each is named in the key by what the file system says of it (device,
 * inode, size, modification and change times: a rebuilt file is another), so a kept count is
 * used only where counting again would give the same (up to where the allocator placed the
 * buffers, which differs from run to run anyway). The reference is counted before any student
 * code has run in this harness, on a problem of its own, so nothing a student's code did can be
 * in what is kept for the next grading.
 *
 * The student's count at the first size (make grade's WHERE count: --student-counts) is kept
 * the same way, beside the student's object, under a key that names the student's object in
 * place of the reference's: only a count whose call was verified (counted_call_right), with
 * the problem's description beside it, so that a later run with the same key prints the same
 * section line and makes no problem at all for that size. A rebuilt student object is another
 * file: its count is never taken for the new code's. Code whose counts differ from run to run
 * (host threads racing, a clock read) keeps the count of the run that kept it. The second
 * size's count, drawn from the run's secret seed, is never kept: it is counted at every run, as
 * at a student's own rerun (kept, a run with a fixed SEED would look faster than that). A
 * batch removes each student's objects after grading, and the counts beside them. The files
 * belong to the grader's build: no worker sees their folders (the lab's build and the student
 * objects are hidden from every worker). */
static const char *ref_cache_prefix, *yours_cache_prefix, *cache_worker, *cache_problem,
    *ref_cache_so, *yours_cache_so;

void profile_keep_counts(const char *reference_prefix, const char *student_prefix,
                         const char *worker, const char *problem_so, const char *reference_so,
                         const char *student_so)
{
    ref_cache_prefix = reference_prefix;
    yours_cache_prefix = student_prefix;
    cache_worker = worker;
    cache_problem = problem_so;
    ref_cache_so = reference_so;
    yours_cache_so = student_so;
}

/* "dev:ino:size:mtime:ctime" of path (links followed), or -1 if it cannot be read. */
static int file_identity(const char *path, char *out, size_t len)
{
    struct stat st;
    if (!path || stat(path, &st) != 0)
        return -1;
    snprintf(out, len, "%llu:%llu:%lld:%lld.%09ld:%lld.%09ld", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
             st.st_mtim.tv_nsec, (long long)st.st_ctim.tv_sec, st.st_ctim.tv_nsec);
    return 0;
}

/* Appends size's dimensions, separated by `sep`, to buf (n bytes of len used); the new length,
 * or len or more when it did not fit. */
static int append_size(char *buf, int n, size_t len, const long long size[LAB_MAX_DIMS],
                       const char *sep)
{
    for (int k = 0; k < LAB_MAX_DIMS && n > 0 && (size_t)n < len; k++)
        n += snprintf(buf + n, len - (size_t)n, "%s%lld", k ? sep : "", size[k]);
    return n;
}

/* A kept count of check `check` at `size`, of the reference (impl IMPL_REFERENCE) or the
 * student: its file (path: PREFIX.CHECK.smsS.SIZE, so that counts of the same problem on
 * different emulated devices, make explain's GPU_PROFILE and make grade's estimate on a T4, are
 * kept side by side) and its key (one line). -1 where it is not kept (no prefix for it, or a
 * program that cannot be read). */
static int kept_name(int impl, int check, const long long size[LAB_MAX_DIMS], char *path,
                     size_t plen, char *key, size_t klen)
{
    const int ref = impl == IMPL_REFERENCE;
    const char *prefix = ref ? ref_cache_prefix : yours_cache_prefix;
    char harness[128], problem[128], worker[128], object[128];
    if (!prefix || file_identity("/proc/self/exe", harness, sizeof harness) != 0 ||
        file_identity(cache_problem, problem, sizeof problem) != 0 ||
        file_identity(cache_worker, worker, sizeof worker) != 0 ||
        file_identity(ref ? ref_cache_so : yours_cache_so, object, sizeof object) != 0)
        return -1;
    const char *sms = getenv("CUDA_EMU_SMS");
    const int p = snprintf(path, plen, "%s.%d.sms%d.", prefix, check, sms ? atoi(sms) : 0);
    if (p <= 0 || append_size(path, p, plen, size, "x") >= (int)plen)
        return -1;
    const int n = append_size(key, snprintf(key, klen, "# %s counts %s harness=%s problem=%s "
                                            "worker=%s %s=%s sms=%s check=%d size=",
                                            ref ? "reference" : "student", ref ? "v2" : "v1",
                                            harness, problem, worker, ref ? "reference" : "student",
                                            object, sms ? sms : "-", check),
                              klen, size, ",");
    return n > 0 && (size_t)n < klen - 1 ? 0 : -1;
}

/* The kept count in `path`, into a fresh memfd (its lines numbered 0) when the file's key is
 * `key`; -1 when there is none to take. With desc (the student's), the file's second line is
 * the problem's description ("# described DESC"), read into desc (256 bytes). */
static int kept_read(const char *path, const char *key, char *desc)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char line[1024];
    const size_t klen = strlen(key), dlen = strlen("# described ");
    int fd = -1;
    if (fgets(line, sizeof line, f) && strlen(line) == klen + 1 && !strncmp(line, key, klen) &&
        line[klen] == '\n' &&
        (!desc || (fgets(line, sizeof line, f) && !strncmp(line, "# described ", dlen) &&
                   strlen(line) - dlen <= 256)) &&
        (fd = memfd_create("kept-counts", MFD_CLOEXEC)) >= 0) {
        if (desc)
            snprintf(desc, 256, "%.*s", (int)strcspn(line + dlen, "\n"), line + dlen);
        FILE *mem = fdopen(dup(fd), "w");
        /* (relayed again: only well-formed count lines pass, as from a worker) */
        const long kept = mem ? relay_counts(fileno(f), (off_t)ftell(f), 0, mem) : 0;
        if (!mem || fclose(mem) != 0 || kept == 0) {
            close(fd);
            fd = -1;
        }
    }
    fclose(f);
    return fd;
}

/* Keeps the lines of memfd `fd` (numbered 0) in `path`, under `key` (and, with desc, the
 * problem's description): written beside, then renamed over, so a reader sees the old file or
 * the whole new one. */
static void kept_write(const char *path, const char *key, const char *desc, int fd)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%d.tmp", path, (int)getpid());
    const int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    FILE *f = out >= 0 ? fdopen(out, "w") : NULL;
    if (!f) {
        if (out >= 0)
            close(out);
        return; /* (a folder this user cannot write: counted every time) */
    }
    fprintf(f, "%s\n", key);
    if (desc)
        fprintf(f, "# described %s\n", desc);
    const long kept = relay_counts(fd, 0, 0, f);
    if (fclose(f) != 0 || kept == 0 || rename(tmp, path) != 0)
        unlink(tmp);
}

/* Implementation impl's call on p counted into a fresh memfd (its lines numbered 0): the memfd,
 * -1 when the call failed (said on stderr), -2 when no memfd could be made. */
static int counted_memfd(const lab_task *t, void *p, int impl, const char *name, cudaStream_t s)
{
    const int fd = memfd_create(name, MFD_CLOEXEC);
    FILE *mem = fd >= 0 ? fdopen(dup(fd), "w") : NULL;
    if (!mem) {
        if (fd >= 0)
            close(fd);
        return -2;
    }
    const int counted = profile_one(t, p, impl, 0, mem, NULL, s) == 0 && fflush(mem) == 0;
    fclose(mem);
    if (!counted) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Check `check`'s reference count at `size` (task t), into a memfd numbered 0: the kept one,
 * or counted now on a problem of its own and kept. -1 if it could not be had this way (no
 * cache, an unreadable program): the caller counts it in its section as before. */
static int reference_counts(int check, const lab_task *t, const long long size[LAB_MAX_DIMS],
                            const device_info *d, cudaStream_t s)
{
    char key[1024], path[4096];
    if (kept_name(IMPL_REFERENCE, check, size, path, sizeof path, key, sizeof key) != 0)
        return -1;
    int fd = kept_read(path, key, NULL);
    if (fd >= 0)
        return fd;
    void *p = profile_problem(t, check, size, d, 1, s);
    char desc[256];
    t->describe(p, desc, sizeof desc);
    fd = counted_memfd(t, p, IMPL_REFERENCE, "reference-counts", s);
    if (fd >= 0 && counted_call_right(t, p, IMPL_REFERENCE, desc) == 0)
        kept_write(path, key, NULL, fd);
    else if (fd >= 0) {
        close(fd);
        fd = -1;
    }
    workers_free_begin(); /* (its buffers unmapped in one message a worker) */
    t->destroy(p);
    workers_free_end();
    return fd;
}

/* The student's count of one speed check at the first size: kept (fd >= 0, numbered 0, with
 * the problem's description) or to be kept once counted and verified (keep: its path and key);
 * neither where the run keeps none (make explain) or a program cannot be read. */
typedef struct yours_kept {
    int fd, keep;
    char desc[256], path[4096], key[1024];
} yours_kept;

static void yours_kept_find(int check, const long long size[LAB_MAX_DIMS], yours_kept *y)
{
    y->fd = -1;
    y->keep = kept_name(IMPL_STUDENT, check, size, y->path, sizeof y->path, y->key,
                        sizeof y->key) == 0;
    if (y->keep)
        y->fd = kept_read(y->path, y->key, y->desc);
}

/* The second size's draw (profile_second_draw): -1 for none. */
static long long second_draw = -1;

void profile_second_draw(unsigned long long draw)
{
    second_draw = (long long)(draw & 0x7fffffffffffffffull);
}

/* Check `check`'s second size for the estimate's second count: its first (emulated) size with
 * each dimension scaled by the lab's count_scale (lab.h: 0 keeps one; a table that sets none
 * halves the first), rounded down, at least 1. With a draw (make grade's count), each dimension
 * the scale shrinks is scaled by 1 + k/32 besides, k in -8..-1 and 1..8 as the draw says, and
 * rounded down to a multiple of 8 from 64 up (rows of whole sectors stay so), never onto the
 * table's own: code keyed on the table's two sizes meets a size it was not keyed on, and its
 * counts there differ. */
static void second_size(const long long first[LAB_MAX_DIMS], long long second[LAB_MAX_DIMS])
{
    int set = 0;
    for (int k = 0; k < LAB_MAX_DIMS; k++)
        set |= served_lab()->count_scale[k] > 0;
    const int step = second_draw < 0 ? 0 : (int)(second_draw % 16) - 8;
    const double jitter = 1.0 + (step >= 0 ? step + 1 : step) / 32.0;
    for (int k = 0; k < LAB_MAX_DIMS; k++) {
        const double f = set ? served_lab()->count_scale[k] : k == 0 ? 0.5 : 0;
        second[k] = f > 0 && first[k] > 0 ? (long long)((double)first[k] * f) : first[k];
        if (second_draw >= 0 && f > 0 && f < 1 && first[k] > 0) {
            const long long table = second[k], unit = table >= 64 ? 8 : 1;
            second[k] = (long long)((double)first[k] * f * jitter);
            second[k] -= second[k] % unit;
            if (second[k] == table) /* (rounded back onto it: a unit further) */
                second[k] += step >= 0 ? unit : -unit;
        }
        if (f > 0 && first[k] > 0 && second[k] < 1)
            second[k] = 1;
    }
}

/* The student's call of section `section` on p, counted into `counts` and verified: through a
 * memfd when y asks that it be kept (kept once verified), else straight into `counts`. */
static int yours_counted(const lab_task *t, void *p, int section, FILE *counts, FILE *tl,
                         const char *desc, yours_kept *y, cudaStream_t s)
{
    if (!counts || !y || !y->keep)
        return profile_one(t, p, IMPL_STUDENT, section, counts, tl, s) != 0 ||
               (counts && counted_call_right(t, p, IMPL_STUDENT, desc) != 0);
    const int fd = counted_memfd(t, p, IMPL_STUDENT, "your-counts", s);
    if (fd == -2)
        fprintf(stderr, "profile: cannot make a file for the counts\n");
    if (fd < 0)
        return 1;
    relay_counts(fd, 0, section, counts);
    const int wrong = counted_call_right(t, p, IMPL_STUDENT, desc) != 0;
    if (!wrong)
        kept_write(y->path, y->key, desc, fd);
    close(fd);
    return wrong;
}

/* One size of speed check i (task t): yours, then the reference, each in a section of its own
 * announced on stdout as `word N ...` (word: "section" for the first size, "second" for the
 * second) and counted into `counts` (ref_fd: the reference's count, kept or counted already,
 * or -1; y: the student's at the first size, kept or to keep, or NULL), each counted call
 * verified (counted_call_right). Where both counts are kept, no problem is made: the section
 * lines say the kept description. *section counts the sections of that size. Returns 0, or 1
 * when a call failed or did not do the task (said on stderr). */
static int profile_size(int i, const lab_task *t, const long long size[LAB_MAX_DIMS], int *ref_fd,
                        yours_kept *y, const char *word, int *section, FILE *counts, FILE *tl,
                        const device_info *d, cudaStream_t s)
{
    const int kept = y && y->fd >= 0 && *ref_fd >= 0;
    void *p = kept ? NULL : profile_problem(t, i, size, d, counts != NULL, s);
    char desc[256];
    if (p)
        t->describe(p, desc, sizeof desc);
    else
        snprintf(desc, sizeof desc, "%s", y->desc);
    /* the bytes one call touches in device memory (the lab's footprint): what a correct call
     * moves at the least, against which the estimate holds what the count saw */
    lab_footprint fp;
    memset(&fp, 0, sizeof fp);
    if (served_lab()->footprint)
        served_lab()->footprint(served_lab()->checks[i].task, size, &fp);
    static const int impls[2] = {IMPL_STUDENT, IMPL_REFERENCE};
    /* warm-up on a GPU: module loading, first-touch allocations (none for the emulator) */
    for (int k = 0; k < 2 && !counts; k++) {
        t->prepare(p, impls[k], s);
        t->run(p, impls[k], s);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    for (int k = 0; k < 2; k++) {
        ++*section;
        printf("%s %d\tcheck %d\t%s\t%s\t%s\t%.0f\n", word, *section, i, t->name,
               k == 0 ? "yours" : "reference", desc, fp.working_set);
        fflush(stdout);
        int *fd = k == 0 ? (y ? &y->fd : NULL) : ref_fd;
        if (fd && *fd >= 0) { /* kept, or (the reference's) counted and verified before any
                               * student code */
            relay_counts(*fd, 0, *section, counts);
            close(*fd);
            *fd = -1;
            continue;
        }
        if (k == 0 && yours_counted(t, p, *section, counts, tl, desc, y, s) != 0)
            return 1;
        if (k == 1 && (profile_one(t, p, impls[k], *section, counts, tl, s) != 0 ||
                       (counts && counted_call_right(t, p, impls[k], desc) != 0)))
            return 1;
    }
    if (p) {
        workers_free_begin(); /* (its buffers unmapped in one message a worker) */
        t->destroy(p);
        workers_free_end();
    }
    return 0;
}

/* See profile_trusted.h. Longer than most functions here: its output files, the setjmp a
 * worker's failure lands at, and the loop over every speed check's sizes share one frame. */
int profile_run(const char *timeline_path, const char *counts_path, const char *second_path,
                const char *worker_log, int emulator_size, const device_info *d)
{
    FILE *tl = NULL, *counts = NULL, *second = NULL;
#if defined(CUDA_EMU)
    if (timeline_path) {
        fprintf(stderr, "profile: a timeline needs a GPU; the CPU emulator keeps no time\n");
        return 1;
    }
#endif
#if !defined(CUDA_EMU)
    if (counts_path) {
        fprintf(stderr, "profile: the counts are the CPU emulator's; this harness is a GPU build\n");
        return 1;
    }
#endif
    if (timeline_path && !(tl = fopen(timeline_path, "w"))) {
        fprintf(stderr, "profile: cannot write %s\n", timeline_path);
        return 1;
    }
    if (counts_path && !(counts = fopen(counts_path, "w"))) {
        fprintf(stderr, "profile: cannot write %s\n", counts_path);
        return 1;
    }
    if (second_path && !(second = fopen(second_path, "w"))) {
        fprintf(stderr, "profile: cannot write %s\n", second_path);
        return 1;
    }
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    static jmp_buf jb;
    static worker_failure failure;
    workers_set_failure_target(&jb, &failure);
    workers_begin_check(600, worker_log);
    if (setjmp(jb)) {
        fprintf(stderr, "profile: the call of %s failed: %s\n",
                failure.impl == IMPL_STUDENT ? "your code" : "the reference", failure.detail);
        return 1;
    }
    /* Each speed problem's size (the labs' arithmetic on the device), and its second size */
    const int n_checks = served_lab()->n_checks;
    long long(*sizes)[LAB_MAX_DIMS] =
        (long long(*)[LAB_MAX_DIMS])calloc(2 * ((size_t)n_checks + 1), sizeof *sizes);
    int *ref_fd = (int *)calloc(2 * ((size_t)n_checks + 1), sizeof *ref_fd);
    yours_kept *yours = (yours_kept *)calloc((size_t)n_checks + 1, sizeof *yours);
    if (!sizes || !ref_fd || !yours) {
        fprintf(stderr, "profile: out of memory\n");
        return 1;
    }
    long long(*sizes2)[LAB_MAX_DIMS] = sizes + n_checks;
    int *ref_fd2 = ref_fd + n_checks;
    for (int i = 0; i < n_checks; i++) {
        memcpy(sizes[i], served_lab()->checks[i].size, sizeof sizes[i]);
        device_info sized = *d;
        sized.emulated |= emulator_size;
        if (served_lab()->checks[i].kind == CHECK_SPEED)
            lab_speed_problem_size(served_lab(), &served_lab()->checks[i], &sized, sizes[i]);
        second_size(sizes[i], sizes2[i]);
    }
    /* The reference's counts first, at both sizes, kept or counted before any student code
     * runs here; the student's kept at the first size, if any */
    for (int i = 0; i < n_checks; i++) {
        const int speed = counts && served_lab()->checks[i].kind == CHECK_SPEED;
        const lab_task *t = &served_tasks()[served_lab()->checks[i].task];
        ref_fd[i] = speed ? reference_counts(i, t, sizes[i], d, s) : -1;
        ref_fd2[i] = speed && second ? reference_counts(i, t, sizes2[i], d, s) : -1;
        yours[i].fd = -1;
        if (speed)
            yours_kept_find(i, sizes[i], &yours[i]);
    }
    int section = 0, section2 = 0;
    for (int i = 0; i < n_checks; i++) {
        if (served_lab()->checks[i].kind != CHECK_SPEED)
            continue;
        const lab_task *t = &served_tasks()[served_lab()->checks[i].task];
        if (profile_size(i, t, sizes[i], &ref_fd[i], &yours[i], "section", &section, counts, tl,
                         d, s) != 0)
            return 1;
        /* the second size: code that does otherwise there shows in the counts per element */
        if (second && profile_size(i, t, sizes2[i], &ref_fd2[i], NULL, "second", &section2,
                                   second, NULL, d, s) != 0)
            return 1;
    }
    free(sizes);
    free(ref_fd);
    free(yours);
    workers_end_check();
    CUDA_CHECK(cudaStreamDestroy(s));
    if (tl)
        fclose(tl);
    if (second && fclose(second) != 0) {
        fprintf(stderr, "profile: cannot write %s\n", second_path);
        return 1;
    }
    if (counts && fclose(counts) != 0) {
        fprintf(stderr, "profile: cannot write %s\n", counts_path);
        return 1;
    }
    return 0;
}
