#!/usr/bin/env bash
# new-lab.sh - `make new-lab NAME=x`: a new lab's three folders, scaffolded from lab 01.
#
#   grader/build/new-lab.sh NAME
#
# Writes, for the next free number NN:
#   grader/labs/NN-NAME/   its table (table.c), contract (NAME.h), problem (problem.cu), shim
#                          (shim_untrusted.cu) and counter tables (explain.tsv, profile.tsv)
#   labs/NN-NAME/          the skeleton the student edits (NAME.cu) and a lesson stub (README.md)
#   solutions/NN-NAME/     the reference (NAME.cu)
# each a copy of lab 01's (coalescing: out[r][c] = in[r][c] * scale[r] + bias[r]) with the lab's
# name, number and entry point renamed, so that it compiles, builds and grades from the first
# minute (its reference passes every correctness check) while you make it your own. The build
# finds it by its folder: make, make grade LAB=NAME, the registry, LAB=, the unit tests. What
# lists every lab for people (README.md's table, the notebook, the skeletons' hashes, a slide
# deck to write) is derived from the folders by make docs-gen, which make new-lab runs next.
set -eu
cd "$(dirname "$0")/../.."
name=${1:-}
case $name in
'' | *[!a-z0-9_]* | [0-9_]*)
    echo "make new-lab NAME=x: a lab's name is lower-case letters, digits and _, starting with a letter (got '$name')" >&2
    exit 2 ;;
esac
for d in grader/labs/[0-9][0-9]-*; do
    [ "${d#*-}" != "$name" ] || { echo "make new-lab: there is a lab called $name already ($d)" >&2; exit 2; }
done
last=$(ls -d grader/labs/[0-9][0-9]-* | sed 's|.*/\([0-9][0-9]\)-.*|\1|' | sort -n | tail -1)
num=$(printf '%02d' $((10#$last + 1)))
folder=$num-$name
upper=$(echo "$name" | tr a-z A-Z)
model=01-coalescing
rename() { # FROM TO: lab 01's file, with its name, number and entry point made the new lab's
    mkdir -p "$(dirname "$2")"
    sed -e "s/$model/$folder/g" -e "s/COALESCING/$upper/g" -e "s/coalescing/$name/g" \
        -e "s/\([Ll]ab\) 01\b/\1 $num/g" -e "s/\.number = \"01\"/.number = \"$num\"/" \
        -e "s/\.title = \"Global-memory $name\"/.title = \"$name (scaffolded from lab 01: say what it teaches)\"/" \
        "$1" >"$2"
}
for f in table.c coalescing.h problem.cu shim_untrusted.cu explain.tsv profile.tsv; do
    [ -f "grader/labs/$model/$f" ] || continue
    rename "grader/labs/$model/$f" "grader/labs/$folder/${f/coalescing/$name}"
done
rename "labs/$model/coalescing.cu" "labs/$folder/$name.cu"
if [ -f "solutions/$model/coalescing.cu" ]; then
    rename "solutions/$model/coalescing.cu" "solutions/$folder/$name.cu"
fi
cat >"labs/$folder/README.md" <<EOF
# Lab $num: $name

TODO(author): the lesson. What the lab teaches, the idea in one paragraph, the skeleton's
limiter and how to measure it, the ladder from skeleton to reference, and what \`make grade
LAB=$name\` requires (the pass mark is the table's threshold, \`grader/labs/$folder/table.c\`).

This lab was scaffolded from lab 01 (\`make new-lab NAME=$name\`): its file
\`labs/$folder/$name.cu\` computes lab 01's \`out[r][c] = in[r][c] * scale[r] + bias[r]\` until
you give it its own problem (\`grader/labs/$folder/problem.cu\`), contract
(\`grader/labs/$folder/$name.h\`) and table.
EOF
echo "New lab $folder: grader/labs/$folder/, labs/$folder/, solutions/$folder/ (copies of lab 01, renamed)."
echo "It builds and grades now: make grade LAB=$name STUDENT=solutions."
