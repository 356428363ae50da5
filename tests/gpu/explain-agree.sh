#!/usr/bin/env bash
# explain-agree.sh - does the CPU emulator count what the GPU does? For every skeleton, ladder
# rung and reference of the labs named, the whole call's counters from make explain (the
# emulator) beside Nsight Compute's from make profile (this GPU), for the same call: both at
# make explain's problem size (make profile EXPLAIN_SIZE=1), the emulated device with this
# GPU's SM count (GPU_PROFILE, default h200), so grids are the same too. The GPU side is built
# twice: with nvcc -G (DEVICE_G=1, in a BUILD of its own), where every access and branch
# written in the source is its own machine instruction; and as grading builds it (-O3), where
# nvcc may merge a thread's accesses to neighbouring words into one wider instruction (four
# 4-byte shared loads of an unrolled loop into one 16-byte load, say) and turn short branches
# into predicated code. The emulator counts the accesses g++ made of the source, merging a
# float4 that g++ copied field by field and, in shared memory, the neighbouring words of a loop
# g++ unrolled (common/emu/src/count.cpp): so it is held to the build that issued as many
# requests (instructions) as it counted: -G where the two agree on that, else -O3 where that
# one does; the row says which. A file that compiles other code for the emulator (#if on
# CUDA_EMU: the cp.async rung of lab 09, where the emulator has no cp.async) is two programs:
# where its rows differ they are shown as such and counted apart.
#
# Counters: global load and store sectors per request and shared-memory load and store
# wavefronts, each where the lab's profile.tsv asks Nsight Compute for it; the waves of lab
# 08's launch (blocks / (SMs x blocks per SM) against launch__waves_per_multiprocessor); lab
# 03's divergent branches (make explain: warp-wide runs of an if, while or for condition whose
# lanes split; Nsight Compute: SASS branch targets that part of a warp went to). Shared memory
# is compared as the call's total wavefronts: under -G shared memory is reached through
# generic loads and stores, which Nsight Compute does not count as shared instructions, so
# there is no per-instruction figure to divide by (the emulator's per instruction is its total
# over its requests). A row agrees exactly when the two differ by at most 0.05 (figures printed
# to 0.1 and 0.01; waves 0.005, as Nsight Compute gives them to 2 decimals; a count or a total:
# equal), within 5% otherwise.
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
gpu_profile=${GPU_PROFILE:-h200}
gbuild=${AGREE_G_BUILD:-build/agree-g}
# Default: every lab whose profile.tsv asks Nsight Compute for one of the counters compared.
labs=${*:-$(cd grader/labs && for d in [0-9][0-9]-*; do
    grep -qE '^(global|shared) (load|store) (sectors per request|wavefronts per instruction)|^waves per SM|^divergent branch' "$d/profile.tsv" 2>/dev/null && echo "$d"; done)}

# The counters both tools give: make explain's whole-call name, make profile's row name.
counters=$'global load sectors\tglobal load sectors per request
global store sectors\tglobal store sectors per request'

# verdict A B TOLERANCE: exact, within 5%, DIFFERS, or "only one tool saw it"
verdict() {
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN {
        if (a == "-" || b == "-") { print "only one tool saw it"; exit }
        d = a - b; if (d < 0) d = -d
        m = (a > b ? a : b)
        if (d <= t) print "exact"; else if (m > 0 && d / m <= 0.05) print "within 5%"; else print "DIFFERS" }'
}
# profile_row FILE NAME: make profile's figure for yours in the first section ("-" if none)
profile_row() {
    awk -v k="$2" 'index($0, "  " k " ") == 1 { split(substr($0, length(k) + 3), w, " "); sub(/%$/, "", w[1]); print w[1]; exit }' "$1"
}
declare -A op_short=([load]=ld [store]=st) # Nsight Compute's name of each in its metrics
# emu_total COUNTS SPACE OP: the emulator's sectors or wavefronts of yours (range 1: the first
# speed problem) for one kind of access, summed over lines ("-" if none)
emu_total() {
    awk -F'\t' -v sp="$2" -v op="$3" '$1 == "range 1" && $3 == sp && $4 == op { t += $8; n++ }
        END { print n ? t : "-" }' "$1"
}
# gpu_total CSV METRIC: Nsight Compute's METRIC summed over the kernels of section 1 (yours in
# the first speed problem: after the grader_profile_section marker whose grid is 1), "-" if none
gpu_total() {
    awk -v m="$2" '{ sub(/^"/, ""); sub(/"\r?$/, ""); n = split($0, f, /","/) }
        !head { for (i = 1; i <= n; i++) col[f[i]] = i; head = 1; next }
        f[col["ID"]] !~ /^[0-9]+$/ { next }
        f[col["Kernel Name"]] ~ /grader_profile_section/ { g = f[col["launch__grid_size"]]; gsub(/,/, "", g); cur = g + 0; next }
        cur == 1 { v = f[col[m]]; gsub(/,/, "", v); t += v; k++ }
        END { print (k && (m in col) && t > 0) ? t : "-" }' "$1"
}
exact=0 close=0 differ=0 missing=0 other=0
# row LAB VARIANT COUNTER EMULATOR GPU_G GPU_O3 TOLERANCE [O3]: one line, agreement of the
# emulator with the -G build, or with the -O3 build when the last argument is O3 (the emulator
# counted the instructions -O3 issues: where g++ merged a float4's or an unrolled loop's pieces
# as nvcc does at -O3, and the -G build issues them one by one).
row() {
    local v which=${8:-G} against=$5 note=""
    [ "$which" = O3 ] && against=$6
    v=$(verdict "$4" "$against" "$7")
    # A file that compiles other code for the emulator (#if on CUDA_EMU, as a cp.async rung
    # does where the emulator has none) is two programs: its rows are shown, not judged.
    if [ "$other_code" = 1 ] && [ "$v" != exact ]; then v="other code under the emulator (#if CUDA_EMU)"; fi
    case $v in other*) other=$((other + 1)) ;; exact) exact=$((exact + 1)) ;; within*) close=$((close + 1)) ;; DIFFERS) differ=$((differ + 1)) ;; *) missing=$((missing + 1)) ;; esac
    if [ "$which" = O3 ]; then note="  (against -O3: the same instructions as the emulator's)"
    elif [ "$6" != "$5" ] && [ "$(verdict "$5" "$6" "$7")" = DIFFERS ]; then note="  (-O3: nvcc's instructions are not the source's)"; fi
    printf '%-14s %-34s %-27s %9s %9s %9s  %s%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$v" "$note"
}
# emu_requests COUNTS SPACE OP: the emulator's warp-wide requests of yours (range 1), "-" if none
emu_requests() {
    awk -F'\t' -v sp="$2" -v op="$3" '$1 == "range 1" && $3 == sp && $4 == op { t += $6; n++ }
        END { print n ? t : "-" }' "$1"
}
printf '%-14s %-34s %-27s %9s %9s %9s  %s\n' lab variant counter emulator "GPU -G" "GPU -O3" agreement
for lab in $labs; do
    name=${lab#*-}
    variants="labs/$lab/$name.cu $(ls solutions/"$lab"/steps/*.cu 2>/dev/null) solutions/$lab/$name.cu"
    for f in $variants; do
        case $f in labs/*) v=skeleton ;; */steps/*) v=steps/$(basename "$f" .cu) ;; *) v=reference ;; esac
        tag=$lab-$(echo "$v" | tr / _)
        other_code=0
        grep -q 'CUDA_EMU' "$f" && other_code=1
        make -s --no-print-directory explain LAB="$name" STUDENT="$f" GPU_PROFILE="$gpu_profile" \
            >"$log/$tag.explain.txt" 2>&1 ||
            { echo "$lab $v: make explain failed (see $log/$tag.explain.txt)"; missing=$((missing + 1)); continue; }
        cp "build/explain/$name/counts.tsv" "$log/$tag.counts.tsv"
        make -s --no-print-directory profile LAB="$name" STUDENT="$f" EXPLAIN_SIZE=1 \
            >"$log/$tag.profile.txt" 2>&1 ||
            { echo "$lab $v: make profile failed (see $log/$tag.profile.txt)"; missing=$((missing + 1)); continue; }
        cp "build/profile/$name/counters.csv" "$log/$tag.counters.csv"
        make -s --no-print-directory profile LAB="$name" STUDENT="$f" EXPLAIN_SIZE=1 DEVICE_G=1 BUILD="$gbuild" \
            >"$log/$tag.profile-g.txt" 2>&1 ||
            { echo "$lab $v: make profile DEVICE_G=1 failed (see $log/$tag.profile-g.txt)"; missing=$((missing + 1)); continue; }
        cp "$gbuild/profile/$name/counters.csv" "$log/$tag.counters-g.csv"
        while IFS=$'\t' read -r emu_name gpu_name; do
            # make explain: "  global load sectors:   4.0 (ideal 4.0)   16.0 (ideal 16.0)": yours first.
            e=$(awk -v k="$emu_name:" 'index($0, "  " k) == 1 { s = substr($0, length(k) + 3); split(s, w, " "); print w[1]; exit }' "$log/$tag.explain.txt")
            # make profile: "  global load sectors per request   32.0   4.0": yours, then the reference;
            # the first section only (every lab's first speed problem).
            g=$(profile_row "$log/$tag.profile-g.txt" "$gpu_name")
            o=$(profile_row "$log/$tag.profile.txt" "$gpu_name")
            # A counter the lab's profile.tsv does not ask Nsight Compute for is not compared
            # (no row); one it asks for but the call never made is "-" on that side.
            [ -z "$g" ] && [ -z "$o" ] && continue
            { [ "$e" = none ] || [ -z "$e" ]; } && e=-
            [ -z "$g" ] && g=-
            [ -z "$o" ] && o=-
            if [ "$e" = - ] && [ "$g" = - ]; then continue; fi
            # Against the build that issued the emulator's number of requests (-G first).
            op=${emu_name#global }; op=${op%% *}
            metric=l1tex__t_requests_pipe_lsu_mem_global_op_${op_short[$op]}.sum
            er=$(emu_requests "$log/$tag.counts.tsv" global "$op")
            which=G
            [ "$er" != "$(gpu_total "$log/$tag.counters-g.csv" "$metric")" ] &&
                [ "$er" = "$(gpu_total "$log/$tag.counters.csv" "$metric")" ] && which=O3
            row "$lab" "$v" "$emu_name" "$e" "$g" "$o" 0.05 "$which"
        done <<<"$counters"
        # Shared memory: the call's total wavefronts, where profile.tsv asks for them.
        for op in load store; do
            metric=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_${op_short[$op]}.sum
            grep -q "$metric" "grader/labs/$lab/profile.tsv" || continue
            e=$(emu_total "$log/$tag.counts.tsv" shared "$op")
            g=$(gpu_total "$log/$tag.counters-g.csv" "$metric")
            o=$(gpu_total "$log/$tag.counters.csv" "$metric")
            [ "$e" = - ] && [ "$g" = - ] && continue
            # -G reaches shared memory through generic instructions (no count of its own): the
            # -O3 build is the one compared when it issued as many shared instructions as the
            # emulator counted requests.
            which=G
            [ "$(emu_requests "$log/$tag.counts.tsv" shared "$op")" = \
                "$(gpu_total "$log/$tag.counters.csv" smsp__inst_executed_op_shared_${op_short[$op]}.sum)" ] && which=O3
            row "$lab" "$v" "shared $op wavefronts, all" "$e" "$g" "$o" 0 "$which"
        done
        # The lesson's own counters, yours in the first speed problem on both sides.
        if grep -q '^waves per SM' "grader/labs/$lab/profile.tsv"; then
            e=$(awk 'match($0, /^  launch [^:]*: [0-9]+ blocks on [0-9]+ SMs x [0-9]+ per SM/) {
                    split(substr($0, RSTART, RLENGTH), w, /: | blocks on | SMs x | per SM/); n++
                    if (n == 1) x = sprintf("%.3f", w[2] / (w[3] * w[4])) }
                  /^the reference:/ { exit } END { if (n == 1) print x; else if (n > 1) print "-" }' "$log/$tag.explain.txt")
            g=$(profile_row "$log/$tag.profile-g.txt" "waves per SM")
            o=$(profile_row "$log/$tag.profile.txt" "waves per SM")
            row "$lab" "$v" "waves per SM" "${e:--}" "${g:--}" "${o:--}" 0.005
        fi
        if grep -q '^divergent branch targets' "grader/labs/$lab/profile.tsv"; then
            # make explain: "  divergent branches:   1879 of 2569110 (0.07%)   ...": yours first.
            e=$(awk 'index($0, "  divergent branches:") == 1 { split(substr($0, 23), w, " "); print w[1]; exit }' "$log/$tag.explain.txt")
            g=$(profile_row "$log/$tag.profile-g.txt" "divergent branch targets")
            o=$(profile_row "$log/$tag.profile.txt" "divergent branch targets")
            row "$lab" "$v" "divergent branches" "${e:--}" "${g:--}" "${o:--}" 0
        fi
    done
done
echo "explain-agree: $exact exact, $close within 5%, $differ differ, $missing without a figure from one side, $other of files that compile other code for the emulator"
[ "$differ" = 0 ] && [ "$missing" = 0 ]
