#!/bin/sh
# profile.sh - `make profile`: your kernel and the reference's on each of the lab's speed
# problems, one call each, with the few counters that show the lab's mechanism side by side
# and a one-line reading of each (Nsight Compute); or, for a lab whose lesson is overlap
# (lab 05), a timeline of the copy and compute engines drawn from CUDA events around every
# copy and kernel, which needs no profiler at all.
#
#   grader/feedback/profile.sh --lab NN-name --harness EXE --worker EXE --student SO
#                           --reference SO --out DIR [--timeline] [--label TEXT]
#                           [--emulator-size]
#
# The counters a lab shows are its table, grader/labs/NN-name/profile.tsv. The harness runs
# both implementations in its own process (a profiler follows one process; profiling grades
# nothing). Files: DIR/report.ncu-rep (open it in Nsight Compute for everything else),
# DIR/counters.csv, DIR/timeline.tsv, DIR/profile.txt (what was printed), DIR/*.log.
# --emulator-size: each problem at the size make explain's CPU emulator gives it, so that the
# GPU's counters can be set beside the emulator's for the same call (tests/gpu/explain-agree.sh).
# NCU=path picks the profiler. Exit status: 0, or 2 with one line saying what to do.
set -u
. "$(dirname "$0")/tool-options.sh"
here=$(cd "$(dirname "$0")" && pwd)
table=$here/../labs/$lab/profile.tsv
mkdir -p "$out" || exit 2
rm -f "$out/report.ncu-rep" "$out/counters.csv" "$out/timeline.tsv" "$out/sections.txt"
run_harness() { # run_harness PREFIX...: the harness in profile mode, sections to sections.txt
    "$@" "$harness" --profile --isolation off --worker "$worker" --student "$student" \
        --reference "$reference" $extra $([ "$emulator_size" = 1 ] && echo --emulator-size) \
        >"$out/sections.txt" 2>"$out/harness.log"
}

if [ "$timeline" = 1 ]; then
    extra="--timeline $out/timeline.tsv"
    if ! run_harness; then
        echo "make profile: the calls failed; what the harness said:" >&2
        tail -5 "$out/harness.log" >&2
        echo "Run make grade LAB=${lab#*-} first: it says what is wrong with the code." >&2
        exit 2
    fi
    awk -F'\t' -v label="$label" -v out="$out" -f "$here/profile-timeline.awk" \
        "$out/sections.txt" "$out/timeline.tsv" >"$out/profile.txt"
    status=$?
    cat "$out/profile.txt"
    exit $status
fi

# ---- Nsight Compute -------------------------------------------------------------------------
ncu=${NCU:-}
if [ -z "$ncu" ]; then
    for c in "$(command -v ncu 2>/dev/null)" "${CUDA_HOME:+$CUDA_HOME/bin/ncu}" /usr/local/cuda/bin/ncu \
        $(ls -d /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort -V | tail -1); do
        [ -n "$c" ] && [ -x "$c" ] && { ncu=$c; break; }
    done
fi
if [ -z "$ncu" ]; then
    echo "make profile needs Nsight Compute (ncu), and it is not on PATH or in the CUDA toolkit." >&2
    echo "Install it with the CUDA Toolkit, or: sudo apt-get install nsight-compute; or point NCU=/path/to/ncu." >&2
    exit 2
fi
[ -f "$table" ] || { echo "profile.sh: no counter table at $table" >&2; exit 2; }
metrics=$(awk -F'\t' '!/^#/ && NF >= 4 { n = split($2, w, " "); for (i = 1; i <= n; i++) if (w[i] ~ /__/) print w[i] }' "$table" |
    sort -u | tr '\n' ',')gpu__time_duration.sum,launch__grid_size
extra=""
run_harness "$ncu" --profile-from-start off --metrics "$metrics" --force-overwrite \
    --export "$out/report" --log-file "$out/ncu.log"
status=$?
if grep -q 'ERR_NVGPUCTRPERM' "$out/ncu.log" "$out/harness.log" 2>/dev/null; then
    echo "make profile: this GPU's performance counters are reserved for administrators (ERR_NVGPUCTRPERM)." >&2
    echo "  Once: run it as root (sudo make profile LAB=${lab#*-}), or allow every user for good:" >&2
    echo "  echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee /etc/modprobe.d/nvidia-profiling.conf" >&2
    echo "  then reboot (or reload the nvidia module). On WSL2, enable 'GPU performance counters' in the" >&2
    echo "  NVIDIA Control Panel of Windows (Desktop > Enable Developer Settings > Manage GPU Performance Counters)." >&2
    exit 2
fi
if [ "$status" != 0 ] || [ ! -s "$out/report.ncu-rep" ]; then
    echo "make profile: Nsight Compute did not finish (status $status). The end of its log ($out/ncu.log):" >&2
    tail -8 "$out/ncu.log" >&2
    tail -3 "$out/harness.log" >&2
    exit 2
fi
if ! "$ncu" --import "$out/report.ncu-rep" --csv --page raw --print-units base >"$out/counters.csv" 2>>"$out/ncu.log"; then
    echo "make profile: ncu could not read back its report; see $out/ncu.log" >&2
    exit 2
fi
awk -v table="$table" -v label="$label" -v report="$out/report.ncu-rep" \
    -f "$here/profile-counters.awk" "$out/sections.txt" "$out/counters.csv" | tee "$out/profile.txt"
