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
# Input: the harness's section lines, then the counts (as explain.awk). Options:
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
#                                           the reference's bound" (the agreement table's input)
# Loaded after counts.awk and timeline.awk (count_row_ok, visible, timeline_*).

BEGIN {
    # A global load's latency under load, in ns: one figure for every GPU (an estimate; HBM and
    # GDDR differ by tens of ns), near what the H200's measured lab 04 rungs with one load in
    # flight a thread imply (33792 threads x 4 or 16 B over their rates: about 220 ns)
    LATENCY_NS = 250
    ISSUE_PER_CLOCK = 4 # warp instructions an SM issues per clock: four schedulers
    term_names["dram"] = "DRAM traffic"; term_names["shared"] = "shared-memory passes"
    term_names["issue"] = "instruction issue"; term_names["latency"] = "loads in flight (Little's law)"
    if (table != "") { # the lab's explain table: a timeline row means lab 05's kind of call
        while ((getline line < table) > 0) if (line ~ /^timeline\t/) timeline = 1
        close(table)
    }
}
FILENAME == ARGV[1] {
    if ($1 ~ /^section / && $2 ~ /^check [0-9]+$/ && $4 ~ /^(yours|reference)$/) {
        s = $1; sub(/^section /, "", s)
        sections[++nsections] = s
        who[s] = $4; size[s] = $5; task[s] = $3
        c = $2; sub(/^check /, "", c); check_of[s] = c + 0
    }
    next
}
!count_row_ok() { next }
{ s = $1; sub(/^[a-z]+ /, "", s) }
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
$1 ~ /^op / { timeline_add(s); next }

# Whether a grid of b blocks was sized for the GPU (and keeps its size at the lab's): a multiple
# of the SM count and fewer blocks more than it has whole rounds of SMs (lab 08's "a wave and one
# block"; a persistent grid). Any other grid is sized by the problem, which at the lab's size
# makes it many times larger: its last round of blocks is a small share, taken as none.
function gpu_sized(b) { return b >= sms && b % sms < b / sms }
# The balanced share of each SM's blocks over the largest share, over the call's launches
# (weighted by threads): 1 when every SM gets as many blocks as any other.
function fill(s,    i, b, p, busy, threads, weighted, e) {
    threads = 0; weighted = 0
    for (i = 1; i <= nlaunch[s]; i++) {
        b = lblocks[s, i]; p = sms
        if (!gpu_sized(b) || lper[s, i] <= 0) { e = 1 } # grows with the problem, or does not fit
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
        if (gpu_sized(lblocks[s, i]) && lblocks[s, i] * lthreads[s, i] / sms < r) r = lblocks[s, i] * lthreads[s, i] / sms
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
function side(r) { return r >= threshold ? "at or above the mark" : "below the mark" }
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
END {
    for (i = 1; i <= nsections; i++) {
        s = sections[i]
        if (timeline) timeline_schedule(s)
        else terms(s)
    }
    if (mode == "explain") {
        printf "\nEstimated speed on the %s (GPU_PROFILE=%s): an estimate from these counts, not a measurement\n", gpu_name, gpu
        printf "(a speed check on a GPU measures; this never decides a grade).\n"
        while (lab != "" && (getline line < limits) > 0) # a lab whose cost the counts do not see
            if (index(line, lab "\t") == 1) printf "Not to be trusted for this lab: %s.\n", substr(line, length(lab) + 2)
    }
    for (i = 1; i < nsections; i++) {
        y = sections[i]; r = sections[i + 1]
        if (who[y] != "yours" || who[r] != "reference" || check_of[y] != check_of[r]) continue
        if (check != "" && check_of[y] != check + 0) continue
        if (timeline) { ty = tl_span[y]; tr = tl_span[r] }
        else { ty = total[y]; tr = total[r] }
        if (ty <= 0 || tr <= 0) ratio = -1
        else ratio = tr / ty
        if (mode == "tsv") {
            printf "check %d\t%s\t%s\t%s\t%s\n", check_of[y], visible(task[y]), ratio < 0 ? "-" : sprintf("%.3f", ratio),
                timeline ? "timeline" : bound[y], timeline ? "timeline" : bound[r]
            continue
        }
        if (mode == "explain") {
            printf "  %s, problem %s:\n", visible(task[y]), visible(size[y])
            explain_section(y); explain_section(r)
            if (ratio < 0) printf "    estimate: none (nothing counted)\n"
            else printf "    estimate: about %.2fx the reference (the mark %.2fx: %s)\n", ratio, threshold, side(ratio)
            continue
        }
        if (ratio < 0) continue
        printf "check %d\t%.3f\tabout %.2fx the reference on the %s (the mark: %.2fx), %s; yours bound by %s, the reference by %s. An estimate from the CPU emulator's counts, not a measurement: it earns nothing, and a GPU decides\n",
            check_of[y], ratio, ratio, gpu_name, threshold, side(ratio), bound_text(y), bound_text(r)
    }
}
