#!/usr/bin/env bash
# compare.sh - the emulator's shared-memory wavefronts for the wavefront probe beside a table
# of a GPU's, row by row.
#
#   tests/emu/probes/compare.sh PROBE TABLE [GPU-NAME]
#
# PROBE: the probe built for the emulator (build/emu/tests/probes/wavefront-probe); TABLE: one
# line per kernel, pattern <tab> width <tab> load|store <tab> wavefronts per instruction, in the
# order the probe runs them (tests/emu/probes/wavefronts-h200.tsv, or what
# tests/gpu/wavefront-probe.sh measured). Prints a row per difference, then a count; exit
# status 0 when every row agrees, 1 otherwise, 2 when the probe could not run.
set -u
probe=$1 table=$2 gpu=${3:-GPU}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
CUDA_EMU_COUNT=$dir/counts.tsv "$probe" >"$dir/order.txt" 2>"$dir/emu.log" ||
    { echo "compare.sh: the probe failed under the emulator:" >&2; tail -5 "$dir/emu.log" >&2; exit 2; }
# Range k is the k-th kernel: its shared rows of the pattern's direction (odd ranges load, even
# store; the other direction is the fill or the read-back). A float2 or float4 that g++ copies
# field by field is one row once count.cpp has merged its pieces; wavefronts per instruction.
awk -F'\t' '$3 == "shared" { split($1, r, " "); if (r[1] != "range") next
        if ($4 == (r[2] % 2 == 1 ? "load" : "store")) { u[r[2]] += $8; q[r[2]] += $6 } }
    END { for (k in u) print k "\t" (q[k] ? u[k] / q[k] : "-") }' "$dir/counts.tsv" | sort -n >"$dir/emu.txt"
cut -f1-3 "$table" | cmp -s - "$dir/order.txt" ||
    { echo "compare.sh: $table does not list the probe's kernels in its order (measure it again: tests/gpu/wavefront-probe.sh)" >&2; exit 2; }
paste "$table" "$dir/emu.txt" | awk -F'\t' -v gpu="$gpu" '
    { if ($6 == $4) { a++; next }
      d++; if (d == 1) printf "%-18s %3s %-6s %9s %9s\n", "pattern", "B", "op", "emulator", gpu
      printf "%-18s %3s %-6s %9s %9s\n", $1, $2, $3, $6, $4 }
    END { printf "wavefront probe: %d of %d kernels agree with %s\n", a, a + d, gpu; exit d > 0 }'
