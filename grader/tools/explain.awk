# explain.awk - make explain's table: per speed problem, your call's and the reference's memory
# requests per source line, as the CPU emulator counted them, with the ideal and a reading of
# each counter (-v table=grader/labs/NN-name/explain.tsv). Reads the harness's section lines
# (section N <tab> check C <tab> TASK <tab> yours|reference <tab> SIZE), then the emulator's
# counts (range N <tab> file:line <tab> global|shared <tab> load|store <tab> bytes <tab>
# requests <tab> lanes <tab> sectors|wavefronts <tab> ideal). See explain.sh.
#
#   awk -F'\t' -v table=T -v label=L -v source=FILE -v lab=NN-name -f explain.awk sections counts

function base(path) { sub(/.*\//, "", path); return path }
# The text of line N of FILE, trimmed to fit a row ("" if FILE cannot be read).
function source_line(file, n,    line, i, r) {
    if (file == "" || (file, n) in text_cache) return text_cache[file, n]
    i = 0
    while ((r = (getline line < file)) > 0)
        if (++i == n) break
    close(file)
    if (r <= 0) line = ""
    gsub(/^[ \t]+|[ \t]+$/, "", line)
    if (length(line) > 60) line = substr(line, 1, 57) "..."
    return text_cache[file, n] = line
}
function ratio(a, b) { return b > 0 ? sprintf("%.1f", a / b) : "-" }
# Prints the rows of section S: one per source line and counter, then the whole call.
function print_section(s, who, file_hint,    k, n, i, parts, key, loc, rows, order, unit) {
    n = 0
    for (k in req) {
        split(k, parts, SUBSEP)
        if (parts[1] != s) continue
        order[++n] = k
    }
    # by file, line number, counter
    for (i = 2; i <= n; i++) {
        key = order[i]
        for (k = i - 1; k >= 1 && sort_key(order[k]) > sort_key(key); k--) order[k + 1] = order[k]
        order[k + 1] = key
    }
    printf "  %-22s %-20s %9s %12s %6s\n", "line", "access", "requests", "per request", "ideal"
    rows = 0
    for (i = 1; i <= n; i++) {
        split(order[i], parts, SUBSEP)
        loc = parts[2]
        unit = parts[3] == "shared" ? "wavefronts" : "sectors"
        printf "  %-22s %-20s %9d %12s %6s  %s\n", loc, parts[3] " " parts[4] ", " parts[5] " B",
            req[order[i]], ratio(units[order[i]], req[order[i]]), ratio(ideal[order[i]], req[order[i]]),
            text_of(loc, file_hint)
        rows++
    }
    if (rows == 0) printf "  (no access of the kinds this lab looks at)\n"
    for (k = 1; k <= nkinds; k++) {
        key = s SUBSEP kinds[k]
        if (!(key in treq)) continue
        printf "  whole call, %-13s %s per request: %s (ideal %s), %d requests\n", kinds[k] ":",
            kinds[k] ~ /^shared/ ? "wavefronts" : "sectors", ratio(tunits[key], treq[key]),
            ratio(tideal[key], treq[key]), treq[key]
    }
}
# The whole calls side by side: per counter, per request and its ideal, yours and the reference's.
function compare(y, r,    k, a, b, unit) {
    printf "side by side, whole call        %-24s %s\n", "yours", "the reference"
    for (k = 1; k <= nkinds; k++) {
        a = y SUBSEP kinds[k]; b = r SUBSEP kinds[k]
        if (!(a in treq) && !(b in treq)) continue
        unit = kinds[k] ~ /^shared/ ? "wavefronts" : "sectors"
        printf "  %-29s %-24s %s\n", kinds[k] " " unit ":",
            (a in treq) ? ratio(tunits[a], treq[a]) " (ideal " ratio(tideal[a], treq[a]) ")" : "none",
            (b in treq) ? ratio(tunits[b], treq[b]) " (ideal " ratio(tideal[b], treq[b]) ")" : "none"
    }
}
function sort_key(k,    p, f, l) {
    split(k, p, SUBSEP)
    f = p[2]; l = f; sub(/:[0-9]+$/, "", f); sub(/.*:/, "", l)
    return sprintf("%s:%08d:%s %s:%04d:%08.1f", f, l, p[3], p[4], p[5], p[6])
}
# The source text of LOC (file:line): from FILE_HINT when it is that file, else LOC's own path.
function text_of(loc, file_hint,    f, l) {
    f = loc; l = loc
    sub(/:[0-9]+$/, "", f); sub(/.*:/, "", l)
    if (file_hint != "" && base(file_hint) == base(f)) return source_line(file_hint, l + 0)
    f = path[loc]; sub(/:[0-9]+$/, "", f)
    return source_line(f, l + 0)
}

BEGIN {
    while ((getline line < table) > 0) {
        if (line ~ /^#/ || line == "") continue
        split(line, f, "\t")
        if (f[1] == "not counted") { missing[++nmissing] = f[2]; continue }
        kinds[++nkinds] = f[1]
        reading[f[1]] = f[2]
        wanted[f[1]] = 1
    }
    close(table)
}
FILENAME == ARGV[1] {
    if ($1 ~ /^section /) {
        s = $1; sub(/^section /, "", s)
        sections[++nsections] = s
        who[s] = $4; size[s] = $5; task[s] = $3
    }
    next
}
$1 ~ /^range / {
    s = $1; sub(/^range /, "", s)
    kind = $3 " " $4
    if (!(kind in wanted)) next
    loc = $2
    sub(/^.*\//, "", loc) # file name and line: the folders differ between builds
    if (loc !~ /:[0-9]+$/) loc = "(no line info)" # a prebuilt reference carries none
    path[loc] = $2
    # One row per line, counter and width, and per cost: a line that reads a row and a column
    # keeps its two kinds of request apart; the instructions an unrolled loop made join.
    k = s SUBSEP loc SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP sprintf("%.1f", $6 > 0 ? $8 / $6 : 0)
    req[k] += $6; units[k] += $8; ideal[k] += $9
    t = s SUBSEP kind
    treq[t] += $6; tunits[t] += $8; tideal[t] += $9
}
END {
    printf "make explain, lab %s: every warp's memory requests, counted by the CPU emulator (no GPU needed)\n", lab
    for (i = 1; i <= nsections; i++) {
        s = sections[i]
        if (who[s] == "yours")
            printf "\n== %s, problem %s (%s)\n", task[s], size[s], "one call each, at the emulator's size"
        if (who[s] == "yours") {
            printf "%s%s:\n", label, ""
            print_section(s, who[s], source)
        } else {
            printf "the reference:\n"
            print_section(s, who[s], "")
            if (i > 1 && who[sections[i - 1]] == "yours") compare(sections[i - 1], s)
        }
    }
    printf "\nHow to read it: per request = per warp-wide load or store; ideal = the same lanes on consecutive words\n"
    printf "(below it, lanes share a sector or a word: a broadcast).\n"
    for (k = 1; k <= nkinds; k++)
        printf "  %-13s %s\n", kinds[k] ":", reading[kinds[k]]
    printf "Counted: every plain load and store of the kernels, grouped by warp as a GPU issues them; a row adds up\n"
    printf "every instruction the compiler made of that line (an unrolled loop makes several). Atomics are not counted.\n"
    for (k = 1; k <= nmissing; k++)
        printf "Not shown by make explain: %s.\n", missing[k]
}
