#!/bin/sh
# estimate.sh - the speed estimate of one lab's counts (estimate.awk has the model), for make
# explain (its last section: each term, and which one bounds each call) and the agreement table
# (tests/estimate/agree.sh). make grade's own estimate line is the driver's (estimate.c).
#
#   grader/feedback/estimate.sh --gpu KEY --profiles EXE --table EXPLAIN_TSV [--threshold F]
#                               [--lab NN] [--tol F] [--source FILE] --mode explain|tsv
#                               SECTIONS COUNTS [COUNTS2]
#
# --lab NN: for a lab estimate-limits.tsv lists, make explain's section is one line: no estimate
# for this lab, and why. COUNTS2: the counts at the lab's second size (the harness's
# --second-counts): the estimate is given only where the two sizes agree (estimate.awk); --tol F
# sets how far they may differ (--tol 1: the figure that differs most is shown for every check).
# --source FILE: the student's file as compiled; one that names CUDA_EMU gets no estimate.
#
# KEY is a key of make profiles (t4, h200 ...): its SMs, SM clock and DRAM bandwidth are the
# ceilings. SECTIONS and COUNTS are the harness's and the emulator's files of make explain (or
# of the WHERE count), counted on that GPU's SM count (CUDA_EMU_SMS). Exit status: 0, or 2.
set -u
gpu="" profiles="" table="" threshold="" mode=tsv lab= tol= source=
while [ $# -gt 0 ]; do
    case $1 in
        --gpu) gpu=$2; shift 2 ;;
        --profiles) profiles=$2; shift 2 ;;
        --table) table=$2; shift 2 ;;
        --threshold) threshold=$2; shift 2 ;;
        --mode) mode=$2; shift 2 ;;
        --lab) lab=$2; shift 2 ;;
        --tol) tol=$2; shift 2 ;;
        --source) source=$2; shift 2 ;;
        --*) echo "estimate.sh: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
{ [ $# -eq 2 ] || [ $# -eq 3 ]; } && [ -n "$gpu" ] && [ -n "$profiles" ] || { echo "estimate.sh: usage: see its header" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
line=$("$profiles" --ceilings "$gpu") || exit 2
tab=$(printf '\t')
IFS=$tab read -r sms clock dram threads name <<EOF2
$line
EOF2
LC_ALL=C exec awk -F'\t' -v sms="$sms" -v clock_hz="$clock" -v dram_bps="$dram" -v gpu="$gpu" \
    -v threads_per_sm="$threads" -v lab="$lab" -v limits="$here/estimate-limits.tsv" \
    -v gpu_name="$name" -v table="$table" -v threshold="${threshold:-0}" -v mode="$mode" \
    -v sizes=$(($# - 1)) -v tol="$tol" -v source="$source" -f "$here/counts.awk" -f "$here/timeline.awk" -f "$here/estimate.awk" "$@"
