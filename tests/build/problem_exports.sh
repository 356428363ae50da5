#!/usr/bin/env bash
# problem_exports.sh - every lab's problem.so finds what it calls of the harness's: each symbol a
# problem.so needs that the one harness of its mode defines is among those the harness exports
# (grader/harness/problem.dynlist), so that no lab fails to load at its `lab` line, on a GPU
# this machine may not have. For each mode built (BUILD/gpu, BUILD/emu).
#
#   BUILD=build tests/build/problem_exports.sh      (after a build: make test-build's)
#
# Prints `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
. tests/result.sh
for mode in gpu emu; do
    harness=$build/$mode/.grader/harness
    [ -x "$harness" ] || continue
    defined=$(nm --defined-only -g "$harness" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
    exported=$(nm -D --defined-only "$harness" | awk '{ print $3 }' | sed 's/@.*//' | sort -u)
    for so in "$build/$mode"/.grader/*/problem.so; do
        [ -e "$so" ] || continue
        needed=$(nm -D --undefined-only "$so" | awk '{ print $2 }' | sed 's/@.*//' | sort -u)
        missing=$(comm -23 <(comm -12 <(echo "$needed") <(echo "$defined")) <(echo "$exported") | tr '\n' ' ')
        lab=$(basename "$(dirname "$so")")
        [ -z "$missing" ]
        result "$mode: $lab's problem.so finds what it calls of the harness's" $? \
            "the harness defines and does not export: $missing(grader/harness/problem.dynlist)"
    done
done
results "problem exports"
