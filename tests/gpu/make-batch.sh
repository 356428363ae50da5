#!/usr/bin/env bash
# make-batch.sh - a folder of submissions for make grade-batch: N students, each with every lab,
# odd-numbered ones the reference solutions, even-numbered ones the untouched skeletons (so half
# the batch passes, and half fails its speed checks and gets WHERE lines).
#
#   tests/gpu/make-batch.sh DIR N     (DIR is emptied first; each student is "DIR/student I")
#
# The batch that tests/gpu/bench-grading.sh (BATCH_N) and tests/gpu/run-all.sh (batch-rate)
# time: one recipe, so that their students per hour are of the same batch.
set -eu
[ $# = 2 ] && [ "$2" -ge 1 ] 2>/dev/null ||
    { echo "usage: tests/gpu/make-batch.sh DIR N (N students, N at least 1)" >&2; exit 2; }
rm -rf "$1" && mkdir -p "$1"
subs=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
for i in $(seq "$2"); do
    for d in labs/[0-9][0-9]-*/; do
        d=${d%/}; lab=${d#labs/}; name=${lab#*-}
        mkdir -p "$subs/student $i/$lab"
        if [ $((i % 2)) = 1 ]; then src=solutions/$lab/$name.cu; else src=$d/$name.cu; fi
        cp "$src" "$subs/student $i/$lab/$name.cu"
    done
done
