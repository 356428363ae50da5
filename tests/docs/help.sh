#!/usr/bin/env bash
# help.sh - `make help` names every verb: each target the makefiles declare .PHONY, except the
# steps other verbs run for themselves (listed below, with what runs them).
#
#   tests/docs/help.sh      (MAKE from the environment); run from the repository root
set -u
cd "$(dirname "$0")/../.."
# steps, not verbs: all (plain `make`), runners and runner-% (make, test-build), student-src-NAME
# (grade and bench, grader/make/grade.mk), profile-lab-%,
# explain-lab-% and sanitize-lab-% (profile, explain, sanitize), toolkit (every
# CUDA build), cunit (test-unit), emu-runners, emu-grade-solutions, emu-grade-labs and
# emu-file-gone, emu-helpers, emu-student-cache, emu-regions, emu-onehar (test-emu), test-batch-unit (test-batch), batch-prebuild and batch-prepare (grade-batch), emu-planted-gpu
# (tests/emu/planted/README.md: a GPU run by hand), manifest-gone (any make, while the lab
# manifest program is gone: grader/make/host.mk), student-rebuild (a student's object whose
# helper files changed: grader/make/lab_rules.mk)
steps=" all runners runner-% \$(STUDENT_SRC_CHECKS) profile-lab-% explain-lab-% sanitize-lab-% toolkit cunit emu-runners
        emu-grade-solutions emu-grade-labs emu-file-gone emu-helpers emu-student-cache emu-regions emu-onehar test-batch-unit batch-prebuild batch-prepare emu-planted-gpu manifest-gone
        student-rebuild "
steps=" $(echo $steps) "
help=$(${MAKE:-make} --no-print-directory help)
verbs=$(cat Makefile tests/*.mk tests/*/*.mk grader/*/*.mk slides/*.mk 2>/dev/null |
        sed -n 's/^\.PHONY://p' | tr ' ' '\n' | sed '/^$/d' | sort -u)
missing="" n=0
for v in $verbs; do
    case $steps in *" $v "*) continue ;; esac
    n=$((n + 1))
    grep -qE "(^|[ ,(])$v([ ,):]|$)" <<<"$help" || missing="$missing $v"
done
if [ -n "$missing" ]; then
    echo "FAIL make help does not name:$missing (add them to the Makefile's opening comment)"
    exit 1
fi
echo "help: make help names all $n verbs"
