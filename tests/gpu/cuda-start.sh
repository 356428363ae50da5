#!/usr/bin/env bash
# cuda-start.sh - what bounds a class graded on several GPUs of one host: a CUDA process's start
# and end, alone and one per GPU at once, and the same grading (make grade of the solutions,
# LAB=01,07) alone, one per GPU at once, and one per GPU at once in one process each
# (GRADER_ISOLATION=off: no worker processes). Grading starts a CUDA process for each lab's
# harness, its student worker, its reference worker and each speed check's fresh student worker;
# if the driver serializes their starts, the second table's "at once" column shows it.
#
#   tests/gpu/cuda-start.sh          (GPU only; a built grader: make all; about 2 minutes)
#   REPEAT=6 (processes per GPU), LABS=01,07, OUT=build/cuda-start
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/cuda-start}
mkdir -p "$out"
n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[ "$n" -ge 1 ] || { echo "cuda-start.sh: no GPU here" >&2; exit 2; }
rep=${REPEAT:-6}
labs=${LABS:-01,07}
nvcc -O2 -o "$out/probe" tests/gpu/cuda-start-probe.cu -lcuda || exit 1
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
# One GPU's processes, one after another: each one's line and its whole life (its end included)
procs() { # gpu mode
    for _ in $(seq "$rep"); do
        local s; s=$(date +%s%N)
        CUDA_VISIBLE_DEVICES=$1 "$out/probe" $2 | tr '\n' ' '
        echo "process $(ms "$s")"
    done
}
mean() { awk '{for (i = 1; i < NF; i += 2) {s[$i] += $(i + 1); c[$i]++}}
    END {if (!c["init"] || !c["process"]) {printf "no process gave its times (see the lines above)"; exit}
         printf "init %.3f s, context %.3f s, whole process %.3f s", s["init"]/c["init"],
         s["context"]/c["context"], s["process"]/c["process"]/1000}'; }
echo "host: $n x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) CPUs"
echo "== a CUDA process (cuInit, the context, a first allocation, its end), $rep per GPU:"
for mode in init ctx; do
    a=$(procs 0 $mode | mean)
    for g in $(seq 0 $((n - 1))); do procs "$g" $mode >"$out/at-once-$g.txt" & done
    wait
    b=$(cat "$out"/at-once-*.txt | mean)
    printf '  %-4s alone:            %s\n       one per GPU (%d): %s\n' "$mode" "$a" "$n" "$b"
done
# The same grading, alone and at once (each in a report folder of its own)
grade() { # tag gpu [env ...]
    local tag=$1 g=$2
    shift 2
    env CUDA_VISIBLE_DEVICES="$g" "$@" make grade STUDENT=solutions LAB="$labs" \
        GRADE_DIR="$out/g-$tag-$g" SEED=0x1234 >"$out/g-$tag-$g.log" 2>&1
}
labs_s() { python3 -c "
import json, sys
for f in sys.argv[1:]:
    r = json.load(open(f)); print('%.1f' % sum(l.get('seconds') or 0 for l in r['labs']), end=' ')
" "$@"; }
grade warm 0 # (builds the solutions' objects: not timed)
grade alone 0
for g in $(seq 0 $((n - 1))); do grade once "$g" & done
wait
for g in $(seq 0 $((n - 1))); do grade inproc "$g" GRADER_ISOLATION=off & done
wait
echo "== make grade STUDENT=solutions LAB=$labs, the labs' seconds (results.json):"
echo "  alone:                                   $(labs_s "$out"/g-alone-0/results.json)"
echo "  one per GPU at once:                     $(labs_s "$out"/g-once-*/results.json)"
echo "  one per GPU at once, GRADER_ISOLATION=off: $(labs_s "$out"/g-inproc-*/results.json)"
