#!/usr/bin/env bash
# run.sh - grader/make/vet.sh judges what a student object uses, never the names it defines: a table
# of objects it must admit and objects it must reject, with the words the rejection must say.
#   tests/vet/run.sh [REGEX]   (make test-vet: NVCC, EMU_NVCC, BUILD and every lab's FORBID_*,
#                               FORBID_PTX_* and FORBID_SASS_* from the environment; REGEX:
#                               only the rows it matches)
# Each row is one small student file compiled as the build compiles it, for the GPU (nvcc) or
# for the CPU emulator (emu-nvcc), vetted with its lab's own rules (grader/labs/*/table.c, as
# the Makefile passes them), and the verdict it must get. Then a check that vet.sh's list of
# the emulator's internal names covers the two headers that declare them, and names nothing
# the emulator's public headers declare.
set -u
out=${BUILD:-build}/tests/vet
mkdir -p "$out"
here=$(dirname "$0")
pass=0 fail=0

# mode: gpu (nvcc) or emu (emu-nvcc); file: in tests/vet, or skeleton / solution (the lab's
# own); verdict: admit or reject; the rest of the line: an extended regex the rejection's
# first line must match (- for an admitted file).
# Every skeleton and every solution is vetted by the builds make test runs anyway (test-build
# for the GPU, emu-runners for the emulator, each with its lab's rules), so no row repeats
# them; but the build vets the solutions' own objects without the PTX rule (they are the
# reference's), so the one lab that has a PTX rule, sgemm, has its solution's row here.
#  mode lab          file                           verdict  message
rows=(
  "gpu  coalescing   good.cu                        admit    -"
  "gpu  coalescing   defines_cuda_timer.cu          admit    -"
  "gpu  coalescing   defines_memcpy.cu              admit    -"
  "gpu  coalescing   defines_harness_symbol.cu      admit    -"
  "gpu  streams      names_like_the_driver.cu       admit    -"
  "gpu  reduction    names_like_cub.cu              admit    -"
  "gpu  sgemm        names_like_tensor_cores.cu     admit    -"
  "gpu  sgemm        names_like_sass.cu             admit    -"
  "gpu  sgemm        solution                       admit    -"
  "gpu  coalescing   calls_reference.cu             reject   calls 'ref_coalescing', the reference solution"
  "gpu  coalescing   calls_dlopen.cu                reject   calls 'dlopen'.*loading code at run time.*libsomething\\.so"
  "gpu  coalescing   missing_entry.cu               reject   does not define 'coalescing'"
  "gpu  coalescing   calls_emulator_internal.cu     reject   calls 'cuda_emu::set_checks', an internal of the CPU emulator"
  "gpu  coalescing   reads_emulator_state.cu        reject   calls 'cuda_emu::(count_flush|g_check)', an internal of the CPU emulator"
  "gpu  streams      uses_driver.cu                 reject   calls cuMemcpy(HtoD|DtoH) \\(the CUDA driver API\\): lab streams is about .*, so the CUDA driver API may not be used"
  "gpu  streams      resolves_driver.cu             reject   resolves cuMemcpyHtoD \\(the CUDA driver API\\) at run time through 'cudaGetDriverEntryPointByVersion'"
  "gpu  streams      get_proc_address.cu            reject   resolves cuMemcpyDtoH \\(the CUDA driver API\\) at run time through 'cuGetProcAddress'"
  "gpu  reduction    uses_cub.cu                    reject   calls cub::DeviceReduce::Sum \\(CUB, compiled into your file from its headers\\): lab reduction is about writing the sum yourself, so CUB may not be used"
  "gpu  reduction    uses_cub_block.cu              reject   contains cub::[A-Za-z_:]+, code of CUB compiled from its headers"
  "gpu  reduction    uses_thrust.cu                 reject   calls thrust::reduce \\(Thrust, compiled into your file from its headers\\)"
  "gpu  reduction    calls_cub_by_name.cu           reject   calls cub_DeviceReduce_Sum \\(CUB\\)"
  "gpu  sgemm        uses_cublas.cu                 reject   calls cublas(Create|SetStream|Sgemm) \\(cuBLAS\\): lab sgemm is about writing the matrix product yourself"
  "gpu  sgemm        dlsym_cublas.cu                reject   calls 'dlopen'.*loading code at run time.*it names libcublas\\.so\\.13, cublasSgemm_v2"
  "gpu  sgemm        uses_tensor_cores.cu           reject   contains the PTX instruction 'wmma\\."
  "gpu  sgemm        uses_mma_sp.cu                 reject   contains the PTX instruction 'mma\\.sp"
  "emu  coalescing   good.cu                        admit    -"
  "emu  streams      names_like_the_driver.cu       admit    -"
  "emu  reduction    names_like_cub.cu              admit    -"
  "emu  sgemm        names_like_tensor_cores.cu     admit    -"
  "emu  sgemm        names_like_sass.cu             admit    -"
  "emu  reduction    calls_cub_by_name.cu           reject   calls cub_DeviceReduce_Sum \\(CUB\\)"
  "emu  coalescing   calls_emulator_internal.cu     reject   calls 'cuda_emu::set_checks', an internal of the CPU emulator"
  "emu  coalescing   reads_emulator_state.cu        reject   calls 'cuda_emu::(count_flush|g_check)', an internal of the CPU emulator"
  "emu  coalescing   calls_dlopen.cu                reject   calls 'dlopen'"
)

# $(echo grader/labs/NN-LAB) and the lab's folder name
lab_grader() { echo grader/labs/[0-9][0-9]-"$1"; }

# One row: compiled, vetted and judged; prints `ok   NAME: ...` or `FAIL NAME: ...` (and the
# compiler's log).
vet_row() { # ROW
    local row=$1 mode lab file verdict want labdir folder src name obj forbid_var ptx_var sass_var
    local forbid ptx_re sass_re ptx entries msg rc first
    read -r mode lab file verdict want <<<"$row"
    labdir=$(lab_grader "$lab")
    folder=$(basename "$labdir")
    case $file in
    skeleton) src=labs/$folder/$lab.cu ;;
    solution) src=solutions/$folder/$lab.cu ;;
    *) src=$here/$file ;;
    esac
    name="$mode $lab ${file%.cu}"
    obj=$out/$mode-$lab-${file%.cu}.o
    forbid_var=FORBID_$lab ptx_var=FORBID_PTX_$lab sass_var=FORBID_SASS_$lab
    forbid=${!forbid_var-UNSET} ptx_re="" sass_re="" ptx=""
    if [ "$forbid" = UNSET ]; then
        echo "FAIL $name: FORBID_$lab is not set: run it through make test-vet"; return
    fi
    if [ "$mode" = gpu ]; then
        if ! "$NVCC" -c -arch=sm_75 -I"$labdir" -Icommon -Isolutions/"$folder" "$src" -o "$obj" 2>"$obj.cc.log"; then
            echo "FAIL $name: did not compile"; cat "$obj.cc.log"; return
        fi
        ptx_re=${!ptx_var-} sass_re=${!sass_var-}
        # the machine-code rule needs cuobjdump (make fetches it where the toolkit lacks it);
        # without one vet.sh rejects every object of the lab, which test-build covers
        command -v "${CUOBJDUMP:-cuobjdump}" >/dev/null 2>&1 || [ -x "${CUOBJDUMP:-}" ] || sass_re=""
        if [ -n "$ptx_re" ]; then
            ptx=$obj.ptx
            "$NVCC" -ptx -arch=compute_90 -I"$labdir" -Icommon -Isolutions/"$folder" "$src" -o "$ptx" 2>>"$obj.cc.log" ||
                { echo "FAIL $name: its PTX did not compile"; cat "$obj.cc.log"; return; }
        fi
    else
        if ! "$EMU_NVCC" -fPIC -I"$labdir" -Icommon -Isolutions/"$folder" -c "$src" -o "$obj" >"$obj.cc.log" 2>&1; then
            echo "FAIL $name: did not compile for the emulator"; cat "$obj.cc.log"; return
        fi
    fi
    entries=$(sed -n "s/^ENTRY_$lab := *//p" "${LABS_MK:-${BUILD:-build}/gen/labs.mk}")
    msg=$(CUOBJDUMP=${CUOBJDUMP:-cuobjdump} grader/make/vet.sh "$lab" "$obj" "$obj.vetted" "$entries" "$forbid" "$sass_re" "$ptx" "$ptx_re" 2>&1)
    rc=$?
    first=$(head -1 <<<"$msg")
    if [ "$verdict" = admit ]; then
        if [ $rc -eq 0 ] && nm -g --defined-only "$obj.vetted" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -qvxF -e "${entries// /$'\n'}"; then
            echo "FAIL $name: admitted, but helpers were left global"
        elif [ $rc -eq 0 ]; then
            echo "ok   $name: admitted"
        else
            echo "FAIL $name: must be admitted, got rc=$rc: $msg"
        fi
    elif [ $rc -eq 1 ] && grep -qE -- "^rejected: your file.*$want" <<<"$first"; then
        if grep -q 'student\.o\|\.raw\|/' <<<"$first"; then
            echo "FAIL $name: the rejection names a file of the build: $first"
        else
            echo "ok   $name: ${first#rejected: }"
        fi
    else
        echo "FAIL $name: expected rc=1 and a rejection matching '$want', got rc=$rc: $msg"
    fi
}

# make test's quick tier (QUICK=1, no REGEX): one row of each kind, admitted and rejected for the
# GPU and the emulator (the reference, the library a lab is about, a PTX instruction, the
# emulator's internals); make test-all: every row.
quick_rows='^(gpu +coalescing +(good|calls_reference)|gpu +reduction +uses_cub|gpu +sgemm +uses_tensor_cores|emu +coalescing +(good|calls_emulator_internal))\.cu '
[ $# -eq 0 ] && [ "${QUICK:-}" = 1 ] && set -- "$quick_rows"

# The rows side by side, one per core (each compiles its own file into its own object), their
# lines printed in the table's order.
lanes=$(nproc 2>/dev/null || echo 2)
running=0 picked=()
for row in "${rows[@]}"; do
    [ $# -eq 0 ] || grep -qE -- "$1" <<<"$row" || continue
    while [ "$running" -ge "$lanes" ]; do wait -n; running=$((running - 1)); done
    vet_row "$row" >"$out/row-${#picked[@]}.txt" 2>&1 &
    running=$((running + 1)) picked+=("$row")
done
wait
for i in "${!picked[@]}"; do
    cat "$out/row-$i.txt"
    if grep -q '^ok   ' "$out/row-$i.txt" && ! grep -q '^FAIL ' "$out/row-$i.txt"; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        grep -q '^FAIL ' "$out/row-$i.txt" || echo "FAIL ${picked[$i]}: no verdict"
    fi
done

# The emulator's internal names: declared in namespace cuda_emu of these two headers (functions,
# extern variables, structs and enums at the namespace's top level), all in vet.sh's list; the
# public headers declare none of them.
emu_names() {
    sed -n '/^namespace cuda_emu {/,/^} \/\/ namespace cuda_emu/p' "$@" | grep -v '^ *\(/\*\|\*\|//\)' |
        sed -nE 's/^(struct|enum class) ([A-Za-z_][A-Za-z0-9_]*).*/\2/p
                 s/^extern [^;(]*[ *&]([A-Za-z_][A-Za-z0-9_]*);.*/\1/p
                 s/^(\[\[[a-z]+\]\] )?[A-Za-z_][A-Za-z0-9_:<>, ]*[ *&]([A-Za-z_][A-Za-z0-9_]*)\(.*/\2/p' | sort -u
}
listed=$(sed -n '/^    split("set_checks/,/emu_internal\[e\[i\]\]/p' grader/make/vet.sh | grep -o '"[^"]*"' | tr -d '"' | tr ' ' '\n' | grep . | sort -u)
internal=$(emu_names common/emu/src/emu_internal.h common/emu/include/cuda_emu/testing.h)
missing=$(comm -23 <(echo "$internal") <(echo "$listed") | tr '\n' ' ')
public=$(find common/emu/include -name '*.h' ! -name testing.h -print0 | xargs -0 cat | sed -n '/^namespace cuda_emu {/,/^} \/\/ namespace cuda_emu/p' >"$out/public.h"; emu_names "$out/public.h")
clash=$(comm -12 <(echo "$public") <(echo "$listed") | tr '\n' ' ')
if [ -z "$internal" ] || [ -z "$listed" ]; then
    echo "FAIL emulator internals: no names read (headers: $(echo "$internal" | wc -w), vet.sh: $(echo "$listed" | wc -w))"; fail=$((fail + 1))
elif [ -n "$missing" ]; then
    echo "FAIL emulator internals: vet.sh's list lacks $missing(declared in common/emu/src/emu_internal.h or cuda_emu/testing.h): add them"; fail=$((fail + 1))
elif [ -n "$clash" ]; then
    echo "FAIL emulator internals: vet.sh's list names $clash, which the emulator's public headers declare: a student's rewritten code calls them"; fail=$((fail + 1))
else
    echo "ok   emulator internals: vet.sh lists all $(echo "$internal" | wc -l) names of the two headers, none public"; pass=$((pass + 1))
fi

# A name in a message is the one a student reads: demangled, or, where c++filt cannot demangle
# it (nvcc's names of some kernel instances, as CUB's), its nested parts as far as they go.
said=$(CXXFILT=${CXXFILT:-c++filt} bash -c '. <(sed -n "/^readable() {/,/^}$/p" grader/make/vet.sh)
    for s in _ZN3cub17CUB_300001_SM_9006detail6reduce28DeviceReduceSingleTileKernelINS2_10policy_hubIfyN4cuda3std3__44plusIvEEE10Policy1000EPKfPfyS9_ffNS7_10__identityEEEvT0_T1_T2_T3_T4_T6_PKfPfyRN4cuda3std3__44plusIvEEfRNS4_10__identityEE5__tmp \
             _ZN3cub17CUB_300001_SM_90012DeviceReduce3SumIPKfPfxEE9cudaError_tPvRmT_T0_T1_P11CUstream_stb cudaMalloc_v2; do
        readable "$s"; done' | tr '\n' ' ')
if [ "$said" = "cub::detail::reduce::DeviceReduceSingleTileKernel cub::DeviceReduce::Sum cudaMalloc " ]; then
    echo "ok   names as read: $said"; pass=$((pass + 1))
else
    echo "FAIL names as read: expected cub::detail::reduce::DeviceReduceSingleTileKernel cub::DeviceReduce::Sum cudaMalloc, got $said"; fail=$((fail + 1))
fi

echo "$pass passed, $fail failed$([ "${QUICK:-}" = 1 ] && [ "${1:-}" = "$quick_rows" ] && echo " (the quick tier: ${#picked[@]} of ${#rows[@]} rows)")"
[ $fail -eq 0 ]
