#!/usr/bin/env bash
# explain-agree.sh - does the CPU emulator count what the GPU does? For every skeleton, ladder
# rung and reference of the labs named, the whole call's memory counters from make explain
# (the emulator, at its own problem size) beside Nsight Compute's from make profile (this GPU,
# at the grading size): global load and store sectors per request, shared-memory load and
# store wavefronts per instruction, each where the lab's profile.tsv asks Nsight Compute for
# it; and the lesson's own counters where both tools give one: the waves of lab 08's launch
# (make explain with GPU_PROFILE=h200, or $GPU_PROFILE: this GPU's SM count and so the grading
# size; blocks / (SMs x blocks per SM) against launch__waves_per_multiprocessor) and lab 03's
# divergent branches (make explain: warp-wide runs of a condition whose lanes split, over all
# runs; Nsight Compute: SASS branch targets reached by part of a warp, over all targets: the
# same question asked of different instructions, at different sizes, so an approximate match
# at best). A row agrees exactly when the two differ by at most 0.05 (the figures are printed
# to 0.1 and 0.01; waves: 0.005, as Nsight Compute gives them to 2 decimals), within 5% otherwise. Per request and per instruction are what the compilers made:
# where nvcc merges a loop's four 4-byte shared stores into one 16-byte store and g++ does
# not, the GPU issues fewer, dearer instructions, and the figures differ for that reason.
#
#   tests/gpu/explain-agree.sh [NN-name ...]      (default: every lab whose profile.tsv has
#                                                   one of these counters: 01, 02, 03, 04, 06, 07, 08, 09)
#
# Prints one row per variant and counter, then a count; logs under $OUT/explain-agree/.
# Needs a GPU, Nsight Compute with counter permission, and the emulator's build (make builds
# it). Exit status: 0 when every row agrees, 1 otherwise, 2 when a tool could not run.
set -u
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/gpu-run}
log=$OUT/explain-agree
mkdir -p "$log"
# Default: every lab whose profile.tsv asks Nsight Compute for one of the counters compared.
labs=${*:-$(cd grader/labs && for d in [0-9][0-9]-*; do
    grep -qE '^(global|shared) (load|store) (sectors per request|wavefronts per instruction)|^waves per SM|^divergent branches' "$d/profile.tsv" 2>/dev/null && echo "$d"; done)}

# The counters both tools give: make explain's whole-call name, make profile's row name.
counters=$'global load sectors\tglobal load sectors per request
global store sectors\tglobal store sectors per request
shared load wavefronts\tshared load wavefronts per instruction
shared store wavefronts\tshared store wavefronts per instruction'

exact=0 close=0 differ=0 missing=0
printf '%-14s %-34s %-24s %8s %8s  %s\n' lab variant counter emulator GPU agreement
for lab in $labs; do
    name=${lab#*-}
    variants="labs/$lab/$name.cu $(ls solutions/"$lab"/steps/*.cu 2>/dev/null) solutions/$lab/$name.cu"
    for f in $variants; do
        case $f in labs/*) v=skeleton ;; */steps/*) v=steps/$(basename "$f" .cu) ;; *) v=reference ;; esac
        tag=$lab-$(echo "$v" | tr / _)
        make -s --no-print-directory explain LAB="$name" STUDENT="$f" $([ "$lab" = 08-tail ] && echo GPU_PROFILE="${GPU_PROFILE:-h200}") \
            >"$log/$tag.explain.txt" 2>&1 ||
            { echo "$lab $v: make explain failed (see $log/$tag.explain.txt)"; missing=$((missing + 1)); continue; }
        make -s --no-print-directory profile LAB="$name" STUDENT="$f" >"$log/$tag.profile.txt" 2>&1 ||
            { echo "$lab $v: make profile failed (see $log/$tag.profile.txt)"; missing=$((missing + 1)); continue; }
        while IFS=$'\t' read -r emu_name gpu_name; do
            # make explain: "  global load sectors:   4.0 (ideal 4.0)   16.0 (ideal 16.0)": yours first.
            e=$(awk -v k="$emu_name:" 'index($0, "  " k) == 1 { s = substr($0, length(k) + 3); split(s, w, " "); print w[1]; exit }' "$log/$tag.explain.txt")
            # make profile: "  global load sectors per request   32.0   4.0": yours, then the reference;
            # the first section only (every lab's first speed problem).
            g=$(awk -v k="$gpu_name" 'index($0, "  " k " ") == 1 { s = substr($0, length(k) + 3); split(s, w, " "); print w[1]; exit }' "$log/$tag.profile.txt")
            # A counter the lab's profile.tsv does not ask Nsight Compute for is not compared
            # (no row); one it asks for but the call never made is "-" on that side.
            [ -z "$g" ] && continue
            { [ "$e" = none ] || [ -z "$e" ]; } && e=-
            if [ "$e" = - ] && [ "$g" = - ]; then continue; fi
            verdict=$(awk -v a="$e" -v b="$g" 'BEGIN {
                if (a == "-" || b == "-") { print "only one tool saw it"; exit }
                d = a - b; if (d < 0) d = -d
                m = (a > b ? a : b)
                if (d <= 0.05) print "exact"; else if (m > 0 && d / m <= 0.05) print "within 5%"; else print "DIFFERS" }')
            case $verdict in exact) exact=$((exact + 1)) ;; within*) close=$((close + 1)) ;; DIFFERS) differ=$((differ + 1)) ;; *) missing=$((missing + 1)) ;; esac
            printf '%-14s %-34s %-24s %8s %8s  %s\n' "$lab" "$v" "$emu_name" "$e" "$g" "$verdict"
        done <<<"$counters"
        # The lesson's own counters, yours in the first speed problem on both sides.
        e="" g="" tol=0.05 what=""
        if grep -q '^waves per SM' "grader/labs/$lab/profile.tsv"; then
            what="waves per SM" tol=0.005 # Nsight Compute gives this metric to 2 decimals
            e=$(awk 'match($0, /^  launch [^:]*: [0-9]+ blocks on [0-9]+ SMs x [0-9]+ per SM/) {
                    split(substr($0, RSTART, RLENGTH), w, /: | blocks on | SMs x | per SM/); n++
                    if (n == 1) x = sprintf("%.3f", w[2] / (w[3] * w[4])) }
                  /^the reference:/ { exit } END { if (n == 1) print x; else if (n > 1) print "-" }' "$log/$tag.explain.txt")
            g=$(awk -v k="waves per SM" 'index($0, "  " k " ") == 1 { split(substr($0, length(k) + 3), w, " "); print w[1]; exit }' "$log/$tag.profile.txt")
        elif grep -q '^divergent branches' "grader/labs/$lab/profile.tsv"; then
            what="divergent branches, %"
            e=$(awk 'index($0, "  divergent branches:") == 1 { match($0, /\(([0-9.]+)%\)/); print substr($0, RSTART + 1, RLENGTH - 3); exit }' "$log/$tag.explain.txt")
            g=$(awk -v k="divergent branches, % of branch targets" 'index($0, "  " k " ") == 1 { split(substr($0, length(k) + 3), w, " "); sub(/%$/, "", w[1]); print w[1]; exit }' "$log/$tag.profile.txt")
        fi
        if [ -n "$what" ]; then
            [ -z "$e" ] && e=-
            [ -z "$g" ] && g=-
            verdict=$(awk -v a="$e" -v b="$g" -v t="$tol" 'BEGIN {
                if (a == "-" || b == "-") { print "only one tool saw it"; exit }
                d = a - b; if (d < 0) d = -d
                m = (a > b ? a : b)
                if (d <= t) print "exact"; else if (m > 0 && d / m <= 0.05) print "within 5%"; else print "DIFFERS" }')
            case $verdict in exact) exact=$((exact + 1)) ;; within*) close=$((close + 1)) ;; DIFFERS) differ=$((differ + 1)) ;; *) missing=$((missing + 1)) ;; esac
            printf '%-14s %-34s %-24s %8s %8s  %s\n' "$lab" "$v" "$what" "$e" "$g" "$verdict"
        fi
    done
done
echo "explain-agree: $exact exact, $close within 5%, $differ differ, $missing without a figure from one side"
[ "$differ" = 0 ] && [ "$missing" = 0 ]
