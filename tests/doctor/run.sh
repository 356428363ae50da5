#!/usr/bin/env bash
# run.sh - make doctor (grader/tools/doctor.sh) says whether make grade works here, and exits
# 0 exactly when it does: on a machine with no GPU that can run the CPU emulator (the last line
# then names what speed checks need); 2 when the emulator's sanitizer libraries cannot link
# (played by a g++ that refuses -fsanitize) or the toolkit is missing; on a GPU machine
# (played by a stand-in nvidia-smi) it names the GPU and measures a launch with its probe
# (grader/tools/gpu_probe.cu). And the other side of "is this ready":
# make grade (bench, explain) given a STUDENT= that is not there says so in one line and exits 2,
# before building or grading anything. Prints `N passed, M failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
work=${BUILD:-build}/doctor-tests
rm -rf "$work" && mkdir -p "$work/nogpu" "$work/nosan" "$work/gpu"
. tests/result.sh
doctor() { # folder of stand-ins, output file: doctor.sh with them first on PATH; its status
    PATH="$1:$PATH" SANDBOX_RUN=/nonexistent sh grader/tools/doctor.sh >"$2" 2>&1
}

# No GPU: nvidia-smi that lists none, as on a machine with a driver but no NVIDIA GPU.
printf '#!/bin/sh\nexit 9\n' >"$work/nogpu/nvidia-smi"
chmod +x "$work/nogpu/nvidia-smi"
doctor "$work/nogpu" "$work/nogpu.txt"
s=$?
[ $s = 0 ] && grep -q '^doctor: ready for the CPU emulator' "$work/nogpu.txt" &&
    grep -q 'Speed checks need an NVIDIA GPU of compute capability 7.5' "$work/nogpu.txt"
result "no GPU, the emulator ready: exit 0, and what speed needs" $? "exit $s: $(tail -3 "$work/nogpu.txt")"
grep -qE '^ok +g\+\+ sanitizers' "$work/nogpu.txt"
result "g++'s sanitizer libraries checked" $? "$(grep -i sanitizers "$work/nogpu.txt")"
grep -qE '^(ok|--) +python3' "$work/nogpu.txt" && grep -qE '^(ok|--) +chromium' "$work/nogpu.txt" &&
    grep -qE '^(ok|--) +slurm \+ munge' "$work/nogpu.txt"
result "the tests' tools (python3, chromium, slurm and munge) checked" $? "$(grep -E 'python3|chromium|slurm' "$work/nogpu.txt")"
# Every tool the README's prerequisites and make doctor's paragraph name has a line of its own.
for tool in "CUDA toolkit" gcc g++ make nm objcopy "g++ sanitizers" "Nsight Compute" compute-sanitizer \
    cuobjdump CUnit "pandoc + beamer" python3 chromium "slurm + munge"; do
    awk -v t="$tool" '/^(ok|--|!!) / && substr($0, 6, length(t) + 1) == t " " { found = 1 }
        END { exit !found }' "$work/nogpu.txt"
    result "make doctor checks $tool" $? "no line for it in $work/nogpu.txt"
done

# No GPU and a g++ that cannot link the sanitizers: the emulator cannot build, grading fails.
cp "$work/nogpu/nvidia-smi" "$work/nosan/"
cat >"$work/nosan/g++" <<'SH'
#!/bin/sh
for a; do case $a in -fsanitize=*) echo "cannot find -lasan" >&2; exit 1 ;; esac; done
exec /usr/bin/g++ "$@"
SH
chmod +x "$work/nosan/g++"
doctor "$work/nosan" "$work/nosan.txt"
s=$?
[ $s = 2 ] && grep -qE '^!! +g\+\+ sanitizers .*apt-get install g\+\+' "$work/nosan.txt"
result "no sanitizer libraries and no GPU: exit 2, with the fix" $? "exit $s: $(grep -i sanitizers "$work/nosan.txt")"

# A GPU (a stand-in nvidia-smi that answers the queries doctor.sh asks).
cat >"$work/gpu/nvidia-smi" <<'SH'
#!/bin/sh
case "$*" in
-L) echo "GPU 0: Stand-in GPU (UUID: GPU-0)" ;;
*driver_version*) echo "580.00" ;;
*index,name*) echo "0, Stand-in GPU, 9.0, 143771 MiB, 1980 MHz, 1980 MHz, 2619 MHz, 30, 100 W, 700 W" ;;
*compute-apps*) ;;
*) echo "| NVIDIA-SMI 580.00   Driver Version: 580.00   CUDA Version: 13.0 |" ;;
esac
SH
chmod +x "$work/gpu/nvidia-smi"
doctor "$work/gpu" "$work/gpu.txt"
s=$?
grep -qE '^ok +GPU 0 +Stand-in GPU, compute capability 9.0' "$work/gpu.txt" && grep -q '^doctor: ready. Next: make grade' "$work/gpu.txt"
result "a GPU: named, and ready" $? "exit $s: $(grep -E 'GPU|doctor:' "$work/gpu.txt")"
# ... and the launch measured by grader/tools/gpu_probe.cu, built for it: behind the stand-in,
# with no driver, the probe's CUDA error is said (never a failure of the machine's readiness)
grep -qE '^(ok|--) +launch +([0-9.]+ us to launch an empty kernel|not measured: CUDA error)' "$work/gpu.txt"
result "a GPU: the launch measured by its probe (no driver here: the probe's CUDA error said)" $? \
    "$(grep -E 'launch|copy engines' "$work/gpu.txt")"

# STUDENT= that does not exist: one line, exit 2, nothing graded.
for verb in grade explain; do
    ${MAKE:-make} --no-print-directory $verb STUDENT="$work/no-such-tree" LAB=01 >"$work/student-$verb.txt" 2>&1
    s=$?
    [ $s = 2 ] && [ "$(wc -l <"$work/student-$verb.txt")" = 1 ] &&
        grep -q "STUDENT=$work/no-such-tree: no such folder or file here" "$work/student-$verb.txt"
    result "make $verb STUDENT=<missing>: one error line, exit 2" $? "exit $s: $(head -c 600 "$work/student-$verb.txt")"
done

results
