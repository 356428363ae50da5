#!/usr/bin/env bash
# run.sh - execute labs/workbook.ipynb headless, as a student with no GPU would, and check
# what it printed (tests/notebook/check_notebook.py says what is checked).
#
#   tests/notebook/run.sh                      every lab (NOTEBOOK_LABS=01,06 for fewer)
#
# Needs python3 with venv; installs nbclient, nbformat and ipykernel (pinned below) from PyPI
# into a venv the first time on a machine (tests/notebook/venv.sh says where: the user's cache,
# shared by every checkout). Grades under the CPU emulator (EMU=1), from the checkout itself:
# no network once the venv is there. Exit 0 when every check passed.
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build}
LABS=${NOTEBOOK_LABS:-all}
. tests/notebook/venv.sh
venv=$(notebook_venv)
pins=(nbclient==0.10.2 nbformat==5.10.4 ipykernel==6.29.5)

# The venv is (re)made when a pin is missing from it, so a change of pin takes effect.
pinned() { "$venv/bin/python" -m pip freeze 2>/dev/null | grep -cxF -f <(printf '%s\n' "${pins[@]}"); }
have=$(pinned)
if [ "${have:-0}" -ne ${#pins[@]} ] && [ "${TEST_INSTALL:-yes}" = no ]; then
    echo "SKIP notebook: expected ${pins[*]} in $venv; they are not there, and TEST_INSTALL=no installs nothing (make test-notebook installs them)"
    exit 0
fi
if [ "${have:-0}" -ne ${#pins[@]} ]; then
    # made under a lock: two checkouts' make test at once share the one venv
    mkdir -p "$(dirname "$venv")"
    exec 9>"$venv.lock"
    flock 9
    have=$(pinned) # (again: another checkout may have made it while this one waited)
    if [ "${have:-0}" -ne ${#pins[@]} ]; then
        echo "notebook: installing ${pins[*]} into $venv (once on this machine)"
        rm -rf "$venv"
        if ! python3 -m venv "$venv" ||
           ! "$venv/bin/python" -m pip install -q --disable-pip-version-check "${pins[@]}"; then
            rm -rf "$venv"
            echo "FAIL notebook: expected a venv in $venv with ${pins[*]}; making it failed (above)." \
                 "Try: python3 -m venv works (Debian: apt-get install python3-venv) and PyPI is reachable."
            exit 1
        fi
    fi
    exec 9>&-
fi

# The notebook's make is a student's: not a sub-make of the make that may have started this.
unset MAKEFLAGS MFLAGS MAKELEVEL
export EMU=1
start=$(date +%s)
"$venv/bin/python" tests/notebook/check_notebook.py "$PWD" "$BUILD/notebook" "$LABS"
status=$?
echo "notebook: $(( $(date +%s) - start )) s in all (NOTEBOOK_LABS=$LABS, EMU=1)"
exit $status
