/*
 * report.cpp -- how the emulator words an error.
 *
 * Every report starts with one line a grader or a test can match:
 *   cuda-emu: error: <what went wrong> in kernel <K>, block (x,y,z), thread (x,y,z)
 * followed by indented lines that say where (source lines come from the
 * program's debug information through the sanitizer symbolizer; emu-rewrite's
 * #line directives make them the .cu file's lines), what was expected and
 * what to try. A sanitizer report (out-of-bounds access, undefined behaviour)
 * is followed by one such line naming the kernel, block and thread.
 */
#include <fcntl.h>
#include <unistd.h>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <sanitizer/common_interface_defs.h>

#include "emu_internal.h"

namespace cuda_emu {

std::string where(const void *pc) { return where(pc, false); }

std::string where(const void *pc, bool skip_libraries)
{
    if (pc == nullptr)
        return "an unknown place";
    /* A return address points after the call; the call's line is one byte
     * back. The symbolizer writes one "file:line" per inlined frame, innermost
     * first, each ending in a NUL; the first outside the emulator's own
     * headers is the line the program's author wrote. */
    char buf[2048] = "";
    __sanitizer_symbolize_pc(const_cast<char *>(static_cast<const char *>(pc)) - 1, "%s:%l", buf,
                             sizeof buf - 1);
    std::string first;
    for (const char *frame = buf; *frame != '\0' && frame < buf + sizeof buf;
         frame += strlen(frame) + 1) {
        std::string f = frame;
        if (f[0] == ':' || f.find("<null>") != std::string::npos)
            continue;
        if (first.empty())
            first = f;
        if (f.find("emu/include/") != std::string::npos)
            continue;
        if (skip_libraries && (f.find("/include/c++/") != std::string::npos ||
                               f.find("libsanitizer") != std::string::npos ||
                               f.find("../sysdeps/") != std::string::npos))
            continue;
        return f;
    }
    if (skip_libraries)
        return "";
    if (!first.empty())
        return first;
    snprintf(buf, sizeof buf, "pc %p", pc);
    return buf;
}

void refuse_at_run_time(const char *feature, const void *pc)
{
    std::string at = where(pc, true);
    if (at.empty())
        at = where(pc);
    const size_t colon = at.rfind(':');
    if (colon != std::string::npos && colon + 1 < at.size())
        fprintf(stderr, "cuda-emu: refused: %s at line %s of %s; a GPU grades it\n", feature,
                at.c_str() + colon + 1, at.substr(0, colon).c_str());
    else
        fprintf(stderr, "cuda-emu: refused: %s at %s; a GPU grades it\n", feature, at.c_str());
    fflush(stdout);
    _exit(kRefusedStatus);
}

std::string dim_str(uint3 v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "(%u,%u,%u)", v.x, v.y, v.z);
    return buf;
}

std::string thread_list(const Block *b, const std::vector<unsigned> &tids)
{
    constexpr size_t kMaxRanges = 6; /* enough to see the pattern, short enough to read */
    std::string out;
    size_t ranges = 0;
    for (size_t i = 0; i < tids.size();) {
        size_t j = i;
        while (j + 1 < tids.size() && tids[j + 1] == tids[j] + 1)
            ++j;
        if (ranges == kMaxRanges) {
            char more[64];
            snprintf(more, sizeof more, ", and %zu more", tids.size() - i);
            out += more;
            break;
        }
        if (!out.empty())
            out += ", ";
        out += dim_str(b->threads[tids[i]].idx);
        if (j > i)
            out += ".." + dim_str(b->threads[tids[j]].idx);
        ++ranges;
        i = j + 1;
    }
    return out;
}

namespace {

thread_local bool tl_muted;             /* a later error of a launch that already reported one */
thread_local bool tl_warning;           /* a warning's lines: not the channel's (errors only) */
std::mutex &g_print_mutex = *new std::mutex(); /* keeps one warning's lines together */

} // namespace

void report_reset() { tl_muted = false; }

bool report_begin_warning()
{
    if (tl_muted || (g_launch != nullptr && g_launch->reported.load()))
        return false;
    g_print_mutex.lock();
    tl_warning = true;
    return true;
}

void report_done()
{
    tl_warning = false;
    g_print_mutex.unlock();
}

namespace {
int g_report_fd = -1; /* the channel (CUDA_EMU_REPORT_FD), or -1 */

void to_channel(const char *text)
{
    if (g_report_fd < 0)
        return;
    for (size_t n = strlen(text); n > 0;) { /* a full pipe loses the rest, never waits */
        const ssize_t w = write(g_report_fd, text, n);
        if (w <= 0)
            return;
        text += w;
        n -= (size_t)w;
    }
}
} // namespace

void report_channel_init()
{
    static bool done = false;
    if (done)
        return;
    done = true;
    const char *v = getenv("CUDA_EMU_REPORT_FD");
    char *end = nullptr;
    const long fd = v != nullptr ? strtol(v, &end, 10) : -1;
    if (v != nullptr && end != v && *end == 0 && fd > 2 && fd < 1024 && fcntl((int)fd, F_GETFD) != -1) {
        g_report_fd = (int)fd;
        fcntl(g_report_fd, F_SETFD, FD_CLOEXEC); /* (no program it starts inherits it) */
    }
    unsetenv("CUDA_EMU_REPORT_FD");
}

void report_channel(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    to_channel(line);
}

void report_head(const char *what, const Block *b, const Thread *t)
{
    if (g_launch != nullptr && g_launch->reported.exchange(true)) {
        tl_muted = true;
        return;
    }
    tl_muted = false;
    std::string place;
    if (g_launch != nullptr)
        place = std::string(" in kernel ") + g_launch->name;
    if (b != nullptr)
        place += ", block " + dim_str(b->idx);
    if (t != nullptr)
        place += ", thread " + dim_str(t->idx);
    const std::string head = std::string("cuda-emu: error: ") + what + place + "\n";
    fputs(head.c_str(), stderr);
    to_channel(head.c_str());
}

void report_line(const char *fmt, ...)
{
    if (tl_muted)
        return;
    char line[4096] = "  ";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + 2, sizeof line - 3, fmt, ap);
    va_end(ap);
    strcat(line, "\n");
    fputs(line, stderr);
    if (!tl_warning)
        to_channel(line);
}

} // namespace cuda_emu
