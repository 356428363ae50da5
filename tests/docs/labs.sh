#!/usr/bin/env bash
# labs.sh - every lab folder is named everywhere the workbook lists its labs.
#
#   tests/docs/labs.sh        (run from anywhere; make test-docs runs it)
#
# A lab is its three folders: grader/labs/NN-name/ (its table, contract, problem, shim and
# counter tables), labs/NN-name/ (the lesson and the student's file) and solutions/NN-name/ (the
# reference). What the code needs of a lab derives from them (the build, the registry, LAB=,
# make grade, the unit tests' lab lists, tests/gpu/run-all.sh). What is written for people
# lists the labs by hand; for each lab folder this names every such place that lacks it, and
# what to add there:
#   README.md          its row in the table of labs
#   labs/workbook.ipynb its section (the lesson, the file you edit, a make grade cell)
#   labs/skeletons.sha256  its untouched skeleton's hash (make bench calls it "skeleton")
#   slides/NN-name.md  its deck
# and, as notes rather than failures (the lab works without them):
#   tests/explain/run.sh  a case: the line its lesson names, where make explain must count it
#   grader/plan/grade_model.c  an H200 calibration row (without one the grading-time model
#                      uses its default)
# and the other way: a lab named in README.md's table that has no folder. Exits 1 if anything
# is missing, naming each.
set -u
cd "$(dirname "$0")/../.."
missing=0 n=0
miss() { echo "FAIL lab $1: $2"; missing=$((missing + 1)); }
kit=$([ -f prebuilt/BUILDINFO ] && echo 1)
for dir in grader/labs/[0-9][0-9]-*/; do
    folder=$(basename "$dir") num=${folder%%-*} name=${folder#*-}
    n=$((n + 1))
    for f in table.c "$name.h" problem.cu shim_untrusted.cu explain.tsv; do
        [ -f "$dir$f" ] || miss "$folder" "grader/labs/$folder/$f is missing (make new-lab NAME=x scaffolds one)"
    done
    [ -f "labs/$folder/$name.cu" ] || miss "$folder" "labs/$folder/$name.cu (the student's file) is missing"
    [ -f "labs/$folder/README.md" ] || miss "$folder" "labs/$folder/README.md (the lesson) is missing"
    [ -n "$kit" ] || [ -f "solutions/$folder/$name.cu" ] || miss "$folder" "solutions/$folder/$name.cu (the reference) is missing"
    grep -qF "| $num | [$name](labs/$folder/README.md) |" README.md ||
        miss "$folder" "README.md's table of labs has no row '| $num | [$name](labs/$folder/README.md) | <the idea> | \`labs/$folder/$name.cu\` |'"
    grep -qF "labs/$folder/$name.cu" labs/workbook.ipynb ||
        miss "$folder" "labs/workbook.ipynb has no section for it (the lesson labs/$folder/README.md, the file labs/$folder/$name.cu, a make grade LAB=$num cell)"
    grep -qE " $folder/$name\.cu\$" labs/skeletons.sha256 ||
        miss "$folder" "labs/skeletons.sha256 has no hash of its skeleton: (cd labs && sha256sum [0-9][0-9]-*/*.cu > skeletons.sha256)"
    [ -f "slides/$folder.md" ] || miss "$folder" "slides/$folder.md (its deck) is missing"
    grep -qF "$folder" tests/explain/run.sh ||
        echo "note lab $folder: tests/explain/run.sh checks no line of it (make explain runs on it all the same; a case there holds the line its lesson names to its counter)"
    grep -qE "\{\"$name\", +[0-9]" grader/plan/grade_model.c ||
        echo "note lab $folder: no H200 calibration row in grader/plan/grade_model.c; make profiles predicts its time from the model's default"
done
# The other way: a row of README.md's table of labs whose folder is not there.
while read -r folder; do
    [ -d "grader/labs/$folder" ] || miss "$folder" "README.md's table of labs names it, and grader/labs/$folder/ is not there"
done < <(sed -n 's/^| [0-9][0-9] | \[[a-z0-9_]*\](labs\/\([0-9][0-9]-[a-z0-9_]*\)\/README.md) |.*/\1/p' README.md)
if [ "$missing" -gt 0 ]; then
    echo "labs: $missing place(s) lack a lab (above)"
    exit 1
fi
echo "labs: all $n labs are named in every place that lists them"
