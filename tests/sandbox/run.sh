#!/usr/bin/env bash
# run.sh - the sandbox where the machine refuses namespaces (a container under Docker's default
# seccomp profile, as Gradescope runs its autograders): the grader falls back to Landlock and,
# run as root, an unprivileged uid, and still holds against the attacks of tests/cheats.
#
#   tests/sandbox/run.sh          (EMU=1: the emulator's cases; needs the emulated runners)
#
# Then two other machines without our privileges: one process only (no CUDA IPC, as on WSL2),
# and an ordinary user instead of root.
#
# The attacks run under tests/sandbox/no_namespaces.c, a seccomp wrapper that refuses unshare,
# setns, mount and clone with new namespaces, as such a container does. Prints
# `N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
work=$build/sandbox-tests
mkdir -p "$work"
wrap=$work/no-namespaces
${CC:-cc} -O2 -Wall tests/sandbox/no_namespaces.c -o "$wrap" || exit 1
. tests/result.sh

if "$wrap" unshare -U true 2>/dev/null; then
    result "the wrapper refuses namespaces" 1 "unshare still works under it"
else
    result "the wrapper refuses namespaces" 0
fi

# Landlock must be there for the fallback to be tamper-proof; without it the run says "not
# tamper-proof", which is checked instead.
landlock=$(python3 -c 'import ctypes; print(1 if ctypes.CDLL(None).syscall(444, None, 0, 1) > 0 else 0)')

# One honest file graded under the wrapper: which isolation did the grader choose?
probe=$work/probe
rm -rf "$probe" && mkdir -p "$probe/tree" && cp -r labs/01-coalescing "$probe/tree/"
"$wrap" grader/driver/grade.sh STUDENT="$probe/tree" LAB=01 EMU=1 GRADE_DIR="$probe/grade" >"$probe/out.txt" 2>&1
iso=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["tamper_proof"], r.get("isolation",""))' \
      "$probe/grade/results.json" 2>/dev/null || echo "no-report")
if [ "$landlock" = 1 ]; then
    case $iso in True*Landlock*) result "graded with Landlock, tamper-proof" 0 ;;
                 *) result "graded with Landlock, tamper-proof" 1 "results.json says: $iso (log: $probe/out.txt)" ;; esac
else
    case $iso in False*) result "no Landlock here: the run says it is not tamper-proof" 0 ;;
                 *) result "no Landlock here: the run says it is not tamper-proof" 1 "results.json says: $iso" ;; esac
fi
grep -q "Score:" "$probe/out.txt" && ! grep -qE ' ERROR ' "$probe/out.txt"
result "the skeleton is graded (no check in error)" $? "see $probe/out.txt"
# make grade's WHERE hint counts the student's code inside sandbox-run, here without namespaces.
grep -qE "WHERE .*coalescing.cu:[0-9]+ .*32-byte sectors per warp-wide request" "$probe/out.txt"
result "the WHERE hint is counted in the sandbox without namespaces" $? \
    "expected a WHERE line naming coalescing.cu; found: $(grep WHERE "$probe/out.txt") ($probe/grade/coalescing.where.log)"
# make doctor asks the grader's own probe, so it names the sandbox grading just used.
"$wrap" ${MAKE:-make} --no-print-directory doctor BUILD="$build" >"$work/doctor.txt" 2>&1
case $iso in True*Landlock*) want='^ok +sandbox +Landlock' ;; *) want='^!! +sandbox +neither' ;; esac
grep -qE "$want" "$work/doctor.txt"
result "make doctor names the sandbox grading chose" $? "expected /$want/, found: $(grep sandbox "$work/doctor.txt")"

# Without namespaces each worker gets a scratch folder in place of a private /tmp. It lies in
# a TMPDIR the grader makes for the lab's harness and removes when the harness ends, however
# it ends (the grader ends every harness with SIGKILL once its checks are done): after a
# grade, and after a grade stopped by SIGTERM in the middle of a check, the TMPDIR the run
# was given holds nothing of the grader's.
tmpd=$work/tmpdir
rm -rf "$tmpd" "$work/tmpdir-grade" && mkdir -p "$tmpd"
"$wrap" env TMPDIR="$tmpd" grader/driver/grade.sh STUDENT="$probe/tree" LAB=01 EMU=1 GRADE_DIR="$work/tmpdir-grade" \
    >"$work/tmpdir.txt" 2>&1
left=$(find "$tmpd" -mindepth 1 -maxdepth 2 | head -3)
grep -q "Score:" "$work/tmpdir.txt" && [ -z "$left" ]
result "a grade leaves no worker scratch folder in its TMPDIR" $? "left: ${left:-nothing} (see $work/tmpdir.txt)"
# stopped OUT FIND-TEST...: the probe graded (its output in OUT) and stopped by SIGTERM once a
# file below $tmpd matches the find tests; sets seen (that file, or nothing after 60 s) and
# left (what the TMPDIR holds a second after the stop).
stopped() {
    local out=$1 graded
    shift
    setsid "$wrap" env TMPDIR="$tmpd" grader/driver/grade.sh STUDENT="$probe/tree" LAB=01 EMU=1 \
        GRADE_DIR="$work/tmpdir-grade" >"$out" 2>&1 &
    graded=$!
    for _ in $(seq 600); do
        seen=$(find "$tmpd" "$@" 2>/dev/null | head -1)
        [ -n "$seen" ] && break
        sleep 0.1
    done
    kill -TERM "$graded" 2>/dev/null
    wait "$graded" 2>/dev/null
    sleep 1
    left=$(find "$tmpd" -mindepth 1 -maxdepth 2 | head -3)
}
stopped "$work/tmpdir-stopped.txt" -mindepth 2 -maxdepth 2 -name 'grader-worker-*'
[ -n "$seen" ] && [ -z "$left" ]
result "a grade stopped (SIGTERM) while a worker runs leaves no scratch folder in its TMPDIR" $? \
    "seen while it ran: ${seen:-none}; left: ${left:-nothing} (see $work/tmpdir-stopped.txt)"
# The same, stopped while the WHERE count's worker runs (under the emulator it runs beside the
# correctness checks, in a TMPDIR of its own, grader-where-*, that the grader made)
stopped "$work/tmpdir-stopped-where.txt" -mindepth 3 -maxdepth 3 -path '*/grader-where-*/*' -name 'grader-worker-*'
[ -n "$seen" ] && [ -z "$left" ]
result "a grade stopped (SIGTERM) while its WHERE count's worker runs leaves no scratch folder in its TMPDIR" $? \
    "seen while it ran: ${seen:-none}; left: ${left:-nothing} (see $work/tmpdir-stopped-where.txt)"

# A fault's rerun on the CPU emulator (what a fault on a GPU gets; forced here with
# GRADE_FAULT_RERUN=always) runs a harness of its own in the same sandbox: under Landlock it
# names the student's line too, and its TMPDIR holds nothing of it afterwards.
rerun=$work/rerun
rm -rf "$rerun" "$tmpd" && mkdir -p "$rerun/tree/01-coalescing" "$tmpd"
cp tests/cheats/h88-coalescing-write-through-null-rerun.cu "$rerun/tree/01-coalescing/coalescing.cu"
"$wrap" env TMPDIR="$tmpd" grader/driver/grade.sh STUDENT="$rerun/tree" LAB=01 EMU=1 GRADE_DIR="$rerun/grade" \
    GRADE_WHERE=0 GRADE_FAULT_RERUN=always >"$rerun/out.txt" 2>&1
left=$(find "$tmpd" -mindepth 1 -maxdepth 2 | head -3)
grep -q "ran this check once more, in the same sandbox" "$rerun/out.txt" &&
    grep -qE "coalescing\.0\.emu\.log\):$" "$rerun/out.txt" &&
    grep -qE "^      \| at \S*01-coalescing/coalescing\.cu:[0-9]+ \(in scale_rows_kernel" "$rerun/out.txt" && [ -z "$left" ]
result "a fault's rerun on the emulator, without namespaces: the line named, its TMPDIR emptied" $? \
    "left: ${left:-nothing} (see $rerun/out.txt)"

# With no sandbox at all the report says so, and grading still gives feedback.
nosb=$work/none
rm -rf "$nosb" && mkdir -p "$nosb"
GRADER_SANDBOX=none grader/driver/grade.sh STUDENT="$probe/tree" LAB=01 EMU=1 GRADE_DIR="$nosb/grade" >"$nosb/out.txt" 2>&1
grep -qi "not tamper-proof" "$nosb/out.txt" &&
    python3 -c 'import json,sys; sys.exit(0 if not json.load(open(sys.argv[1]))["tamper_proof"] else 1)' "$nosb/grade/results.json"
result "no sandbox at all: terminal and results.json say not tamper-proof" $? "see $nosb/out.txt"

# No shared GPU memory between processes (WSL2 has no CUDA IPC): GRADER_ISOLATION=off grades
# in one process, as the grader does there, and every report says it is not tamper-proof.
inproc=$work/in-process
rm -rf "$inproc" && mkdir -p "$inproc"
GRADER_ISOLATION=off grader/driver/grade.sh STUDENT="$probe/tree" LAB=01 EMU=1 GRADE_DIR="$inproc/grade" >"$inproc/out.txt" 2>&1
grep -qi "not tamper-proof" "$inproc/out.txt" && grep -q "Score:" "$inproc/out.txt" &&
    python3 -c 'import json,sys; sys.exit(0 if not json.load(open(sys.argv[1]))["tamper_proof"] else 1)' "$inproc/grade/results.json"
result "in one process (as on WSL2): graded, and terminal and results.json say not tamper-proof" $? "see $inproc/out.txt"

# An ordinary user who owns a copy of the workbook, as a student on a shared machine: graded,
# isolated (namespaces of the user's own, or Landlock), and no check is failed or in error for
# the grader's own set-up. Needs root here to make the copy another user's.
if full_only && [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    nr=$(mktemp -d /tmp/workbook-user.XXXXXX) && chmod 755 "$nr"
    mkdir -p "$nr/copy/build"
    tar --exclude=./build --exclude='./build-*' --exclude='./.toolkit*' --exclude=./.git -cf - . | tar -xf - -C "$nr/copy"
    cp -a "$build/emu" "$build/host" "$nr/copy/build/"
    chown -R 65534:65534 "$nr"
    (cd "$nr/copy" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$nr" BUILD=build \
        grader/driver/grade.sh STUDENT=labs LAB=01 EMU=1 GRADE_DIR="$nr/grade") >"$work/user.txt" 2>&1
    grep -q "Score: speed not graded (no GPU), so no score: the points are speed's. Correctness: 10 of 10 checks passed." "$work/user.txt" && ! grep -qE ' (FAIL|ERROR) ' "$work/user.txt" &&
        python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["tamper_proof"] else 1)' "$nr/grade/results.json"
    result "as an ordinary user (uid 65534) owning a copy: the skeleton graded, isolated, nothing failed for the set-up" $? \
        "see $work/user.txt: $(grep -m3 -E ' (FAIL|ERROR) |Score' "$work/user.txt" | tr '\n' ' ')"
    rm -rf "$nr"
fi

# A checkout under a folder the compile is shown (/usr holds the system's compilers: a checkout
# in /usr/local/src is inside it): the checkout, its build and the student's tree stay out of
# the compile's view there too, with namespaces and under the wrapper (Landlock), while the
# emulator's headers and tools the compile needs, which lie inside that checkout, stay in it.
# A file that includes the copy's reference and grader by their absolute paths does not build;
# the skeleton does. Needs root to write under /usr/local/src.
if full_only && [ "$(id -u)" = 0 ] && [ -d /usr/local/src ]; then
    vis=$(mktemp -d /usr/local/src/workbook-visible.XXXXXX) && chmod 755 "$vis"
    mkdir -p "$vis/wb/build"
    tar --exclude=./build --exclude='./build-*' --exclude='./.toolkit*' --exclude=./.git -cf - . | tar -xf - -C "$vis/wb"
    cp -a "$build/emu" "$build/host" "$vis/wb/build/"
    wb=$(cd "$vis/wb" && pwd -P)
    for how in namespaces landlock; do
        run=; [ $how = landlock ] && run=$(cd "$(dirname "$wrap")" && pwd -P)/$(basename "$wrap")
        for t in cheat skeleton; do
            mkdir -p "$wb/build/t-$how-$t/01-coalescing"
            f=$wb/build/t-$how-$t/01-coalescing/coalescing.cu
            if [ $t = skeleton ]; then
                cp "$wb/labs/01-coalescing/coalescing.cu" "$f"
            else
                { echo '#include "coalescing.h"'
                  echo "#include \"$wb/solutions/01-coalescing/coalescing.cu\""
                  echo "#include \"$wb/grader/driver/driver.c\""; } >"$f"
            fi
            (cd "$wb" && $run ${MAKE:-make} -s --no-print-directory runner-coalescing EMU=1 BUILD=build \
                STUDENT=build/t-$how-$t) >"$work/visible-$how-$t.txt" 2>&1
        done
        so=$wb/build/emu/build_t-$how-skeleton/coalescing/student.so
        [ -f "$so" ]
        result "checkout in /usr/local/src ($how): the skeleton builds (the emulator's pieces in view)" $? \
            "no $so; see $work/visible-$how-skeleton.txt: $(grep -m3 -iE 'error|denied|sandbox' "$work/visible-$how-skeleton.txt" | tr '\n' ' ')"
        # (the emulator's rewriter reads the includes first: "cannot read" is its refusal)
        grep -qE "solutions/01-coalescing/coalescing.cu.*(No such file|Permission denied)|cannot read $wb/solutions/" "$work/visible-$how-cheat.txt" &&
            [ ! -f "$wb/build/emu/build_t-$how-cheat/coalescing/student.so" ] &&
            ! grep -q "TODO\|__global__" "$work/visible-$how-cheat.txt"
        result "checkout in /usr/local/src ($how): its reference is out of the compile's view" $? \
            "see $work/visible-$how-cheat.txt: $(grep -m3 -E 'coalescing.cu|driver.c' "$work/visible-$how-cheat.txt" | tr '\n' ' ')"
        # (the same file, its first include gone: the grader's source is out of view too)
        sed -i '2d' "$wb/build/t-$how-cheat/01-coalescing/coalescing.cu"
        (cd "$wb" && $run ${MAKE:-make} -s --no-print-directory runner-coalescing EMU=1 BUILD=build \
            STUDENT=build/t-$how-cheat) >"$work/visible-$how-cheat2.txt" 2>&1
        grep -qE "grader/driver/driver.c.*(No such file|Permission denied)|cannot read $wb/grader/driver/driver.c" "$work/visible-$how-cheat2.txt"
        result "checkout in /usr/local/src ($how): its grader is out of the compile's view" $? \
            "see $work/visible-$how-cheat2.txt"
    done
    rm -rf "$vis"
fi

# Performance counters reserved for administrators (the driver's RmProfilingAdminOnly, as on
# most shared machines): make doctor, run as an ordinary user on a machine that a stand-in
# nvidia-smi and params file describe, says so and gives the fix; as root, that it may.
if full_only && [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    fake=$(mktemp -d /tmp/workbook-counters.XXXXXX) && chmod 755 "$fake"
    cp grader/tools/doctor.sh "$fake/"
    printf '#!/bin/sh\ncase "$*" in -L) echo "GPU 0: Stand-in GPU (UUID: GPU-0)" ;; *query-gpu=driver_version*) echo 580.00 ;;\n*query-gpu=*) echo "0, Stand-in GPU, 8.6, 8192 MiB, 1500 MHz, 1800 MHz, 7000 MHz, 40, 30 W, 100 W" ;; *) ;; esac\n' >"$fake/nvidia-smi"
    printf 'RmProfilingAdminOnly: 1\n' >"$fake/params"
    chmod 755 "$fake/nvidia-smi" "$fake/doctor.sh" && chmod 644 "$fake/params"
    (cd "$fake" && setpriv --reuid=65534 --regid=65534 --clear-groups env PATH="$fake:$PATH" \
        NVIDIA_PARAMS="$fake/params" sh ./doctor.sh) >"$work/doctor-user.txt" 2>&1
    (cd "$fake" && env PATH="$fake:$PATH" NVIDIA_PARAMS="$fake/params" sh ./doctor.sh) >"$work/doctor-root.txt" 2>&1
    grep -qE '^!! +profiler counters +restricted to administrators.*NVreg_RestrictProfilingToAdminUsers=0' "$work/doctor-user.txt" &&
        grep -qE '^ok +profiler counters +restricted to administrators, and you are root' "$work/doctor-root.txt"
    result "counters reserved for administrators: make doctor says so to a user, with the fix" $? \
        "as uid 65534: $(grep counters "$work/doctor-user.txt"); as root: $(grep counters "$work/doctor-root.txt")"
    rm -rf "$fake"
fi

# The attacks, under the wrapper (the worker's view, the compile's, links and pipes). Not c23:
# under Landlock, __has_include of a file that exists but may not be read stops the compile
# ("Permission denied") instead of answering no; the reference stays unread either way.
# Without namespaces there is no size-limited /tmp of its own: c28 holds because each file is
# limited to 64 MB, and the scratch folder is held to 64 MB after every call (a call that
# writes many files may use more disk while it runs).
# (the quick tier: the worker's view, the compile's, a link, the shell and the skeleton)
attacks="c17-read-the-checkout c25-link-to-the-reference c05-exec-shell h04-skeleton"
full_only && attacks="c17-read-the-checkout c19-worker-view \
        c20-compile-device-include c21-compile-tty c24-incbin-the-grader \
        c25-link-to-the-reference c26-link-to-passwd c27-fifo c28-fill-tmp c05-exec-shell c09-ptrace-grader \
        c60-compile-reads-launcher-cmdline c61-compile-reads-mount-table c62-include-emulator-sources \
        c63-emulator-library-in-view c64-huge-device-array c85-forge-the-fault-report \
        h04-skeleton"
if [ "$landlock" = 1 ]; then
    # shellcheck disable=SC2086
    CHEATS_WORK=$work/cheats "$wrap" env EMU=1 QUICK= tests/cheats/run.sh $attacks >"$work/cheats.txt" 2>&1
    sed 's/^/    /' "$work/cheats.txt"
    grep -q ' 0 failed' "$work/cheats.txt"
    result "the cheat cases under Landlock" $? "see $work/cheats.txt"
fi
results "sandbox without namespaces"
