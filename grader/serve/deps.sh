#!/usr/bin/env bash
# deps.sh - what the course server (make serve, make roster, make serve-export) builds against,
# said first, then installed: GNU libmicrohttpd (HTTP), SQLite (the queue), jansson (JSON), from
# the distribution's registry (Debian, Ubuntu: apt-get).
#
#   grader/serve/deps.sh BUILD      prints the compiler and linker flags on its last line
#
# Where the headers are installed system-wide, nothing is installed. As root (or with sudo that
# asks no password) it runs apt-get install; otherwise it fetches the packages with apt-get
# download and unpacks them (dpkg -x) into BUILD/serve/deps, which the programs are built
# against and find at run time (rpath), nothing system-wide. make submit needs none of this.
set -uo pipefail
build=${1:-build}
deps=$build/serve/deps
pkgs=(libmicrohttpd-dev libsqlite3-dev libjansson-dev)
runtime=(libmicrohttpd12 libsqlite3-0 libjansson4)
headers=(microhttpd.h sqlite3.h jansson.h)

have_system() { for h in "${headers[@]}"; do [ -f "/usr/include/$h" ] || return 1; done; }
have_local() { for h in "${headers[@]}"; do [ -f "$deps/usr/include/$h" ] || return 1; done; }
flags_local() {
    local lib root
    root=$(cd "$deps" && pwd)
    lib=$(find "$root/usr/lib" -name 'libmicrohttpd.so' -printf '%h\n' | head -1)
    echo "-I$root/usr/include -L$lib -Wl,-rpath,$lib"
}

# SERVE_DEPS=download: the packages unpacked into BUILD/serve/deps even where the system has
# them (to carry them to a machine that cannot reach the registry)
if [ "${SERVE_DEPS:-}" != download ] && have_system; then echo ""; exit 0; fi
if have_local; then flags_local; exit 0; fi
if [ "${TEST_INSTALL:-yes}" = no ]; then
    echo "error: the course server needs ${pkgs[*]} (GNU libmicrohttpd, SQLite, jansson), and TEST_INSTALL=no installs nothing: install them, or run without TEST_INSTALL=no" >&2
    exit 2
fi
missing=()
for i in "${!headers[@]}"; do [ -f "/usr/include/${headers[$i]}" ] || missing+=("${pkgs[$i]}"); done
[ ${#missing[@]} -gt 0 ] || missing=("${pkgs[@]}")
sudo_cmd=()
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo_cmd=(sudo); fi
command -v apt-get >/dev/null || {
    echo "error: the course server needs ${missing[*]} (GNU libmicrohttpd, SQLite, jansson: their headers and libraries), and there is no apt-get here: install them with your distribution's package manager, then run make serve again" >&2
    exit 2; }
if [ "${SERVE_DEPS:-}" != download ] && { [ "$(id -u)" -eq 0 ] || [ ${#sudo_cmd[@]} -gt 0 ]; }; then
    echo "The course server needs ${missing[*]}: installing them with apt-get${sudo_cmd:+ (sudo)}..." >&2
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
        { "${sudo_cmd[@]}" apt-get update -qq >/dev/null 2>&1 && "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >&2; }
    have_system && { echo ""; exit 0; }
    echo "error: apt-get could not install ${missing[*]} (see above): install them by hand, then run make serve again" >&2
    exit 2
fi
echo "The course server needs ${pkgs[*]} and ${runtime[*]}: fetching them with apt-get download into $deps (nothing system-wide)..." >&2
tmp=$deps.download
rm -rf "$tmp" && mkdir -p "$tmp" "$deps"
(cd "$tmp" && apt-get download "${pkgs[@]}" "${runtime[@]}" >/dev/null 2>&1) || {
    echo "error: apt-get download could not fetch ${pkgs[*]} (no network, or no such packages here): install them (or ask for them to be installed), then run make serve again" >&2
    exit 2; }
for d in "$tmp"/*.deb; do dpkg -x "$d" "$deps"; done
rm -rf "$tmp"
have_local || { echo "error: the packages unpacked into $deps lack a header (${headers[*]})" >&2; exit 2; }
flags_local
