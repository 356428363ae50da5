#!/usr/bin/env bash
# install-cunit.sh - `make test` needs CUnit; on a fresh machine it installs it here:
# apt-get (Debian, Ubuntu) or dnf (Fedora, RHEL), as root or through sudo. Where neither a
# package manager nor root is at hand it says so in one line and exits 2.
set -uo pipefail
have() { pkg-config --exists cunit 2>/dev/null || [ -f /usr/include/CUnit/CUnit.h ]; }
have && exit 0
if [ "${TEST_INSTALL:-yes}" = no ]; then
    echo "error: CUnit is not installed, and TEST_INSTALL=no installs nothing: install libcunit1-dev (Debian, Ubuntu) or CUnit-devel (Fedora), or run make test without TEST_INSTALL=no" >&2
    exit 2
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
        echo "error: CUnit is not installed, and installing it needs root (no sudo here): install libcunit1-dev (Debian, Ubuntu) or CUnit-devel (Fedora), then run make test again" >&2
        exit 2
    fi
    sudo_cmd=(sudo)
fi
if command -v apt-get >/dev/null; then
    echo "CUnit is not installed: installing libcunit1-dev with apt-get..."
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get install -y -qq libcunit1-dev >/dev/null 2>&1 ||
        { "${sudo_cmd[@]}" apt-get update -qq >/dev/null && "${sudo_cmd[@]}" apt-get install -y -qq libcunit1-dev >/dev/null; }
elif command -v dnf >/dev/null; then
    echo "CUnit is not installed: installing CUnit-devel with dnf..."
    "${sudo_cmd[@]}" dnf install -y -q CUnit-devel >/dev/null
else
    echo "error: CUnit is not installed and there is no apt-get or dnf here to install it: install CUnit (its headers and library), then run make test again" >&2
    exit 2
fi
have || { echo "error: installing CUnit failed (see above); install libcunit1-dev by hand and run make test again" >&2; exit 2; }
echo "CUnit installed."
