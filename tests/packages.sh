#!/usr/bin/env bash
# packages.sh - what `make test-all` (QUICK=1: `make test`, the quick tier) is about to install,
# and why, said before it installs anything.
#
#   tests/packages.sh        (BUILD from the environment; run from anywhere)
#
# make test runs it first (tests/tests.mk, while make reads its rules). For each group of
# packages that some test needs and this machine lacks, one line: the packages, how they would
# be installed, and the tests that need them; nothing at all when everything is there. The
# installs themselves happen later, in the tests that need them (tests/install-cunit.sh,
# tests/batch/test_batch.py, tests/batch/slurm.sh, tests/notebook/run.sh). With
# TEST_INSTALL=no they install nothing: the HTML render and the Slurm test are skipped (and
# say so), the notebook test is skipped, and CUnit, which the unit suites cannot do without,
# must already be there.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}

# Can this account install system packages? root, or sudo that asks no password.
root=""
if [ "$(id -u)" -eq 0 ]; then root="as root"
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then root="through sudo"; fi
apt=$(command -v apt-get >/dev/null && echo apt-get)
dnf=$(command -v dnf >/dev/null && echo dnf)
no_install=$([ "${TEST_INSTALL:-yes}" = no ] && echo 1)

lines=()
# add WHAT WHO HOW: "  WHAT, for WHO: HOW"
add() { lines+=("  $1, for $2: $3"); }

if ! pkg-config --exists cunit 2>/dev/null && [ ! -f /usr/include/CUnit/CUnit.h ]; then
    if [ -n "$no_install" ]; then how="not installed (TEST_INSTALL=no): the unit suites will stop"
    elif [ -n "$root" ] && [ -n "$apt$dnf" ]; then how="will install it ($apt$([ -n "$apt" ] && [ -n "$dnf" ] && echo " or ")$dnf, $root)"
    else how="cannot install it here (needs root or sudo, and apt-get or dnf): the unit suites will stop"; fi
    add "CUnit (libcunit1-dev)" "test-unit, test-batch and the emulator's tests (written in it)" "$how"
fi
if [ ! -f /usr/include/microhttpd.h ] || [ ! -f /usr/include/sqlite3.h ] || [ ! -f /usr/include/jansson.h ]; then
    if [ -f "$BUILD/serve/deps/usr/include/microhttpd.h" ]; then :
    elif [ -n "$no_install" ]; then how="not installed (TEST_INSTALL=no): test-serve will stop"
    elif [ -n "$root" ] && [ -n "$apt" ]; then how="will install them (apt-get, $root)"
    elif [ -n "$apt" ]; then how="will fetch them with apt-get download into $BUILD/serve/deps (nothing system-wide)"
    else how="cannot install them here (no apt-get): test-serve will stop"; fi
    [ -f "$BUILD/serve/deps/usr/include/microhttpd.h" ] ||
        add "libmicrohttpd-dev, libsqlite3-dev, libjansson-dev" "test-serve (the course server is built on them: grader/serve/deps.sh)" "$how"
fi
# make test's quick tier (QUICK=1) renders no HTML page and runs no notebook: those two are make
# test-all's alone
quick=$([ "${QUICK:-}" = 1 ] && echo 1)
if [ -z "$quick" ] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
    if [ -n "$no_install" ]; then how="not installed (TEST_INSTALL=no): that check is skipped"
    elif [ -n "$root" ] && [ -n "$apt" ]; then how="will install it (apt-get, $root; about 350 MB)"
    else how="cannot install it here (needs root or sudo, and apt-get): that check is skipped"; fi
    add "chromium" "test-batch (it renders the HTML report) and test-serve (the status page)" "$how"
fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    if [ -n "$no_install" ]; then how="not installed (TEST_INSTALL=no): that check is skipped"
    elif [ -n "$root" ] && [ -n "$apt" ]; then how="will install them (apt-get, $root; about 40 packages, and a munge key is generated)"
    else how="cannot install them here (needs root or sudo, and apt-get): that check is skipped"; fi
    add "slurm-wlm and munge" "test-batch (a Slurm job array)" "$how"
fi
. tests/notebook/venv.sh
venv=$(notebook_venv)
if [ -z "$quick" ] && [ ! -x "$venv/bin/python" ]; then
    if [ -n "$no_install" ]; then how="not installed (TEST_INSTALL=no): test-notebook is skipped"
    else how="will install them (from PyPI into $venv, once on this machine; nothing system-wide)"; fi
    add "Python's nbclient, nbformat, ipykernel" "test-notebook (it runs labs/workbook.ipynb)" "$how"
fi

[ ${#lines[@]} -eq 0 ] && exit 0
echo "make test$([ -n "$quick" ] || echo -all): some of its tests need software this machine lacks (each installs it when it starts):"
printf '%s\n' "${lines[@]}"
echo "  (make test TEST_INSTALL=no installs nothing; README.md, \"What make test installs\", lists the same)"
