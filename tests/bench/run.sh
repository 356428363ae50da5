#!/bin/sh
# tests/bench/run.sh - the bench chart and table writers on a hand-written sample (sample.tsv:
# two tasks, two rungs, a ceiling name with XML's special characters). Checks: one SVG with a
# bar per row and the name escaped; the README table replaced between its markers, text
# outside them untouched, and a second run changing nothing.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/labs/01-demo"
readme=$tmp/labs/01-demo/README.md
printf '# Demo\n\nbefore\n\n<!-- bench:begin -->\nstale table\n<!-- bench:end -->\n\nafter\n' > "$readme"
fail=0
check() { if eval "$2"; then echo "ok   $1"; else echo "FAIL $1"; fail=1; fi; }

BENCH_ROOT=$tmp "$root/grader/tools/bench-chart" "$here/sample.tsv" >/dev/null
svg=$tmp/labs/01-demo/bench-h200.svg
check "bench-chart writes labs/01-demo/bench-h200.svg" '[ -s "$svg" ]'
check "one bar per row (8) plus the background" '[ "$(grep -c "<rect" "$svg")" -eq 9 ]'
check "names are XML-escaped" 'grep -q "copy &lt;&amp;&gt; engine" "$svg" && ! grep -q "<&>" "$svg"'
check "the SVG is closed" '[ "$(tail -1 "$svg")" = "</svg>" ]'
BENCH_ROOT=$tmp "$root/grader/tools/bench-chart" -o "$tmp/out" "$here/sample.tsv" >/dev/null
check "bench-chart -o DIR writes DIR/demo.svg" '[ -s "$tmp/out/demo.svg" ]'

BENCH_ROOT=$tmp "$root/grader/tools/bench-tables" "$here/sample.tsv" >/dev/null
check "the stale table is gone" '! grep -q "stale table" "$readme"'
check "text outside the markers is kept" 'grep -q "^before$" "$readme" && grep -q "^after$" "$readme"'
check "two tables, 8 variant rows" '[ "$(grep -c "^| variant |" "$readme")" -eq 2 ] && [ "$(grep -cE "^\| (skeleton|rung|\*\*reference|ceiling)" "$readme")" -eq 8 ]'
check "rungs link their files" 'grep -q "(../../solutions/01-demo/steps/2-second-idea.cu)" "$readme"'
cp "$readme" "$tmp/first"
BENCH_ROOT=$tmp "$root/grader/tools/bench-tables" "$here/sample.tsv" >/dev/null
check "a second run changes nothing" 'cmp -s "$readme" "$tmp/first"'
[ "$fail" -eq 0 ] && echo "bench tools: all checks passed"
exit "$fail"
