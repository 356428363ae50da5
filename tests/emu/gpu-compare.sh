#!/usr/bin/env bash
# gpu-compare.sh - on a GPU machine: the planted-bug programs built for the GPU, run plain and
# under compute-sanitizer, one line each, to set beside the emulator's reports for the same
# sources (tests/emu/planted/README.md; `make test-emulator` asserts the emulator's side).
#   tests/emu/gpu-compare.sh        (called by tests/gpu/run-all.sh emu-compare)
set -u
cd "$(dirname "$0")/../.."
make --no-print-directory -f tests/emu/emu_tests.mk emu-planted-gpu EMU_GPU_ARCH=-arch=native \
    >build/emu-gpu.log 2>&1 || { tail -20 build/emu-gpu.log; exit 1; }
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
printf '%-22s %-5s %-34s %s\n' program exit "last line printed" "compute-sanitizer (memcheck / racecheck / synccheck / initcheck)"
for src in tests/emu/planted/*.cu; do
    name=$(basename "$src" .cu)
    for prog in "$name" "${name}_fixed"; do
        out=$(timeout 60 "build/emu-gpu/$prog" 2>&1)
        status=$?
        found=""
        for tool in memcheck racecheck synccheck initcheck; do
            report=$(timeout 120 "$sanitizer" --tool "$tool" --error-exitcode 99 "build/emu-gpu/$prog" 2>&1)
            # memcheck, synccheck, initcheck: "ERROR SUMMARY: N errors"; racecheck:
            # "RACECHECK SUMMARY: N hazards displayed"
            errors=$(printf '%s\n' "$report" |
                sed -n 's/.*\(ERROR\|RACECHECK\) SUMMARY: \([0-9]*\) \(error\|hazard\).*/\2/p' | tail -1)
            found+="${errors:-?} / "
        done
        printf '%-22s %-5s %-34.34s %s\n' "$prog" "$status" "$(printf '%s\n' "$out" | tail -n 1)" "${found% / }"
    done
done
