#!/bin/sh
# run_gpu.sh - run the planted-bug programs built for a GPU (make -f tests/emu/emu_tests.mk
# emu-planted-gpu) and print one line per program: its exit status and RESULT line, to set
# beside what the emulator reports for the same source (tests/emu/planted/README.md).
#
#   tests/emu/planted/run_gpu.sh build/emu-gpu
set -u
dir=${1:?usage: run_gpu.sh DIR (the programs built by emu-planted-gpu)}
printf '%-22s %-6s %s\n' program exit "what it printed (last line)"
for src in "$(dirname "$0")"/*.cu; do
    name=$(basename "$src" .cu)
    for prog in "$name" "${name}_fixed"; do
        out=$(timeout 60 "$dir/$prog" 2>&1)
        status=$?
        printf '%-22s %-6s %s\n' "$prog" "$status" "$(printf '%s\n' "$out" | tail -n 1)"
    done
done
