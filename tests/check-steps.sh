#!/usr/bin/env bash
# check-steps.sh - every rung of every lab's ladder (solutions/NN-name/steps/K-slug.cu) must be
# a correct, complete implementation of its lab's contract. For each rung: grade it as the
# student's file (make grade STUDENT=the rung LAB=NN: compiled in the sandbox with the headers
# it shares with its lab's reference, solutions/NN-name/*.cuh) under the CPU emulator (every
# correctness check OK, the speed check skipped), and, when nvcc is here, compile it for sm_90
# as the grader would.
#
#   tests/check-steps.sh                 every rung of every lab
#   tests/check-steps.sh 07 09           the rungs of some labs (number or name)
#
# Environment: MAKE, BUILD (default build), SEED (hidden cases), NVCC (default: nvcc on PATH,
# else $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc), STEPS_NVCC=0 skips the nvcc compile.
# Prints one line per rung and a summary; exits 1 if any rung failed. Slow under the emulator:
# most rungs take seconds, but lab 07's rungs 1-5 (one float per thread, a launch per tree
# level) need about 10 minutes each for the 10^8-element case on one core, and lab 09's first
# rungs several minutes; STEPS_TIMEOUT (seconds per check on a GPU, x5 under the emulator,
# default 900) bounds each check.
set -uo pipefail
cd "$(dirname "$0")/.."
if ! ls solutions/[0-9][0-9]-*/steps/*.cu >/dev/null 2>&1; then
    echo "check-steps: no ladder rungs here (solutions/NN-name/steps/*.cu)$([ -f prebuilt/BUILDINFO ] && echo ': this is a student kit, which holds no solution sources')" >&2
    exit 2
fi

build=${BUILD:-build}
work=$build/steps
mkdir -p "$work"
nvcc=${NVCC:-$(command -v nvcc 2>/dev/null || true)}
[ -n "$nvcc" ] || nvcc=${CUDA_HOME:-/usr/local/cuda}/bin/nvcc
[ -x "$nvcc" ] || nvcc=""
[ "${STEPS_NVCC:-1}" = 0 ] && nvcc=""

wanted=("$@")
selected() { # selected LABDIR: is this lab among the arguments (or are there none)?
    [ ${#wanted[@]} -eq 0 ] && return 0
    local d=$1 w
    for w in "${wanted[@]}"; do
        case $d in "$w"-* | *-"$w") return 0 ;; esac
    done
    return 1
}

passed=0 failed=0
for labdir in solutions/[0-9][0-9]-*/; do
    labdir=${labdir%/}
    lab=${labdir#solutions/}          # 07-reduction
    name=${lab#*-}                    # reduction
    num=${lab%%-*}                    # 07
    selected "$lab" || continue
    for rung in "$labdir"/steps/*.cu; do
        [ -f "$rung" ] || continue
        slug=$(basename "$rung" .cu)  # 3-sequential-addressing
        tree=$work/$name-$slug
        rm -rf "$tree" "$tree.grade"
        log=$tree.log
        problems=""
        # Early rungs are slow under the emulator (one float per thread, a launch per tree
        # level): allow each check far longer than a GPU would need.
        GRADER_SET="$name.timeout=${STEPS_TIMEOUT:-900}${GRADER_SET:+,$GRADER_SET}" \
        ${MAKE:-make} --no-print-directory grade EMU=1 STUDENT="$rung" LAB="$num" \
            GRADE_DIR="$tree.grade" SEED="${SEED:-}" >"$log" 2>&1
        status=$?
        oks=$(grep -cE ' OK    \(' "$log")
        bad=$(grep -E ' (FAIL|ERROR) ' "$log" | head -3)
        [ "$status" -eq 2 ] || problems+="exit status $status, expected 2 (speed skipped). "
        [ "$oks" -gt 0 ] || problems+="no check passed. "
        [ -z "$bad" ] || problems+="failed: $bad. "
        grep -q 'SKIP  (.*skipped: CPU emulation' "$log" || problems+="no speed check skipped. "
        if [ -n "$nvcc" ] && [ -z "$problems" ]; then
            if ! "$nvcc" -arch=sm_90 -std=c++17 -O3 -Igrader/labs/$lab -Isolutions/$lab -Icommon \
                 -Xcompiler -Wall -c "$rung" -o "$tree.o" >"$tree.nvcc.log" 2>&1; then
                problems+="nvcc -arch=sm_90 failed: $(head -3 "$tree.nvcc.log"). "
            fi
        fi
        if [ -z "$problems" ]; then
            passed=$((passed + 1))
            echo "ok   $rung: $oks correctness checks OK under the emulator${nvcc:+, compiles for sm_90}"
        else
            failed=$((failed + 1))
            echo "FAIL $rung: $problems(log: $log)"
            tail -15 "$log" | sed 's/^/     /'
        fi
    done
done
echo "rungs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
