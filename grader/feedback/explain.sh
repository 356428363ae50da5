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
#   grader/feedback/explain.sh --lab NN-name --harness EXE --worker EXE --student SO
#                           --reference SO --out DIR [--label TEXT] [--source FILE --shown PATH]
#                           [--ref-source FILE] [--gpu KEY --profiles EXE --pass-mark X]
#                           [--hide DIR]...
#                           [--predict]
#
# Your code runs only as grading runs it: in a sandboxed worker process of its own (see
# count_calls below), whatever the tree (your labs/, another student's, a batch's). --source is
# the copy of your file the compile sandbox built (the only file your lines are quoted from),
# --shown your file as you name it, --ref-source the reference's source (its lines' quotes);
# --hide a folder no worker may see beside the build's own (GRADER_HIDE: a batch's output and
# submissions).
# make grade's WHERE line is the same count, run by the driver (grader/driver/driver.c, where_hint)
# with the same harness options and rendered by explain.awk -v where=1.
#
# The harness and both .so are the emulator's builds (make runner-NAME EMU=1). The counters a
# lab shows, and what make explain does not show for it, are its table,
# grader/labs/NN-name/explain.tsv. Files: DIR/counts.tsv (the emulator's counts, one line per
# memory instruction; common/emu/src/count.cpp says its columns), DIR/counts2.tsv (with
# GPU_PROFILE, the same at the lab's second size, for the estimate), DIR/sections.txt,
# DIR/explain.txt (what was printed), DIR/harness.log, DIR/workers.log (what the code printed,
# capped), DIR/yours.src and DIR/reference.src (the lines quoted), for a lab whose table has a picture
# row DIR/access.svg (one warp's costliest request at the worst line: svg/access.awk), and for
# one with a timeline row DIR/timeline.tsv (every copy and kernel with its place on the engines,
# in the columns of make profile's: timeline.awk). Exit status: 0, or 2 with what to do.
set -u
. "$(dirname "$0")/tool-options.sh"
here=$(cd "$(dirname "$0")" && pwd)
table=$here/../labs/$lab/explain.tsv
[ -f "$table" ] || { echo "explain.sh: no counter table at $table" >&2; exit 2; }
mkdir -p "$out" || exit 2
rm -f "$out/counts.tsv" "$out/counts2.tsv" "$out/sections.txt" "$out/explain.txt"
# GPU_PROFILE=KEY: the emulated device gets that GPU's SM count, so the code under test sizes its grids
# for it and the waves are that GPU's (each SM stays the emulated compute capability 9.0 one).
sms="" gpu_name=""
if [ -n "$gpu" ]; then
    line=$("$profiles" --sms "$gpu") || { echo "make explain: GPU_PROFILE=$gpu is not a GPU of make profiles" >&2; exit 2; }
    sms=${line%%	*} gpu_name=${line#*	}
    export CUDA_EMU_SMS="$sms"
fi
# The calls run as grading runs them: the harness (trusted) in profile mode with isolation on,
# each implementation in a sandboxed worker of its own under the worker's whole policy
# (grader/sandbox/: the seccomp filter, limits, a view that holds its own object and
# nothing of the checkout, the build, the reference or the logs), where the emulator counts
# each section and writes the counts to a file the harness handed it; the harness copies them
# into counts.tsv as data (grader/harness/profile_trusted.cu). Counting changes no result; the race
# checks stay on, as in grading. A machine that cannot isolate gets no count, and the reason.
# The reference's counts are kept beside its object (reference.counts.N.*, as for make grade's
# WHERE line) and counted again only when a program or the problem changed. Yours are counted
# afresh every time (make grade's WHERE count keeps them: --student-counts), so that what your
# code printed is in workers.log.
# Memory: as in grading, a worker is first in line for the kernel's out-of-memory killer; and
# since each emulated process keeps its memory through AddressSanitizer's allocator, its limit
# on resident memory ends any of them (a worker, or the harness) that holds more than
# count_mem_mib: twice the emulated device's 2 GiB, where a call at the emulator's size needs
# a few hundred MiB. Its quarantine of freed memory is 16 MiB, not 256: a count needs no
# use-after-free detection (grading runs the same code with the whole quarantine), and the
# emulator's counting frees so much that the default's churn took over a third of a count.
count_mem_mib=4096
# The estimate's second size: with GPU_PROFILE, a lab that gets an estimate (not in
# estimate-limits.tsv) is counted again at the lab's second size (its table's count_scale), and
# the estimate compares the two (estimate.awk); its sections are the `second` lines.
second=""
if [ -n "$gpu" ] && ! grep -q "^${lab%%-*}	" "$here/estimate-limits.tsv"; then
    second=$out/counts2.tsv
fi
count_calls() {
    set -- --checkout . --solutions solutions --labdir "${reference%/*/*}" \
        --student-objs "${student%/*/*}" --logs "$out"
    old_ifs=$IFS IFS=$nl
    for d in $hide; do set -- "$@" --hide "$d"; done
    IFS=$old_ifs
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=$count_mem_mib:detect_leaks=0:quarantine_size_mb=16" \
    "$harness" --profile --isolation on --counts "$out/counts.tsv" --worker-log "$out/workers.log" \
        --worker "$worker" --student "$student" --reference "$reference" \
        --reference-counts "${reference%/*}/reference.counts" ${second:+--second-counts "$second"} "$@" \
        >"$out/sections.txt" 2>"$out/harness.log"
}
# Lines of a log that student code may have written to, shown as data (counts.awk's visible).
show_lines() { LC_ALL=C awk -v show_lines=1 -f "$here/counts.awk" | sed 's/^/  | /' >&2; }
# --predict (make explain PREDICT=1): the lesson's order, predict then measure. The lab's
# questions (its table's predict rows) come first; on a terminal the counts wait for Enter, and
# what was typed is shown again above them. Without a terminal (a script, a pipe, CI) nothing
# waits: the questions are printed and the counts follow.
prediction=""
if [ "$predict" = 1 ]; then
    echo "Predict first, then measure: lab $lab, $label and the reference, at the emulator's size."
    awk -F'\t' '$1 == "predict" { printf "  %d. %s\n", ++n, $2 }' "$table"
    if [ -t 0 ] && [ -t 1 ]; then
        printf 'Write your predictions (one line), then press Enter to see the counts: '
        IFS= read -r prediction || prediction=""
    else
        echo "(not a terminal: nothing waits for an answer; the counts follow)"
    fi
    echo
fi
rm -f "$out/workers.log"
if ! count_calls; then
    echo "make explain: the calls failed under the emulator; what the harness said:" >&2
    grep -E '^(profile|harness|cuda-emu): ' "$out/harness.log" | tail -n 4 | show_lines
    if [ -s "$out/workers.log" ]; then # (less a memory map that a sanitizer's report adds)
        echo "and the end of what the code's process printed ($out/workers.log):" >&2
        grep -v '^[[:space:]]*0x[0-9a-f]*-0x' "$out/workers.log" | tail -n 6 | show_lines
    fi
    echo "make grade LAB=${lab%%-*} says whether the code fails where it is graded too, and why." >&2
    exit 2
fi
if [ ! -s "$out/counts.tsv" ]; then
    echo "make explain: the emulator counted no memory access (expected $out/counts.tsv)." >&2
    echo "The emulator's library may predate counting: make clean, then make explain again." >&2
    exit 2
fi
# The lines quoted: your file as the compile sandbox built it, and the reference's source (both
# named by make, never by the counts), each copied here only if it is a regular file (no link,
# FIFO or device), at most 4 MiB. A row counts as a line of one of them when the file it names
# has that file's name (source_name: as you named your file); any other row is shown unquoted.
copy_source() { # FILE DEST
    : >"$2"
    [ -n "$1" ] && [ -f "$1" ] && [ ! -L "$1" ] && head -c 4194304 -- "$1" >"$2"
    return 0
}
copy_source "$source" "$out/yours.src"
copy_source "$ref_source" "$out/reference.src"
source_name=$(basename -- "${shown:-$source}") ref_name=""
[ -z "$ref_source" ] || ref_name=$(basename -- "$ref_source")
# and the lab's public headers (its contract; lab 05's kernel), as the compile sandbox gives them
rm -rf "$out/headers" && mkdir -p "$out/headers" || exit 2
headers=""
for h in "$here/../labs/$lab"/*.h "$here/../labs/$lab"/*.cuh; do
    [ -f "$h" ] || continue
    copy_source "$h" "$out/headers/${h##*/}" && headers="$headers${headers:+ }${h##*/}"
done
explain_awk() { # the table's awk, with the options every use shares, then its own
    LC_ALL=C awk -F'\t' -v table="$table" -v label="$label" -v lab="$lab" \
        -v source="$out/yours.src" -v source_name="$source_name" -v shown="$shown" \
        -v ref_source="$out/reference.src" -v ref_name="$ref_name" \
        -v header_dir="$out/headers" -v headers="$headers" "$@"
}
rm -f "$out/timeline.tsv"
[ -z "$prediction" ] || printf 'Your prediction: %s\n\n' "$prediction" |
    LC_ALL=C awk -v show_lines=1 -f "$here/counts.awk" | tee "$out/prediction.txt"
explain_awk -v gpu="$gpu" -v gpu_name="$gpu_name" -v timeline_out="$out/timeline.tsv" \
    -f "$here/counts.awk" -f "$here/timeline.awk" -f "$here/explain.awk" \
    "$out/sections.txt" "$out/counts.tsv" | tee "$out/explain.txt"
# The speed these counts suggest on the GPU_PROFILE one (estimate.awk: each term, and which one
# bounds each call); without GPU_PROFILE the emulated device's 4 SMs are no GPU's, so no estimate.
if [ -n "$gpu" ]; then
    # the lab's pass mark in force, as the driver reads it (make runs lab-manifest pass-mark)
    "$here/estimate.sh" --gpu "$gpu" --profiles "$profiles" --table "$table" --threshold "${pass_mark:-0}" --lab "${lab%%-*}" \
        --source "$out/yours.src" \
        --mode explain "$out/sections.txt" "$out/counts.tsv" ${second:+"$second"} | tee -a "$out/explain.txt"
else
    printf '\nmake explain LAB=%s GPU_PROFILE=t4 (or h200, or another key of make profiles) adds the speed these\ncounts suggest on that GPU, term by term: the estimate make grade prints with no GPU.\n' "${lab%%-*}" |
        tee -a "$out/explain.txt"
fi
# A lab whose table has a picture row: one warp's costliest request at your worst line, lane by
# lane, beside the same lanes on consecutive words (grader/tools/svg/access.awk).
rm -f "$out/access.svg"
reading=$(awk -F'\t' '$1 == "picture" { print $2; exit }' "$table")
if [ -n "$reading" ]; then
    kinds=$(awk -F'\t' '/^#/ { next } $1 ~ /^(global|shared) (load|store)$/ { k = k (k == "" ? "" : ",") $1 } END { print k }' "$table")
    if what=$(LC_ALL=C awk -F'\t' -v kinds="$kinds" -v source="$out/yours.src" -v source_name="$source_name" \
            -f "$here/counts.awk" -f "$here/../tools/svg/prelude.awk" -f "$here/../tools/svg/access.awk" \
            "$out/sections.txt" "$out/counts.tsv" 2>&1 >"$out/access.svg") &&
            [ -n "$what" ]; then
        printf 'Picture of the worst line of %s: %s\n  %s: %s\n' "$label" "$out/access.svg" "$what" "$reading" |
            LC_ALL=C awk -v show_lines=1 -f "$here/counts.awk" | tee -a "$out/explain.txt"
    else
        rm -f "$out/access.svg"
        [ -z "$what" ] || echo "make explain: the picture could not be drawn: $what" >&2
    fi
fi
