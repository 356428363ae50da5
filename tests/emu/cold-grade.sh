#!/usr/bin/env bash
# tests/emu/cold-grade.sh -- `make grade` as a student first runs it on a machine with no GPU:
# from a fresh clone (nothing built), the skeletons graded under the CPU emulator. For each
# revision given, ROUNDS times, alternating revisions so that a change in the machine's load
# falls on both alike; per run the wall time, the build's part of it as make grade prints it
# ("Built in": from make's start until every lab is built), the CPU time of make grade's own
# processes, the correctness checks passed, and a second make grade in the same tree right
# after (warm: built), its wall and CPU time, and the load average as the round began. A
# measurement, not a test: it exits 0 either way (1 only if a clone, a checkout or, with
# KIT=1, make dist failed).
#
#   tests/emu/cold-grade.sh [REV ...]       (default: HEAD; ROUNDS=2, SEED=0x4815c315b3aef930)
#
# CPU time: every process make grade starts, the sandboxed ones too (their CPU is not counted
# by a shell's `times` or /usr/bin/time: they are reaped inside the sandbox), in a control
# group of its own (cgroup v1's cpuacct, or v2's cpu.stat; as root, or where the groups are
# writable): "cpu" is user + system core-seconds. Without one, the whole machine's busy time
# while it ran (/proc/stat: other work on the machine counts too), marked "machine".
#
# With two revisions or more, the last round's outputs are compared, cold and warm, the times
# masked (a check's "(  0.4s)", "done at 3.1 s", "Built in", the order the labs' build lines
# came in): "the same" or the first lines that differ. SEED keeps the hidden cases the same.
#
# EMU=1 is set, so a machine with a GPU measures the emulator's path too.
#
# KIT=1: the student kit instead of the clone (what a course hands its students: make dist's
# build/dist/cuda-workbook.tar.gz, each lab's reference prebuilt, no solution source). For each
# revision and round, make dist runs in the fresh clone first (not timed), and the kit, unpacked
# into a folder of its own, is graded cold and then warm.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
revs=("$@")
[ ${#revs[@]} -gt 0 ] || revs=(HEAD)
rounds=${ROUNDS:-2}
seed=${SEED:-0x4815c315b3aef930}
kit=${KIT:-0}
repo=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/cold-grade.XXXXXX")
cg=""
trap 'rm -rf "$work"; [ -z "$cg" ] || rmdir "$cg" 2>/dev/null' EXIT

# The control group: v1 cpuacct, or v2 with the cpu controller enabled for children.
if [ -w /sys/fs/cgroup/cpuacct ] && [ -f /sys/fs/cgroup/cpuacct/cpuacct.usage ]; then
    cgroot=/sys/fs/cgroup/cpuacct cgkind=v1
elif [ -w /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
    cgroot=/sys/fs/cgroup cgkind=v2
else
    cgroot="" cgkind=""
fi
# cpu_ns: the group's CPU so far (ns), or the machine's busy jiffies as ns
cpu_ns() {
    case $cgkind in
    v1) cat "$cg/cpuacct.usage" ;;
    v2) awk '/^usage_usec/ { printf "%.0f\n", $2 * 1000 }' "$cg/cpu.stat" ;;
    *) awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.0f\n", ($2 + $3 + $4) * 1e9 / hz }' /proc/stat ;;
    esac
}
# run DIR OUT: make grade in DIR, inside the group; prints "WALL CPU" (seconds)
run() {
    local c0 c1 t0 t1
    c0=$(cpu_ns) t0=$(date +%s.%N)
    if [ -n "$cg" ]; then
        (echo "$BASHPID" >"$cg/cgroup.procs" && cd "$1" && exec make grade EMU=1 SEED="$seed") >"$2" 2>&1
    else
        (cd "$1" && exec make grade EMU=1 SEED="$seed") >"$2" 2>&1
    fi
    t1=$(date +%s.%N) c1=$(cpu_ns)
    awk -v a="$t0" -v b="$t1" -v c="$c0" -v d="$c1" 'BEGIN { printf "%.1f %.1f\n", b - a, (d - c) / 1e9 }'
}
# masked FILE: the output with its times masked and the build's lines in a fixed order
masked() {
    sed -E 's/\( *[0-9]+\.[0-9]+s\)/( T s)/g; s/done at +[0-9.]+ s/done at T s/; s/^  \[[0-9]+\/([0-9]+)\]/  [*\/\1]/; s/Built in [0-9.]+ s/Built in T s/' "$1" |
        awk '/^  \[\*\/[0-9]+\]/ { held[++n] = $0; next } n { m = n; while (m > 0) { best = 0; for (i = 1; i <= n; i++) if (held[i] != "" && (best == 0 || held[i] < held[best])) best = i; print held[best]; held[best] = ""; m-- } n = 0 } { print }'
}

if [ -n "$cgroot" ]; then
    cg=$cgroot/cold-grade.$$
    mkdir "$cg" || cg=""
fi
[ -n "$cg" ] && unit="cpu" || unit="machine"
[ "$kit" = 1 ] && echo "the student kit (make dist), unpacked, graded: not the clone"
echo "$(nproc) cores; CPU: $([ -n "$cg" ] && echo "make grade's processes (cgroup $cgkind), core-seconds" || echo "the whole machine's busy time (no writable cgroup)")"
printf '%-10s %5s %7s %7s %9s  %-6s %7s %9s  %s\n' revision round wall built "$unit" passed warm "warm $unit" "load (1, 5, 15 min)"
for round in $(seq "$rounds"); do
    for rev in "${revs[@]}"; do
        tree=$work/tree
        rm -rf "$tree"
        git clone -q "$repo" "$tree" && git -C "$tree" checkout -q "$rev" || exit 1
        short=$(git -C "$tree" rev-parse --short HEAD)
        graded=$tree
        if [ "$kit" = 1 ]; then
            if ! make -C "$tree" dist >"$work/dist.txt" 2>&1; then
                echo "cold-grade.sh: make dist failed at $rev; its last lines:" >&2
                tail -5 "$work/dist.txt" >&2
                exit 1
            fi
            rm -rf "$work/kit" && mkdir "$work/kit" &&
                tar -xzf "$tree/build/dist/cuda-workbook.tar.gz" -C "$work/kit" || exit 1
            graded=$(find "$work/kit" -mindepth 1 -maxdepth 1 -type d | head -1)
        fi
        load=$(cut -d' ' -f1-3 /proc/loadavg)
        read -r cwall ccpu < <(run "$graded" "$work/out.txt")
        read -r wwall wcpu < <(run "$graded" "$work/warm.txt")
        masked "$work/out.txt" >"$work/cold.$short.masked"
        masked "$work/warm.txt" >"$work/warm.$short.masked"
        printf '%-10s %5s %6.1fs %6.1fs %8.1fs  %-6s %6.1fs %8.1fs  %s\n' "$short" "$round" "$cwall" \
            "$(grep -o 'Built in [0-9.]*' "$work/out.txt" | awk '{ print $3 }')" "$ccpu" \
            "$(sed -n 's/.*Correctness: \([0-9]*\) of \([0-9]*\) checks passed.*/\1\/\2/p' "$work/out.txt" | head -1)" "$wwall" "$wcpu" "$load"
    done
done
for run in cold warm; do
    first=""
    for f in "$work/$run".*.masked; do
        [ -e "$f" ] || continue
        if [ -z "$first" ]; then first=$f; continue; fi
        a=${first#"$work/$run".} b=${f#"$work/$run".}
        if cmp -s "$first" "$f"; then
            echo "$run output, times masked: ${a%.masked} and ${b%.masked} the same ($(wc -l <"$f") lines)"
        else
            echo "$run output, times masked: ${a%.masked} and ${b%.masked} differ:"
            diff "$first" "$f" | head -20
        fi
    done
done
exit 0
