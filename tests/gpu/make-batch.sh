#!/usr/bin/env bash
# make-batch.sh - a folder of submissions for make grade-batch: N students, each with every lab,
# odd-numbered ones the reference solutions (each made one file: one_file below), even-numbered
# ones the untouched skeletons (so half the batch passes, and half fails its speed checks and gets
# WHERE lines), or with EVEN=rungs each lab's first ladder rung (solutions/NN-name/steps/1-*.cu:
# correct and slower, work as real as the solutions', most failing a speed check).
#
#   tests/gpu/make-batch.sh DIR N     (DIR is emptied first; each student is "DIR/student I")
#   EVEN=rungs tests/gpu/make-batch.sh DIR N
#
# The batch that tests/gpu/bench-grading.sh (BATCH_N) and tests/gpu/run-all.sh (batch-rate)
# time: one recipe, so that their students per hour are of the same batch.
set -eu
EVEN=${EVEN:-skeletons}
case $EVEN in skeletons|rungs) ;; *) echo "EVEN=$EVEN: skeletons or rungs" >&2; exit 2 ;; esac
[ $# = 2 ] && [ "$2" -ge 1 ] 2>/dev/null ||
    { echo "usage: tests/gpu/make-batch.sh DIR N (N students, N at least 1)" >&2; exit 2; }
rm -rf "$1" && mkdir -p "$1"

# A solution as one file, the style most students hand in: a solution includes headers of its own
# beside it (the pipeline or tiles its ladder's rungs share: streams_pipeline.cuh...), which the
# compile takes from the lab's folder as a student's helper files; here each is put in place of
# its #include, once, so that the batch grades one file a lab.
one_file() {
    python3 - "$1" <<'EOF'
import os, re, sys

def inline(path, seen):
    out = []
    for line in open(path):
        m = re.match(r'\s*#\s*include\s*"([^"]+)"', line)
        # (beside the file, or for a ladder rung in steps/, in its lab's folder, as its build finds it)
        places = [os.path.dirname(path), os.path.dirname(os.path.dirname(path))] if m else []
        near = next((os.path.join(d, m.group(1)) for d in places
                     if os.path.exists(os.path.join(d, m.group(1)))), None)
        if near and (near == os.path.join(places[0], m.group(1)) or "/steps" in path):
            if near not in seen:
                seen.add(near)
                out.append(inline(near, seen))
            continue
        out.append(line)
    return "".join(out)

sys.stdout.write(inline(sys.argv[1], set()))
EOF
}
subs=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
for i in $(seq "$2"); do
    for d in labs/[0-9][0-9]-*/; do
        d=${d%/}; lab=${d#labs/}; name=${lab#*-}
        mkdir -p "$subs/student $i/$lab"
        if [ $((i % 2)) = 1 ]; then
            one_file solutions/$lab/$name.cu >"$subs/student $i/$lab/$name.cu"
        elif [ "$EVEN" = rungs ]; then
            rung=$(ls solutions/$lab/steps/1-*.cu)
            one_file "$rung" >"$subs/student $i/$lab/$name.cu"
        else
            cp $d/$name.cu "$subs/student $i/$lab/$name.cu"
        fi
    done
done
