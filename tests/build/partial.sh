#!/usr/bin/env bash
# partial.sh - a build folder partly deleted is built again, and a lab is never graded without
# its build. Every target of the build is secondary (grader/make/lab_rules.mk's .SECONDARY), and
# make does not make a secondary file again only because it is missing: with the lab-manifest
# program gone from build/host (the folder deleted, say) and build/gen/labs.mk still there, make
# read no lab names, built nothing and ran the driver with no build ("the build step did not
# reach this lab"). Here, in a copy of the build's host and gen folders (BUILD= a folder of its
# own, so no other suite's build is touched), with the program deleted: make -n grade LAB=01
# plans lab 01's build and hands the driver its build folder, and the program is made again.
# And a lab's harness left by an older build (a program, where the build now makes a link to the
# one harness) is replaced by the link (make -n plans it, in both modes).
#
#   BUILD=build MAKE=make tests/build/partial.sh     (after a build: make test-build's)
#
# Prints `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
work=$build/partial-test
. tests/result.sh

if [ ! -x "$build/host/lab-manifest" ] || [ ! -f "$build/gen/labs.mk" ]; then
    echo "FAIL partial: no build to copy ($build/host/lab-manifest, $build/gen/labs.mk): build first"
    echo "0 passed, 1 failed"
    exit 1
fi
rm -rf "$work" && mkdir -p "$work"
cp -r "$build/host" "$build/gen" "$work/"
rm -f "$work/host/lab-manifest"
out=$work/make-n.txt
${MAKE:-make} --no-print-directory -n grade LAB=01 BUILD="$work" >"$out" 2>&1
status=$?
grep -q "lab_status.sh lab $work/grade/.build.[0-9]* coalescing " "$out"
result "lab-manifest deleted, labs.mk kept: make grade LAB=01 plans lab 01's build" $? \
    "exit $status; make -n printed no lab step (see $out)"
grep -q -- "--built $work/grade/.build.[0-9]*" "$out"
result "... and hands the driver its build folder (--built)" $? "see $out"
[ -x "$work/host/lab-manifest" ]
result "... and the program is made again" $? "$work/host/lab-manifest is missing after make"

# A lab's harness left by an older build: a program of its own where the build now makes a link
# to the one harness that serves every lab. An old program there would grade with its own old
# problem code, so make must replace it, though it is there: the link is made again whenever
# the one harness is newer than what stands in its place.
for mode in emu gpu; do
    stale=$work/$mode/.grader/coalescing/harness
    mkdir -p "${stale%/*}" && echo "an older build's harness" >"$stale" && touch -d 2020-01-01 "$stale"
    ${MAKE:-make} --no-print-directory -n "$stale" BUILD="$work" >"$out" 2>&1
    grep -q -- "ln -sfn ../harness $stale" "$out"
    result "$mode: an older build's harness program in a lab's folder: replaced by the link to the one harness" \
        $? "make -n $stale planned no link (see $out)"
done
rm -rf "$work"
results
