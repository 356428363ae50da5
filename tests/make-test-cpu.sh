#!/usr/bin/env bash
# tests/make-test-cpu.sh - where make test's CPU goes (GOAL=test-all: the full tier's): `make -j2 test` from a fresh clone of this
# checkout (REV, default HEAD), each recipe line of the top make in a cpuacct control group of
# its own, so that everything it starts is counted (sandboxed processes too, which a shell's
# `times` misses). Prints the lines that used the most CPU (core-seconds), their wall time, and
# the sum. Needs a writable cgroup v1 cpuacct hierarchy (/sys/fs/cgroup/cpuacct) or cgroup v2
# with the cpu controller (as root, or in a container that allows it); says so when it has
# neither. A measurement, not a test: it exits with make test's status.
#
#   tests/make-test-cpu.sh [REV]       (TOP=25: how many lines; KEEP=1 keeps the clone;
#                                      GOAL=test-all: the full tier; GOAL=test-docs: one suite)
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
rev=${1:-HEAD}
if [ -w /sys/fs/cgroup/cpuacct ]; then
    root=/sys/fs/cgroup/cpuacct usage=cpuacct.usage scale=1000000000
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
    root=/sys/fs/cgroup usage=cpu.stat scale=1000000
else
    echo "make-test-cpu.sh: no writable cpuacct cgroup here (run as root, or time make test with tests/time-make-test.sh)" >&2
    exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/make-test-cpu.XXXXXX")
chmod 755 "$work"
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
log=$work/lines.tsv
: >"$log"
chmod 666 "$log"
# The shell make runs each recipe line with: a line of the top make (not already in one of our
# groups) gets a group of its own; a nested one runs plainly inside its parent's.
cat >"$work/sh" <<SH
#!/bin/bash
if grep -q ':/mtc_' /proc/self/cgroup 2>/dev/null || [ ! -w "$root" ]; then exec /bin/bash "\$@"; fi
cg=$root/mtc_\$\$_\$RANDOM
mkdir "\$cg" && echo \$\$ >"\$cg/cgroup.procs"
t0=\$(date +%s%N); /bin/bash "\$@"; rc=\$?; t1=\$(date +%s%N)
if [ "$usage" = cpu.stat ]; then u=\$(awk '/^usage_usec/ { print \$2 }' "\$cg/cpu.stat"); else u=\$(cat "\$cg/$usage"); fi
printf '%s\t%s\t%s\n' "\$(( (t1 - t0) / 1000000 ))" "\$u" "\$(printf '%s' "\${@: -1}" | tr '\n\t' '  ' | cut -c1-150)" >>"$log"
echo \$\$ >"$root/cgroup.procs" 2>/dev/null; rmdir "\$cg" 2>/dev/null
exit \$rc
SH
chmod 755 "$work/sh"
git clone -q . "$work/tree" && git -C "$work/tree" checkout -q "$rev" || exit 1
t0=$(date +%s)
(cd "$work/tree" && make -j2 "${GOAL:-test}" SHELL="$work/sh" >"$work/make-test.log" 2>&1)
status=$?
wall=$(($(date +%s) - t0))
echo "make -j2 ${GOAL:-test} at $(git -C "$work/tree" rev-parse --short HEAD), $(nproc) cores: $wall s wall, exit $status; its last line: $(tail -1 "$work/make-test.log")"
awk -F'\t' -v scale=$scale -v top="${TOP:-25}" '
    { cpu = $2 / scale; sum += cpu; n++; line[n] = sprintf("%7.1f %7.1f  %s", cpu, $1 / 1000, $3); key[n] = cpu }
    END {
        printf "CPU of every recipe line: %.0f core-seconds (%d lines); the %d that used the most:\n", sum, n, top
        printf "  core-s  wall s  recipe line\n"
        for (k = 1; k <= top && k <= n; k++) { best = 0; for (i = 1; i <= n; i++) if (!(i in done) && (best == 0 || key[i] > key[best])) best = i; done[best] = 1; print line[best] }
    }' "$log"
[ "${KEEP:-0}" = 1 ] && echo "kept: $work"
exit $status
