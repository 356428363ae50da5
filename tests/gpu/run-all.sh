#!/usr/bin/env bash
# run-all.sh - everything that needs a GPU, in one command, for a lent or a local GPU.
#
#   tests/gpu/run-all.sh [bench] [grade-solutions] [grade-labs] [cheats] [noise] [emu-compare]
#                                                                          (default: the first four)
#
#   bench            make bench: skeleton, ladder rungs, reference and ceiling of every lab,
#                    each timed in-process (CUDA events) and through the isolated path
#   grade-solutions  make grade STUDENT=solutions three times (timed): every lab must pass
#   grade-labs       make grade on the untouched skeletons: every correctness check must
#                    pass and every speed check fail
#   explain          tests/gpu/explain-agree.sh: make explain's counters (the CPU emulator) beside
#                    make profile's (Nsight Compute) for every skeleton, rung and reference, the
#                    same call at the emulator's size, the GPU side built with -G and -O3
#                    (EXPLAIN_LABS="01-coalescing ...": some labs only)
#   estimate-agree   tests/gpu/estimate-agree.sh: the no-GPU speed estimate (make grade's
#                    ESTIMATE, GPU_PROFILE set to this GPU) beside the ratio make grade measures
#                    here, for every reference, ladder rung and honest case of tests/cheats
#   cold-grade       a student's first make grade: build/ removed, then make grade of the
#                    skeletons, timed whole, with the build's line per lab (BUILD_FOR=none
#                    builds nothing before it)
#   rungs            tests/emu/rungs.sh --gpu: every ladder rung graded as a student's file on
#                    the GPU (the compile sandbox, its helper headers beside it), every
#                    correctness check OK, each rung's speed against its lab's mark printed
#   cheats           tests/cheats/run.sh: every cheating submission and honest control
#                    (CHEATS="g05-slow-the-reference h18-...": some cases only)
#   noise            tests/gpu/noise.sh: the reference's slowdown beside an honest student's
#                    process against alone, per lab, over several gradings of the solutions
#                    (what each lab's slowdown_noise is set from); about 3.5 minutes
#   batch-rate       make grade-batch of BATCH_N students (default 4: copies of the solutions
#                    and of the skeletons, alternating: tests/gpu/make-batch.sh) on GPU 0 alone,
#                    then with GPUS=all: the time of each and students per hour
#   cuda-start   tests/gpu/cuda-start.sh: a CUDA process's start and end alone and one per GPU
#                at once, and make grade of two labs alone, at once, and at once in one process
#                each (what bounds a batch graded on several GPUs of one host)
#   hello        tests/gpu/hello.sh: what a fresh worker's first command waits for (the GPU's
#                context, the object's load, the runtime's first call, a first launch), per lab,
#                alone and one process per GPU at once
#   numa         tests/gpu/numa.sh: the host's NUMA nodes, GPU 0's copy rates to pinned memory on
#                each, alone and beside the other GPUs' copies and the CPUs' copying, and pairs
#                of arrays made as lab 05's outputs are (and made together), copied into in
#                turn, alone and beside the other GPUs' copies (numa-probe.cu)
#   tools        make doctor; make profile of every lab; make sanitize of the solutions (all
#                clean) and of the planted bugs in tests/gpu/sanitize/ (found)
#   shared-gpu   the solutions and honest streams cases graded beside a compositor-like
#                neighbour and a steady compute neighbour (tests/gpu/neighbour.cu)
#   timeslice    tests/gpu/timeslice-probe.cu: how the GPU shares itself between two processes'
#                contexts (what timing from outside rests on)
#   wavefronts   tests/gpu/wavefront-probe.sh: shared-memory wavefronts of one warp's load or
#                store, 4, 8 and 16 bytes per lane, in many lane patterns, Nsight Compute beside
#                the CPU emulator (wavefronts.tsv: the table make test-emulator holds it to)
#   inflight     tests/gpu/inflight-probe.cu: lab 04's memory task at the lab's launch by way of
#                keeping bytes in flight (registers, cp.async, TMA bulk copies, L2 prefetch),
#                against cudaMemcpy, over cudaMalloc and the grader's cuMemCreate buffers
#   stride       tests/gpu/stride-probe.cu: lab 01's strided and misaligned copies against
#                cudaMemcpy, and Nsight Compute's DRAM bytes and L2 sectors of each (one launch)
#   attributes   tests/gpu/attributes-probe.cu: cudaFuncGetAttributes and the occupancy calls for
#                kernels of known shapes, on the GPU (sm_90) and on the CPU emulator, compared
#   occupancy    tests/gpu/occupancy-probe.cu: lab 04's skeleton and rung 1 at the lab's launch
#                and at full occupancy, against cudaMemcpy and the FMA peak
#   sorted       tests/gpu/sorted-probe.cu: lab 03's skeleton and rung 1 on the lab's mixed input
#                and on the same elements sorted by class
#   sm-fractions tests/gpu/smfraction/run.sh: the self-check and the skeletons (SM_BENCH=1: and
#                make bench) on this GPU limited by MPS to 12%, 25% and 50% of its SMs
#                (SM_PERCENTS="..." for others): a smaller GPU made of this one
#   non-root     grading as an ordinary user: a copy of the tree owned by a new user, labs 01
#                and 08 of the solutions graded there (the sandbox then makes its view in that
#                user's namespaces), make doctor's counters line, and make profile where the
#                counters may be reserved for administrators
#   emu-compare  the planted-bug programs of tests/emu built for the GPU, their verdicts next
#                to the emulator's (see common/emu/README.md)
#
# Logs go to $OUT (or build/gpu-run); a short summary is printed last.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-build/gpu-run}
mkdir -p "$OUT"
parts=${*:-bench grade-solutions grade-labs cheats}
summary=$OUT/summary.txt
# run_probe NAME [FLAGS AND SOURCES ...]: tests/gpu/NAME-probe.cu built with what it links of
# common/ (tests/gpu/probe.h), run, its table in OUT/NAME.txt and the summary
. tests/gpu/probe-common.sh # PROBE_COMMON
run_probe() {
    local name=$1
    shift
    # shellcheck disable=SC2086
    nvcc -O3 -arch=native -Icommon "$@" -o "$OUT/$name-probe" "tests/gpu/$name-probe.cu" $PROBE_COMMON &&
        "$OUT/$name-probe" 2>&1 | tee "$OUT/$name.txt" | tee -a "$summary"
}
: >"$summary"
jobs=$(nproc)

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,ecc.mode.current \
    --format=csv | tee -a "$summary"
# BUILD_FOR=batch: only what a batch shares (each student's own objects are built, and timed,
# as part of grading them).
# BUILD_FOR=none: nothing built first (cold-grade builds from nothing itself).
if [ "${BUILD_FOR:-all}" = batch ]; then
    build_ok() { make -j"$jobs" batch-prebuild >"$OUT/build.log" 2>&1; }
elif [ "${BUILD_FOR:-all}" = none ]; then
    build_ok() { :; }
else
    build_ok() { make -j"$jobs" all >"$OUT/build.log" 2>&1 && make -j"$jobs" runners STUDENT=solutions >>"$OUT/build.log" 2>&1; }
fi
start=$(date +%s)
if ! build_ok; then
    tail -40 "$OUT/build.log"
    exit 1
fi
echo "build: $(( $(date +%s) - start )) s" | tee -a "$summary"

for part in $parts; do
    pstart=$(date +%s)
    case $part in
    bench)
        make --no-print-directory bench 2>&1 | tee "$OUT/bench.txt"
        { echo; echo "== bench"; cat "$OUT/bench.txt"; } >>"$summary"
        ;;
    explain)
        # EXPLAIN_LABS="01-coalescing 02-banks": some labs only
        # shellcheck disable=SC2086
        OUT=$OUT tests/gpu/explain-agree.sh ${EXPLAIN_LABS:-} 2>&1 | tee "$OUT/explain-agree.txt"
        { echo; echo "== explain agreement"; cat "$OUT/explain-agree.txt"; } >>"$summary"
        ;;
    estimate-agree)
        # the no-GPU estimate against this GPU's make grade: every reference, rung, honest case
        OUT=$OUT tests/gpu/estimate-agree.sh 2>&1 | tee "$OUT/estimate-agree.txt"
        { echo; echo "== estimate agreement"; cat "$OUT/estimate-agree/table.txt"; } >>"$summary"
        ;;
    cold-grade)
        # A student's first make grade: from a clean tree, the skeletons, every lab.
        rm -rf "${BUILD:-build}"
        start=$(date +%s%N)
        make --no-print-directory grade >"$OUT/cold-grade.txt" 2>&1
        status=$?
        echo "cold make grade of the skeletons (nothing built before): $(( ($(date +%s%N) - start) / 1000000 )) ms, exit $status, $(grep '^Score' "$OUT/cold-grade.txt")" | tee -a "$summary"
        sed -n '/^Building/,/^Built in/p' "$OUT/cold-grade.txt" | tee -a "$summary"
        ;;
    grade-solutions | grade-labs)
        who=${part#grade-}
        runs=3
        [ "$who" = labs ] && runs=1
        for i in $(seq $runs); do
                start=$(date +%s%N)
                make --no-print-directory grade STUDENT=$who >"$OUT/grade.tmp" 2>&1
                status=$?
                echo "$who run $i: make grade took $(( ($(date +%s%N) - start) / 1000000 )) ms (warm build)" | tee -a "$summary"
                cat "$OUT/grade.tmp" >>"$OUT/grades-$who.txt"
                cp "${BUILD:-build}/grade/results.json" "$OUT/results-$who-$i.json"
                # a speed line reports "0.93x the reference (needs 0.50x)" or why it was skipped
                speed_re='x the reference \(needs|skipped: speed'
                speed=$(grep -cE "$speed_re" "$OUT/grade.tmp")
                fails=$(grep -cE '(FAIL|ERROR) ' "$OUT/grade.tmp")
                speed_fails=$(grep -E "$speed_re" "$OUT/grade.tmp" | grep -cE ' FAIL ')
                printf '%-9s run %d: exit %d, %s, %d checks not OK, %d of %d speed checks failed\n' \
                    "$who" "$i" "$status" "$(grep '^Score' "$OUT/grade.tmp")" "$fails" \
                    "$speed_fails" "$speed" | tee -a "$summary"
                grep -E "$speed_re" "$OUT/grade.tmp" | sed "s/^/    $who $i /" >>"$summary"
        done
        rm -f "$OUT/grade.tmp"
        ;;
    rungs)
        tests/emu/rungs.sh --gpu 2>&1 | tee "$OUT/rungs.txt"
        { echo; echo "== rungs"; cat "$OUT/rungs.txt"; } >>"$summary"
        ;;
    cheats)
        # CHEATS="c01-forge-records h04-skeleton ...": some cases only
        # shellcheck disable=SC2086
        tests/cheats/run.sh ${CHEATS:-} 2>&1 | tee -a "$OUT/cheats.txt"
        { echo; echo "== cheats"; cat "$OUT/cheats.txt"; } >>"$summary"
        ;;
    noise)
        OUT=$OUT tests/gpu/noise.sh 2>&1 | tee "$OUT/noise.txt"
        { echo; echo "== noise"; tail -14 "$OUT/noise.txt"; } >>"$summary"
        ;;
    batch-rate)
        subs=$OUT/batch-rate/submissions
        rm -rf "$OUT/batch-rate"
        tests/gpu/make-batch.sh "$subs" "${BATCH_N:-4}"
        ngpu=$(nvidia-smi -L | grep -c '^GPU')
        for gpus in 0 all; do
            start=$(date +%s%N)
            make --no-print-directory grade-batch SUBMISSIONS="$subs" OUT="$OUT/batch-rate/out-$gpus" \
                GPUS=$gpus >"$OUT/batch-rate-$gpus.txt" 2>&1
            status=$?
            ms=$(( ($(date +%s%N) - start) / 1000000 ))
            n=${BATCH_N:-4}
            printf 'batch GPUS=%s (%s GPU(s) here): %d students in %d.%01d s, exit %d: %d students per hour\n' \
                "$gpus" "$([ "$gpus" = all ] && echo "$ngpu" || echo 1)" "$n" $((ms / 1000)) $((ms % 1000 / 100)) \
                "$status" $((n * 3600000 / ms)) | tee -a "$summary"
            cut -d, -f1-12 "$OUT/batch-rate/out-$gpus/gradebook.csv" | sed 's/^/    /' >>"$summary"
        done
        ;;
    cuda-start)
        OUT=$OUT/cuda-start tests/gpu/cuda-start.sh 2>&1 | tee "$OUT/cuda-start.txt"
        { echo; echo "== cuda-start"; cat "$OUT/cuda-start.txt"; } >>"$summary"
        ;;
    hello)
        OUT=$OUT/hello tests/gpu/hello.sh 2>&1 | tee "$OUT/hello.txt"
        { echo; echo "== hello"; cat "$OUT/hello.txt"; } >>"$summary"
        ;;
    numa)
        OUT=$OUT/numa tests/gpu/numa.sh 2>&1 | tee "$OUT/numa.txt"
        { echo; echo "== numa"; cat "$OUT/numa.txt"; } >>"$summary"
        ;;
    tools)
        # make doctor, make profile of every lab's skeleton (and lab 06 with the solutions),
        # make sanitize of the solutions (every tool must be clean: the harness's own kernels
        # never count against a student) and of two planted bugs (tests/gpu/sanitize/).
        make --no-print-directory doctor >"$OUT/doctor.txt" 2>&1
        echo "doctor: exit $?" | tee -a "$summary"
        grep -E 'counters|Nsight|sanitizer' "$OUT/doctor.txt" | sed 's/^/    /' >>"$summary"
        for lab in ${TOOLS_LABS:-01 02 03 04 05 06 07 08 09}; do
            start=$(date +%s)
            make --no-print-directory profile LAB=$lab >"$OUT/profile-$lab.txt" 2>&1
            echo "profile LAB=$lab: exit $?, $(( $(date +%s) - start )) s" | tee -a "$summary"
        done
        make --no-print-directory profile LAB=06 STUDENT=solutions >"$OUT/profile-06-solutions.txt" 2>&1
        echo "profile LAB=06 STUDENT=solutions: exit $?" | tee -a "$summary"
        start=$(date +%s)
        make --no-print-directory sanitize STUDENT=solutions ${TOOLS_LABS:+LAB=$(echo $TOOLS_LABS | tr ' ' ,)} \
            >"$OUT/sanitize-solutions.txt" 2>&1
        echo "sanitize STUDENT=solutions: exit $? (0: every tool clean), $(( $(date +%s) - start )) s" | tee -a "$summary"
        grep -E '^== |^  [a-z]+ ' "$OUT/sanitize-solutions.txt" | sed 's/^/    /' >>"$summary"
        for bug in no-bounds:memcheck no-sync:racecheck; do # each with the tool that must find it
            tool=${bug#*:} bug=${bug%:*}
            SANITIZE_TOOLS=$tool make --no-print-directory sanitize LAB=transpose STUDENT=tests/gpu/sanitize/transpose-$bug.cu \
                >"$OUT/sanitize-$bug.txt" 2>&1
            echo "sanitize ($tool) of transpose-$bug.cu: exit $? (1: found)" | tee -a "$summary"
            grep -E '^  [a-z]+ |^    |^        at' "$OUT/sanitize-$bug.txt" | sed 's/^/    /' >>"$summary"
        done
        ;;
    shared-gpu)
        # Grading beside another program on the same GPU: a 60 Hz compositor-like loop of
        # short kernels, then a steady compute job. No honest verdict may change, nobody is
        # accused, and the report names the neighbour.
        nvcc -O2 -o "$OUT/neighbour" tests/gpu/neighbour.cu || exit 1
        for kind in compositor compute; do
            "$OUT/neighbour" $kind 600 >"$OUT/neighbour-$kind.txt" 2>&1 &
            npid=$!
            sleep 1
            make --no-print-directory grade STUDENT=solutions LAB="${SHARED_LAB:-}" >"$OUT/shared-$kind.txt" 2>&1
            status=$?
            CHEATS_WORK=build/cheats-$kind tests/cheats/run.sh ${SHARED_CASES:-h02-streams-sync-workspace h11-streams-priorities-callback h05-flat-float4} \
                >"$OUT/shared-$kind-cheats.txt" 2>&1
            kill $npid; wait $npid 2>/dev/null
            printf 'beside a %s neighbour: solutions exit %d, %s, %d speed FAIL, %d accusations, neighbour named in %d labs; honest cases: %s\n' \
                $kind $status "$(grep '^Score' "$OUT/shared-$kind.txt")" \
                "$(grep -E 'x the reference' "$OUT/shared-$kind.txt" | grep -c ' FAIL ')" \
                "$(grep -ciE 'slower beside your code|kept the GPU busy' "$OUT/shared-$kind.txt" "$OUT/shared-$kind-cheats.txt" | awk -F: '{s+=$NF} END {print s}')" \
                "$(grep -c 'other programs used this GPU' "$OUT/shared-$kind.txt")" \
                "$(tail -1 "$OUT/shared-$kind-cheats.txt")" | tee -a "$summary"
            grep -E 'x the reference' "$OUT/shared-$kind.txt" | sed "s/^/    $kind /" >>"$summary"
        done
        ;;
    wavefronts)
        OUT=$OUT tests/gpu/wavefront-probe.sh 2>&1 | tee "$OUT/wavefront-probe.txt" | tail -1 | tee -a "$summary"
        ;;
    inflight)
        nvcc -O3 -arch=native -Igrader/labs/04-ilp -o "$OUT/inflight-probe" tests/gpu/inflight-probe.cu -lcuda &&
            "$OUT/inflight-probe" 2>&1 | tee "$OUT/inflight.txt" | tee -a "$summary"
        ;;
    stride)
        run_probe stride &&
            ncu --csv --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum \
                --kernel-name strided_copy "$OUT/stride-probe" --once >"$OUT/stride-ncu.csv" 2>&1
        awk -F'","' 'NR > 1 && $1 ~ /^"[0-9]/ {sub(/"$/, "", $NF); print "    ncu launch " substr($1, 2) ": " $(NF-2) " = " $NF " " $(NF-1)}' \
            "$OUT/stride-ncu.csv" | tee -a "$summary"
        ;;
    occupancy)
        run_probe occupancy -Igrader/labs/04-ilp -Isolutions/04-ilp common/sizing.c
        ;;
    attributes)
        # the same kernels' figures from the GPU (built for sm_90, the CPU emulator's CC) and
        # from the CPU emulator (which asks nvcc for them): the two printouts must match
        eb=${BUILD:-build}/emu
        make -s --no-print-directory "$eb/tools/libcudaemu.a" "$eb/tools/emu-rewrite" \
            "$eb"/pch/cuda_emu/prelude.h.gch/{checked,checked-pic,trusted} >/dev/null 2>&1
        nvcc -O3 -arch=sm_90 -o "$OUT/attributes-probe" tests/gpu/attributes-probe.cu &&
            "$OUT/attributes-probe" >"$OUT/attributes-gpu.txt" 2>&1
        EMU_BUILD=$eb EMU_CXX=g++ EMU_CC=gcc common/emu/emu-nvcc \
            -o "$OUT/attributes-probe-emu" tests/gpu/attributes-probe.cu 2>"$OUT/attributes-emu-build.txt" &&
            "$OUT/attributes-probe-emu" >"$OUT/attributes-emu.txt" 2>&1
        { echo "== attributes: the GPU's, then the CPU emulator's where they differ (none: the same)"
          cat "$OUT/attributes-gpu.txt"
          diff "$OUT/attributes-gpu.txt" "$OUT/attributes-emu.txt" && echo "(the emulator's: the same, line for line)"; } | tee -a "$summary"
        ;;
    sorted)
        run_probe sorted -Igrader/labs/03-divergence
        ;;
    timeslice)
        nvcc -O2 -arch=native -o "$OUT/timeslice-probe" tests/gpu/timeslice-probe.cu &&
            "$OUT/timeslice-probe" 2>&1 | tee "$OUT/timeslice.txt" | tee -a "$summary"
        ;;
    sm-fractions)
        # shellcheck disable=SC2086
        OUT=$OUT tests/gpu/smfraction/run.sh ${SM_PERCENTS:-} 2>&1 | tee "$OUT/sm-fractions.txt"
        { echo; echo "== sm fractions"; cat "$OUT/sm-fractions.txt"; } >>"$summary"
        ;;
    non-root)
        user=workbook-student nr=/tmp/workbook-nonroot
        id $user >/dev/null 2>&1 || useradd -m $user || { echo "non-root: cannot add a user here" | tee -a "$summary"; continue; }
        rm -rf $nr && mkdir -p $nr && tar --exclude=./build --exclude='./build-*' --exclude='./.toolkit*' -cf - . | tar -xf - -C $nr
        chown -R $user: $nr
        as_user() { su -s /bin/bash $user -c "cd $nr && $*"; }
        as_user make --no-print-directory grade LAB=01,08 STUDENT=solutions >"$OUT/nonroot-grade.txt" 2>&1
        echo "non-root ($user): make grade LAB=01,08 STUDENT=solutions: exit $?, $(grep '^Score' "$OUT/nonroot-grade.txt"), isolation: $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(r["tamper_proof"], r.get("isolation",""))' $nr/build/grade/results.json 2>&1)" | tee -a "$summary"
        grep -E 'x the reference' "$OUT/nonroot-grade.txt" | sed 's/^/    /' | tee -a "$summary"
        as_user make --no-print-directory doctor >"$OUT/nonroot-doctor.txt" 2>&1
        grep -iE 'counters|sandbox|namespaces|landlock' "$OUT/nonroot-doctor.txt" | sed 's/^/    doctor: /' | tee -a "$summary"
        as_user make --no-print-directory profile LAB=01 STUDENT=solutions >"$OUT/nonroot-profile.txt" 2>&1
        echo "    profile LAB=01 as $user: exit $?: $(grep -m1 -iE 'ERR_NVGPUCTRPERM|administrators|sectors' "$OUT/nonroot-profile.txt")" | tee -a "$summary"
        ;;
    emu-compare)
        if [ -x tests/emu/gpu-compare.sh ]; then
            tests/emu/gpu-compare.sh 2>&1 | tee "$OUT/emu-compare.txt"
            { echo; echo "== emulator vs GPU"; tail -30 "$OUT/emu-compare.txt"; } >>"$summary"
        else
            echo "no tests/emu/gpu-compare.sh here: skipped" | tee -a "$summary"
        fi
        ;;
    *)
        echo "unknown part '$part' (bench, grade-solutions, grade-labs, cheats, noise," \
            "batch-rate, tools, shared-gpu, timeslice, inflight, stride, occupancy, sorted, sm-fractions, non-root, emu-compare, explain, cold-grade)" >&2
        exit 2
        ;;
    esac
    echo "[$part: $(( $(date +%s) - pstart )) s]" | tee -a "$summary"
done
echo
echo "==================== summary ===================="
cat "$summary"
