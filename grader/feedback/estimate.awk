# estimate.awk - an estimate, never a measurement: the ratio reference time / your time that a
# speed check would measure on a named GPU, worked out from the CPU emulator's counts of one call
# of yours and one of the reference (the counts make explain shows: explain.sh, the WHERE line)
# and a few ceilings of that GPU (common/gpu_profiles.c). Help beside the grade: no points, no
# verdict rest on it.
#
# The model. Each call's time is the largest of four terms (the one that bounds it), divided by
# how well its blocks fill the SMs:
#   DRAM      every 32-byte sector a global load or store touches, against the memory's bandwidth
#             (bus width x data rate: the profile's clocks). No cache: a sector that the L1 or
#             L2 would serve again counts again (why SGEMM is not estimated: estimate-limits.tsv)
#   shared    every wavefront (pass) of a shared-memory access, one per SM clock on every SM
#   issue     the warp instructions counted: every warp-wide load and store, and every warp-wide
#             run of a branch's body (a loop's iteration, an if's body; lanes left out by
#             divergence still cost the warp the whole run), four issued per SM clock (four
#             schedulers) on every SM. A lower bound on what a GPU issues: the arithmetic
#             between two branches is not counted (the emulator runs it on the CPU)
#   latency   Little's law: the bytes a thread has in flight before each store, times the threads
#             an SM holds at once (its blocks per SM as the occupancy API answers, at most the
#             GPU's threads an SM; fewer where a grid sized for the GPU spreads thinner),
#             on every SM, cover one memory latency (LATENCY_NS); the rate that gives, against the
#             bytes loaded
#   waves     each launch's blocks spread over the SMs: an SM that gets one more block than
#             another takes longer, and the others wait (the tail): the balanced share over the
#             largest share; only for a grid sized for the GPU (gpu_sized: it keeps its size at
#             the lab's), any other grows with the problem and is taken as full.
# Every term grows in proportion to the problem (sectors, passes, runs per element are those of
# the lab's size), so the ratio counted at the emulator's small size is the ratio at the lab's
# size; what does not scale (a launch's fixed cost, caches holding a small problem whole) is
# left out. A lab whose calls are ordered on the copy and compute engines (a timeline: lab 05)
# is estimated from that timeline instead: each engine's whole work takes the same time (the lab
# sizes its kernel so), and the call lasts its span (timeline.awk).
#
# Counted at two sizes. With a third file (the counts of the harness's --second-counts: every
# speed problem counted again at the lab's second size, lab.h's count_scale, its sections the
# `second N` lines of the first file), the two sizes are set side by side before any estimate is
# given, since the estimate stands for the lab's size only if the code does there what it does
# at the sizes counted: each term of your call against the reference's call at the same size
# (your DRAM sectors, wavefronts, warp instructions, loads in flight; for a timeline its span,
# where it grew, and each engine's work against the reference's), and the estimate itself. Where one that matters
# (at least FLOOR of your call's time at either size) differs by more than a factor TOL
# between the sizes, the code does otherwise at another size (fast only below some size, or
# only at the size counted) and no estimate is given: the figures that differ instead. And a
# call that moved less than half the bytes the task must move (the lab's footprint, on the
# harness's section line: its kernels' sectors; for a timeline, the bytes it copied in and out)
# did its work where the emulator does not count it (on the host, say): no estimate either; nor
# for a file that compiles other code for the emulator (#if CUDA_EMU: -v source); nor for a call
# whose cost is partly of a kind the counts do not hold (unseen): atomics on global memory (what
# they cost is contention for an address), a kernel's printf (the driver's formatting and a
# contended buffer) or __nanosleep (time asleep), or, outside a timeline, copies to or from the host
# (the link, and work done on the host). Tested on every reference, rung and honest case (tests/estimate/sizes.sh).
#
# Input: the harness's section lines, then the counts (as explain.awk), then the second size's
# counts (optional). Options:
#   -v sms=N -v clock_hz=F -v dram_bps=F   the GPU's SMs, SM clock, DRAM bandwidth (bytes/s)
#   -v threads_per_sm=N                     the most threads its SM holds (the counts' blocks per
#                                           SM are the emulated compute capability 9.0 SM's)
#   -v gpu_name=TEXT -v gpu=KEY             named in the output
#   -v threshold=F                          the lab's mark (ratio), to say on which side
#   -v table=FILE                           the lab's explain.tsv: a timeline row, and the call is
#                                           estimated from the engines' timeline (lab 05)
#   -v check=C                              only the speed check C (the harness's check index)
#   -v lab=NN -v limits=FILE                explain mode: the lab's line of estimate-limits.tsv
#   (no mode)                               one line per check: "check C <tab> ratio <tab> text"
#   -v mode=explain                         each term of each call, and which one bounds it
#   -v mode=tsv                             "check C <tab> task <tab> ratio <tab> your bound <tab>
#                                           the reference's bound" (the agreement table's input);
#                                           then, where the estimate is not to be given, "sizes C
#                                           <tab> what <tab> first size <tab> figure <tab> second
#                                           size <tab> figure <tab> estimate at each" (the two sizes
#                                           differ: what is the term, "span", "in", "out",
#                                           "kernels", "estimate", or "missing": no second count)
#                                           or "short C <tab> sectors|copies <tab> the bytes your
#                                           call moved <tab> the bytes the task moves", or
#                                           "atomics C <tab> ops <tab> distinct addresses" (global
#                                           atomics), "printf C <tab> calls <tab> bytes printed",
#                                           "sleep C <tab> __nanosleep calls <tab> ns asked for",
#                                           or "host C <tab> bytes copied to or from the host <tab>
#                                           the bytes the task moves"
#   -v sizes=2                              a second count was asked for: a check without one
#                                           gets no estimate
#   -v tol=F                                the two sizes' TOL (below): tol=1 shows the figure
#                                           that differs most for every check, however little
#   -v source=FILE                          your file as compiled: one that names CUDA_EMU
#                                           (other code for the emulator) gets no estimate,
#                                           "other C <tab> CUDA_EMU" in tsv mode
# Loaded after counts.awk and timeline.awk (count_row_ok, visible, timeline_*).

BEGIN {
    # A global load's latency under load, in ns: one figure for every GPU (an estimate; HBM and
    # GDDR differ by tens of ns), near what the H200's measured lab 04 rungs with one load in
    # flight a thread imply (33792 threads x 4 or 16 B over their rates: about 220 ns)
    LATENCY_NS = 250
    ISSUE_PER_CLOCK = 4 # warp instructions an SM issues per clock: four schedulers
    # The two sizes: a figure that differs by more than TOL times between them, where it is at
    # least FLOOR of your own call at either size, means code that does otherwise there. The
    # honest files' largest spread is well under TOL (tests/estimate/sizes.sh prints each).
    TOL = 1.25; FLOOR = 0.2
    if (tol != "") TOL = tol + 0 # (-v tol=1: every spread is shown, the largest first: the study)
    ERROR = 1.25 # the estimate's own error, a factor (estimate.h's ESTIMATE_ERROR)
    SHORT = 0.5 # less than this share of the bytes the task moves: work the counts miss
    # A timeline's lab size over its first count's (lab 05: 1 GiB each way against 8 MiB), to
    # which the pipeline's fill and drain are taken (tl_span_lab)
    LAB_GROW = 128
    # Copies to or from the host in a call whose cost is its kernels' (not a timeline): the
    # host's link carries about a fiftieth of the DRAM's rate (an H200: 55 GB/s pinned against
    # 4.8 TB/s), so copies of this share of the bytes the task moves cost about 5% of an ideal
    # call, and more is work the counts do not see (an answer computed on the host, say)
    HOST_SHARE = 0.001
    term_names["dram"] = "DRAM traffic"; term_names["shared"] = "shared-memory passes"
    term_names["issue"] = "instruction issue"; term_names["latency"] = "loads in flight (Little's law)"
    # your file as compiled (the grader's copy): one that names CUDA_EMU compiles other code for
    # the emulator than for a GPU, so that its count is not of what a GPU runs
    while (source != "" && (getline line < source) > 0) if (line ~ /CUDA_EMU/) other_code = 1
    if (source != "") close(source)
    if (table != "") { # the lab's explain table: a timeline row means lab 05's kind of call
        while ((getline line < table) > 0) if (line ~ /^timeline\t/) timeline = 1
        close(table)
    }
}
FILENAME == ARGV[1] {
    # the first size's sections, then the second size's (numbered apart: "2:N"), read only
    # with their counts (a third file)
    if ($1 ~ /^second / && ARGC <= 3) next
    if ($1 ~ /^(section|second) [0-9]+$/ && $2 ~ /^check [0-9]+$/ && $4 ~ /^(yours|reference)$/) {
        s = $1; sub(/^[a-z]+ /, "", s)
        if ($1 ~ /^second /) { s = "2:" s; sections2[++nsections2] = s }
        else sections[++nsections] = s
        who[s] = $4; size[s] = $5; task[s] = $3; need[s] = $6 ~ /^[0-9]+$/ ? $6 + 0 : 0
        c = $2; sub(/^check /, "", c); check_of[s] = c + 0
    }
    next
}
!count_row_ok() { next }
{ s = $1; sub(/^[a-z]+ /, "", s); if (ARGC > 3 && FILENAME == ARGV[3]) s = "2:" s }
$1 ~ /^range / && $3 == "branch" { runs[s] += $9; next } # entered: the body ran warp-wide
$1 ~ /^range / && $3 == "global" {
    sectors[s] += $8; requests[s] += $6
    if ($4 == "load") load_sectors[s] += $8
    next
}
$1 ~ /^range / && $3 == "shared" { wavefronts[s] += $8; requests[s] += $6; next }
$1 ~ /^loads / { fl_runs[s] += $3; fl_bytes[s] += $5; next }
$1 ~ /^launch / {
    i = ++nlaunch[s]
    lblocks[s, i] = $3; lthreads[s, i] = $4; lper[s, i] = $7; lsms[s, i] = $8
    next
}
$1 ~ /^atomics / { atomic_ops[s] += $3; atomic_addresses[s] += $4; next }
$1 ~ /^(printf|sleep) / { uk = $1; sub(/ .*/, "", uk); unseen_calls[s, uk] += $3; unseen_amount[s, uk] += $4; next }
$1 ~ /^op / {
    timeline_add(s)
    # outside a timeline, what the kernels' counts do not hold: a copy to or from the host
    # (host_bytes: the link's, or the host's own work). (A copy within the device or a memset is
    # not counted: it does none of a lab's arithmetic, and the labs' own zeroing, lab 08's,
    # is a small share of the call.)
    if (!timeline && $5 ~ /^(h2d|d2h|h2h)$/) host_bytes[s] += $6
    next
}

# Whether a grid of b blocks was sized for the GPU (and keeps its size at the lab's): a multiple
# of the SM count and fewer blocks more than it has whole rounds of SMs (lab 08's "a wave and one
# block"; a persistent grid). Any other grid is sized by the problem, which at the lab's size
# makes it many times larger: its last round of blocks is a small share, taken as none.
function gpu_sized(b) { return b >= sms && b % sms < b / sms }
# Whether launch i of section s was sized for the GPU: gpu_sized, and, where the call was counted
# at a second size too (partner: the same call there), as many blocks there: a grid that grew
# with the problem was sized by it, whatever its count happens to be at one size.
function launch_gpu_sized(s, i) {
    return gpu_sized(lblocks[s, i]) && (!(s in partner) || lblocks[partner[s], i] == lblocks[s, i])
}
# The balanced share of each SM's blocks over the largest share, over the call's launches
# (weighted by threads): 1 when every SM gets as many blocks as any other.
function fill(s,    i, b, p, busy, threads, weighted, e) {
    threads = 0; weighted = 0
    for (i = 1; i <= nlaunch[s]; i++) {
        b = lblocks[s, i]; p = sms
        if (!launch_gpu_sized(s, i) || lper[s, i] <= 0) { e = 1 } # grows with the problem, or does not fit
        else { busy = int((b + p - 1) / p); e = (b / p) / busy }
        threads += b * lthreads[s, i]; weighted += b * lthreads[s, i] / e
    }
    return threads > 0 ? threads / weighted : 1
}
# Threads an SM holds at once in section s: the largest launch's blocks per SM x threads, or its
# share of the grid where that is fewer and the grid keeps its size at the lab's (gpu_sized).
function resident(s,    i, best, r, per_sm) {
    best = 0
    for (i = 1; i <= nlaunch[s]; i++) {
        per_sm = lper[s, i] > 0 ? lper[s, i] : 1
        r = lthreads[s, i] * per_sm
        if (threads_per_sm > 0 && r > threads_per_sm) r = threads_per_sm # the emulated SM is a cc 9.0 one
        if (launch_gpu_sized(s, i) && lblocks[s, i] * lthreads[s, i] / sms < r) r = lblocks[s, i] * lthreads[s, i] / sms
        if (r > best) best = r
    }
    return best
}
# The terms of section s, in seconds (at the emulator's size), and the bound: t[s, name], bound[s].
function terms(s,    inflight, rate, k, best) {
    t[s, "dram"] = 32 * sectors[s] / dram_bps
    t[s, "shared"] = wavefronts[s] / (sms * clock_hz)
    t[s, "issue"] = (requests[s] + runs[s]) / (sms * ISSUE_PER_CLOCK * clock_hz)
    t[s, "latency"] = 0
    if (fl_runs[s] > 0 && load_sectors[s] > 0) {
        inflight = fl_bytes[s] / fl_runs[s] * resident(s) * sms # bytes in flight on the GPU
        rate = inflight / (LATENCY_NS * 1e-9)
        if (rate > 0) t[s, "latency"] = 32 * load_sectors[s] / rate
    }
    fills[s] = fill(s)
    best = "dram"
    for (k in term_names) if (t[s, k] > t[s, best]) best = k
    bound[s] = best
    total[s] = t[s, best] / fills[s]
}
function fmt_t(x) { return x >= 1e-3 ? sprintf("%.2f ms", x * 1e3) : sprintf("%.1f us", x * 1e6) }
# (within the estimate's own error of the mark, ERROR, 25%: estimate.h's ESTIMATE_ERROR)
function side(r) {
    if (r <= threshold * ERROR && r >= threshold / ERROR)
        return (r >= threshold ? "just above" : "just below") " the mark, within the estimate's own error of it: a GPU may measure it on either side"
    return r >= threshold ? "at or above the mark" : "below the mark"
}
# The bound of section s in a few words.
function bound_text(s) {
    if (timeline) return sprintf("a span of %.2f engine-lengths", tl_span[s])
    return term_names[bound[s]] (fills[s] < 0.995 ? sprintf(", the SMs %.0f%% filled", 100 * fills[s]) : "")
}
function explain_section(s,    k) {
    if (timeline) {
        printf "    %-10s span %.2f engine-lengths (busiest engine %.2f, all engines' work %.2f)\n",
            who[s] == "yours" ? "yours:" : "reference:", tl_span[s], tl_longest[s], tl_sum[s]
        return
    }
    printf "    %s:\n", who[s] == "yours" ? "yours" : "the reference"
    printf "      %-32s %10s  %s\n", "DRAM traffic", fmt_t(t[s, "dram"]),
        sprintf("%d sectors of 32 B at %.0f GB/s", sectors[s], dram_bps / 1e9)
    printf "      %-32s %10s  %s\n", "shared-memory passes", fmt_t(t[s, "shared"]),
        sprintf("%d wavefronts, 1 per clock on each of %d SMs at %.0f MHz", wavefronts[s], sms, clock_hz / 1e6)
    printf "      %-32s %10s  %s\n", "instruction issue", fmt_t(t[s, "issue"]),
        sprintf("%d warp-wide loads and stores + %d warp-wide runs of branch bodies, 4 a clock an SM", requests[s], runs[s])
    printf "      %-32s %10s  %s\n", "loads in flight (Little's law)", fmt_t(t[s, "latency"]),
        (fl_runs[s] > 0) ? sprintf("%.1f B a thread x %.0f threads an SM x %d SMs over %d ns", fl_bytes[s] / fl_runs[s], resident(s), sms, LATENCY_NS) : "no store after a load"
    printf "      %-32s %10s  %s\n", "SMs filled by the blocks", sprintf("%.0f%%", 100 * fills[s]), "the time is the bound divided by this"
    printf "      bound: %s, %s\n", term_names[bound[s]], fmt_t(total[s])
}
# ---- The two sizes ---------------------------------------------------------------------
# Results in globals: J_what (the figure), J_a and J_b (yours against the reference's at the
# first and second size: the ratio of the two calls' counts of that term, or of your term to the
# reference's whole call where the reference has none of it, J_unit "call"), J_ea and J_eb
# (the estimate at each size), J_s1 and J_s2 (the sizes), J_y and J_r (a short call's figures).

# The estimate of your section y against the reference's r: reference time / yours, or -1.
# A timeline's span at the lab's size, from its two counts (section s and its partner at the
# other size): the busiest engine's work stays what it is in engine-lengths, and the rest, the
# pipeline's fill and drain, F, is taken to shrink with the size as it did between the two
# counts, F(n) = F1 (n / n1)^-p with p (0 to 1) from F1 and F2 (a fixed number of chunks: p 0,
# the same F at any size; chunks of a fixed size, the reference's 1 MiB ones: p 1, a share that
# falls as the chunks grow in number), out to LAB_GROW times the first size. Without a partner
# (one size counted), the span counted.
function tl_span_lab(s,    o, a, b, n1, n2, f1, f2, p) {
    if (!(s in partner)) return tl_span[s]
    o = partner[s]
    if (s ~ /^2:/) { a = o; b = s } else { a = s; b = o }
    n1 = size_n(size[a]); n2 = size_n(size[b])
    f1 = tl_span[a] - tl_longest[a]; f2 = tl_span[b] - tl_longest[b]
    if (f1 <= 0 || n1 <= 0 || n2 <= n1) return tl_span[a]
    p = f2 <= 0 ? 1 : log(f1 / f2) / log(n2 / n1)
    if (p < 0) p = 0
    if (p > 1) p = 1
    return tl_longest[a] + f1 * LAB_GROW ^ -p
}
# The element count a section's size names ("n=2097145 k=8": 2097145), 0 if none.
function size_n(t) { return match(t, /n=[0-9]+/) ? substr(t, RSTART + 2, RLENGTH - 2) + 0 : 0 }
# The estimate given: your section y against the reference's r, a timeline's spans taken at the
# lab's size (tl_span_lab); the counts' own ratio otherwise.
function ratio_given(y, r,    ty, tr) {
    if (!timeline) return ratio_of(y, r)
    ty = tl_span_lab(y); tr = tl_span_lab(r)
    return ty > 0 && tr > 0 ? tr / ty : -1
}
function ratio_of(y, r,    ty, tr) {
    if (timeline) { ty = tl_span[y]; tr = tl_span[r] } else { ty = total[y]; tr = total[r] }
    return ty > 0 && tr > 0 ? tr / ty : -1
}
# Section s's work on engine e of the timeline (bytes copied in or out, kernel threads).
function engine_work(s, e,    i, w) {
    w = 0
    for (i = 1; i <= tl_n[s]; i++) if (tl_engine(tl_kind[s, i]) == e) w += tl_amount[s, i]
    return w
}
# 1 when your call y moved less than SHORT of the bytes the task must move (need: the lab's
# footprint, on the section's line): the 32-byte sectors of its kernels' global accesses, or
# for a timeline the bytes it copied in and out (J_what, J_y, J_r: what, yours, the need).
function short_of(y, r) {
    J_r = need[y] + 0
    if (timeline) { J_what = "copies"; J_y = engine_work(y, "in") + engine_work(y, "out") }
    else { J_what = "sectors"; J_y = 32 * sectors[y] }
    return J_r > 0 && J_y < SHORT * J_r
}
# 1 when your call y did work whose cost its counts do not hold (J_unseen says which, J_y and
# J_r its figures): atomics on global memory (J_y ops on J_r distinct addresses: their cost on
# a GPU is the contention for an address, which nothing counted models), a kernel's printf
# calls (J_y calls, J_r bytes printed: the driver's formatting and a contended buffer) or
# __nanosleep calls (J_y calls, J_r ns asked for: time asleep), or, outside a timeline, copies
# to or from the host of HOST_SHARE of the bytes the task moves or more (J_y bytes, J_r the
# task's).
function unseen(y,    k) {
    if (atomic_ops[y] > 0) { J_unseen = "atomics"; J_y = atomic_ops[y]; J_r = atomic_addresses[y]; return 1 }
    split("printf sleep", unseen_kinds, " ")
    for (k = 1; k <= 2; k++)
        if (unseen_calls[y, unseen_kinds[k]] > 0) {
            J_unseen = unseen_kinds[k]; J_y = unseen_calls[y, J_unseen]; J_r = unseen_amount[y, J_unseen]; return 1
        }
    if (!timeline && need[y] > 0 && host_bytes[y] >= HOST_SHARE * need[y]) {
        J_unseen = "host"; J_y = host_bytes[y]; J_r = need[y]; return 1
    }
    return 0
}
function spread(a, b) { return a > 0 && b > 0 ? (a > b ? a / b : b / a) : (a > 0 || b > 0 ? 1e9 : 1) }
# Figure `what` at the two sizes, a and b (in the reference's whole call at that size), shown
# as ra and rb (unit: "" or "call"), where it matters (1: it is at least FLOOR of your own call
# at either size, so that it bounds it or comes near): kept when it differs more than the one
# kept so far, by more than TOL.
function consider(what, a, b, matters, ra, rb, unit,    sp) {
    if (!matters) return
    sp = spread(a, b)
    if (sp > TOL && sp > J_spread) { J_spread = sp; J_what = what; J_a = ra; J_b = rb; J_unit = unit }
}
# 1 when a figure that matters differs by more than TOL between the first size (y, r) and the
# second (y2, r2).
function differs(y, r, y2, r2,    k, n, e, engines, u1, u2, m) {
    J_spread = 1; J_what = ""
    if (timeline) { # the span (in engine-lengths: per element already) where it grew at the
                    # larger size (one that shrank is a pipeline's fill and drain falling as its
                    # chunks grow in number, which tl_span_lab takes to the lab's size), each
                    # engine's work against the reference's
        consider("span", tl_span[y], tl_span[y2], tl_span[y2] > tl_span[y], tl_span[y], tl_span[y2], "")
        n = split("in out compute", engines, " ")
        for (k = 1; k <= n; k++) {
            e = engines[k]
            if (engine_work(r, e) > 0 && engine_work(r2, e) > 0)
                consider(e, engine_work(y, e) / engine_work(r, e), engine_work(y2, e) / engine_work(r2, e), 1,
                    engine_work(y, e) / engine_work(r, e), engine_work(y2, e) / engine_work(r2, e), "")
        }
    } else { # each term against the reference's call, shown against the reference's same term
        u1 = t[r, bound[r]]; u2 = t[r2, bound[r2]]
        if (u1 > 0 && u2 > 0)
            for (k in term_names) {
                m = t[y, k] >= FLOOR * t[y, bound[y]] || t[y2, k] >= FLOOR * t[y2, bound[y2]]
                if (t[r, k] > 0 && t[r2, k] > 0)
                    consider(k, t[y, k] / u1, t[y2, k] / u2, m, t[y, k] / t[r, k], t[y2, k] / t[r2, k], "")
                else
                    consider(k, t[y, k] / u1, t[y2, k] / u2, m, t[y, k] / u1, t[y2, k] / u2, "call")
            }
    }
    consider("estimate", J_ea, J_eb, 1, J_ea, J_eb, "")
    return J_what != ""
}
# Whether check c's estimate (your section y and the reference's r at the first size) may be
# given: "" when it may; "short" (a call of the first or second size did its work where the
# counts miss it), "atomics", "printf", "sleep" or "host" (work whose cost the counts do not
# hold: unseen) or
# "sizes" (the two sizes differ, or no second count where one was asked for).
function judge(c, y, r,    i, y2, r2) {
    J_unit = ""; J_s1 = size[y]; J_s2 = "-"; J_ea = ratio_of(y, r); J_eb = -1
    if (other_code) return "other"
    if (short_of(y, r)) return "short"
    if (unseen(y)) return J_unseen
    if (nsections2 == 0 && sizes != 2) return "" # one size asked for (the agreement table's counts)
    for (i = 1; i < nsections2; i++)
        if (check_of[sections2[i]] == c && who[sections2[i]] == "yours" && who[sections2[i + 1]] == "reference") {
            y2 = sections2[i]; r2 = sections2[i + 1]
        }
    if (y2 == "") { J_what = "missing"; return "sizes" }
    J_s2 = size[y2]; J_eb = ratio_of(y2, r2)
    if (short_of(y2, r2)) return "short"
    if (unseen(y2)) return J_unseen
    return differs(y, r, y2, r2) ? "sizes" : ""
}
function fig(x) { return x >= 1e6 ? "-" : sprintf("%.2f", x) }
# Why no estimate, in explain's words.
function judged_text(j) {
    if (j == "other")
        return "your file compiles other code for the CPU emulator than for a GPU (it names CUDA_EMU), so this count is of code a GPU does not run"
    if (j == "short")
        return sprintf("your call %s %.0f bytes where the task moves %.0f at the least (%.0f%%): the rest of its work was done where the emulator does not count it (on the host, say), so its count is no picture of its speed",
            J_what == "sectors" ? "touched in its kernels' 32-byte sectors" : "copied in and out", J_y, J_r, 100 * J_y / J_r)
    if (j == "atomics")
        return sprintf("your call made %.0f atomic operations on global memory (on %.0f%s addresses): what they cost on a GPU turns on how many threads contend for one address, which the counts do not model", J_y, J_r, J_r >= 4096 ? " or more" : "")
    if (j == "printf")
        return sprintf("your call made %.0f device printf calls (%.0f bytes printed): what they cost on a GPU is the driver's formatting and a buffer every thread contends for, which the counts do not model", J_y, J_r)
    if (j == "sleep")
        return sprintf("your call made %.0f __nanosleep calls (%.0f ns asked for in all): time a thread sleeps is not in the counts, which hold loads, stores and instructions", J_y, J_r)
    if (j == "host")
        return sprintf("your call copied %.0f bytes to or from the host (%.1f%% of the %.0f the task moves): the host's link and any work done on the host are not in the counts, which hold kernels' loads and stores", J_y, 100 * J_y / J_r, J_r)
    if (J_what == "missing")
        return "the second size was not counted"
    if (J_what == "estimate")
        return sprintf("the two sizes counted disagree: about %sx the reference at %s but %sx at %s; code whose counts change with the size (or from run to run, as work issued from several host threads can) would be estimated for work the graded size may not do",
            fig(J_a), visible(J_s1), fig(J_b), visible(J_s2))
    return sprintf("the two sizes counted disagree: %s %s at %s but %s at %s (estimates %sx and %sx); code whose counts change with the size (or from run to run, as work issued from several host threads can) would be estimated for work the graded size may not do",
        J_what == "span" ? "your call's span on the engines, in engine-lengths, is" : \
            J_what in term_names ? "your " term_names[J_what] (J_unit == "call" ? ", in the reference's call time, come to" : ", against the reference's, are") : \
            "your " J_what " work, against the reference's, is",
        fig(J_a) (J_unit == "call" || J_what == "span" ? "" : "x"), visible(J_s1), fig(J_b) (J_unit == "call" || J_what == "span" ? "" : "x"), visible(J_s2), fig(J_ea), fig(J_eb))
}

END {
    # each call's partner at the other size (the same check, the same side): launch_gpu_sized
    for (i = 1; i <= nsections; i++)
        for (k = 1; k <= nsections2; k++)
            if (check_of[sections[i]] == check_of[sections2[k]] && who[sections[i]] == who[sections2[k]]) {
                partner[sections[i]] = sections2[k]; partner[sections2[k]] = sections[i]
            }
    for (i = 1; i <= nsections; i++) {
        s = sections[i]
        if (timeline) timeline_schedule(s)
        else terms(s)
    }
    for (i = 1; i <= nsections2; i++) {
        s = sections2[i]
        if (timeline) timeline_schedule(s)
        else terms(s)
    }
    if (mode == "explain") {
        while (lab != "" && (getline line < limits) > 0) # a lab whose cost the counts do not see: one line
            if (index(line, lab "\t") == 1) {
                split(line, lim, "\t")
                printf "\nEstimated speed on the %s: none for this lab: %s.\n", gpu_name, lim[2]
                exit
            }
        printf "\nEstimated speed on the %s (GPU_PROFILE=%s): an estimate from these counts, not a measurement\n", gpu_name, gpu
        printf "(a speed check on a GPU measures; this never decides a grade).\n"
    }
    for (i = 1; i < nsections; i++) {
        y = sections[i]; r = sections[i + 1]
        if (who[y] != "yours" || who[r] != "reference" || check_of[y] != check_of[r]) continue
        if (check != "" && check_of[y] != check + 0) continue
        ratio = ratio_given(y, r)
        j = judge(check_of[y], y, r)
        if (mode == "tsv") {
            printf "check %d\t%s\t%s\t%s\t%s\n", check_of[y], visible(task[y]), ratio < 0 ? "-" : sprintf("%.3f", ratio),
                timeline ? "timeline" : bound[y], timeline ? "timeline" : bound[r]
            if (j == "short") printf "short %d\t%s\t%.0f\t%.0f\n", check_of[y], J_what, J_y, J_r
            if (j == "other") printf "other %d\tCUDA_EMU\n", check_of[y]
            if (j == "atomics" || j == "host" || j == "printf" || j == "sleep") printf "%s %d\t%.0f\t%.0f\n", j, check_of[y], J_y, J_r
            if (j == "sizes")
                printf "sizes %d\t%s%s\t%s\t%s\t%s\t%s\t%s\t%s\n", check_of[y], J_what, J_unit == "call" ? ":call" : "",
                    visible(J_s1), fig(J_a), visible(J_s2), fig(J_b), J_ea < 0 ? "-" : sprintf("%.3f", J_ea), J_eb < 0 ? "-" : sprintf("%.3f", J_eb)
            continue
        }
        if (mode == "explain") {
            printf "  %s, problem %s:\n", visible(task[y]), visible(size[y])
            explain_section(y); explain_section(r)
            if (J_s2 != "-") printf "    at the second size counted, %s: yours about %sx the reference\n", visible(J_s2), J_eb < 0 ? "-" : sprintf("%.2f", J_eb)
            if (j != "") printf "    estimate: none: %s\n", judged_text(j)
            else if (ratio < 0) printf "    estimate: none (nothing counted)\n"
            else printf "    estimate: about %.2fx the reference (the mark %.2fx: %s)\n", ratio, threshold, side(ratio)
            continue
        }
        if (ratio < 0 || j != "") continue
        printf "check %d\t%.3f\tabout %.2fx the reference on the %s (the mark: %.2fx), %s; yours bound by %s, the reference by %s. An estimate from the CPU emulator's counts, not a measurement: it earns nothing, and a GPU decides\n",
            check_of[y], ratio, ratio, gpu_name, threshold, side(ratio), bound_text(y), bound_text(r)
    }
}
