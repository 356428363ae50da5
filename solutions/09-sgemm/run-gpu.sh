#!/usr/bin/env bash
# run-gpu.sh - lab 09's measurements on a GPU machine, in one command (how the README's figures
# were made). Builds lab 09 only (LAB_DIRS=09-sgemm keeps other labs' work in progress out of
# the build), then, each step with its own time limit so that one slow step cannot starve
# the rest:
#   tune     solutions/09-sgemm/tune.cu: every tile configuration and cuBLAS, 4096^3 and 2048^3
#   bench    make bench LAB=sgemm: skeleton, reference, cuBLAS and the ladder, side by side
#   grade    make grade LAB=sgemm, reference (STUDENT=solutions) and skeleton, GRADES times each
#   ncu      Nsight Compute on one call of each ladder step, the best configuration and cuBLAS
#
#   solutions/09-sgemm/run-gpu.sh [steps...]    (default: tune bench grade ncu; GRADES=1)
# Logs go to $OUT (or build/sgemm-run), seven files at most (a lent machine returns eight).
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/sgemm-run}
GRADES=${GRADES:-1}
mkdir -p "$OUT"
steps=${*:-tune bench grade ncu}
L="LAB_DIRS=09-sgemm"
TUNE=build/sgemm-tune

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,temperature.gpu \
    --format=csv 2>&1 | tee "$OUT/build.log"
mkdir -p build
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
NCU=$(command -v ncu || ls -d /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1)
($NVCC -O3 -std=c++17 -arch=native -Igrader/labs/09-sgemm -Isolutions/09-sgemm -Icommon \
    solutions/09-sgemm/tune.cu common/check.cu -lcublas -o $TUNE >"$OUT/tune-build.log" 2>&1 || echo "tune build failed" >>"$OUT/tune-build.log") &
if ! { make -j16 $L all STUDENT=solutions && make -j16 $L runners; } >>"$OUT/build.log" 2>&1; then
    tail -40 "$OUT/build.log"
    exit 1
fi
wait
tail -3 "$OUT/tune-build.log"

for step in $steps; do
    case $step in
    tune)
        timeout 90 $TUNE time 2>&1 | tee "$OUT/tune.txt" ;;
    bench)
        timeout 110 make --no-print-directory $L bench LAB=sgemm 2>&1 | tee "$OUT/bench.txt" ;;
    grade)
        : >"$OUT/grades.txt"
        for i in $(seq "$GRADES"); do
            for who in solutions labs; do
                timeout 100 make --no-print-directory $L grade LAB=sgemm STUDENT=$who \
                    >"$OUT/grade.tmp" 2>&1
                echo "grade $who run $i: exit $?"
                grep -E 'speed|Score' "$OUT/grade.tmp"
                cat "$OUT/grade.tmp" >>"$OUT/grades.txt"
            done
        done
        rm -f "$OUT/grade.tmp" ;;
    ncu)
        # the fastest configuration at 4096 in tune.txt, if any, besides the ladder
        best=$(awk '/n = 4096/ {on = 1; next} /n = / {on = 0} on && $1 ~ /_a[0-9]|_regs/ {print $4, $1}' \
            "$OUT/tune.txt" 2>/dev/null | sort -rn | head -1 | cut -d' ' -f2)
        timeout 60 $NCU --clock-control none \
            --section SpeedOfLight --section ComputeWorkloadAnalysis \
            --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables \
            --section Occupancy --section LaunchStats --section WarpStateStats \
            --section SchedulerStats --section InstructionStats \
            $TUNE once 2048 student step1_coalesced step2_smem step3_1d step4_2d step5_vec \
            step6_warptile reference step7b_async $best cublas >"$OUT/ncu.txt" 2>&1
        echo "ncu: exit $?, $(grep -c 'Section: GPU Speed Of Light' "$OUT/ncu.txt") kernels profiled (best: $best)"
        # the counters behind the README's table: FFMA share, shared-memory wavefronts and
        # bank conflicts, and why warps stall
        m=smsp__inst_executed.sum,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
        m=$m,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
        m=$m,smsp__issue_active.avg.pct_of_peak_sustained_active
        m=$m,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
        m=$m,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
        m=$m,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
        for r in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle not_selected wait lg_throttle; do
            m=$m,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio
        done
        timeout 45 $NCU --clock-control none --metrics $m \
            $TUNE once 2048 student step1_coalesced step2_smem step3_1d step4_2d step5_vec \
            step6_warptile reference step7b_async cublas >"$OUT/ncu-metrics.txt" 2>&1
        echo "ncu metrics: exit $?" ;;
    esac
done
