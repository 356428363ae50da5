# roofline.awk - make roofline: your GPU's roofline, drawn from make bench's tables, with each
# variant (skeleton or yours, the ladder's rungs, the reference) placed on it.
#
#   awk -F'\t' -f grader/feedback/roofline.awk build/bench/*.tsv
#
# Input: the rows make bench writes (lab, task, size, variant, ms, rate, unit, x_ref, x_ceil).
# The roofs are the GPU's own, measured in the same tables: DRAM bandwidth from the copy ceiling
# (cudaMemcpy D2D, bytes read plus written; lab 01's when it is there), the FP32 peak from the
# FMA-peak ceiling (labs 03 and 04). Each task's arithmetic intensity is counted at its minimum
# DRAM traffic, as labs/PRIMER.md derives it; tasks with no flops to speak of (labs 02, 05, 06,
# 08) are not on a roofline and are left out. Prints the roofs, a chart (log2 axes), and per
# variant its point and its fraction of the roof above it.
BEGIN {
    # flops per byte at the minimum traffic (labs/PRIMER.md, "Your GPU's roofline")
    I["coalescing"] = 0.25; I["ilp_memory"] = 0.125; I["reduction"] = 0.25
    I["divergence"] = 240; I["ilp_arith"] = 256; I["sgemm"] = -1 # n / 8 at its size n
    short["coalescing"] = "01"; short["ilp_memory"] = "04m"; short["reduction"] = "07"
    short["divergence"] = "03"; short["ilp_arith"] = "04a"; short["sgemm"] = "09"
}
FNR == 1 && $1 == "lab" { next }
NF < 7 { next }
$4 == "cudaMemcpy D2D" {
    if (!bw || $1 == "coalescing") bw = $6 / 1000 # TB/s
    next
}
$4 == "FP32 FMA peak" { # TFLOP/s (lab 04's when it is there)
    if (!peak || $1 == "ilp") peak = $6 / 1000
    next
}
!($2 in I) { next }
$4 == "reference" || $4 == "skeleton" || $4 == "yours" || $4 ~ /^steps\// {
    t = $2
    intensity = I[t] > 0 ? I[t] : ($3 + 0) / 8
    if (intensity <= 0) next
    tf = $7 == "GB/s" ? $6 * intensity / 1000 : $7 == "GFLOP/s" ? $6 / 1000 : -1
    if (tf <= 0) next
    n++
    pt_task[n] = t; pt_var[n] = $4; pt_i[n] = intensity; pt_tf[n] = tf
}
function log2(x) { return log(x) / log(2) }
function roof(i) { return i * bw < peak ? i * bw : peak }
function label(k,    v) {
    v = pt_var[k]
    return (v == "reference" ? "r" : v == "skeleton" ? "s" : v == "yours" ? "y" : "") short[pt_task[k]]
}
END {
    if (!bw || !peak) {
        printf "make roofline needs both roofs from make bench: %s%s. Run make bench LAB=01,03,04,07,09 " \
            "(or LAB=01 and LAB=04 for the roofs alone) on a GPU.\n",
            bw ? "" : "the copy bandwidth (lab 01, 04 or 06's cudaMemcpy D2D row)",
            peak ? "" : (bw ? "" : " and ") "the FP32 FMA peak (lab 03 or 04)" > "/dev/stderr"
        exit 2
    }
    printf "roofs: DRAM %.2f TB/s (copy), FP32 FMA peak %.1f TFLOP/s, ridge %.0f flop/B\n\n",
        bw, peak, peak / bw
    # the chart: x from 1/8 to 512 flop/B, 6 columns a doubling; y from the peak's power of two
    # down 11 doublings
    x0 = -3; x1 = 9; cw = 6; width = (x1 - x0) * cw + 1
    top = int(log2(peak) + 0.5)
    rows = 12
    for (r = 0; r < rows; r++) line[r] = sprintf("%" width "s", "")
    for (c = 0; c < width; c++) { # the roof, in the row nearest it
        i = 2 ^ (x0 + c / cw)
        r = int(top - log2(roof(i)) + 0.5)
        if (r >= 0 && r < rows)
            line[r] = substr(line[r], 1, c) (i * bw < peak ? "/" : "_") substr(line[r], c + 2)
    }
    for (k = 1; k <= n; k++) { # the points by intensity, highest first (each keeps its column
        order[k] = k           # where it can; one in the way moves left)
        for (j = k; j > 1 && pt_i[order[j - 1]] < pt_i[order[j]]; j--) {
            tmp = order[j]; order[j] = order[j - 1]; order[j - 1] = tmp
        }
    }
    for (o = 1; o <= n; o++) { # (skeleton, yours, reference: the rungs are in the table)
        k = order[o]
        if (pt_var[k] ~ /^steps\//) continue
        c = int((log2(pt_i[k]) - x0) * cw + 0.5)
        r = int(top - log2(pt_tf[k]) + 0.5)
        if (r < 0) r = 0
        if (r >= rows) r = rows - 1
        s = label(k)
        if (c + length(s) > width) c = width - length(s)
        # leave a space between labels: move left past any label in the way
        while (c > 0 && substr(line[r], c, length(s) + 2) ~ /[a-z0-9]/) c--
        line[r] = substr(line[r], 1, c) s substr(line[r], c + length(s) + 1)
    }
    print "TFLOP/s"
    for (r = 0; r < rows; r++) {
        sub(/ +$/, "", line[r])
        printf "%7s |%s\n", fmt_pow(top - r), line[r]
    }
    printf "        +%s\n", dashes(width)
    axis = sprintf("%" width "s", "")
    for (e = x0; e <= x1; e += 2) {
        s = e < 0 ? "1/" 2 ^ -e : 2 ^ e
        c = (e - x0) * cw
        axis = substr(axis, 1, c) s substr(axis, c + length(s) + 1)
    }
    printf "         %s flop/B\n", axis
    printf "  / DRAM roof, %.2f TB/s x intensity   _ FP32 FMA peak, %.1f TFLOP/s\n", bw, peak
    print "  sNN skeleton, yNN yours, rNN reference (04m, 04a: lab 04's memory and arithmetic tasks)\n"
    printf "%-11s %-34s %8s %10s %s\n", "task", "variant", "flop/B", "TFLOP/s", "of the roof above it"
    for (k = 1; k <= n; k++)
        printf "%-11s %-34s %8.3g %10.3f %.2f\n", pt_task[k], pt_var[k], pt_i[k], pt_tf[k],
            pt_tf[k] / roof(pt_i[k])
    print "\nA point well under its roof is limited by something else: latency, the instruction mix, the"
    print "caches (labs/PRIMER.md, \"Your GPU's roofline\", says how to read it)."
}
function fmt_pow(e) { return e >= 0 ? 2 ^ e : "1/" 2 ^ -e }
function dashes(n,    s) { s = ""; while (n-- > 0) s = s "-"; return s }
