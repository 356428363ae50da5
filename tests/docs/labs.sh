#!/usr/bin/env bash
# labs.sh - every lab folder is named everywhere the workbook lists its labs.
#
#   tests/docs/labs.sh        (run from anywhere; make test-docs runs it)
#
# A lab is its three folders: grader/labs/NN-name/ (its table, contract, problem, shim and
# counter tables), labs/NN-name/ (the lesson and the student's file) and solutions/NN-name/ (the
# reference). What the code needs of a lab derives from them (the build, the registry, LAB=,
# make grade, the unit tests' lab lists, tests/gpu/run-all.sh), and so does what lists the labs
# for people (README.md's table, the notebook's lab cells, labs/skeletons.sha256, a slide deck
# to write): make docs-gen writes those (grader/make/docs_gen.py), and this checks that each
# committed file is what it writes, so that none can drift from the lab folders. For each lab
# folder it names a file of the three folders that is missing, and, as notes rather than
# failures (the lab works without them):
#   tests/explain/run.sh  a case: the line its lesson names, where make explain must count it
#   grader/plan/grade_model.c  an H200 calibration row (without one the grading-time model
#                      uses its default)
# Exits 1 if anything is missing or drifted, naming each.
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
    grep -qF "$folder" tests/explain/run.sh ||
        echo "note lab $folder: tests/explain/run.sh checks no line of it (make explain runs on it all the same; a case there holds the line its lesson names to its counter)"
    grep -qE "\{\"$name\", +[0-9]" grader/plan/grade_model.c ||
        echo "note lab $folder: no H200 calibration row in grader/plan/grade_model.c; make profiles predicts its time from the model's default"
done
# What lists the labs for people, as make docs-gen writes it from the folders (a row of a lab
# whose folder is gone is a difference too).
python3 grader/make/docs_gen.py --check || missing=$((missing + 1))
if [ "$missing" -gt 0 ]; then
    echo "labs: $missing place(s) lack a lab or drifted from the lab folders (above)"
    exit 1
fi
echo "labs: all $n labs have their three folders, and every place that lists them is derived from them"
