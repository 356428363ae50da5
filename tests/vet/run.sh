#!/usr/bin/env bash
# run.sh - student objects that grader/vet.sh must reject, and one it must accept.
#   tests/vet/run.sh     (NVCC and BUILD from the environment)
# Each case is a small .cu file compiled like a student's; the table says which lab's rules
# apply and which words the rejection must contain (the offending symbol). Names are free:
# a student's helper called like a C library, CUDA or grader function is accepted (it is made
# local, and the grader runs in another process anyway).
set -u
out=${BUILD:-build}/tests/vet
mkdir -p "$out"
here=$(dirname "$0")
pass=0 fail=0

#      file                       lab          entries      forbidden symbols  forbidden PTX      must contain (- = accepted)
cases=(
  "good.cu                        coalescing   coalescing   -                  -                  -"
  "defines_cuda_timer.cu          coalescing   coalescing   -                  -                  -"
  "defines_memcpy.cu              coalescing   coalescing   -                  -                  -"
  "defines_harness_symbol.cu      coalescing   coalescing   -                  -                  -"
  "calls_reference.cu             coalescing   coalescing   -                  -                  ref_coalescing"
  "calls_dlopen.cu                coalescing   coalescing   -                  -                  dlopen"
  "missing_entry.cu               coalescing   coalescing   -                  -                  does-not-define"
  "uses_cublas.cu                 sgemm        sgemm        cublas|cutlass     -                  cublas"
  "uses_tensor_cores.cu           sgemm        sgemm        -                  SGEMM_PTX          mma"
  "uses_mma_sp.cu                 sgemm        sgemm        -                  SGEMM_PTX          mma.sp"
)
# the lab's own rule, from its table (grader/labs/09-sgemm/table.c), as make passes it
sgemm_ptx=${FORBID_PTX_sgemm:?run it through make test-vet, which passes the rule of lab 09}
for row in "${cases[@]}"; do
    read -r file lab entries forbid ptx_forbid want <<<"$row"
    [ "$forbid" = - ] && forbid=""
    [ "$ptx_forbid" = - ] && ptx_forbid=""
    [ "$ptx_forbid" = SGEMM_PTX ] && ptx_forbid=$sgemm_ptx
    obj=$out/${file%.cu}.o
    if ! "$NVCC" -c -arch=sm_75 -I"$(echo grader/labs/[0-9][0-9]-$lab)" -Icommon "$here/$file" -o "$obj" 2>"$obj.cc.log"; then
        echo "FAIL $file: did not compile"; cat "$obj.cc.log"; fail=$((fail + 1)); continue
    fi
    ptx=""
    if [ -n "$ptx_forbid" ]; then
        ptx=$obj.ptx
        "$NVCC" -ptx -arch=compute_90 -I"$(echo grader/labs/[0-9][0-9]-$lab)" -Icommon "$here/$file" -o "$ptx" || fail=$((fail + 1))
    fi
    msg=$(grader/vet.sh "$lab" "$obj" "$obj.vetted" "$entries" "$forbid" "" "$ptx" "$ptx_forbid" 2>&1)
    rc=$?
    if [ "$want" = - ]; then
        if [ $rc -eq 0 ] && nm -g --defined-only "$obj.vetted" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -qvx "$entries"; then
            echo "FAIL $file: accepted, but helpers were left global"; fail=$((fail + 1))
        elif [ $rc -eq 0 ]; then
            echo "ok   $file: accepted"; pass=$((pass + 1))
        else
            echo "FAIL $file: rejected: $msg"; fail=$((fail + 1))
        fi
    else
        [ "$want" = does-not-define ] && want="does not define"
        if [ $rc -ne 0 ] && grep -q -- "$want" <<<"$msg"; then
            echo "ok   $file: rejected ($(head -1 <<<"$msg" | sed 's/.*: it /it /'))"; pass=$((pass + 1))
        else
            echo "FAIL $file: expected a rejection naming '$want', got rc=$rc: $msg"; fail=$((fail + 1))
        fi
    fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
