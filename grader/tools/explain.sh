#!/bin/sh
# explain.sh - `make explain`: the lesson's mechanism, counted by the CPU emulator on any
# machine. One call of your code and one of the reference on each of the lab's speed problems
# (at the emulator's size), with every warp's memory requests counted per source line: the
# 32-byte sectors each global load or store touches, and the passes (wavefronts) each shared
# access needs; and, where the lab's table asks, every warp's runs of each branch condition
# (divergent or not, lanes in) and the waves each launch's grid makes on the emulated device's
# SMs (4, or GPU_PROFILE=KEY's count: --gpu, looked up with the make profiles tool), or the order
# in which a GPU's copy engines and SMs would run the call's copies and kernels (timeline.awk).
# Printed side by side with the ideal and a one-line reading of each counter.
#
#   grader/tools/explain.sh --lab NN-name --harness EXE --worker EXE --student SO
#                           --reference SO --out DIR [--label TEXT] [--source FILE]
#                           [--gpu KEY --profiles EXE] [--where --sandbox EXE]
#
# --where: make grade's hint under a speed check short of its mark: one line, the place in your
# file that costs the most against the lesson (explain.awk -v where=1), or nothing; DIR/where.txt.
# make grade may be grading someone else's code, so there the calls run inside the grader's
# sandbox (--sandbox: sandbox-run, as the student's compile does; --isolation off needs it),
# which sees only the four programs and writes only its own folder.
#
# The harness and both .so are the emulator's builds (make runner-NAME EMU=1). The counters a
# lab shows, and what make explain does not show for it, are its table,
# grader/labs/NN-name/explain.tsv. Files: DIR/counts.tsv (the emulator's counts, one line per
# memory instruction; common/emu/src/count.cpp says its columns), DIR/sections.txt,
# DIR/explain.txt (what was printed), DIR/harness.log, for a lab whose table has a picture
# row DIR/access.svg (one warp's costliest request at the worst line: svg/access.awk), and for
# one with a timeline row DIR/timeline.tsv (every copy and kernel with its place on the engines,
# in the columns of make profile's: timeline.awk). Exit status: 0, or 2 with what to do.
set -u
. "$(dirname "$0")/tool-options.sh"
here=$(cd "$(dirname "$0")" && pwd)
table=$here/../labs/$lab/explain.tsv
[ -f "$table" ] || { echo "explain.sh: no counter table at $table" >&2; exit 2; }
mkdir -p "$out" || exit 2
rm -f "$out/counts.tsv" "$out/sections.txt" "$out/explain.txt" "$out/where.txt"
# GPU_PROFILE=KEY: the emulated device gets that GPU's SM count, so the code under test sizes its grids
# for it and the waves are that GPU's (each SM stays the emulated compute capability 9.0 one).
sms="" gpu_name=""
if [ -n "$gpu" ]; then
    line=$("$profiles" --sms "$gpu") || { echo "make explain: GPU_PROFILE=$gpu is not a GPU of make profiles" >&2; exit 2; }
    sms=${line%%	*} gpu_name=${line#*	}
    export CUDA_EMU_SMS="$sms"
fi
# Counting changes no result; the race checks stay on, as in grading.
count_calls() {
    if [ "$where" = 1 ]; then
        [ -n "$sandbox" ] || { echo "explain.sh: --where needs --sandbox" >&2; return 2; }
        abs() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
        h=$(abs "$harness") w=$(abs "$worker") y=$(abs "$student") r=$(abs "$reference")
        "$sandbox" --work "$out/sandbox" --visible "$h" --visible "$w" --visible "$y" --visible "$r" \
            --mem 0 --wall 60 --cpu 120 --get counts.tsv "$out/counts.tsv" --get sections.txt "$out/sections.txt" \
            ${CUDA_EMU_SMS:+--env CUDA_EMU_SMS=$CUDA_EMU_SMS} -- \
            sh -c 'CUDA_EMU_COUNT=counts.tsv "$1" --profile --isolation off --worker "$2" --student "$3" --reference "$4" >sections.txt' \
            sh "$h" "$w" "$y" "$r" 2>"$out/harness.log"
        return
    fi
    CUDA_EMU_COUNT="$out/counts.tsv" "$harness" --profile --isolation off --worker "$worker" \
        --student "$student" --reference "$reference" >"$out/sections.txt" 2>"$out/harness.log"
}
if ! count_calls; then
    echo "make explain: the calls failed under the emulator; what the harness said:" >&2
    tail -8 "$out/harness.log" >&2
    echo "Run make grade LAB=${lab#*-} first: it says what is wrong with the code." >&2
    exit 2
fi
if [ ! -s "$out/counts.tsv" ]; then
    echo "make explain: the emulator counted no memory access (expected $out/counts.tsv)." >&2
    echo "The emulator's library may predate counting: make clean, then make explain again." >&2
    exit 2
fi
if [ "$where" = 1 ]; then
    awk -F'\t' -v table="$table" -v label="$label" -v source="$source" -v lab="$lab" -v where=1 \
        -f "$here/timeline.awk" -f "$here/explain.awk" "$out/sections.txt" "$out/counts.tsv" | tee "$out/where.txt"
    exit 0
fi
rm -f "$out/timeline.tsv"
awk -F'\t' -v table="$table" -v label="$label" -v source="$source" -v lab="$lab" -v gpu="$gpu" -v gpu_name="$gpu_name" \
    -v timeline_out="$out/timeline.tsv" -f "$here/timeline.awk" -f "$here/explain.awk" \
    "$out/sections.txt" "$out/counts.tsv" | tee "$out/explain.txt"
# A lab whose table has a picture row: one warp's costliest request at your worst line, lane by
# lane, beside the same lanes on consecutive words (grader/tools/svg/access.awk).
rm -f "$out/access.svg"
reading=$(awk -F'\t' '$1 == "picture" { print $2; exit }' "$table")
if [ -n "$reading" ]; then
    kinds=$(awk -F'\t' '/^#/ { next } $1 ~ /^(global|shared) (load|store)$/ { k = k (k == "" ? "" : ",") $1 } END { print k }' "$table")
    if what=$(awk -F'\t' -v kinds="$kinds" -v source="$source" -f "$here/svg/prelude.awk" \
            -f "$here/svg/access.awk" "$out/sections.txt" "$out/counts.tsv" 2>&1 >"$out/access.svg") &&
            [ -n "$what" ]; then
        printf 'Picture of the worst line of %s: %s\n  %s: %s\n' "$label" "$out/access.svg" "$what" "$reading" |
            tee -a "$out/explain.txt"
    else
        rm -f "$out/access.svg"
        [ -z "$what" ] || echo "make explain: the picture could not be drawn: $what" >&2
    fi
fi
