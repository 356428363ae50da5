#!/usr/bin/env bash
# onehar.sh - one harness process serves every lab of a run (grader/harness/harness_labs.cu), and
# a harness stopped mid-lab is replaced by a fresh one that carries nothing of it. Under the CPU
# emulator, a tree whose lab 01 sleeps in every call (tests/stop/sleepy-coalescing.cu, each check
# stopped at its time limit, set to 2 s: the harness killed with its workers) and whose lab 02 is
# the reference solution, graded together (LAB=01,02), then lab 02 alone:
#   - every correctness check of lab 01 ran out of time, each in a fresh harness (lab 01's log
#     names as many harnesses as checks run);
#   - lab 02 was served by a fresh harness (its log: "lab banks begins (lab 1 of this harness)")
#     and its check lines are those of lab 02 graded alone (times masked), every one OK;
#   - the solutions of labs 01 and 02 graded together: one harness served both (lab 2 of it);
#   - and with GRADER_LAB_END_TEST=left (the harness finds something of lab 01 left at its end,
#     says so and exits): lab 02 served by a fresh harness, the same verdicts;
#   - the reference's worker lives across labs: a tree whose labs 01 and 02 are the solutions
#     with a constructor that ends the student's process before it answers (each check then has
#     the reference's process answer an empty call, tests/cheats/c36-exit-at-start.cu), graded
#     with GRADER_COSTS=1: lab 01's reference worker is kept at its end and loads lab 02's object
#     (the same process id in both logs), and the run starts exactly one CUDA process fewer
#     than with GRADER_REFERENCE_KEEP=0 (a fresh one a lab), the same verdicts;
#   - and with GRADER_LAB_END_TEST=refkill (the kept worker killed between the labs, unknown to
#     the harness): the load finds it gone, a fresh one serves lab 02, as many processes as
#     without keeping, the same verdicts.
#
#   tests/emu/onehar.sh      (MAKE and BUILD from the environment; after make emu-runners)
#
# Prints `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
work=${BUILD:-build}/onehar-test
. tests/result.sh
grade() { # NAME LABS TREE: make grade of TREE's labs LABS, its output in $work/NAME.txt
    GRADER_SET=coalescing.timeout=2 ${MAKE:-make} --no-print-directory grade EMU=1 LAB="$2" \
        STUDENT="$3" GRADE_DIR="$work/$1" GRADE_WHERE=0 SEED=0x1234 >"$work/$1.txt" 2>&1
}
# lab NUM's check lines in run NAME's output (to its line LABNAME: ...), their times masked
lines() {
    sed -n "/^== $2 /,/^  $3: /p" "$work/$1.txt" | sed -E 's/\( *[0-9]+\.[0-9]+s\)/( T s)/'
}
rm -rf "$work" && mkdir -p "$work/tree/01-coalescing" "$work/tree/02-banks"
cp tests/stop/sleepy-coalescing.cu "$work/tree/01-coalescing/coalescing.cu"
cp solutions/02-banks/banks.cu solutions/02-banks/*.cuh "$work/tree/02-banks/"
grade both 01,02 "$work/tree"
mkdir -p "$work/exits/01-coalescing" "$work/exits/02-banks"
cp solutions/01-coalescing/coalescing.cu solutions/01-coalescing/*.cuh "$work/exits/01-coalescing/" 2>/dev/null
cp solutions/02-banks/banks.cu solutions/02-banks/*.cuh "$work/exits/02-banks/"
for f in "$work/exits/01-coalescing/coalescing.cu" "$work/exits/02-banks/banks.cu"; do
    printf '#include <unistd.h>\n__attribute__((constructor)) static void leave_at_once(void) { _exit(2); }\n' >>"$f"
done
GRADER_COSTS=1 grade keep 01,02 "$work/exits"
GRADER_COSTS=1 GRADER_REFERENCE_KEEP=0 grade nokeep 01,02 "$work/exits"
GRADER_COSTS=1 GRADER_LAB_END_TEST=refkill grade refkill 01,02 "$work/exits"
grade alone 02 "$work/tree"
grade solutions 01,02 solutions
GRADER_LAB_END_TEST=left grade left 01,02 solutions

one=$(lines both 01 coalescing)
correct=$(grep -E '^  .* (OK|FAIL|SKIP|ERROR) +\(' <<<"$one" | grep -cv '^  speed')
timeouts=$(grep -cE ' FAIL  \(.*hung: no result after' <<<"$one")
fresh=$(grep -c 'lab coalescing begins (lab 1 of this harness)' "$work/both/coalescing.harness.log" 2>/dev/null)
[ "$correct" -ge 1 ] && [ "$timeouts" -eq "$correct" ] && [ "$fresh" -eq "$timeouts" ]
result "lab 01 hangs: each of its $correct correctness checks ran out of time, each in a fresh harness" $? \
    "$timeouts of $correct checks out of time, $fresh harnesses named in its log; see $work/both.txt"
grep -q 'lab banks begins (lab 1 of this harness)' "$work/both/banks.harness.log" 2>/dev/null
result "lab 02, after a harness killed at lab 01's last check: served by a fresh harness" $? \
    "see $work/both/banks.harness.log"
diff <(lines both 02 banks) <(lines alone 02 banks) >"$work/lines.diff"
same=$?
two=$(lines both 02 banks)
oks=$(grep -c ' OK ' <<<"$two")
bad=$(grep -cE ' (FAIL|ERROR) ' <<<"$two")
[ $same = 0 ] && [ "$oks" -ge 5 ] && [ "$bad" = 0 ]
result "lab 02's verdicts after it are those of lab 02 graded alone, every check OK" $? \
    "$oks OK, $bad failed; see $work/lines.diff, $work/both.txt and $work/alone.txt"
bad=$(grep -cE ' (FAIL|ERROR) ' "$work/solutions.txt")
grep -q 'lab banks begins (lab 2 of this harness)' "$work/solutions/banks.harness.log" 2>/dev/null &&
    grep -q 'lab coalescing begins (lab 1 of this harness)' "$work/solutions/coalescing.harness.log" &&
    [ "$bad" = 0 ]
result "the solutions of labs 01 and 02: one harness served both, every check passed" $? \
    "see $work/solutions.txt and $work/solutions/*.harness.log"
said=$(grep -c 'a leftover made up by GRADER_LAB_END_TEST=left: this harness serves no further lab' \
    "$work/left/coalescing.harness.log" 2>/dev/null)
diff <(lines left 01 coalescing; lines left 02 banks) \
    <(lines solutions 01 coalescing; lines solutions 02 banks) >"$work/left.diff"
same=$?
[ "$said" = 1 ] && [ $same = 0 ] &&
    grep -q 'lab banks begins (lab 1 of this harness)' "$work/left/banks.harness.log" 2>/dev/null
result "a harness that finds something of lab 01 left at its end exits; lab 02 gets a fresh one, the same verdicts" $? \
    "said so $said times; see $work/left.diff and $work/left/*.harness.log"
# the CUDA processes a run cost (the driver's `costs a student` line)
procs() { sed -nE 's/^costs a student: ([0-9]+) CUDA processes.*/\1/p' "$work/$1.txt" | tail -1; }
kept=$(sed -nE 's/.*reference.s worker \(process ([0-9]+)\) kept for the next lab.*/\1/p' \
    "$work/keep/coalescing.harness.log" 2>/dev/null | tail -1)
loaded=$(sed -nE 's/.*kept from the lab before \(process ([0-9]+)\) loaded .*banks\/reference.so$/\1/p' \
    "$work/keep/banks.harness.log" 2>/dev/null | tail -1)
diff <(lines keep 01 coalescing; lines keep 02 banks) \
    <(lines nokeep 01 coalescing; lines nokeep 02 banks) >"$work/keep.diff"
same=$?
fails=$(lines keep 01 coalescing; lines keep 02 banks)
fails=$(grep -c 'before it answered the grader' <<<"$fails")
p_keep=$(procs keep)
p_nokeep=$(procs nokeep)
[ -n "$kept" ] && [ "$kept" = "$loaded" ] && [ $same = 0 ] && [ "$fails" -ge 2 ] &&
    [ -n "$p_keep" ] && [ -n "$p_nokeep" ] && [ $((p_keep + 1)) = "$p_nokeep" ]
result "one reference worker served labs 01 and 02 (process ${kept:-?}): $p_keep CUDA processes, $p_nokeep with a fresh one a lab, the same verdicts" $? \
    "kept ${kept:-none}, loaded by ${loaded:-none}, $fails checks ended at start; see $work/keep.diff, $work/keep/*.harness.log"
diff <(lines refkill 01 coalescing; lines refkill 02 banks) \
    <(lines nokeep 01 coalescing; lines nokeep 02 banks) >"$work/refkill.diff"
same=$?
said=$(grep -c 'did not load .*banks/reference.so: ended; a fresh one serves this lab' \
    "$work/refkill/banks.harness.log" 2>/dev/null)
[ "$said" = 1 ] && [ $same = 0 ] && [ "$(procs refkill)" = "$p_nokeep" ]
result "a kept reference worker that died between the labs: replaced by a fresh one, the same verdicts" $? \
    "said so $said times, $(procs refkill) CUDA processes; see $work/refkill.diff, $work/refkill/banks.harness.log"
results
