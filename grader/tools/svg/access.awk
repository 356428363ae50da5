# access.awk - make explain's picture: one warp's request at the worst line of a call, lane by
# lane, beside the same lanes on consecutive words (the ideal). A global request is drawn as its
# lanes over the 32-byte sectors they touch; a shared one as its lanes over the 32 banks, each
# bank's different words stacked (one pass of the shared-memory pipe serves one word per bank).
#
#   LC_ALL=C awk -F'\t' -f ../counts.awk -f prelude.awk -f access.awk -v kinds="global load,global store"
#       [-v source=FILE -v source_name=NAME] [-v who=yours|reference] sections.txt counts.tsv >OUT.svg
#
# The counts are data from a sandboxed worker (counts.awk takes only well-formed rows); the line
# quoted above the picture is line N of SOURCE (the file that was compiled) when the request's
# row names SOURCE_NAME, never a line of a path a row names; every text drawn is xml_text(), so
# the SVG is well-formed XML whatever a student named or wrote.
#
# Reads the harness's section lines and the emulator's request lines (request N <tab> file:line
# <tab> global|shared <tab> load|store <tab> bytes <tab> sectors|wavefronts <tab> 32 lanes, each
# OFFSET+SIZE or -: common/emu/src/count.cpp). The worst line is the instruction of the first
# section of WHO (default yours) whose costliest request is furthest above its ideal, among the
# counters KINDS. Prints the SVG, and on stderr one line saying what it shows; prints nothing when
# no request of those kinds was counted.

# What LANES lanes of BYTES bytes cost on consecutive words: sectors, or wavefronts if SHARED.
function ideal_cost(lanes, bytes, shared) {
    return shared ? int((lanes * bytes + 127) / 128) : int((lanes * bytes + 31) / 32)
}
# Splits the lane field F into off[0..31] and size[0..31] (size 0: the lane took no part);
# returns the lanes that took part.
function lanes_of(f,    w, l, n, p) {
    split(f, w, " ")
    n = 0
    for (l = 0; l < 32; l++) {
        if (w[l + 1] == "-" || w[l + 1] == "") { size[l] = 0; continue }
        split(w[l + 1], p, "+"); off[l] = p[1] + 0; size[l] = p[2] + 0; n++
    }
    return n
}
# The 32 lanes along the top of a panel at Y (a grey box for a lane that took no part).
function lanes_row(y,    l, x) {
    for (l = 0; l < 32; l++) {
        x = 40 + l * 26
        box(x, y, 20, 16, size[l] ? "#4c78a8" : "#dddddd", "")
        if (l % 4 == 0 || l == 31) text(x + 10, y + 12, l, "fill=\"" (size[l] ? "white" : "#555") "\" font-size=\"9\" text-anchor=\"middle\"")
    }
}
# A global request: lanes over the sectors they touch, in address order. Returns the panel's height.
function sectors_panel(y, title,    l, k, n, s, sw, used, first, last, order, rank, sx, i, j, t) {
    text(12, y, title, "font-weight=\"bold\"")
    lanes_row(y + 10)
    n = 0; used = 0
    for (l = 0; l < 32; l++) {
        if (!size[l]) continue
        used += size[l]
        for (k = int(off[l] / 32); k <= int((off[l] + size[l] - 1) / 32); k++)
            if (!(k in rank)) { rank[k] = 0; order[++n] = k }
    }
    for (i = 2; i <= n; i++) { # by address
        t = order[i]
        for (j = i - 1; j >= 1 && order[j] > t; j--) order[j + 1] = order[j]
        order[j + 1] = t
    }
    for (i = 1; i <= n; i++) rank[order[i]] = i
    sw = 832 / (n > 16 ? n : 16)
    for (i = 1; i <= n; i++) box(40 + (i - 1) * sw + 1, y + 66, sw - 2, 22, "#f2b134", "#8a6d1f")
    for (l = 0; l < 32; l++) {
        if (!size[l]) continue
        first = int(off[l] / 32); last = int((off[l] + size[l] - 1) / 32)
        for (k = first; k <= last; k++) {
            sx = 40 + (rank[k] - 1) * sw + sw / 2
            line(40 + l * 26 + 10, y + 26, sx, y + 66, "#555", "stroke-width=\"0.8\"")
        }
    }
    text(40, y + 106, n " sector" (n == 1 ? "" : "s") " of 32 bytes = " n * 32 " bytes moved for " used \
        " bytes used (" int(100 * used / (n * 32) + 0.5) "% of each sector used)" \
        (order[n] - order[1] + 1 > n ? ", spread over " (order[n] - order[1] + 1) * 32 " bytes" : ""), "")
    return 126
}
# A shared request: lanes over the 32 banks, each bank's different words stacked one row per
# word (a pass serves one row). Returns the panel's height.
function banks_panel(y, title, passes,    l, w, b, depth, rows, key, cell, ch, x, row, deepest, worst) {
    text(12, y, title, "font-weight=\"bold\"")
    lanes_row(y + 10)
    for (b = 0; b < 32; b++) depth[b] = 0
    for (l = 0; l < 32; l++) {
        if (!size[l]) continue
        for (w = int(off[l] / 4); w <= int((off[l] + size[l] - 1) / 4); w++) {
            b = w % 32; key = b SUBSEP w
            if (!(key in row)) row[key] = depth[b]++
        }
    }
    deepest = 0
    for (b = 0; b < 32; b++) if (depth[b] > deepest) { deepest = depth[b]; worst = b }
    ch = deepest > 8 ? 8 : 16
    for (b = 0; b < 32; b++) {
        x = 40 + b * 26
        if (b % 4 == 0 || b == 31) text(x + 10, y + 62, "bank " b, "font-size=\"8\" text-anchor=\"middle\"")
        for (rows = 0; rows < depth[b]; rows++) box(x, y + 66 + rows * ch, 20, ch - 1, "#f2b134", "#8a6d1f")
        if (depth[b] == 0) box(x, y + 66, 20, ch - 1, "#f4f4f4", "")
    }
    for (l = 0; l < 32; l++) {
        if (!size[l]) continue
        w = int(off[l] / 4); b = w % 32
        line(40 + l * 26 + 10, y + 26, 40 + b * 26 + 10, y + 66 + row[b SUBSEP w] * ch + ch / 2, "#555", "stroke-width=\"0.8\"")
    }
    cell = y + 66 + (deepest > 0 ? deepest : 1) * ch
    text(40, cell + 20, passes " pass" (passes == 1 ? "" : "es") " (wavefronts): " \
        (deepest <= 1 ? "every bank serves at most one word" : \
         "bank " worst " holds " deepest " different words, one per pass") \
        (size_max > 4 ? " (" 128 / size_max " lanes are served at a time for " size_max "-byte words)" : ""), "")
    return cell + 40 - y
}
# Lays the lanes that took part on consecutive words: the k-th at k x its size.
function make_ideal(    l, k) {
    k = 0
    for (l = 0; l < 32; l++) if (size[l]) { off[l] = k; k += size[l] }
}

# The most different words any bank holds in the current lanes (the rows of a banks panel).
function banks_depth(    l, w, b, depth, seen, deepest) {
    deepest = 0
    for (l = 0; l < 32; l++) {
        if (!size[l]) continue
        for (w = int(off[l] / 4); w <= int((off[l] + size[l] - 1) / 4); w++)
            if (!((w % 32, w) in seen)) { seen[w % 32, w] = 1; if (++depth[w % 32] > deepest) deepest = depth[w % 32] }
    }
    return deepest
}
function panel_height(shared,    d) {
    if (!shared) return 126
    d = banks_depth()
    return 66 + (d > 0 ? d : 1) * (d > 8 ? 8 : 16) + 40
}
function panel(y, title, cost, shared) { return shared ? banks_panel(y, title, cost) : sectors_panel(y, title) }

BEGIN { if (who == "") who = "yours"; n = split(kinds, k, ","); for (i = 1; i <= n; i++) wanted[k[i]] = 1 }
FILENAME == ARGV[1] {
    if ($1 ~ /^section / && $4 == who && chosen_range == "") { chosen_range = $1; sub(/^section /, "", chosen_range) }
    next
}
!count_row_ok() { next } # not a count as the emulator writes one: left out
$1 ~ /^range / { # requests per instruction: between equally bad lines, the busier one
    r = $1; sub(/^range /, "", r)
    if (r == chosen_range) busy[$2, $3, $4] += $6
    next
}
$1 ~ /^request / {
    r = $1; sub(/^request /, "", r)
    if (r != chosen_range || !(($3 " " $4) in wanted)) next
    lanes = lanes_of($7)
    if (lanes == 0) next
    ratio = $6 / ideal_cost(lanes, $5, $3 == "shared")
    if (ratio > best || (ratio == best && busy[$2, $3, $4] > best_busy)) {
        best = ratio; best_busy = busy[$2, $3, $4]; pick = $0
    }
}
END {
    if (pick == "") exit
    split(pick, f, "\t")
    loc = f[2]; where = loc; sub(/^.*\//, "", where)
    space = f[3]; op = f[4]; cost = f[6]; shared = space == "shared"
    unit = shared ? "wavefronts" : "sectors"
    ln = where; sub(/.*:/, "", ln)
    quotable("yours", source)
    code = (source_name != "" && base(loc_file(loc)) == source_name) ? quote("yours", ln + 0) : ""
    # the ideal panel's lanes, then the request's (the picture's height needs both)
    nl = lanes_of(f[7]); size_max = 0
    for (l = 0; l < 32; l++) if (size[l] > size_max) size_max = size[l]
    ideal = ideal_cost(nl, size_max, shared)
    make_ideal(); h_ideal = panel_height(shared)
    lanes_of(f[7]); h_yours = panel_height(shared)
    head(900, 70 + h_yours + 10 + h_ideal)
    text(12, 22, xml_text("One warp's " space " " op " at " where ": " cost " " (cost == 1 ? substr(unit, 1, length(unit) - 1) : unit) \
        (cost > ideal ? " where " ideal " would do" : ", the ideal")), "font-size=\"15\" font-weight=\"bold\"")
    if (code != "") text(12, 42, xml_text(code), "font-family=\"DejaVu Sans Mono, monospace\" font-size=\"11\"")
    panel(70, "as " (who == "yours" ? "your code issues it" : "the code issues it") ": its costliest request, lane by lane", cost, shared)
    make_ideal()
    panel(70 + h_yours + 10, "ideal: the same " nl " lanes on consecutive words", ideal, shared)
    foot()
    printf "%s %s at %s: %d %s for %d lanes (ideal %d)\n", space, op, visible(where), cost,
        cost == 1 ? substr(unit, 1, length(unit) - 1) : unit, nl, ideal > "/dev/stderr"
}
