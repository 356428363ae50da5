#!/usr/bin/env bash
# regions.sh - the device memory a student's grading shares with its workers, in regions
# (grader/harness/worker_regions_trusted.cu): what it costs the NVIDIA driver, and that the
# checks that watch buffers still see what they saw.
#
#   tests/gpu/regions.sh [grade] [cheats]     (both by default; OUT=build/regions, SEED=0x5eed1234)
#
# Builds (make all), then
#   grade    GRADER_COSTS=1 make grade of the solutions (STUDENT=solutions) and of the skeletons
#            (labs/), with one seed: each run's `costs a student` line (allocations, mappings,
#            the messages that had a worker unmap buffers), against the marks 40 allocations and
#            80 mappings a student; its score line; every correctness check OK (both trees
#            pass every one); each lab's last costs line (its harness log).
#   cheats   the GPU cases of tests/cheats that touch buffers (their guards, writes and reads
#            past them, inputs written, outputs kept or left in place, memory held, a device
#            reset, a stream destroyed, the pinned host arrays), with the verdicts their
#            headers expect (tests/cheats/run.sh checks each), and honest controls beside them.
# Ends in a table; logs under $OUT. Exits 1 when a mark is missed or a case fails. GPU only.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/regions}
seed=${SEED:-0x5eed1234}
parts=${*:-grade cheats}
nvidia-smi -L 2>/dev/null | grep -q '^GPU' || { echo "regions.sh: no GPU here" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd)
make -j"$(nproc)" all >"$out/build.log" 2>&1 || { echo "build failed: $out/build.log"; exit 1; }
CASES="c11-modify-input c18-shared-memory-neighbours c97-device-reset-in-the-call
c99-stream-destroyed-in-the-call c103-stream-destroyed-and-made-again g01-cache-results
g11-hold-all-gpu-memory g95-streams-scribble-input-when-timed
g96-streams-keep-an-answer-left-in-place h97-coalescing-row-test-one-past
h98-coalescing-reads-past-the-bias h134-coalescing-far-overrun
h136-transpose-helper-subfolder-overrun h137-coalescing-right-only-in-a-fresh-process
h138-coalescing-three-bugs-two-lines h88-coalescing-write-through-null-rerun
h89-coalescing-misaligned-float4 h18-reduction-big-workspace h23-streams-given-pinned-buffers
h02-streams-sync-workspace h03-reference-copy h04-skeleton h05-flat-float4 h17-sgemm-register-tiles"
rows=()
bad=0
for part in $parts; do
    case $part in
    grade)
        for who in solutions skeletons; do
            student=$([ $who = solutions ] && echo solutions || echo labs)
            GRADER_COSTS=1 SEED=$seed make grade STUDENT="$student" >"$out/grade-$who.log" 2>&1
            mkdir -p "$out/$who" && cp build/grade/results.json build/grade/*.harness.log "$out/$who/" 2>/dev/null
            for f in "$out/$who"/*.harness.log; do
                echo "$(basename "$f" .harness.log): $(grep 'harness: costs after' "$f" | tail -1)"
            done >"$out/$who/costs-by-lab.txt"
            line=$(grep '^costs a student' "$out/grade-$who.log" | tail -1)
            echo "$who: ${line:-no costs line}"
            grep '^Score' "$out/grade-$who.log"
            read -r allocs maps forgets <<<"$(sed -nE 's/.* ([0-9]+) allocations, ([0-9]+) mappings,.* ([0-9]+) unmapping messages.*/\1 \2 \3/p' <<<"$line")"
            correct=$(python3 -c "
import json, sys
j = json.load(open(sys.argv[1]))
c = [x for lab in j['labs'] for x in lab.get('checks', []) if x.get('kind') != 'speed']
print('%d/%d' % (sum(x.get('verdict') == 'OK' for x in c), len(c)))" "$out/$who/results.json" 2>/dev/null)
            mark=ok
            if [ -z "${allocs:-}" ] || [ "$allocs" -gt 40 ] || [ "$maps" -gt 80 ] ||
                [ "${correct%/*}" != "${correct#*/}" ] || [ -z "$correct" ]; then
                mark=MISSED
                bad=1
            fi
            rows+=("$(printf '%-10s %-22s %6s %6s %6s   %-9s %s' grade "$who" "${allocs:--}" "${maps:--}" \
                "${forgets:--}" "${correct:--}" "$mark")")
        done
        ;;
    cheats)
        # shellcheck disable=SC2086
        CHEATS_WORK=build/cheats-regions tests/cheats/run.sh $CASES >"$out/cheats.txt" 2>&1
        summary=$(grep -E '^cheats \(' "$out/cheats.txt" | tail -1)
        echo "${summary:-cheats: no summary (see $out/cheats.txt)}"
        grep -E '^FAIL' "$out/cheats.txt" | head -20
        for c in $CASES; do
            r=$(grep -E "^(ok|FAIL) +$c(:|$)" "$out/cheats.txt" | head -1 | awk '{print $1}')
            rows+=("$(printf '%-10s %-40s %s' cheat "$c" "${r:-?}")")
            [ "${r:-}" = ok ] || bad=1
        done
        ;;
    *) echo "regions.sh: unknown part '$part' (grade, cheats)" >&2; exit 2 ;;
    esac
done
echo
echo "== regions ($(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); logs in $out)"
printf '%-10s %-22s %6s %6s %6s   %-9s %s\n' part run allocs maps unmaps correct "mark (<=40 allocs, <=80 maps, every correctness check OK)"
printf '%s\n' "${rows[@]}"
exit $bad
