#!/usr/bin/env bash
# readme.sh - README.md keeps its promises to a first reader: what it tells them to run exists,
# and where it sends them is there.
#
#   tests/docs/readme.sh      (MAKE from the environment); run from the repository root
#
# - every `make VERB` that README.md or tests/RESULTS.md names as a command (code, inline or in
#   a block, that starts with make) is a verb `make help` lists;
# - every script they name (a path ending in .sh, or grader/driver/grade.sh ...) is there and
#   executable;
# - every relative link of README.md names a file or folder of the checkout;
# - README.md links the results page (tests/RESULTS.md) exactly once, and stays a first read:
#   at most 170 lines;
# - the install table of README.md names every group tests/packages.sh may install;
# - it names both tiers, make test and make test-all, each with its measured time on two cores,
#   each a row of tests/RESULTS.md, and .ci/run runs make test-all.
set -u
cd "$(dirname "$0")/../.."
fails=0 checked=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
help=$(${MAKE:-make} --no-print-directory help)

# The code of a Markdown file: its fenced blocks and its inline `...` spans, one a line.
code_of() {
    awk '/^```/ { fence = !fence; next } fence { print; next }
         { s = $0; while (match(s, /`[^`]+`/)) { print substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH) } }' "$1"
}

for f in README.md tests/RESULTS.md; do
    while read -r verb; do
        checked=$((checked + 1))
        grep -qE "(^|[ ,(])$verb([ ,):]|$)" <<<"$help" ||
            fail "$f names \`make $verb\`, which make help does not list: expected a verb of make help (make help lists them); rename it in $f, or add the verb"
    done < <(code_of "$f" | grep -oE '(^|[;&|(] *)make [a-z][a-z0-9-]*' | sed -E 's/.*make //' | sort -u)
    while read -r script; do
        checked=$((checked + 1))
        [ -x "$script" ] || fail "$f names $script, which is not an executable file here: expected the script the text tells readers to run; fix the path in $f"
    done < <(code_of "$f" | grep -oE '(^|[^A-Za-z0-9_./-])(tests|grader|common)/[A-Za-z0-9_./-]*\.sh' | sed -E 's/^[^a-z]//' | sort -u)
done

while IFS=: read -r line target; do
    checked=$((checked + 1))
    path=${target%%#*}
    [ -e "$path" ] || fail "README.md:$line links to $target, which does not exist: expected a file or folder of the checkout; fix the link"
done < <(grep -noE '\]\([^)]+\)' README.md | sed -E 's/^([0-9]+):\]\((.*)\)$/\1:\2/' | grep -vE ':[a-z]+:' )

n=$(grep -c '](tests/RESULTS.md)' README.md)
checked=$((checked + 1))
[ "$n" = 1 ] || fail "README.md links tests/RESULTS.md $n times: expected once (the measured figures live there, named once from the README)"
lines=$(wc -l <README.md)
checked=$((checked + 1))
[ "$lines" -le 170 ] || fail "README.md is $lines lines: expected at most 170 (a first read); move detail to the page it belongs to (tests/RESULTS.md, grader/README.md ...)"

# The two tiers: README.md's commands name make test (the quick tier) and its text make test-all
# (every case, what CI runs), each with its measured time on two cores; tests/RESULTS.md has a
# row for each, with the command that measures it; .ci/run runs make test-all.
text=$(tr '\n' ' ' <README.md)
for goal in test test-all; do
    checked=$((checked + 1))
    grep -qE "\*\*\`make $goal\`\*\*[^*]*[0-9]+ min [0-9]+ s[^*]*two cores|\*\*\`make $goal\`\*\*[^*]*two cores[^*]*[0-9]+ min [0-9]+ s" <<<"$text" ||
        fail "README.md should say what **\`make $goal\`** runs with its measured time on two cores (N min N s), as tests/RESULTS.md records it"
    checked=$((checked + 1))
    grep -qE "^\| \`make $goal\`.*tests/time-make-test\.sh|^\| \`make $goal\`.*tests/make-test-cpu\.sh" tests/RESULTS.md ||
        fail "tests/RESULTS.md has no row for \`make $goal\` with the script that measures it (tests/time-make-test.sh)"
done
checked=$((checked + 1))
grep -qE '^time make .*test-all$' .ci/run || fail ".ci/run should run make test-all (the full tier) as CI's tests"

# What tests/packages.sh may install, each named in README.md's table.
for pkg in libcunit1-dev chromium slurm-wlm munge nbclient ipykernel; do
    checked=$((checked + 1))
    grep -q "^|.*$pkg" README.md || fail "README.md's install table does not name $pkg, which tests/packages.sh says make test may install: expected a row for it under \"What make test installs\""
    grep -q "$pkg" tests/packages.sh || fail "tests/packages.sh no longer names $pkg: expected it to (README.md's install table does); keep the two alike"
done

echo "readme: $checked checks of README.md's commands, scripts and links, $fails failed"
[ "$fails" -eq 0 ]
