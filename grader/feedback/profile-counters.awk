# profile-counters.awk - make profile's table: per speed problem, each counter of the lab's
# table (-v table=grader/labs/NN-name/profile.tsv) for your call and the reference's, side by
# side, each with its reading. Reads the harness's section lines, then Nsight Compute's raw
# CSV (one row per kernel, in launch order; a grader_profile_section kernel opens section N,
# N being its grid size). See profile.sh.
#
#   awk -v table=T -v label=L -v report=R -f profile-counters.awk sections.txt counters.csv

function csv_split(line, f,    n, i, c, q, cur) { # RFC 4180 fields of one line into f[1..n]
    n = 0; cur = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) {
            if (c == "\"") {
                if (substr(line, i + 1, 1) == "\"") { cur = cur "\""; i++ } else q = 0
            } else cur = cur c
        } else if (c == "\"") q = 1
        else if (c == ",") { f[++n] = cur; cur = "" }
        else if (c != "\r") cur = cur c
    }
    f[++n] = cur
    return n
}
function num(s) { gsub(/,/, "", s); return s + 0 }
function is_sum(m) { return m ~ /\.sum$/ }
# A metric's value over section s: summed, or averaged weighted by kernel time.
function metric(s, m) {
    if (!kernels[s]) return ""
    if (!((s, m) in acc)) { missing[m] = 1; return "" }
    if (is_sum(m)) return acc[s, m]
    return wsum[s] > 0 ? acc[s, m] / wsum[s] : acc[s, m] / kernels[s]
}
function operand(s, w) {
    if (w == "kernels") return kernels[s] + 0
    if (w ~ /^[0-9.eE+-]+$/) return w + 0
    return metric(s, w)
}
# Sums joined by / and *, left to right. "" when a metric is missing or a divisor is 0.
function evaluate(s, expr,    w, n, i, result, sum, op, sign, frac, v, bad) {
    n = split(expr, w, " ")
    result = ""; sum = 0; op = ""; sign = 1; frac = 0; bad = 0
    for (i = 1; i <= n + 1; i++) {
        if (i == n + 1 || w[i] == "/" || w[i] == "*") {
            if (op == "") result = sum
            else if (op == "*") result = result * sum
            else if (sum == 0) bad = 1
            else result = result / sum
            if (i <= n) { op = w[i]; sum = 0; sign = 1 }
        } else if (w[i] == "+") sign = 1
        else if (w[i] == "-") sign = -1
        else if (w[i] == "frac") frac = 1
        else {
            v = operand(s, w[i])
            if (v == "") bad = 1
            v += 0
            if (frac) { v = v - int(v); frac = 0 }
            sum += sign * v
        }
    }
    return bad ? "" : result
}
function show(fmt, v) { if (v == "") { dashes = 1; return "-" } return sprintf(fmt, v) }

BEGIN {
    FS = "\t"
    nrows = 0
    while ((getline line < table) > 0) {
        if (line ~ /^#/ || line !~ /\t/) continue
        split(line, f, "\t")
        nrows++; rlabel[nrows] = f[1]; rexpr[nrows] = f[2]; rfmt[nrows] = f[3]; rread[nrows] = f[4]
    }
    close(table)
    if (nrows == 0) { print "profile: no counters in " table > "/dev/stderr"; failed = 1; exit 2 }
}

FNR == NR {                       # sections.txt: section N, check C, task, who, size
    if ($1 !~ /^section /) next
    s = substr($1, 9) + 0
    sec_check[s] = substr($2, 7); sec_task[s] = $3; sec_who[s] = $4; sec_size[s] = $5
    if (s > nsec) nsec = s
    next
}

{                                 # counters.csv
    n = csv_split($0, f)
    if (!header) {
        for (i = 1; i <= n; i++) col[f[i]] = i
        header = 1
        if (!("Kernel Name" in col) || !("launch__grid_size" in col) || !("gpu__time_duration.sum" in col)) {
            print "profile: Nsight Compute's CSV lacks the columns this script reads" > "/dev/stderr"
            failed = 1; exit 2
        }
        for (c in col) if (c ~ /__/) mcol[c] = col[c]
        next
    }
    if (f[col["ID"]] !~ /^[0-9]+$/) next             # the units row
    if (f[col["Kernel Name"]] ~ /grader_profile_section/) { cur = num(f[col["launch__grid_size"]]); next }
    if (!cur) next
    d = num(f[col["gpu__time_duration.sum"]])
    kernels[cur]++; wsum[cur] += d
    for (m in mcol) {
        v = f[mcol[m]]
        if (v == "" || v == "n/a") continue
        acc[cur, m] += is_sum(m) ? num(v) : num(v) * (d > 0 ? d : 1)
    }
}

END {
    if (failed) exit 2
    if (nsec == 0) { print "profile: the harness announced no sections (see harness.log)" > "/dev/stderr"; exit 2 }
    printf "Nsight Compute counters, one call each of %s and of the reference, after a warm-up call.\n", label
    printf "Clocks are locked to base while profiling: compare the two columns, not with make bench.\n"
    for (s = 1; s <= nsec; s += 2) {
        y = s; r = s + 1
        printf "\n== %s, %s\n", sec_task[y], sec_size[y]
        printf "  %-44s %12s %12s\n", "", "yours", "reference"
        printf "  %-44s %12s %12s\n", "kernels launched", kernels[y] + 0, kernels[r] + 0
        printf "  %-44s %12s %12s\n", "time per call, ms (base clock)", show("%.3f", evaluate(y, "gpu__time_duration.sum / 1000000")), show("%.3f", evaluate(r, "gpu__time_duration.sum / 1000000"))
        for (i = 1; i <= nrows; i++) {
            printf "  %-44s %12s %12s\n", rlabel[i], show(rfmt[i], evaluate(y, rexpr[i])), show(rfmt[i], evaluate(r, rexpr[i]))
            printf "      %s\n", rread[i]
        }
        if (!kernels[y]) printf "  (your call launched no kernel that the profiler saw)\n"
    }
    if (dashes) printf "\n-: does not apply (no such access in the call, so nothing to divide by) or not measured.\n"
    for (m in missing) printf "note: this GPU or profiler gives no %s\n", m
    printf "\nThe whole report, every section and counter: %s (open it in Nsight Compute, ncu-ui).\n", report
}
