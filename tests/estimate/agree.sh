#!/bin/bash
# agree.sh - the speed estimate (grader/feedback/estimate.awk) against the ratios measured on an
# H200: every skeleton, ladder rung and reference of the labs' bench-h200.tsv tables (make bench
# on an H200), each counted once by make explain under the CPU emulator with GPU_PROFILE=h200,
# estimated, and set beside its measured ratio: same side of the lab's mark? within 25%?
#
#   tests/estimate/agree.sh [--labs "01 02 ..."] [--variants "skeleton ..."] [--counts DIR]
#                            [--no-count] [--out FILE] [--check FILE] [--fixtures DIR]
#
# --counts DIR keeps each variant's counts (sections.txt, counts.tsv) under DIR/<lab>/<variant>
# and reuses them when there (the counts depend on the code and the emulator only, not on the
# model: changing estimate.awk re-estimates without running anything). --out FILE writes the
# table (tests/gpu/results/estimate-vs-h200.txt). --check FILE: recompute the rows FILE lists
# for the labs given and hold them to FILE: each estimate within 5% of the table's (the model has
# not drifted), and every row that agreed with the measurement (same side of the mark, within
# 25%) still agreeing, so that the table's figures hold; exit 1 with the rows that miss.
# --no-count: only the counts DIR holds (tests/estimate/counts: committed, without the per-request
# rows the estimate does not read); --fixtures DIR: write such copies of the counts there.
# --variants: only these variants (skeleton, reference, steps/K-slug).
# A lab the model cannot estimate (its README says why) is listed with its reason and left out
# of the figures: EXCLUDED below.
set -u
cd "$(dirname "$0")/../.." || exit 2
labs="01 02 03 04 05 06 07 08 09" counts="" out="" check="" only="" nocount=0 fixtures=""
while [ $# -gt 0 ]; do
    case $1 in
        --labs) labs=$2; shift 2 ;;
        --counts) counts=$2; shift 2 ;;
        --out) out=$2; shift 2 ;;
        --check) check=$2; shift 2 ;;
        --variants) only=" $2 "; shift 2 ;;
        --no-count) nocount=1; shift ;;
        --fixtures) fixtures=$2; shift 2 ;;
        *) echo "agree.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
MAKE=${MAKE:-make}
BUILD=${BUILD:-build}
[ -n "$counts" ] || counts=$BUILD/estimate-agree
mkdir -p "$counts" || exit 2
# Labs left out of the figures, and why: grader/feedback/estimate-limits.tsv (make grade's line says it too).
declare -A EXCLUDED=()
while IFS=$'\t' read -r l _ why; do # (the reason in the model's terms: its third column)
    case $l in [0-9][0-9]) EXCLUDED[$l]=$why ;; esac
done <grader/feedback/estimate-limits.tsv
tab=$'\t'
rows=$(mktemp) && trap 'rm -f "$rows"' EXIT
for lab in $labs; do
    dir=$(ls -d labs/"$lab"-* 2>/dev/null | head -n 1)
    [ -n "$dir" ] || { echo "agree.sh: no lab $lab" >&2; exit 2; }
    folder=${dir#labs/} name=${folder#*-}
    thr=$(sed -n 's/^ *\.threshold = \([0-9.]*\),.*/\1/p' grader/labs/"$folder"/table.c | head -n 1)
    # the variants bench measured: skeleton, steps/K-slug, reference
    variants=$(awk -F'\t' 'NR > 1 && ($4 == "skeleton" || $4 == "reference" || $4 ~ /^steps\//) { print $4 }' "$dir"/bench-h200.tsv | awk '!seen[$0]++')
    for v in $variants; do
        case $v in
            skeleton) src=$dir/$name.cu ;;
            reference) src=solutions/$folder/$name.cu ;;
            steps/*) src=solutions/$folder/$v.cu ;;
        esac
        if [ -n "$check" ] && ! awk -F'\t' -v l="$lab" -v v="$v" '$1 == l && $2 == v { f = 1 } END { exit !f }' "$check"; then
            continue
        fi
        [ -z "$only" ] || [ "${only#* $v }" != "$only" ] || continue
        keep=$counts/$folder/${v//\//_}
        if [ "$nocount" = 1 ] && [ ! -s "$keep/counts.tsv" ]; then
            printf '%s\t%s\t-\t-\tnot counted: no counts in %s\n' "$lab" "$v" "$keep" >>"$rows"
            continue
        fi
        if [ "$nocount" = 0 ] && { [ ! -s "$keep/counts.tsv" ] || [ "$src" -nt "$keep/counts.tsv" ]; }; then
            mkdir -p "$keep"
            if ! $MAKE -s --no-print-directory explain LAB="$lab" STUDENT="$src" GPU_PROFILE=h200 EMU=1 >"$keep/explain.log" 2>&1; then
                # a rung the emulator cannot run (cp.async ...): listed, not estimated
                reason=$(grep -m1 -o 'cannot be checked on the CPU emulator[^;]*\|refused[^.]*' "$keep/explain.log" || true)
                printf '%s\t%s\t-\t-\tnot counted: %s\n' "$lab" "$v" "${reason:-the emulator could not run it (see $keep/explain.log)}" >>"$rows"
                rm -f "$keep/counts.tsv"
                continue
            fi
            cp "$BUILD/explain/$name/sections.txt" "$BUILD/explain/$name/counts.tsv" "$keep/"
        fi
        if [ -n "$fixtures" ]; then # what the estimate reads, each row's file named without its folders
            mkdir -p "$fixtures/$folder/${v//\//_}"
            cp "$keep/sections.txt" "$fixtures/$folder/${v//\//_}/"
            awk -F'\t' -v OFS='\t' '$1 !~ /^request / { if ($1 ~ /^(range|loads) /) sub(/.*\//, "", $2); print }' \
                "$keep/counts.tsv" >"$fixtures/$folder/${v//\//_}/counts.tsv"
        fi
        # per speed check: the estimate, beside the measured ratio of that check's task
        grader/feedback/estimate.sh --gpu h200 --profiles "$BUILD/host/profiles" --threshold "$thr" \
            --table grader/labs/"$folder"/explain.tsv --mode tsv "$keep/sections.txt" "$keep/counts.tsv" |
        while IFS=$tab read -r chk task est ybound rbound; do
            case $chk in "check "*) ;; *) continue ;; esac # (one size: no other line)
            meas=$(awk -F'\t' -v t="$task" -v v="$v" 'NR > 1 && $1 == "'"$name"'" && $4 == v { m[$2] = $8; first = first == "" ? $8 : first }
                END { print (t in m) ? m[t] : "" }' "$dir"/bench-h200.tsv)
            # bench keys its rows by task; a lab with one speed task has one
            [ -n "$meas" ] || meas=$(awk -F'\t' -v v="$v" -v t="$task" 'NR > 1 && $4 == v && $2 == t { print $8; exit }' "$dir"/bench-h200.tsv)
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$lab" "$v" "$task" "$est" "$meas" "$thr" "$ybound" "$rbound" >>"$rows"
        done
    done
done
# The table, and the figures over the labs not excluded.
excluded=""
for l in "${!EXCLUDED[@]}"; do excluded="$excluded$l=${EXCLUDED[$l]}$tab"; done
table=$(awk -F'\t' -v excluded="$excluded" '
    BEGIN { n = split(excluded, e, "\t"); for (i = 1; i <= n; i++) if (e[i] != "") { k = substr(e[i], 1, 2); why[k] = substr(e[i], 4) } }
    NF < 8 { printf "%s\t%s\t-\t-\t-\t-\t-\t%s\n", $1, $2, $5; next }
    {
        est = $4 + 0; meas = $5 + 0; thr = $6 + 0
        same = (est >= thr) == (meas >= thr) ? "yes" : "no"
        within = (meas > 0 && (est / meas <= 1.25 && est / meas >= 0.8)) ? "yes" : "no"
        note = ($1 in why) ? "excluded" : ""
        if ($2 == "reference") note = note (note == "" ? "" : ", ") "the reference against itself"
        printf "%s\t%s\t%s\t%s\t%s\t%.2f\t%s\t%s\t%s\t%s\n", $1, $2, $3, $4, $5, thr, same, within, $7 "/" $8, note
        n_every++; s_every += same == "yes"; w_every += within == "yes"
        if (!($1 in why)) {
            n_all++; s_all += same == "yes"; w_all += within == "yes"
            if ($2 != "reference") { n_nr++; s_nr += same == "yes"; w_nr += within == "yes" }
        }
    }
    END {
        printf "#figures\tall (labs not excluded)\t%d\t%d\t%d\n", n_all, s_all, w_all
        printf "#figures\tskeletons and rungs only (labs not excluded)\t%d\t%d\t%d\n", n_nr, s_nr, w_nr
        printf "#figures\tevery row, no lab excluded\t%d\t%d\t%d\n", n_every, s_every, w_every
        for (k in why) printf "#excluded\t%s\t%s\n", k, why[k]
    }' "$rows")
if [ -n "$check" ]; then
    # held to the table: each row's estimate within 5% of the table's, and the figures
    echo "$table" | awk -F'\t' -v file="$check" '
        BEGIN { while ((getline l < file) > 0) { split(l, f, "\t"); if (f[1] ~ /^[0-9][0-9]$/) { k = f[1] SUBSEP f[2] SUBSEP f[3]; est[k] = f[4]; same[k] = f[7]; within[k] = f[8] } } }
        /^#figures/ && $2 ~ /^all/ {
            printf "%d of %d on the same side of the mark (%.0f%%; the target 90%%), %d within 25%% of the measured ratio (%.0f%%; the target 80%%)\n",
                $4, $3, $3 ? 100 * $4 / $3 : 0, $5, $3 ? 100 * $5 / $3 : 0
            next
        }
        /^#/ { next }
        {
            k = $1 SUBSEP $2 SUBSEP $3
            if (!(k in est)) { printf "%s %s (%s): not in %s\n", $1, $2, $3, file; bad = 1; next }
            if ($4 == "-" || est[k] == "-") { if ($4 != est[k]) { printf "%s %s: estimated %s, the table says %s\n", $1, $2, $4, est[k]; bad = 1 }; next }
            if ($4 / est[k] > 1.05 || $4 / est[k] < 0.95) { printf "%s %s (%s): estimated %s, the table says %s (more than 5%% apart)\n", $1, $2, $3, $4, est[k]; bad = 1 }
            # the figures: no row may lose its agreement with the measurement
            if (same[k] == "yes" && $7 != "yes") { printf "%s %s (%s): %s is no longer on the measured %s'"'"'s side of the mark %s\n", $1, $2, $3, $4, $5, $6; bad = 1 }
            if (within[k] == "yes" && $8 != "yes") { printf "%s %s (%s): %s is no longer within 25%% of the measured %s\n", $1, $2, $3, $4, $5; bad = 1 }
        }
        END { exit bad }'
    exit $?
fi
{
    echo "# The no-GPU speed estimate (grader/feedback/estimate.awk, GPU_PROFILE=h200) against the ratio"
    echo "# reference time / your time measured on an H200 (labs/*/bench-h200.tsv: make bench). Made by"
    echo "# tests/estimate/agree.sh --out $out; held by test-estimate (tests/estimate/agree.sh --check)."
    echo "# same side: estimate and measurement on the same side of the lab's mark; within 25%: the estimate"
    echo "# within 0.8 to 1.25 times the measured ratio. bound: what bounds your call / the reference's."
    printf '#lab\tvariant\ttask\testimate\tmeasured\tmark\tsame side\twithin 25%%\tbound\tnote\n'
    echo "$table" | grep -v '^#'
    echo "$table" | awk -F'\t' '/^#figures/ { printf "# %s: %d cases, %d on the same side of the mark (%.0f%%), %d within 25%% (%.0f%%)\n", $2, $3, $4, $3 ? 100 * $4 / $3 : 0, $5, $3 ? 100 * $5 / $3 : 0 }
        /^#excluded/ { printf "# lab %s excluded from the figures: %s\n", $2, $3 }'
} >"${out:-/dev/stdout}"
