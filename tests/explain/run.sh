#!/bin/bash
# tests/explain/run.sh - make test-explain: make explain on the skeletons of labs 01, 02 and 06
# shows the lesson's mechanism at the line the lesson names: more sectors per request (01, 06)
# or more wavefronts per shared request (02) there than the reference needs for the same kind
# of access, counted against the ideal. With the reference as your code (labs 03, 07) both
# calls are counted. Every lab's explain.tsv says what it does not show.
#
#   MAKE=make BUILD=build tests/explain/run.sh
set -u
make=${MAKE:-make}
build=${BUILD:-build}
failed=0 passed=0
fail() { echo "   FAIL: $*"; failed=$((failed + 1)); }

# lab <tab> file in labs/<lab>/ <tab> text of the lesson's line <tab> counter
cases=$'01-coalescing\tcoalescing.cu\tout[i] = in[i] * scale[r] + bias[r];\tglobal load
02-banks\tbanks.cu\tm = fmaxf(m, w[k]);\tshared load
06-transpose\ttranspose.cu\tout[(size_t)c * rows + r] = in[(size_t)r * cols + c];\tglobal store'

while IFS=$'\t' read -r lab file text counter; do
    echo "== explain: lab $lab, $counter at: $text"
    line=$(grep -nF -- "$text" "labs/$lab/$file" | head -1 | cut -d: -f1)
    if [ -z "$line" ]; then
        fail "labs/$lab/$file no longer has the line the lesson names ($text): update tests/explain/run.sh"
        continue
    fi
    start=$(date +%s.%N)
    if ! $make -s --no-print-directory explain LAB="${lab%%-*}" STUDENT=labs >"$build/explain-test-$lab.txt" 2>&1; then
        fail "make explain LAB=${lab%%-*} failed; its output:"
        tail -5 "$build/explain-test-$lab.txt"
        continue
    fi
    secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    # Yours: the worst request at the lesson's line; the reference: its whole call. Each as
    # per request over the ideal, so a float4 reference (16 sectors, ideal 16) compares fairly.
    verdict=$(awk -v loc="$file:$line" -v counter="$counter" '
        /^your code/ { part = "yours"; next }
        /^the reference/ { part = "ref"; next }
        part == "yours" && $1 == loc && index($0, counter ",") {
            # columns: line, access ("global load, 4 B"), requests, per request, ideal, text
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

echo "== explain: every lab's table says what make explain does not show"
for d in grader/labs/[0-9][0-9]-*/; do
    t=$d/explain.tsv
    if [ ! -f "$t" ]; then fail "$t is missing (make explain LAB=$(basename "$d") needs it)"; continue; fi
    if ! grep -q $'^not counted\t' "$t"; then fail "$t has no 'not counted' row"; continue; fi
    if grep -v '^#' "$t" | grep -v $'^not counted\t' | cut -f1 | grep -qvxE 'global load|global store|shared load|shared store'; then
        fail "$t names a counter the emulator does not count (only global/shared load/store)"; continue
    fi
    passed=$((passed + 1))
done
echo "test-explain: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
