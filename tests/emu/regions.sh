#!/usr/bin/env bash
# regions.sh - the memory the harness shares with its workers, counted (GRADER_COSTS=1), under
# the CPU emulator: labs 01 (device buffers) and 05 (device buffers and pinned host arrays), the
# skeletons, one seed. As graded (each device buffer an allocation of its own, whose ends are
# the emulator's red zones): every correctness check OK; lab 05's host arrays in one region for
# all its checks (one host allocation, mapped once); a check's buffers unmapped in one message,
# not one a buffer (at most one message a check). With GRADER_EMU_REGIONS=1 (the GPU's way: a
# lab's correctness checks in one region): every check OK again, one device region a lab, one
# host region, each mapped once, and no message to unmap (a region stays for the lab's checks).
#
#   tests/emu/regions.sh      (MAKE and BUILD from the environment; after make emu-runners)
#
# Prints `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
work=${BUILD:-build}/regions-test
. tests/result.sh
rm -rf "$work" && mkdir -p "$work"
grade() { # NAME [ENV...]: make grade of labs 01 and 05, costs counted, into $work/NAME.txt
    local name=$1
    shift
    env "$@" GRADER_COSTS=1 ${MAKE:-make} --no-print-directory grade EMU=1 LAB=01,05 STUDENT=labs \
        GRADE_DIR="$work/$name" GRADE_WHERE=0 SEED=0x1234 >"$work/$name.txt" 2>&1
}
# costs NAME: "processes allocations mappings device host unmaps checks correct-OK" of a run
costs() {
    local line checks ok
    line=$(grep '^costs a student' "$work/$1.txt" | tail -1)
    checks=$(python3 -c "
import json, sys
c = [x for lab in json.load(open(sys.argv[1]))['labs'] for x in lab['checks'] if x['kind'] != 'speed']
print(len(c), sum(x['verdict'] == 'OK' for x in c))" "$work/$1/results.json" 2>/dev/null)
    sed -nE 's/^costs a student: ([0-9]+) CUDA processes, ([0-9]+) allocations, ([0-9]+) mappings,.*; ([0-9]+) device and ([0-9]+) host allocations;.*; ([0-9]+) unmapping messages\)$/\1 \2 \3 \4 \5 \6/p' \
        <<<"$line" | tr '\n' ' '
    echo "${checks:-0 -1}"
}
grade buffers
read -r _ allocs maps dev host unmaps checks ok <<<"$(costs buffers)"
[ -n "${unmaps:-}" ] && [ "$checks" -gt 0 ] && [ "$ok" = "$checks" ]
result "as graded: every correctness check of labs 01 and 05 OK ($ok of $checks)" $? "see $work/buffers.txt"
[ "${host:-}" = 1 ]
result "... lab 05's host arrays: one region for all its checks (host allocations: ${host:-none})" $? "see $work/buffers.txt"
[ -n "${unmaps:-}" ] && [ "$unmaps" -ge 1 ] && [ "$unmaps" -le "$checks" ] && [ "$maps" -gt "$checks" ]
result "... a check's buffers unmapped in one message ($unmaps messages, $checks checks, $maps buffers mapped)" $? \
    "see $work/buffers.txt"
grade regions GRADER_EMU_REGIONS=1
read -r _ allocs maps dev host unmaps checks ok <<<"$(costs regions)"
[ -n "${unmaps:-}" ] && [ "$checks" -gt 0 ] && [ "$ok" = "$checks" ]
result "in regions (GRADER_EMU_REGIONS=1): every correctness check OK ($ok of $checks)" $? "see $work/regions.txt"
[ "${dev:-}" = 2 ] && [ "${host:-}" = 1 ] && [ "${maps:-}" = 3 ] && [ "${unmaps:-}" = 0 ]
result "... one device region a lab, one host region, each mapped once (allocations: ${dev:-?} device, ${host:-?} host; mappings: ${maps:-?}; unmapping messages: ${unmaps:-?})" \
    $? "see $work/regions.txt"
results "regions"
