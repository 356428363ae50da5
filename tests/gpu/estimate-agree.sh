#!/usr/bin/env bash
# estimate-agree.sh - the no-GPU speed estimate held to this GPU's own measurements. For every
# reference, every ladder rung, every skeleton and every honest case of tests/cheats (the h*.cu
# that pass every correctness check on a GPU), each speed check's ratio as make grade measures it here (the
# grader's own run: results.json's ratio_median), beside the estimate make grade prints for the
# same file and check with no GPU (GPU_PROFILE set to this GPU, from nvidia-smi's name: h200 or
# h100-sxm), counted at two sizes as grading counts it (make explain GPU_PROFILE=KEY: the same
# sandboxed count, the same estimate.awk). Prints a table (file, lab, check, estimate, measured,
# same side of the mark?, within 25%?) and the figures, per lab and overall, over the labs that
# give an estimate (the others, grader/feedback/estimate-limits.tsv, are counted as files).
#
#   tests/gpu/estimate-agree.sh [--labs "01 03 ..."] [--only REGEX] [--no-gpu | --emu-grade]
#                               [--budget S] [--jobs N] [--fresh]
#
# --labs: only these labs. --only REGEX: only the files whose path matches (grep -E).
# --no-gpu: the estimate half alone (any machine: the CPU emulator), no measurement; without it
# a machine with no GPU is an error (exit 2). --emu-grade: the GPU half's plumbing graded under
# the emulator instead (a test of this script: the emulator times nothing, so every row is
# "not measured"). --budget S (default 540): no grading starts after
# S seconds from the start; what was not measured is listed, and the next run (no --fresh)
# measures only that, since every grading and count is kept under BUILD/estimate-agree with the
# sources it was made from. --jobs N: the CPU's share (default: its cores less 4, at least 1).
# GPU_PROFILE=KEY: the profile to estimate for, where nvidia-smi's name is not one this knows.
#
# The GPU half grades one tree per file slot (tree K: the K-th file of each lab), one tree at a
# time, labs that give an estimate first; beside it, at the lowest priority on the other cores,
# every tree's objects are built and each file of those labs counted by make explain (one lab's
# files one after another, since make explain writes one folder per lab; the labs side by side).
# 121 files: 9 references, 40 rungs, 9 skeletons, 63 honest cases; 56 of them in the labs that
# give an estimate. Planned from make bench-grading's times a lab (tests/gpu/results/h200-bench-
# grading.txt; this script has not run on a GPU yet), on one H200 or H100 with 16 cores: about
# a minute of build, about 4 minutes grading the labs that give an estimate (lab 05's 20 files
# at about 7 s each the most), about 4 more for the rest. The default budget ends one call
# within 10 minutes with the first part whole; a second call on the same machine grades what is
# left (or: --labs "01 03 05 06", then --labs "02 04 07 08 09").
#
# Output, under OUT (default build/gpu-run), at most two folders deep for a lent machine:
#   OUT/estimate-agree/table.txt     the table and the figures (also printed)
#   OUT/estimate-agree/table.tsv     the rows, tab-separated
#   OUT/estimate-agree/results-line.txt  one line for tests/gpu/results/ (the run, the figures)
#   OUT/estimate-agree/logs/         each grading's and count's output
# Exit status: 0, 1 when some row could not be had (not measured, or a count that failed), 2
# when it could not run (no GPU, a build that failed).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/gpu-run}
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
res=$OUT/estimate-agree
work=$BUILD/estimate-agree
labs="01 02 03 04 05 06 07 08 09" only="" gpu_half=1 budget=540 jobs="" fresh=0 emu_grade=""
while [ $# -gt 0 ]; do
    case $1 in
        --labs) labs=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        --no-gpu) gpu_half=0; shift ;;
        --emu-grade) emu_grade=EMU=1; shift ;;
        --budget) budget=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --fresh) fresh=1; shift ;;
        *) echo "estimate-agree: unknown option $1 (see the script's header)" >&2; exit 2 ;;
    esac
done
cores=$(nproc)
[ -n "$jobs" ] || jobs=$((cores > 5 ? cores - 4 : 1))
seed=0x5eedab1e00c0ffee # the hidden cases' seed: every run grades the same problems

# ---- The GPU and its profile ------------------------------------------------------------------
gpu_name="" driver=""
if [ "$gpu_half" = 1 ] && [ -z "$emu_grade" ]; then
    line=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
    if [ -z "$line" ]; then
        echo "estimate-agree: no GPU here (nvidia-smi lists none), and the measured half needs one." >&2
        echo "estimate-agree: tests/gpu/estimate-agree.sh --no-gpu runs the estimate half alone." >&2
        exit 2
    fi
    gpu_name=${line%%,*} driver=${line#*, }
fi
key=${GPU_PROFILE:-}
if [ -z "$key" ]; then
    case $gpu_name in
        *H200*) key=h200 ;;
        *H100*HBM3* | *H100*SXM*) key=h100-sxm ;;
        "") key=h200 ;; # --no-gpu: the GPU of the recorded table
        *) echo "estimate-agree: no profile of common/gpu_profiles.c is known for '$gpu_name': GPU_PROFILE=KEY names one (make profiles lists them)" >&2
           exit 2 ;;
    esac
fi
mkdir -p "$res/logs" "$work" || exit 2
rm -f "$res"/logs/* "$res/table.txt" "$res/table.tsv" "$res/results-line.txt"
[ "$fresh" = 1 ] && rm -rf "$work/grade" "$work/est"
mkdir -p "$work/grade" "$work/est"
started=$SECONDS
say() { echo "estimate-agree: [$((SECONDS - started)) s] $*"; }
say "GPU: ${gpu_name:-none (--no-gpu)}; the estimate for GPU_PROFILE=$key; $cores cores, $jobs for the CPU's work"

# ---- Build --------------------------------------------------------------------------------------
# (the grader, every lab for this machine, and the emulator's pieces make explain counts with)
emu_runners=$(cd grader/labs && for d in [0-9][0-9]-*; do echo "runner-${d#*-}"; done)
if ! $MAKE -s --no-print-directory -j"$cores" >"$res/logs/build.log" 2>&1 ||
   ! $MAKE -s --no-print-directory -j"$cores" $emu_runners EMU=1 STUDENT=labs "$BUILD/host/profiles" \
        "$BUILD/host/lab-manifest" >>"$res/logs/build.log" 2>&1; then
    echo "estimate-agree: the build failed (the end of $res/logs/build.log):" >&2
    tail -n 20 "$res/logs/build.log" >&2
    exit 2
fi
say "built"

# Labs that give no estimate, and why (their rows count as files, not in the figures)
declare -A NONE=()
while IFS=$'\t' read -r l words _; do
    case $l in [0-9][0-9]) NONE[$l]=$words ;; esac
done <grader/feedback/estimate-limits.tsv

# ---- The corpus: one line per file --------------------------------------------------------------
# tag <tab> lab number <tab> lab folder <tab> lab name <tab> file as named in the table
field() { sed -n "s/^ \* $1: //p; s/^\/\* $1: //p" "$2" | tr -d '\r' | sed 's| *\*/$||'; }
in_labs() { case " $labs " in *" $1 "*) return 0 ;; esac; return 1; }
corpus() {
    local dir folder num name f lab
    for dir in solutions/[0-9][0-9]-*; do
        folder=${dir#solutions/} num=${folder%%-*} name=${folder#*-}
        in_labs "$num" || continue
        printf '%s-reference\t%s\t%s\t%s\t%s\n' "$num" "$num" "$folder" "$name" "$dir/$name.cu"
        # the skeleton too: the file every student grades first
        printf '%s-skeleton\t%s\t%s\t%s\t%s\n' "$num" "$num" "$folder" "$name" "labs/$folder/$name.cu"
        for f in "$dir"/steps/*.cu; do
            [ -e "$f" ] && printf '%s-steps_%s\t%s\t%s\t%s\t%s\n' "$num" "$(basename "$f" .cu)" "$num" "$folder" "$name" "$f"
        done
    done
    # the honest cases that a GPU grades correct (a case meant to fail a check is no style)
    for f in tests/cheats/h*.cu; do
        grep -qE '^ \* expect(@gpu)?: (gpu-)?all-correct=OK' "$f" || continue
        case " $(field where "$f") " in *" gpu "*) ;; *) continue ;; esac
        lab=$(field lab "$f")
        dir=$(ls -d labs/[0-9][0-9]-"$lab" 2>/dev/null) || continue
        folder=${dir#labs/} num=${folder%%-*}
        in_labs "$num" || continue
        printf '%s\t%s\t%s\t%s\t%s\n' "$(basename "$f" .cu)" "$num" "$folder" "$lab" "$f"
    done
}
corpus | { [ -n "$only" ] && awk -F'\t' -v re="$only" '$5 ~ re' || cat; } >"$work/corpus.tsv"
n_files=$(wc -l <"$work/corpus.tsv")
[ "$n_files" -gt 0 ] || { echo "estimate-agree: no file matches" >&2; exit 2; }

# ---- The trees: the K-th file of each lab in tree K; the labs that give an estimate first -------
# tree <tab> tag <tab> lab number <tab> folder <tab> name <tab> file
awk -F'\t' -v none="${!NONE[*]}" 'BEGIN { n = split(none, x, " "); for (i = 1; i <= n; i++) skip[x[i]] = 1 }
    { pass = ($2 in skip) ? "b" : "a"; k = ++slot[pass, $2]; printf "%s%02d\t%s\t%s\t%s\t%s\t%s\n", pass, k, $1, $2, $3, $4, $5 }' \
    "$work/corpus.tsv" | sort -s -k1,1 >"$work/trees.tsv"
# (a file is rewritten only when it changed: what make built from it stays built)
put() { # SOURCE DEST: SOURCE as a student hands it in (cheat_common.cuh put into it)
    local tmp=$2.new
    mkdir -p "$(dirname "$2")"
    sed -e "/^#include \"cheat_common.cuh\"/{r tests/cheats/cheat_common.cuh" -e "d}" "$1" >"$tmp"
    if cmp -s "$tmp" "$2"; then rm -f "$tmp"; else mv "$tmp" "$2"; fi
}
while IFS=$'\t' read -r tree tag num folder name file; do
    src=$file
    case $file in tests/cheats/*) c=$(field copy "$file"); [ -z "$c" ] || src=$c ;; esac
    put "$src" "$work/trees/$tree/$folder/$name.cu"
    # a rung or the reference with its solution folder's headers beside it, as a student copies them
    case $file in solutions/*) for h in solutions/"$folder"/*.cuh; do
        [ -e "$h" ] && put "$h" "$work/trees/$tree/$folder/$(basename "$h")"; done ;; esac
done <"$work/trees.tsv"
n_trees=$(cut -f1 "$work/trees.tsv" | sort -u | wc -l)
say "$n_files files in $n_trees trees ($work/trees)"
# What a grading or a count was made from: its files and the workbook's state (commit and
# changes), so that a kept one is used only where making it again would give the same
stamp=$( { git rev-parse HEAD; git status --porcelain --untracked-files=no; } 2>/dev/null | sha256sum | cut -c1-16)
tree_sum() { (cd "$work/trees/$1" && find . -type f | sort | xargs sha256sum; echo "$stamp") | sha256sum | cut -c1-16; }

# ---- The estimate half: each file of a lab that gives one, counted at two sizes -----------------
est_one() { # TREE TAG NUM FOLDER NAME: est/TAG.tsv, one line per speed check
    local tree=$1 tag=$2 num=$3 folder=$4 name=$5 file sum d thr reason
    file=$work/trees/$tree/$folder/$name.cu
    sum=$( (cat "$file"; echo "$stamp") | sha256sum | cut -c1-16)
    d=$work/est/$tag
    [ -s "$d/est.tsv" ] && [ "$(cat "$d/source.sum" 2>/dev/null)" = "$sum" ] && return
    rm -rf "$d" && mkdir -p "$d"
    if [ $((SECONDS - started)) -ge "$budget" ]; then # (not kept: the next run counts it)
        printf 'all\t-\tnot counted: the run'"'"'s budget was spent (run again)\n' >"$d/est.tsv"
        return
    fi
    thr=$("$BUILD/host/lab-manifest" pass-mark "$name")
    if ! nice -n 19 $MAKE -s --no-print-directory explain LAB="$num" STUDENT="$file" GPU_PROFILE="$key" EMU=1 \
            >"$res/logs/$tag.explain.log" 2>&1; then
        reason=$(grep -m1 -oE "cannot be checked on the CPU emulator[^;]*|answer at the counted size[^:]*: [^;]*|refused[^.]*|the calls failed under the emulator" \
            "$res/logs/$tag.explain.log" | head -n 1)
        printf 'all\t-\tnot counted: %s\n' "${reason:-see logs/$tag.explain.log}" >"$d/est.tsv"
        echo "$sum" >"$d/source.sum"
        return
    fi
    cp "$BUILD/explain/$name/sections.txt" "$BUILD/explain/$name/counts.tsv" "$BUILD/explain/$name/counts2.tsv" "$d/" 2>/dev/null
    est() { grader/feedback/estimate.sh --gpu "$key" --profiles "$BUILD/host/profiles" --threshold "$thr" \
        --table "grader/labs/$folder/explain.tsv" --source "$file" --mode tsv "$@" \
        "$d/sections.txt" "$d/counts.tsv" "$d/counts2.tsv"; }
    est >"$d/estimate.tsv" 2>>"$res/logs/$tag.explain.log"
    est --tol 1 >"$d/spread.tsv" 2>>"$res/logs/$tag.explain.log"
    # check <tab> estimate ("-": none) <tab> why none, or the two sizes' largest spread
    awk -F'\t' -v spread_file="$d/spread.tsv" '
        BEGIN { while ((getline l < spread_file) > 0) { split(l, f, "\t"); if (f[1] ~ /^sizes /) { c = f[1]; sub(/^sizes /, "", c)
                    sp[c] = sprintf("two sizes: %s %s / %s", f[2], f[4], f[6]) } } }
        $1 ~ /^check / { c = $1; sub(/^check /, "", c); est[c] = $3; order[++n] = c }
        $1 ~ /^short / { c = $1; sub(/^short /, "", c); why[c] = sprintf("none: moved %.0f%% of the bytes the task moves (%s)", $4 > 0 ? 100 * $3 / $4 : 0, $2) }
        $1 ~ /^other / { c = $1; sub(/^other /, "", c); why[c] = "none: other code for the emulator (CUDA_EMU)" }
        $1 ~ /^sizes / { c = $1; sub(/^sizes /, "", c); why[c] = sprintf("none: the two sizes differ: %s %s at %s, %s at %s", $2, $4, $3, $6, $5) }
        END { for (i = 1; i <= n; i++) { c = order[i]
                  printf "%s\t%s\t%s\n", c, (c in why) ? "-" : est[c], (c in why) ? why[c] : (c in sp) ? sp[c] : "" } }' \
        "$d/estimate.tsv" >"$d/est.tsv"
    echo "$sum" >"$d/source.sum"
}
estimate_half() {
    local num pids=()
    # every estimated lab's emulated pieces (make built them: a no-op, unless --no-gpu built none)
    for num in $(cut -f3 "$work/trees.tsv" | sort -u); do
        [ -n "${NONE[$num]+x}" ] && continue
        ( while IFS=$'\t' read -r tree tag n folder name file; do
              [ "$n" = "$num" ] && est_one "$tree" "$tag" "$n" "$folder" "$name"
          done <"$work/trees.tsv" ) &
        pids+=($!)
        # no more labs side by side than the cores the GPU's half leaves
        while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
    done
    wait "${pids[@]}" 2>/dev/null
}

# ---- The GPU half: one tree at a time, as make grade grades it ----------------------------------
# Every tree's objects are built side by side on the CPU's share, in the trees' order, each lab
# leaving a mark when done; a tree is graded once its labs are built (make grade would build
# what is missing all the same), so the GPU starts on the first tree while the rest compile.
build_trees() {
    rm -rf "$work/built" && mkdir -p "$work/built"
    awk -F'\t' -v w="$work" '{ print $5, w "/trees/" $1, w "/built/" $1 "." $5 }' "$work/trees.tsv" |
        xargs -P "$jobs" -L 1 sh -c 'nice -n 19 ${MAKE:-make} -s --no-print-directory runner-$0 STUDENT=$1 '"$emu_grade"' \
            >/dev/null 2>&1; touch "$2"'
}
gpu_half_run() {
    local tree labs_of names sum g n waited builder
    build_trees &
    builder=$!
    for tree in $(cut -f1 "$work/trees.tsv" | sort -u); do
        g=$work/grade/$tree
        labs_of=$(awk -F'\t' -v t="$tree" '$1 == t { printf "%s%s", sep, $3; sep = "," }' "$work/trees.tsv")
        names=$(awk -F'\t' -v t="$tree" '$1 == t { print $5 }' "$work/trees.tsv")
        waited=0 # (its objects: at most 5 minutes)
        while [ "$waited" -lt 600 ]; do
            n=0
            for name in $names; do [ -e "$work/built/$tree.$name" ] || n=$((n + 1)); done
            [ "$n" = 0 ] && break
            sleep 0.5; waited=$((waited + 1))
        done
        sum=$(tree_sum "$tree")
        [ -s "$g/results.json" ] && [ "$(cat "$g/source.sum" 2>/dev/null)" = "$sum" ] && continue
        if [ $((SECONDS - started)) -ge "$budget" ]; then
            echo "$tree" >>"$work/unmeasured.txt"
            continue
        fi
        rm -rf "$g"
        $MAKE -s --no-print-directory grade STUDENT="$work/trees/$tree" LAB="$labs_of" SEED=$seed \
            GRADE_WHERE=0 GRADE_DIR="$g" $emu_grade >"$res/logs/grade-$tree.log" 2>&1
        [ -s "$g/results.json" ] && echo "$sum" >"$g/source.sum"
        say "graded tree $tree (labs $labs_of): $(grep -m1 '^Score:' "$res/logs/grade-$tree.log" || echo "no score: see logs/grade-$tree.log")"
    done
    wait "$builder"
}

rm -f "$work/unmeasured.txt"
estimate_half &
est_pid=$!
if [ "$gpu_half" = 1 ]; then
    gpu_half_run
fi
wait "$est_pid"
say "estimates done"

# ---- The table and the figures ------------------------------------------------------------------
# The speed checks of each lab: index and name (the harness's own list)
for num in $(cut -f3 "$work/trees.tsv" | sort -u); do
    name=$(awk -F'\t' -v n="$num" '$3 == n { print $5; exit }' "$work/trees.tsv")
    h=$BUILD/emu/.grader/$name/harness
    [ -x "$h" ] || h=$BUILD/gpu/.grader/$name/harness
    "$h" --list-checks 2>/dev/null | awk -F'\t' -v n="$num" '$2 == "speed" { print n "\t" $1 "\t" $3 }'
done >"$work/checks.tsv"
none_list=""
for l in "${!NONE[@]}"; do none_list="$none_list$l "; done
BUILD=$BUILD python3 - "$work" "$res" "$key" "${gpu_name:-}" "${driver:-}" "$gpu_half" "$none_list" <<'EOF'
import json, os, subprocess, sys
work, res, key, gpu, driver, gpu_half, none_labs = sys.argv[1:]
none_labs = set(none_labs.split())
trees = [l.rstrip("\n").split("\t") for l in open(f"{work}/trees.tsv")]
checks = {}
for l in open(f"{work}/checks.tsv"):
    num, idx, name = l.rstrip("\n").split("\t")
    checks.setdefault(num, []).append((int(idx), name))

def measured(tree, num):
    """{check index: (ratio or None, verdict, mark)} of lab num in tree's grading, or None."""
    try:
        r = json.load(open(f"{work}/grade/{tree}/results.json"))
    except (OSError, ValueError):
        return None
    for lab in r.get("labs", []):
        if lab.get("number") != num:
            continue
        out = {}
        for i, c in enumerate(lab.get("checks", [])):
            if c.get("kind") == "speed":
                s = c.get("speed") or {}
                out[i] = (s.get("ratio_median"), c.get("verdict", "?"), lab.get("threshold"))
        return out
    return None

def estimates(tag):
    """{check index or 'all': (estimate or None, why)}"""
    out = {}
    try:
        for l in open(f"{work}/est/{tag}/est.tsv"):
            c, e, why = (l.rstrip("\n").split("\t") + ["", ""])[:3]
            out[c if c == "all" else int(c)] = (None if e == "-" else float(e), why)
    except OSError:
        pass
    return out

def mark_of(num):
    name = next(t[4] for t in trees if t[2] == num)
    try:
        return float(subprocess.run([os.environ.get("BUILD", "build") + "/host/lab-manifest", "pass-mark", name],
                                    capture_output=True, text=True).stdout)
    except ValueError:
        return None

rows, marks = [], {}
for tree, tag, num, folder, name, file in trees:
    marks.setdefault(num, mark_of(num))
    m = measured(tree, num) if gpu_half == "1" else None
    e = estimates(tag)
    for idx, cname in checks.get(num, []):
        mark = marks[num]
        meas, verdict = None, ""
        if m is not None and idx in m:
            meas, verdict, mk = m[idx]
            mark = mk if mk else mark
        if num in none_labs:
            est, why = None, "none for this lab"
        elif "all" in e:
            est, why = None, e["all"][1]
        elif idx in e:
            est, why = e[idx]
        else:
            est, why = None, "not counted (see logs)"
        note = []
        same = within = ""
        if est is not None and meas:
            same = "yes" if (est >= mark) == (meas >= mark) else "no"
            within = "yes" if 0.8 <= est / meas <= 1.25 else "no"
        if est is not None and mark and mark / 1.25 <= est <= mark * 1.25:
            note.append("near the mark: within the estimate's own error (25%), either side possible")
        if why and (est is None or why.startswith("two sizes")):
            note.append(why)
        if folder and tag.endswith("-reference"):
            note.append("the reference against itself")
        if gpu_half == "1" and meas is None:
            note.append("not measured" + (f" ({verdict})" if verdict else ""))
        rows.append(dict(file=file, lab=num, check=cname, est=est, meas=meas, mark=mark, same=same,
                         within=within, note="; ".join(note), none_lab=num in none_labs))

def pct(a, b):
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "0/0"

rows.sort(key=lambda r: (r["lab"], not r["file"].startswith("solutions/"), r["file"]))
lines = []
hdr = ["file", "lab", "check", "estimate", "measured", "mark", "same side", "within 25%", "note"]
with open(f"{res}/table.tsv", "w") as t:
    t.write("\t".join(hdr) + "\n")
    for r in rows:
        t.write("\t".join([r["file"], r["lab"], r["check"], "-" if r["est"] is None else f"{r['est']:.2f}",
                           "-" if r["meas"] is None else f"{r['meas']:.3f}", f"{r['mark']:.2f}" if r["mark"] else "-",
                           r["same"] or "-", r["within"] or "-", r["note"]]) + "\n")
w = max(len(r["file"]) for r in rows)
lines.append(f"{'file':<{w}}  lab  {'check':<44} estimate measured  mark  same  <=25%  note")
for r in rows:
    lines.append(f"{r['file']:<{w}}  {r['lab']:>3}  {r['check'][:44]:<44} {'-' if r['est'] is None else format(r['est'], '.2f'):>8} "
                 f"{'-' if r['meas'] is None else format(r['meas'], '.3f'):>8}  {r['mark'] or 0:.2f}  {r['same'] or '-':>4}  {r['within'] or '-':>5}  {r['note']}")
lines.append("")
both = [r for r in rows if not r["none_lab"] and r["est"] is not None and r["meas"]]
per_lab = {}
for r in both:
    per_lab.setdefault(r["lab"], []).append(r)
lines.append(f"GPU {gpu or 'none'} (driver {driver or '-'}), the estimate for GPU_PROFILE={key}; labs that give an estimate:")
for lab in sorted(set(r["lab"] for r in rows if not r["none_lab"])):
    b = per_lab.get(lab, [])
    no_est = [r for r in rows if r["lab"] == lab and r["est"] is None]
    near = [r for r in b if "near the mark" in r["note"]]
    lines.append(f"  lab {lab}: {len(b)} checks with both figures: same side {pct(sum(r['same'] == 'yes' for r in b), len(b))}, "
                 f"within 25% {pct(sum(r['within'] == 'yes' for r in b), len(b))}; {len(near)} near the mark; "
                 f"{len(no_est)} with no estimate")
near = [r for r in both if "near the mark" in r["note"]]
s_all = sum(r["same"] == "yes" for r in both)
w_all = sum(r["within"] == "yes" for r in both)
no_est = [r for r in rows if not r["none_lab"] and r["est"] is None]
none_files = sorted(set(r["file"] for r in rows if r["none_lab"]))
unmeasured = [r for r in rows if gpu_half == "1" and r["meas"] is None]
lines.append(f"  overall: {len(both)} checks with both figures: same side {pct(s_all, len(both))}, within 25% {pct(w_all, len(both))}; "
             f"{len(near)} near the mark (of them {sum(r['same'] == 'no' for r in near)} on the other side)")
nr = [r for r in both if "the reference against itself" not in r["note"]]
lines.append(f"  the references left out: {len(nr)} checks: same side {pct(sum(r['same'] == 'yes' for r in nr), len(nr))}, "
             f"within 25% {pct(sum(r['within'] == 'yes' for r in nr), len(nr))}")
reasons = {}
for r in no_est:
    k = r["note"].split(":")[0] if r["note"] else "?"
    reasons[k] = reasons.get(k, 0) + 1
lines.append(f"  no estimate in those labs: {len(no_est)} checks" + (" (" + ", ".join(f"{v} {k}" for k, v in sorted(reasons.items())) + ")" if reasons else ""))
lines.append(f"labs that give no estimate ({', '.join(sorted(none_labs))}): {len(none_files)} files")
if gpu_half == "1":
    lines.append(f"not measured: {len(unmeasured)} checks" + (" (run again to measure them: the rest is kept)" if unmeasured else ""))
text = "\n".join(lines) + "\n"
open(f"{res}/table.txt", "w").write(text)
print(text, end="")
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip() or "-"
# (a copy whose tracked files are not its HEAD's, as a lent machine's copy of a working tree can
# be, is named as such: its HEAD alone would name another tree)
if commit != "-" and subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                                    capture_output=True, text=True).stdout.strip():
    commit += " with changes"
per = "; ".join(f"lab {lab} {sum(r['same'] == 'yes' for r in b)}/{len(b)} same, {sum(r['within'] == 'yes' for r in b)}/{len(b)} within"
                for lab, b in sorted(per_lab.items()))
open(f"{res}/results-line.txt", "w").write(
    f"estimate-agree {commit} on {gpu or 'no GPU'} (driver {driver or '-'}) for GPU_PROFILE={key}: {len(both)} checks, "
    f"same side {pct(s_all, len(both))}, within 25% {pct(w_all, len(both))}, {len(near)} near the mark; {per}; "
    f"no estimate {len(no_est)}; {len(none_files)} files in labs that give none; {len(unmeasured)} not measured\n")
sys.exit(1 if unmeasured or any("not counted" in r["note"] for r in no_est) else 0)
EOF
status=$?
say "done: $res/table.txt, $res/results-line.txt"
exit $status
