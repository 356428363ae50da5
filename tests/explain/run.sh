#!/bin/bash
# tests/explain/run.sh - make test-explain: make explain shows each lesson's mechanism at the line
# the lesson names, in the skeleton and not (or far less) in the reference:
#   memory   more sectors per request (01, 06) or more wavefronts per shared request (02) at the
#            skeleton's line than the reference needs for the same kind of access, against the ideal;
#   branches divergent runs and few lanes in at the skeleton's branch (03, 07), exact where the
#            emulator's size fixes them, none at the reference's, and fewer lanes in over the
#            skeleton's whole call than over the reference's;
#   waves    a last wave nearly empty in the skeleton, one full wave in the reference (08), on the
#            emulated device's 4 SMs and on an H200's 132 (GPU_PROFILE=h200);
#   pictures an SVG of the skeleton's worst request at the lesson's line (01, 02, 06), and the
#            reference's worst request nearer its ideal;
#   in flight the bytes a thread loads before its store: 4 in the skeleton, up to 256 in the
#            reference (04);
#   engines  the order of the copies and kernels on the copy engines and the SMs: one engine at a
#            time in the skeleton, overlapping in the reference (05); and the schedule's rules
#            (the legacy default stream, non-blocking streams, events, pageable copies, host
#            waits) on op lists written by hand.
# With the reference as your code (labs 03, 07) both calls are counted. make grade prints the
# skeleton's costliest line under a speed check (WHERE), none for the reference's code.
# A hostile file's names and lines are data (tests/explain/hostile.cu): make explain finishes,
# opens and quotes no file a count names (/dev/zero, a named pipe, /etc/shadow, the transpose
# reference), shows control bytes as escapes and draws well-formed XML; forged count rows are
# left out or shown unquoted; the awk escaping is common/text.c's; make explain counts only in
# the sandbox (none here: refused, with the reason); make bench, profile and sanitize refuse a
# tree that is not yours.
# Every lab's explain.tsv names only counters make explain prints, says what it does not show, and
# asks a question to predict; make explain PREDICT=1 asks it before the counts and waits only on a
# terminal; the reference's rows are named as the reference's.
#
#   MAKE=make BUILD=build tests/explain/run.sh
set -u
make=${MAKE:-make}
build=${BUILD:-build}
failed=0 passed=0
fail() { echo "   FAIL: $*"; failed=$((failed + 1)); }

# explain LAB: make explain's output for LAB's skeleton, in $build/explain-test-LAB.txt (made once
# per run); sets secs to the seconds it took, or fails and returns 1.
declare -A explained
explain() {
    local lab=$1 out=$build/explain-test-$1.txt start
    if [ -n "${explained[$lab]:-}" ]; then secs=${explained[$lab]}; return 0; fi
    start=$(date +%s.%N)
    if ! $make -s --no-print-directory explain LAB="${lab%%-*}" STUDENT=labs >"$out" 2>&1; then
        fail "make explain LAB=${lab%%-*} failed; its output:"
        tail -5 "$out"
        return 1
    fi
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    explained[$lab]=$secs
}

# line_of FILE TEXT: the number of the first line of FILE holding TEXT ("" if none).
line_of() { grep -nF -- "$2" "$1" | head -1 | cut -d: -f1; }

# ---- Memory requests ----------------------------------------------------------------------------
# lab <tab> file in labs/<lab>/ <tab> text of the lesson's line <tab> counter
cases=$'01-coalescing\tcoalescing.cu\tout[i] = in[i] * scale[r] + bias[r];\tglobal load
02-banks\tbanks.cu\tm = fmaxf(m, w[k]);\tshared load
06-transpose\ttranspose.cu\tout[(size_t)c * rows + r] = in[(size_t)r * cols + c];\tglobal store'

# (the quick tier: lab 01's alone)
[ "${QUICK:-}" != 1 ] || cases=$(head -1 <<<"$cases")
while IFS=$'\t' read -r lab file text counter; do
    echo "== explain: lab $lab, $counter at: $text"
    line=$(line_of "labs/$lab/$file" "$text")
    if [ -z "$line" ]; then
        fail "labs/$lab/$file no longer has the line the lesson names ($text): update tests/explain/run.sh"
        continue
    fi
    explain "$lab" || continue
    # Yours: the worst request at the lesson's line; the reference: its whole call. Each as
    # per request over the ideal, so a float4 reference (16 sectors, ideal 16) compares fairly.
    verdict=$(awk -v loc="$file:$line" -v counter="$counter" '
        /^your code/ { part = "yours"; next }
        /^the reference/ { part = "ref"; next }
        part == "yours" && $1 == loc && index($0, counter ",") {
            # columns: line, access ("global load, 4 B"), requests, per request, ideal, lanes, text
            n = split($0, w, / +/)
            for (i = 1; i <= n; i++) if (w[i] == "B") { per = w[i + 2]; ideal = w[i + 3]; break }
            if (ideal > 0 && per / ideal > yours) { yours = per / ideal; yours_text = per " (ideal " ideal ")" }
        }
        part == "ref" && index($0, "whole call, " counter ":") {
            match($0, /request: [0-9.]+ \(ideal [0-9.]+\)/)
            s = substr($0, RSTART + 9, RLENGTH - 9); gsub(/[()a-z]/, "", s); split(s, v, / +/)
            if (v[2] > 0) { ref = v[1] / v[2]; ref_text = v[1] " (ideal " v[2] ")" }
        }
        END {
            if (yours_text == "") { print "NOLINE"; exit }
            if (ref_text == "") { print "NOREF"; exit }
            print (yours > ref ? "OK" : "BAD") "\t" yours_text "\t" ref_text
        }' "$build/explain-test-$lab.txt")
    case $verdict in
    OK*) IFS=$'\t' read -r _ y r <<<"$verdict"
         echo "   OK: yours $y per request at $file:$line, the reference $r (${secs} s)"
         passed=$((passed + 1)) ;;
    NOLINE) fail "expected a $counter row at $file:$line in the skeleton's table; got:"
            sed -n '/^your code/,/^the reference/p' "$build/explain-test-$lab.txt" ;;
    NOREF) fail "expected the reference's whole-call $counter line; got:"
           cat "$build/explain-test-$lab.txt" ;;
    *) IFS=$'\t' read -r _ y r <<<"$verdict"
       fail "expected the skeleton's $counter at $file:$line to cost more per request than the reference's; yours $y, reference $r" ;;
    esac
done <<<"$cases"

# ---- Pictures -----------------------------------------------------------------------------------
# Labs 01, 02 and 06 draw one warp's costliest request at the worst line (build/explain/NAME/
# access.svg): the skeleton's, exactly, at the lesson's line; the reference's nearer its ideal.
# lab <tab> what the skeleton's picture shows, with @LINE for the number of the lesson's line
# (the one the cases above name, looked up in the skeleton)
pictures=$'01-coalescing\tglobal load at coalescing.cu:@LINE: 32 sectors for 32 lanes (ideal 4)
02-banks\tshared load at banks.cu:@LINE: 32 wavefronts for 32 lanes (ideal 1)
06-transpose\tglobal store at transpose.cu:@LINE: 32 sectors for 32 lanes (ideal 4)'
# The picture line's cost over its ideal in an explain output ("" if it has none).
picture_ratio() {
    awk '/^Picture of the worst line/ { getline; if (match($0, /: [0-9]+ [a-z]+ for [0-9]+ lanes \(ideal [0-9]+\)/)) {
        split(substr($0, RSTART + 2, RLENGTH - 3), w, " "); print w[1] / w[7]; exit } }' "$1"
}
[ "${QUICK:-}" != 1 ] || pictures=$(head -1 <<<"$pictures")
while IFS=$'\t' read -r lab want; do
    echo "== explain: lab $lab, the picture of the worst line"
    IFS=$'\t' read -r _ file text _ <<<"$(grep "^$lab"$'\t' <<<"$cases")"
    want=${want/@LINE/$(line_of "labs/$lab/$file" "$text")}
    explain "$lab" || continue
    svg=$build/explain/${lab#*-}/access.svg
    got=$(awk '/^Picture of the worst line/ { getline; sub(/^  /, ""); sub(/\): .*/, ")"); print; exit }' "$build/explain-test-$lab.txt")
    if [ "$got" != "$want" ]; then
        fail "expected the skeleton's picture of '$want'; got '$got'"
        continue
    fi
    if [ "$(head -c 4 "$svg" 2>/dev/null)" != "<svg" ] || [ "$(tail -n 1 "$svg")" != "</svg>" ] ||
            [ "$(grep -c '<rect' "$svg")" -lt 64 ]; then
        fail "expected an SVG of 32 lanes and their sectors or banks at $svg"
        continue
    fi
    ref_out=$build/explain-test-$lab-solutions.txt
    if ! $make -s --no-print-directory explain LAB="${lab%%-*}" STUDENT=solutions >"$ref_out" 2>&1; then
        fail "make explain LAB=${lab%%-*} STUDENT=solutions failed; its output:"
        tail -5 "$ref_out"
        continue
    fi
    y=$(picture_ratio "$build/explain-test-$lab.txt") r=$(picture_ratio "$ref_out")
    if [ -n "$y" ] && [ -n "$r" ] && awk -v y="$y" -v r="$r" 'BEGIN { exit !(r < y) }'; then
        echo "   OK: yours $got, $svg; the reference's worst at $r x its ideal"
        passed=$((passed + 1))
    else
        fail "expected the reference's worst request nearer its ideal than the skeleton's; yours '$y' x, the reference '$r' x"
    fi
done <<<"$pictures"

# make test's quick tier (QUICK=1): lab 01's requests and picture above, the hostile file and
# the refusals below; the branches, the WHERE line's place, the waves, the loads in flight, the
# engines' timeline and the kept reference's counts are left to make test-all.
left=0
if [ "${QUICK:-}" = 1 ]; then
    left=6
    echo "== explain: the branches, WHERE, waves, loads in flight, engines and kept counts: left to make test-all (the quick tier)"
else
# ---- Branches -----------------------------------------------------------------------------------
# The branch row of SIDE (yours|ref) at LOC in OUT: "runs divergent lanes in" ("" if none).
# (a row of the reference's own file reads "ref: FILE:LINE": the prefix is its first field)
branch_row() {
    awk -v side="$1" -v loc="$2" '
        /^your code/ { part = "yours"; next }
        /^the reference/ { part = "ref"; next }
        part == "ref" && $1 == "ref:" { $1 = ""; $0 = $0 }
        part == side && $1 == loc && $2 == "condition" { print $3, $4, $5, $6; exit }' "$3"
}
# The whole call's "lanes in" of SIDE in OUT.
lanes_in() {
    awk -v side="$1" '
        /^your code/ { part = "yours"; next }
        /^the reference/ { part = "ref"; next }
        part == side && /whole call, branches:/ { for (i = 1; i <= NF; i++) if ($i == "in") { print $(i + 1); exit } }' "$2"
}

# lab <tab> who (labs|solutions) <tab> file <tab> text of the branch <tab> runs <tab> divergent
# <tab> lanes in (or -: not checked). Exact: the emulator's size and the seeded inputs fix them
# (drawn on the host, as a correctness check draws its own: the counted call is verified against
# the CPU's answer, grader/harness/profile_trusted.cu).
# 03: n = 20011, 626 warps, each holding all four classes, so its class test splits every one.
# 07: n = 1048579, 4115 blocks of 8 warps, 8 levels: the test runs 263360 times, and in every run
# where a lane goes in (5 levels in every warp, 3 in some) the others do not: 193405 runs,
# 5.4 lanes in on average (16, 8, 4, 2, 1 ...). The references' branches of the same role diverge
# nowhere.
branch_cases=$'03-divergence\tlabs\tdivergence.cu\tif (c == 0)\t626\t626\t8.0
03-divergence\tsolutions\tdivergence.cu\tif (c == 0)\t-\t0\t-
07-reduction\tlabs\treduction.cu\tif (tid % (2 * s) == 0)\t263360\t193405\t5.4
07-reduction\tsolutions\treduction.cu\tif (warp == 0) {\t-\t0\t32.0'

while IFS=$'\t' read -r lab tree file text runs divergent in; do
    who=$([ "$tree" = labs ] && echo yours || echo ref)
    echo "== explain: lab $lab, branch of $tree/$lab/$file at: $text"
    line=$(line_of "$tree/$lab/$file" "$text")
    if [ -z "$line" ]; then
        fail "$tree/$lab/$file no longer has the branch ($text): update tests/explain/run.sh"
        continue
    fi
    explain "$lab" || continue
    row=$(branch_row "$who" "$file:$line" "$build/explain-test-$lab.txt")
    if [ -z "$row" ]; then
        fail "expected a branch row at $file:$line for $who; got:"
        grep -E 'condition|^your|^the ref' "$build/explain-test-$lab.txt"
        continue
    fi
    read -r got_runs got_div _ got_in <<<"$row"
    why=""
    [ "$runs" = - ] || [ "$got_runs" = "$runs" ] || why="$why runs $got_runs, expected $runs;"
    [ "$got_div" = "$divergent" ] || why="$why divergent runs $got_div, expected $divergent;"
    [ "$in" = - ] || [ "$got_in" = "$in" ] || why="$why lanes in $got_in, expected $in;"
    if [ -n "$why" ]; then
        fail "$file:$line ($who):$why"
    else
        echo "   OK: $got_runs runs, $got_div divergent, $got_in lanes in (${secs} s)"
        passed=$((passed + 1))
    fi
done <<<"$branch_cases"

# Over the whole call, the skeleton's bodies run with fewer lanes than the reference's: at most
# the fraction below of them.
while IFS=$'\t' read -r lab most; do
    echo "== explain: lab $lab, lanes in over the whole call: yours at most $most of the reference's"
    explain "$lab" || continue
    y=$(lanes_in yours "$build/explain-test-$lab.txt") r=$(lanes_in ref "$build/explain-test-$lab.txt")
    if [ -z "$y" ] || [ -z "$r" ]; then
        fail "expected a 'whole call, branches' line for both; got yours '$y', the reference '$r'"
    elif awk -v y="$y" -v r="$r" -v m="$most" 'BEGIN { exit !(y <= m * r) }'; then
        echo "   OK: yours $y of 32, the reference $r"
        passed=$((passed + 1))
    else
        fail "expected the skeleton's lanes in ($y) to be at most $most x the reference's ($r)"
    fi
done <<<$'03-divergence\t0.3\n07-reduction\t0.8'

# ---- WHERE only where the counts show a cost ----------------------------------------------------
# make grade's WHERE line (explain.awk -v where=1) names a line only when its figure is clearly
# worse than the ideal and the reference's: a divergent branch only in a call whose bodies run
# with clearly fewer lanes than the reference's, a memory access only when its waste is a material
# share of the call's counted work. Each skeleton's lesson line is named; the reference as your code,
# and honest code near it, get none: lab 09's register-tiled SGEMM whose epilogue stores a sector a
# lane (tests/cheats/h90), which the rule once blamed. Counted by make explain (its counts in
# $build/explain/NAME), rendered as make grade renders them.
# where_of LABDIR TREE: the WHERE line of make explain's last count of LABDIR's lab ("" if none).
where_of() {
    local lab=$1 tree=$2 d file
    d=$build/explain/${lab#*-}
    file=$(basename "$(ls labs/"$lab"/*.cu | head -1)")
    LC_ALL=C awk -F'\t' -v table="grader/labs/$lab/explain.tsv" -v source="$d/yours.src" \
        -v source_name="$file" -v ref_source="$d/reference.src" -v ref_name="$file" \
        -v header_dir="$d/headers" -v headers="$(ls "$d/headers" 2>/dev/null | tr '\n' ' ')" \
        -v shown="$tree/$lab/$file" -v lab="$lab" -v where=1 -f grader/feedback/counts.awk \
        -f grader/feedback/timeline.awk -f grader/feedback/explain.awk "$d/sections.txt" "$d/counts.tsv"
}
# lab <tab> tree (labs, solutions, or a case of tests/cheats handed in as the lab's file) <tab>
# the text of the line the WHERE names, or "-" for none
where_cases=$'03-divergence\tlabs\tif (c == 0)
07-reduction\tlabs\tif (tid % (2 * s) == 0)
03-divergence\tsolutions\t-
07-reduction\tsolutions\t-
09-sgemm\ttests/cheats/h90-sgemm-thread-tiles-scalar-epilogue.cu\t-'
while IFS=$'\t' read -r lab tree text; do
    echo "== explain: lab $lab, the WHERE line of $tree: ${text/#-/none}"
    file=$(basename "$(ls labs/"$lab"/*.cu | head -1)")
    case $tree in
    labs|solutions) student=$tree ;;
    *) student=$build/explain-where-${tree##*/}; student=${student%.cu}
       rm -rf "$student" && mkdir -p "$student" && cp -r "labs/$lab" "$student/" && cp "$tree" "$student/$lab/$file" ;;
    esac
    if [ "$tree" = labs ]; then
        explain "$lab" || continue
    elif ! $make -s --no-print-directory explain LAB="${lab%%-*}" STUDENT="$student" >"$build/explain-where.txt" 2>&1; then
        fail "make explain LAB=${lab%%-*} STUDENT=$student failed; its output:"
        tail -5 "$build/explain-where.txt"
        continue
    fi
    got=$(where_of "$lab" "$student")
    if [ "$text" = - ]; then
        if [ -z "$got" ]; then echo "   OK: no line named"; passed=$((passed + 1))
        else fail "expected no WHERE line for $tree; got: $got"; fi
        continue
    fi
    line=$(line_of "$tree/$lab/$file" "$text")
    if [ -n "$line" ] && [[ "$got" == "$student/$lab/$file:$line "* ]]; then
        echo "   OK: $got"; passed=$((passed + 1))
    else
        fail "expected the WHERE line to name $file:$line ($text); got: ${got:-nothing}"
    fi
done <<<"$where_cases"

# ---- Waves --------------------------------------------------------------------------------------
# Lab 08 at its first speed size, a full wave + 1 block: on the emulated device (4 SMs) and with
# GPU_PROFILE=h200 (132 SMs). The skeleton's block per item leaves a last wave nearly empty; the
# reference's persistent grid is exactly one full wave.
wave_cases=$'-\t4 SMs\t5 blocks on 4 SMs x 1 per SM: 2 waves, the last 25% full\t4 blocks on 4 SMs x 1 per SM: 1 wave, the last 100% full
h200\t132 SMs\t133 blocks on 132 SMs x 1 per SM: 2 waves, the last 1% full\t132 blocks on 132 SMs x 1 per SM: 1 wave, the last 100% full'
while IFS=$'\t' read -r key what yours ref; do
    echo "== explain: lab 08-tail, waves on $what"
    out=$build/explain-test-08-tail-$key.txt
    start=$(date +%s.%N)
    if ! $make -s --no-print-directory explain LAB=08 STUDENT=labs \
            $([ "$key" = - ] || echo GPU_PROFILE="$key") >"$out" 2>&1; then
        fail "make explain LAB=08 ${key#-} failed; its output:"
        tail -5 "$out"
        continue
    fi
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    got_y=$(awk '/^your code/ { p = 1 } /^the reference/ { exit } p && /^  launch / { sub(/^  launch [^:]*: /, ""); print; exit }' "$out")
    got_r=$(awk '/^the reference/ { p = 1 } p && /^  launch / { sub(/^  launch [^:]*: /, ""); print; exit }' "$out")
    if [ "$got_y" = "$yours" ] && [ "$got_r" = "$ref" ]; then
        echo "   OK: yours $got_y; the reference $got_r (${secs} s)"
        passed=$((passed + 1))
    else
        fail "expected yours '$yours' and the reference '$ref'; got '$got_y' and '$got_r'"
    fi
done <<<"$wave_cases"
# (a lab that gets no speed estimate: make explain's estimate section is one plain line)
echo "== explain: lab 08-tail with GPU_PROFILE=h200: no estimate for this lab, in one line"
est=$(sed -n '/^Estimated speed/,/^Picture/p' "$build/explain-test-08-tail-h200.txt" | grep -v '^Picture')
if [ "$(echo "$est" | wc -l)" = 1 ] &&
    echo "$est" | grep -q "^Estimated speed on the NVIDIA H200: none for this lab: its speed turns on" &&
    ! echo "$est" | grep -qE '[0-9]\.[0-9]+x'; then
    echo "   OK: $est"
    passed=$((passed + 1))
else
    fail "expected one line saying lab 08 gets no estimate, and why; got:"
    echo "$est"
fi

# ---- Loads in flight ----------------------------------------------------------------------------
# Lab 04's memory task: the skeleton's thread loads 4 bytes before each store; the reference's
# 16 float4 loads, 256 bytes, before its first store (fewer in the last rounds of the grid).
echo "== explain: lab 04-ilp, bytes in flight a thread: yours 4.0, the reference's at most 256"
if explain 04-ilp; then
    row=$(awk '/^side by side/ { n++ } n == 1 && /bytes in flight a thread:/ { print $6, $7; exit }' "$build/explain-test-04-ilp.txt")
    most=$(awk '/^the reference/ { p = 1 } p && /whole call, loads in flight:/ { for (i = 1; i <= NF; i++) if ($i == "most") { print $(i + 1); exit } }' "$build/explain-test-04-ilp.txt")
    read -r y r <<<"$row"
    if [ "$y" = 4.0 ] && [ "$most" = 256 ] && awk -v r="$r" 'BEGIN { exit !(r >= 128) }'; then
        echo "   OK: yours $y bytes, the reference $r on average, $most at most (${secs} s)"
        passed=$((passed + 1))
    else
        fail "expected yours 4.0 bytes in flight, the reference at least 128 on average and 256 at most; got yours '$y', the reference '$r', most '$most'"
    fi
fi

# ---- Engines' timeline --------------------------------------------------------------------------
# Lab 05: the skeleton's one stream runs copy in, kernel and copy out one after another, so its span
# is the three engines' work added up (1.00 of it); the reference's chunks on 4 streams overlap
# them: its span is at most 0.6 of that sum (7 chunks at the emulator's 8 MiB: 0.43).
echo "== explain: lab 05-streams, the engines' timeline: the skeleton no overlap, the reference overlaps"
if explain 05-streams; then
    out=$build/explain-test-05-streams.txt
    row=$(awk '/^side by side/ { n++ } n == 1 && /span \/ all engines. work:/ { print $(NF - 1), $NF; exit }' "$out")
    rows=$(awk '/^your code/ { part = "yours" } /^the reference/ { part = "ref" }
        /^    (copy in \(H2D\)|compute|copy out \(D2H\)) +\|[0-9a-zA-Z.:*]+\|/ { n[part]++ }
        END { print n["yours"] + 0, n["ref"] + 0 }' "$out")
    read -r y r <<<"$row"
    if [ "$y" = 1.00 ] && awk -v r="$r" 'BEGIN { exit !(r > 0 && r <= 0.6) }' && [ "$rows" = "3 3" ]; then
        echo "   OK: span / all engines' work: yours $y, the reference $r; three engine rows each (${secs} s)"
        passed=$((passed + 1))
    else
        fail "expected the skeleton's span at 1.00 of all engines' work and the reference's at most 0.60, three engine rows each; got '$y', '$r', rows '$rows':"
        sed -n '/engines, in the order/,/=>/p' "$out"
    fi
fi

# The schedule itself, on op lists written by hand (count.cpp's op lines): in each case an engine's
# ops add up to 100 bytes or threads, so its work is 1.00, and an op must start where the rule says.
echo "== explain: the engines' schedule of hand-written op lists"
tl=$build/explain-test-timeline
rm -rf "$tl" && mkdir -p "$tl"
# section <tab> what it shows <tab> its ops (stream, stream kind, kind, amount, detail with "_" for
# a space, call, and the host thread where it is not the first; ";" between them) <tab> lane <tab>
# stream <tab> where that lane's op on that stream must start (the first there); "-": another op
# of the section above
timeline_cases=$'1\tthe legacy default stream waits for a blocking stream, and the next blocking stream for it\t1 blocking h2d 100 pinned cudaMemcpyAsync;0 legacy kernel 100 k launch;2 blocking d2h 100 pinned cudaMemcpyAsync\tkernel\t0\t1
1\t-\t-\td2h\t2\t2
2\tnon-blocking streams take no part in that\t1 non-blocking h2d 100 pinned cudaMemcpyAsync;0 legacy kernel 100 k launch;2 non-blocking d2h 100 pinned cudaMemcpyAsync\tkernel\t0\t0
2\t-\t-\td2h\t2\t0
3\ttwo non-blocking streams overlap: the second copy in runs beside the first kernel\t1 non-blocking h2d 50 pinned cudaMemcpyAsync;1 non-blocking kernel 50 k launch;2 non-blocking h2d 50 pinned cudaMemcpyAsync;2 non-blocking kernel 50 k launch;1 non-blocking d2h 50 pinned cudaMemcpyAsync;2 non-blocking d2h 50 pinned cudaMemcpyAsync\th2d\t2\t0.5
3\t-\t-\tkernel\t2\t1
3\t-\t-\td2h\t2\t1.5
4\ta stream that waits for an event starts after its record\t1 non-blocking kernel 100 k launch;1 non-blocking record 0 event_1 cudaEventRecord;2 non-blocking wait 0 event_1 cudaStreamWaitEvent;2 non-blocking d2h 100 pinned cudaMemcpyAsync\td2h\t2\t1
5\twithout the wait it does not\t1 non-blocking kernel 100 k launch;1 non-blocking record 0 event_1 cudaEventRecord;2 non-blocking d2h 100 pinned cudaMemcpyAsync\td2h\t2\t0
6\ta pageable copy returns only once done: the kernel issued after it cannot overlap it\t1 non-blocking h2d 100 pageable cudaMemcpyAsync;2 non-blocking kernel 100 k launch\tkernel\t2\t1
7\tfrom pinned memory it can\t1 non-blocking h2d 100 pinned cudaMemcpyAsync;2 non-blocking kernel 100 k launch\tkernel\t2\t0
8\tcudaStreamSynchronize holds back what the host issues after it, until that stream is done\t1 non-blocking h2d 50 pinned cudaMemcpyAsync;2 non-blocking h2d 50 pinned cudaMemcpyAsync;1 non-blocking sync 0 - cudaStreamSynchronize;3 non-blocking kernel 100 k launch\tkernel\t3\t0.5
9\tcudaDeviceSynchronize until every stream is\t1 non-blocking h2d 50 pinned cudaMemcpyAsync;2 non-blocking h2d 50 pinned cudaMemcpyAsync;- - sync 0 - cudaDeviceSynchronize;3 non-blocking kernel 100 k launch\tkernel\t3\t1
10\tanother host thread\'s wait holds back only what that thread issues\t1 non-blocking h2d 50 pinned cudaMemcpyAsync;2 non-blocking h2d 50 pinned cudaMemcpyAsync 2;2 non-blocking sync 0 - cudaStreamSynchronize 2;3 non-blocking kernel 100 k launch\tkernel\t3\t0
11\tan engine takes the op that can start first, not the one issued first\t1 non-blocking kernel 100 k launch;1 non-blocking d2h 50 pinned cudaMemcpyAsync;2 non-blocking d2h 50 pinned cudaMemcpyAsync\td2h\t2\t0
11\t-\t-\td2h\t1\t1
12\tof two it could start at once, the one that has waited longest (another thread\'s, issued later)\t1 non-blocking h2d 50 pinned cudaMemcpyAsync;2 non-blocking d2h 25 pinned cudaMemcpyAsync;2 non-blocking h2d 25 pinned cudaMemcpyAsync;3 non-blocking h2d 25 pinned cudaMemcpyAsync 2;4 non-blocking d2h 75 pinned cudaMemcpyAsync\th2d\t3\t0.5
12\t-\t-\th2d\t2\t0.75
13\ta ninth stream shares the first\'s hardware queue: its copy waits for the op ahead of it there to start\t1 non-blocking kernel 100 k launch;1 non-blocking d2h 100 pinned cudaMemcpyAsync;9 non-blocking h2d 100 pinned cudaMemcpyAsync\th2d\t9\t1
14\ta second stream does not\t1 non-blocking kernel 100 k launch;1 non-blocking d2h 100 pinned cudaMemcpyAsync;2 non-blocking h2d 100 pinned cudaMemcpyAsync\th2d\t2\t0'
sections=$tl/sections.txt counts=$tl/counts.tsv
: >"$sections"; : >"$counts"
while IFS=$'\t' read -r sec what ops _; do
    [ "$ops" != - ] || continue
    printf 'section %s\tcheck 0\tstreams\tyours\t%s\n' "$sec" "$what" >>"$sections"
    seq=0
    IFS=';' read -ra list <<<"$ops"
    for op in "${list[@]}"; do
        read -r st sk kind amount detail call thread <<<"$op"
        seq=$((seq + 1))
        printf 'op %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s%s\n' "$sec" "$seq" "$st" "$sk" "$kind" "$amount" "${detail//_/ }" "$call" \
            "${thread:+$'\t'$thread}" >>"$counts"
    done
done <<<"$timeline_cases"
if ! LC_ALL=C awk -F'\t' -v table=grader/labs/05-streams/explain.tsv -v label="hand-written ops" -v lab=05-streams \
        -v timeline_out="$tl/timeline.tsv" -f grader/feedback/counts.awk -f grader/feedback/timeline.awk -f grader/feedback/explain.awk \
        "$sections" "$counts" >"$tl/explain.txt" 2>&1; then
    fail "explain.awk failed on the hand-written ops:"; cat "$tl/explain.txt"
else
    what=""
    while IFS=$'\t' read -r sec text _ lane st start; do
        [ "$text" = - ] || what=$text
        got=$(awk -F'\t' -v s="$sec" -v l="$lane" -v st="$st" '$1 == s && $2 == l && $3 == st { print $4 + 0; exit }' "$tl/timeline.tsv")
        if [ -n "$got" ] && awk -v g="$got" -v w="$start" 'BEGIN { exit !(g - w < 1e-6 && w - g < 1e-6) }'; then
            echo "   OK: case $sec, $what: the $lane on stream $st starts at $got"
            passed=$((passed + 1))
        else
            fail "case $sec, $what: expected the $lane on stream $st to start at $start; got '${got:-no such op}' ($tl/timeline.tsv)"
        fi
    done <<<"$timeline_cases"
fi

# Your code may be the reference's own (STUDENT=solutions): two copies of one kernel, each in a
# library of its own, run in one process, and the emulator must not take the copies of one
# barrier for two barriers (lab 03's and 07's references wait at barriers in loops).
for lab in 03 07; do
    echo "== explain: lab $lab with the reference as your code"
    if $make -s --no-print-directory explain LAB=$lab STUDENT=solutions >"$build/explain-test-ref-$lab.txt" 2>&1 &&
        grep -q '^side by side, whole call' "$build/explain-test-ref-$lab.txt"; then
        echo "   OK: both calls counted"
        passed=$((passed + 1))
    else
        fail "make explain LAB=$lab STUDENT=solutions failed; its output:"
        tail -8 "$build/explain-test-ref-$lab.txt"
    fi
done

# make grade's WHERE line: under the speed check the emulator cannot time, the skeleton's
# costliest line, counted inside the sandbox; nothing for the reference's own code; GRADE_WHERE=0
# leaves it out.
echo "== explain: make grade's WHERE line names the lesson's line"
where_out=$build/explain-test-where
rm -rf "$where_out" && mkdir -p "$where_out"
grade_where() { # STUDENT, file for its output; the grade's status is not this test's concern
    $make -s --no-print-directory grade LAB=05,06,08 STUDENT="$1" GRADE_DIR="$where_out/grade-$(basename "$1")" ${3:-} >"$2" 2>&1
}
grade_where labs "$where_out/labs.txt"
line=$(grep -nF -- 'out[(size_t)c * rows + r] = in[(size_t)r * cols + c];' labs/06-transpose/transpose.cu | head -1 | cut -d: -f1)
if grep -q "WHERE (the CPU emulator's count of your code): labs/06-transpose/transpose.cu:$line .*global stores of 4 bytes a lane take 32.0 32-byte sectors per warp-wide request; ideal 4.0" "$where_out/labs.txt" &&
    grep -q "WHERE (the CPU emulator's count of your code): your launch of .*: 2 waves, the last [0-9]*% full" "$where_out/labs.txt" &&
    grep -q "WHERE (the CPU emulator's count of your code): your copies and kernels, in the order a GPU's engines would run them: no overlap: .*; the reference lasts 1\.[0-9][0-9] x its busiest engine's work" "$where_out/labs.txt"; then
    echo "   OK: transpose.cu:$line's stores, lab 08's last wave and lab 05's engines taking turns"
    passed=$((passed + 1))
else
    fail "expected WHERE lines for lab 06 (transpose.cu:$line, 32 sectors per store), lab 08 (2 waves, the last wave under half full) and lab 05 (no overlap); got:"
    grep -E "WHERE|speed|Score" "$where_out/labs.txt"
fi
if grep -q '"where": "labs/06-transpose/transpose.cu:' "$where_out/grade-labs/results.json"; then
    echo "   OK: results.json keeps it"
    passed=$((passed + 1))
else
    fail "results.json has no \"where\" for lab 06's speed check"
fi
# with no GPU, the speed estimated on a T4 under each speed check (grader/feedback/estimate.c):
# lab 06's skeleton below the mark (its strided stores); lab 05 from the engines' timeline
if grep -q "ESTIMATE (not a grade): about 0\.[0-9][0-9]x the reference on the Tesla T4 (the mark: 0\.70x), below it; yours bound by DRAM traffic.*not a measurement" "$where_out/labs.txt" &&
    grep -q "ESTIMATE (not a grade): .*yours bound by its copies' and kernels' order on the engines" "$where_out/labs.txt" &&
    grep -q '"estimate": "about ' "$where_out/grade-labs/results.json"; then
    echo "   OK: the speed estimated on a T4 under the speed checks, and in results.json"
    passed=$((passed + 1))
else
    fail "expected an ESTIMATE line under lab 06's speed check (below the 0.70x mark, on a T4) and lab 05's; got:"
    grep -E "ESTIMATE|speed" "$where_out/labs.txt"
fi
# a lab that gets no estimate (08: grader/feedback/estimate-limits.tsv) says so plainly under
# its first speed check, its reason in a student's words, and no number at all; its second
# speed check's estimate, the same, says "as above"
lab08=$(sed -n '/^== 08 /,/^== /p' "$where_out/labs.txt" | grep "ESTIMATE (not a grade)")
if [ "$(echo "$lab08" | grep -c "none for this lab: its speed turns on each block's arithmetic")" = 1 ] &&
    [ "$(echo "$lab08" | sed -n 2p)" = "      ESTIMATE (not a grade): as above" ] &&
    [ "$(echo "$lab08" | wc -l)" = 2 ] && ! echo "$lab08" | grep -qE '[0-9]\.[0-9]+x'; then
    echo "   OK: lab 08's two speed checks: no estimate for this lab, and why (once), with no number"
    passed=$((passed + 1))
else
    fail "expected lab 08's two ESTIMATE lines to say plainly that it gets none, with no number; got:"
    grep -E "ESTIMATE" "$where_out/labs.txt"
fi
grade_where solutions "$where_out/solutions.txt"
if grep -q "WHERE" "$where_out/solutions.txt"; then
    fail "the reference's own code got a WHERE line:"; grep WHERE "$where_out/solutions.txt"
else
    echo "   OK: none for the reference's code"
    passed=$((passed + 1))
fi
grade_where labs "$where_out/off.txt" GRADE_WHERE=0
if grep -q "WHERE\|ESTIMATE" "$where_out/off.txt"; then fail "GRADE_WHERE=0 still printed a WHERE or ESTIMATE line"
else echo "   OK: none with GRADE_WHERE=0"; passed=$((passed + 1)); fi

# ---- The reference's counts, kept ---------------------------------------------------------------
# make explain and make grade's WHERE count keep the reference's counts beside its emulated object
# (reference.counts.N.*, headed by a key that names the harness, the lab's problem object, the
# worker, the reference's object and the problem: grader/harness/profile_trusted.cu) and take them
# from there while the key holds. Shown here by planting a mark in the kept file: it is what the
# next count shows while the key holds; a rebuilt reference (a new modification time), a rebuilt
# problem object (problem.so, the harness the same), or a key that is not the one the harness
# makes, is counted again and kept anew; lines of the kept file that are not count rows never
# reach the counts.
echo "== explain: the reference's counts are kept, and used only while their key holds"
kept_dir=$build/emu/.grader/coalescing
kept_counts=$build/explain/coalescing/counts.tsv
explain_01() { $make -s --no-print-directory explain LAB=01 >"$build/explain-test-kept.txt" 2>&1; }
marked_rows() { sed 1d "$kept" | sed '1s/\t[^\t]*:\([0-9]*\)\t/\tkept-mark.cu:\1\t/'; } # one site renamed
# (make explain's own, sms0: the emulated device's SM count unset; make grade's WHERE counts,
# which other suites' gradings keep beside them meanwhile, have their device's in the name)
rm -f "$kept_dir"/reference.counts.*.sms0.*
explain_01
kept=$(ls "$kept_dir"/reference.counts.*.sms0.* 2>/dev/null | head -1)
if [ -n "$kept" ] && head -1 "$kept" | grep -q '^# reference counts v2 harness=.* problem=.* worker=.* reference=.* check=[0-9]* size=' &&
    [ "$(sed 1d "$kept" | cut -f1 | sort -u | grep -vcE '^(range|request|loads|launch|op) 0$')" = 0 ] &&
    [ "$(awk '$2 == 2' FS='[ \t]' "$kept_counts" | cut -f2- | sort | md5sum)" = "$(sed 1d "$kept" | cut -f2- | sort | md5sum)" ]; then
    echo "   OK: counted once and kept in $(basename "$kept"): a key line, then the rows of the reference's section"
    passed=$((passed + 1))
else
    fail "make explain LAB=01 kept no reference count, or one unlike its section 2 (${kept:-none in $kept_dir})"
fi
if [ -n "$kept" ]; then
    # a marked copy: one row's site renamed, a line that is no count row, a row with no number
    { head -1 "$kept"; marked_rows
      printf 'not a count row\nrequest x\tforged\n'; } >"$kept.new" && mv "$kept.new" "$kept"
    explain_01
    if grep -q 'kept-mark\.cu' "$kept_counts" && ! grep -q 'not a count row\|forged' "$kept_counts"; then
        echo "   OK: the next count took the kept rows (a planted mark shows), and none of its other lines"
        passed=$((passed + 1))
    else
        fail "the kept reference count was not taken, or lines that are no count rows came through: $(grep -c kept-mark "$kept_counts") marks"
    fi
    touch "$kept_dir/reference.so"
    explain_01
    if ! grep -q 'kept-mark' "$kept_counts" "$kept" && [ -s "$kept" ]; then
        echo "   OK: a rebuilt reference (touched) is counted again, and kept anew"
        passed=$((passed + 1))
    else
        fail "after touching reference.so, the old kept count was still used or kept"
    fi
    # the lab's problem object rebuilt (touched), nothing else: the key's harness the same
    { head -1 "$kept"; marked_rows; } >"$kept.new" && mv "$kept.new" "$kept"
    key_field() { head -1 "$kept" | tr ' ' '\n' | grep "^$1="; }
    harness_before=$(key_field harness) problem_before=$(key_field problem)
    touch "$kept_dir/problem.so"
    explain_01
    if ! grep -q 'kept-mark' "$kept_counts" "$kept" && [ -s "$kept" ] &&
        [ "$(key_field harness)" = "$harness_before" ] && [ "$(key_field problem)" != "$problem_before" ]; then
        echo "   OK: a rebuilt problem object (problem.so touched, the harness the same) is counted again, and kept anew"
        passed=$((passed + 1))
    else
        fail "after touching problem.so, the old kept count was still used or kept (or the harness changed too: $harness_before, now $(key_field harness))"
    fi
    { echo "# reference counts v2 harness=0:0:0:0:0 problem=0 worker=0 reference=0 sms=- check=0 size=1"
      marked_rows; } >"$kept.new" && mv "$kept.new" "$kept"
    explain_01
    if ! grep -q 'kept-mark' "$kept_counts" "$kept" && head -1 "$kept" | grep -qv 'harness=0:0'; then
        echo "   OK: a kept count under another key is counted again"
        passed=$((passed + 1))
    else
        fail "a kept count with a key this harness does not make was used"
    fi
fi

# make grade's WHERE count keeps the student's counts at the first size too, beside the student's
# emulated object (student.counts.N.*, headed by a key that names the harness, the problem object,
# the worker, the student's object and the problem, then the problem's description), never the
# second size's (drawn from the run's seed), and only a call verified right. Shown on lab 01's
# skeleton: a fresh count keeps one file per speed problem; the next grading prints the same
# WHERE and ESTIMATE lines and sections; a planted mark shows it took the kept rows; a rebuilt
# student object (touched) is counted again; the estimate cheat whose counted call is wrong
# keeps nothing.
echo "== grade: the student's first-size counts are kept, used only while their key holds"
yours_dir=$build/emu/labs/coalescing
yours_where=$build/explain-test-yours
grade_01() { # STUDENT, output file
    $make -s --no-print-directory grade LAB=01 SEED=0x4815c315b3aef930 STUDENT="$1" GRADE_DIR="$yours_where/grade" >"$2" 2>&1
}
lines_of() { grep -E '^ *(WHERE|ESTIMATE)' "$1" | sed -E 's/\( *[0-9]+\.[0-9]+s\)//'; }
rm -rf "$yours_where" && mkdir -p "$yours_where"
rm -f "$yours_dir"/student.counts.*
grade_01 labs "$yours_where/fresh.txt"
cp "$yours_where/grade/coalescing.where/sections.txt" "$yours_where/fresh.sections"
yours_kept=$(ls "$yours_dir"/student.counts.* 2>/dev/null)
firsts=$(awk -F'\t' '$1 ~ /^section / && $4 == "yours" { print $2 "\t" $5 }' "$yours_where/fresh.sections")
seconds=$(awk -F'\t' '$1 ~ /^second / && $4 == "yours"' "$yours_where/fresh.sections" | wc -l)
kept_ok=1
while IFS=$'\t' read -r check desc; do
    f=$(ls "$yours_dir"/student.counts."${check#check }".sms* 2>/dev/null)
    [ "$(echo "$f" | wc -w)" = 1 ] &&
        head -1 "$f" | grep -q "^# student counts v1 harness=.* problem=.* worker=.* student=.* sms=.* ${check/ /=} size=" &&
        [ "$(sed -n 2p "$f")" = "# described $desc" ] || kept_ok=0
done <<<"$firsts"
if [ -n "$firsts" ] && [ "$seconds" -ge 1 ] && [ $kept_ok = 1 ] &&
    [ "$(echo "$yours_kept" | wc -l)" = "$(echo "$firsts" | wc -l)" ] && [ -n "$(lines_of "$yours_where/fresh.txt")" ]; then
    echo "   OK: one kept file per first-size problem ($(echo "$yours_kept" | wc -l)), none for the $seconds second-size one(s)"
    passed=$((passed + 1))
else
    fail "expected one student.counts file per first-size section of lab 01 (key, described line), none for the second size; got: $(echo $yours_kept)"
fi
grade_01 labs "$yours_where/again.txt"
if [ -n "$yours_kept" ] && [ "$(lines_of "$yours_where/again.txt")" = "$(lines_of "$yours_where/fresh.txt")" ] &&
    cmp -s "$yours_where/grade/coalescing.where/sections.txt" "$yours_where/fresh.sections"; then
    echo "   OK: the next grading's WHERE and ESTIMATE lines and its sections are the fresh count's"
    passed=$((passed + 1))
else
    fail "the grading with kept counts printed other lines or sections than the fresh count:"
    diff <(lines_of "$yours_where/fresh.txt") <(lines_of "$yours_where/again.txt")
fi
one=$(echo "$yours_kept" | head -1)
if [ -n "$one" ]; then
    { head -2 "$one"; sed 1,2d "$one" | sed '1s/\t[^\t]*:\([0-9]*\)\t/\tkept-mark.cu:\1\t/'; } >"$one.new" && mv "$one.new" "$one"
    grade_01 labs "$yours_where/marked.txt"
    if grep -q 'kept-mark\.cu' "$yours_where/grade/coalescing.where/counts.tsv"; then
        echo "   OK: the next grading took the kept rows (a planted mark shows)"
        passed=$((passed + 1))
    else
        fail "the student's kept count was not taken"
    fi
    touch "$yours_dir/student.so"
    grade_01 labs "$yours_where/touched.txt"
    if ! grep -q 'kept-mark' "$yours_where/grade/coalescing.where/counts.tsv" "$one" && [ -s "$one" ] &&
        [ "$(lines_of "$yours_where/touched.txt")" = "$(lines_of "$yours_where/fresh.txt")" ]; then
        echo "   OK: a rebuilt student object (touched) is counted again, and kept anew"
        passed=$((passed + 1))
    else
        fail "after touching student.so, the old kept count was still used or kept"
    fi
fi
wrong=tests/cheats/c87-estimate-only-row-zero-when-counted.cu
wrong_dir=$build/emu/$(echo "$wrong" | tr / _)/coalescing
rm -f "$wrong_dir"/student.counts.*
grade_01 "$wrong" "$yours_where/wrong.txt"
if grep -q "no count and no estimate: your code's answer in the counted call was wrong" "$yours_where/wrong.txt" &&
    [ -f "$wrong_dir/student.so" ] && [ -z "$(ls "$wrong_dir"/student.counts.* 2>/dev/null)" ]; then
    echo "   OK: a counted call that was wrong is not kept ($(basename "$wrong"))"
    passed=$((passed + 1))
else
    fail "$wrong: expected no kept count beside $wrong_dir/student.so and the wrong call's line; got: $(ls "$wrong_dir" 2>&1 | tr '\n' ' ')"
fi

fi

# ---- Student text and paths as data -----------------------------------------------------------
# make explain on tests/explain/hostile.cu: its costliest line carries raw control bytes and markup,
# and #line directives put its other accesses in the transpose reference, /dev/zero, a named pipe
# with no writer (made here), /etc/shadow and a "file" named with control bytes. Reading /dev/zero
# or the pipe would never end: it finishes, quotes no line of any of them, shows every name and
# line as escapes, and its picture (the costliest line's) is well-formed XML.
echo "== explain: a hostile file's names and lines are data"
hostile=$build/explain-test-hostile
rm -rf "$hostile" && mkdir -p "$hostile/tree/01-coalescing"
cp tests/explain/hostile.cu "$hostile/tree/01-coalescing/coalescing.cu"
fifo=build/explain-test-hostile.fifo # the path the file's #line names, from the checkout's top
rm -f "$fifo" && mkfifo "$fifo"
timeout 600 $make -s --no-print-directory explain LAB=01 STUDENT="$hostile/tree" >"$hostile/out.txt" 2>&1
status=$?
rm -f "$fifo"
own=$(grep -anF 'owned' tests/explain/hostile.cu | grep -av '#line' | head -1 | cut -d: -f1)
why=$(python3 - "$hostile/out.txt" "$build/explain/coalescing/access.svg" "$status" "$own" 2>&1 <<'EOF'
import re, sys, xml.dom.minidom
out, svg, status, own = sys.argv[1:]
raw = open(out, "rb").read()
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError as x:
    sys.exit(f"the output is not UTF-8 at byte {x.start}")
if status != "0":
    sys.exit(f"make explain exited {status} (124: still reading a file a count named after 600 s)")
bad = sorted({hex(ord(c)) for c in text if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) <= 0x9f
              or c in "\u061c\u200e\u200f" or 0x2028 <= ord(c) <= 0x202e or 0x2066 <= ord(c) <= 0x2069})
if bad:
    sys.exit(f"the output holds control characters {bad}")
table = text[text.index("make explain, lab"):]
yours = table[:table.index("the reference:")]
rows = {}
for line in yours.splitlines():
    m = re.match(r"  (\S.*?:\d+) +global (load|store), 4 B +\d+ +[\d.]+ +[\d.]+ +[\d.]+  ?(.*)$", line)
    if m:
        rows.setdefault(m.group(1), set()).add(m.group(3))
want_unquoted = ["transpose.cu:40", "zero:1", "explain-test-hostile.fifo:1", "shadow:1",
                 "\\x1b]0;owned\\x07\\x1b[2J\\x7f<text>&<x a='\"'>]]>.cu:7"]
for loc in want_unquoted:
    if loc not in rows:
        sys.exit(f"no row for {loc!r} in the table; rows: {sorted(rows)}")
    if rows[loc] != {""}:
        sys.exit(f"the row of {loc!r}, a file a count names, quotes {rows[loc]}")
mine = rows.get(f"coalescing.cu:{own}", set())
if not any(q.startswith("/* \\x1b]0;owned\\x07\\x1b[2J\\x08\\x7f\\u009b\\u202e\\xff</text>") for q in mine):
    sys.exit(f"expected the file's own line {own} quoted as escapes; got {mine}")
if re.search(r"TILE|root:", text):
    sys.exit("the output quotes the transpose reference or /etc/shadow")
try:
    doc = xml.dom.minidom.parse(svg)
except Exception as x:
    sys.exit(f"{svg} is not well-formed XML: {x}")
shown = " ".join(t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild)
if "/* \\x1b]0;owned" not in shown or "</text>" not in shown:
    sys.exit(f"expected the picture to show the line as escapes and its markup as text; it shows {shown[:200]!r}")
EOF
)
if [ $? -eq 0 ]; then
    echo "   OK: finished, 5 rows of other files unquoted, the line and names as escapes, the SVG well-formed"
    passed=$((passed + 1))
else
    fail "$why (output: $hostile/out.txt)"
fi

# Count rows straight to explain.awk: a row is kept only when its numbers are numbers, quoted only
# from the compiled file of its side (yours, the reference's), never from a path it names.
echo "== explain: count rows are numbers and line numbers, quoted from the compiled files only"
forged=$build/explain-test-forged
rm -rf "$forged" && mkdir -p "$forged"
printf 'your line one\nyour line two\n' >"$forged/yours.src"
printf 'the reference line one\n' >"$forged/reference.src"
printf 'section 1\tcheck 0\tcoalescing\tyours\t1 x 1\nsection 2\tcheck 0\tcoalescing\treference\t1 x 1\n' >"$forged/sections.txt"
{
    printf 'range 1\tlabs/coalescing.cu:2\tglobal\tload\t4\t10\t320\t320\t40\n'     # yours, line 2: quoted
    printf 'range 1\tcoalescing.cu:1\tglobal\tload\tfour\t10\t320\t320\t40\n'       # not a number: left out
    printf 'range 1\tcoalescing.cu:1\tglobal\tstore\t4\t10\t320\t320\t40\t7\n'      # a column too many: left out
    printf 'range 1\t/dev/zero:1\tglobal\tstore\t4\t10\t320\t320\t40\n'             # kept, never opened
    printf 'range 2\t/etc/shadow:1\tglobal\tload\t4\t10\t320\t320\t40\n'            # the reference's side: unquoted
    printf 'range 2\tsolutions/01-coalescing/coalescing.cu:1\tglobal\tstore\t4\t10\t320\t320\t40\n' # its own: quoted
    printf 'request 1\tcoalescing.cu:2\tglobal\tload\t4\t32\t0+4 -\n'               # 2 lanes of 32: left out
} >"$forged/counts.tsv"
if out=$(cd "$forged" && timeout 20 env LC_ALL=C awk -F'\t' -v table="$OLDPWD/grader/labs/01-coalescing/explain.tsv" \
        -v label="forged" -v lab=01-coalescing -v source=yours.src -v source_name=coalescing.cu \
        -v ref_source=reference.src -v ref_name=coalescing.cu -f "$OLDPWD/grader/feedback/counts.awk" \
        -f "$OLDPWD/grader/feedback/timeline.awk" -f "$OLDPWD/grader/feedback/explain.awk" sections.txt counts.tsv 2>&1) &&
    grep -q '^  coalescing.cu:2 .* your line two$' <<<"$out" &&
    grep -q '^  zero:1 .* 32.0  $' <<<"$out" && grep -q '^  shadow:1 .* 32.0  $' <<<"$out" &&
    grep -q '^  ref: coalescing.cu:1 .*global store.* the reference line one$' <<<"$out" &&
    [ "$(grep -c '^  \(ref: \)\?coalescing.cu:1 ' <<<"$out")" = 1 ]; then
    echo "   OK: forged rows left out, /dev/zero's and /etc/shadow's rows unquoted, each side quoted from its own file"
    passed=$((passed + 1))
else
    fail "expected the well-formed rows alone, each quoted only from its side's compiled file; got:"
    echo "$out" | sed -n '/^forged:/,/^side by side/p'
fi

# counts.awk's visible() renders as common/text.c's text_visible() does: one rule, written twice
# only because awk cannot call C; held to each other byte for byte here.
echo "== explain: counts.awk's escapes are common/text.c's"
vis=$build/explain-test-visible
mkdir -p "$vis"
cat >"$vis/visible.c" <<'EOF'
#include "text.h"
#include <stdio.h>
#include <string.h>
int main(void)
{
    static char line[65536], shown[4 * 65536 + 1];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = 0;
        text_visible(shown, sizeof shown, line, 0);
        puts(shown);
    }
    return 0;
}
EOF
printf 'plain ascii \\ backslash\n\033[2J\033]0;title\007\r\t\010\177 end\n\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 fine\n\xc2\x85 \xc2\x9b \xe2\x80\xa8 \xe2\x80\xae \xe2\x81\xa6 \xd8\x9c \xe2\x80\x8f controls\n\xff \xc3 \xe0\x80\x80 \xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf \xf8 invalid\n' >"$vis/in.txt"
if cc -std=c11 -D_GNU_SOURCE -Icommon -o "$vis/visible" "$vis/visible.c" common/text.c common/util.c 2>"$vis/cc.log" &&
    "$vis/visible" <"$vis/in.txt" >"$vis/c.txt" &&
    LC_ALL=C awk -v show_lines=1 -f grader/feedback/counts.awk "$vis/in.txt" >"$vis/awk.txt" &&
    cmp -s "$vis/c.txt" "$vis/awk.txt"; then
    echo "   OK: $(wc -l <"$vis/in.txt") lines of controls, valid and invalid UTF-8 rendered alike"
    passed=$((passed + 1))
else
    fail "expected counts.awk's visible() to render $vis/in.txt as common/text.c does:"
    cat "$vis/cc.log"; diff "$vis/c.txt" "$vis/awk.txt" | head -10
fi

# Student code runs only in the sandbox for make explain: a machine that cannot isolate it
# (GRADER_SANDBOX=none stands for one) gets no count, and the reason.
echo "== explain: no sandbox, no count"
if GRADER_SANDBOX=none $make -s --no-print-directory explain LAB=01 STUDENT=labs >"$build/explain-test-nosandbox.txt" 2>&1; then
    fail "make explain counted with no sandbox to run the code in"
elif grep -q "counts student code only in the grader's sandbox, and this machine cannot give it one" "$build/explain-test-nosandbox.txt"; then
    echo "   OK: refused, with the reason"
    passed=$((passed + 1))
else
    fail "expected make explain to refuse with the reason; got:"; cat "$build/explain-test-nosandbox.txt"
fi

# make bench, profile and sanitize run the code in one process with the tool, outside the sandbox:
# only your own labs/ (and the workbook's); another tree is refused with what to run instead.
for verb in bench profile sanitize; do
    echo "== explain: make $verb refuses another tree"
    out=$($make -s --no-print-directory $verb LAB=01 STUDENT="$hostile/tree" EMU=1 2>&1)
    status=$?
    own=$($make -s --no-print-directory $verb LAB=01 STUDENT=labs EMU=1 2>&1) # (EMU=1: stops at "no GPU")
    if [ $status = 2 ] && grep -q "runs the code outside the grader's sandbox" <<<"$out" &&
        grep -q "make grade STUDENT=\|make explain STUDENT=" <<<"$out" &&
        ! grep -q "outside the grader's sandbox" <<<"$own"; then
        echo "   OK: refused, saying what to run instead; your labs/ is not"
        passed=$((passed + 1))
    else
        fail "expected make $verb STUDENT=<another tree> refused (status 2) and labs/ not; got status $status: $out / labs: $own"
    fi
done

echo "== explain: the reference's rows named as its own; PREDICT=1 asks first, waits only on a terminal"
# (its file has the skeleton's name: a row of the reference's section that names it says "ref:")
pout=$build/explain-test-predict.txt
timeout 300 $make -s --no-print-directory explain LAB=01 PREDICT=1 </dev/null >"$pout" 2>&1
status=$?
asked=$(grep -n '^  1\. At your kernel' "$pout" | head -1 | cut -d: -f1)
counted=$(grep -n '^make explain, lab 01-coalescing' "$pout" | head -1 | cut -d: -f1)
refrows=$(awk '/^the reference:/ { r = 1; next } /^(side by side|your code|== )/ { r = 0 } r && /^  [^ ]*coalescing\.cu:[0-9]/' "$pout")
if [ $status = 0 ] && [ -n "$asked" ] && [ -n "$counted" ] && [ "$asked" -lt "$counted" ] &&
    grep -q '^(not a terminal: nothing waits' "$pout" && grep -qE '^  ref: coalescing\.cu:[0-9]+ ' "$pout" &&
    [ -z "$refrows" ] && ! grep -qE '^  ref: ' <(sed -n '/^your code/,/^the reference:/p' "$pout"); then
    echo "   OK: the question before the counts, nothing waited for without a terminal, the reference's rows say ref:"
    passed=$((passed + 1))
else
    fail "expected make explain LAB=01 PREDICT=1 </dev/null to exit 0, ask before counting, not wait, and name the reference's rows ref: (status $status; question at line ${asked:-none}, counts at ${counted:-none}; unnamed reference rows: ${refrows:-none}; see $pout)"
fi
if command -v script >/dev/null; then # on a terminal: waits for the answer, then shows it above the counts
    printf '4 then 32\n' | timeout 300 script -qec "$make -s --no-print-directory explain LAB=01 PREDICT=1" /dev/null >"$pout.tty" 2>&1
    if grep -q '^Your prediction: 4 then 32' "$pout.tty" && grep -q '^make explain, lab 01-coalescing' "$pout.tty"; then
        echo "   OK: on a terminal the counts wait for the answer, which is shown above them"
        passed=$((passed + 1))
    else
        fail "expected make explain PREDICT=1 on a terminal to show 'Your prediction: 4 then 32' and the counts (see $pout.tty)"
    fi
fi

echo "== explain: every lab's table says what make explain does not show, and what to predict"
for d in grader/labs/[0-9][0-9]-*/; do
    t=$d/explain.tsv
    if [ ! -f "$t" ]; then fail "$t is missing (make explain LAB=$(basename "$d") needs it)"; continue; fi
    if ! grep -q $'^not counted\t' "$t"; then fail "$t has no 'not counted' row"; continue; fi
    if grep -v '^#' "$t" | grep -v $'^not counted\t' | cut -f1 | grep -qvxE 'global load|global store|shared load|shared store|branch|waves|picture|loads in flight|timeline|predict'; then
        fail "$t names a counter make explain does not print (global/shared load/store, branch, waves, picture, loads in flight, timeline; or predict)"; continue
    fi
    if ! grep -q $'^predict\t.' "$t"; then fail "$t has no 'predict' row (make explain PREDICT=1 asks it)"; continue; fi
    passed=$((passed + 1))
done
echo "test-explain: $passed passed, $failed failed$([ "$left" = 0 ] || echo " (the quick tier: $left parts left to make test-all)")"
[ "$failed" -eq 0 ]
