# explain.awk - make explain's table: per speed problem, your call's and the reference's memory
# requests per source line, as the CPU emulator counted them, with the ideal and a reading of
# each counter (-v table=grader/labs/NN-name/explain.tsv); where the table asks, the branches,
# the loads in flight before each store and every launch's waves too. Reads the harness's section lines
# (section N <tab> check C <tab> TASK <tab> yours|reference <tab> SIZE), then the emulator's
# counts (range N <tab> file:line <tab> global|shared <tab> load|store <tab> bytes <tab>
# requests <tab> lanes <tab> sectors|wavefronts <tab> ideal; range N <tab> file:line <tab>
# branch <tab> condition <tab> 0 <tab> executions <tab> lanes <tab> divergent <tab> entered
# <tab> lanes in; launch N <tab> kernel <tab> blocks <tab> threads <tab> shared bytes <tab>
# registers <tab> blocks per SM <tab> SMs; loads N <tab> file:line of a store <tab> runs <tab>
# loads <tab> bytes <tab> most bytes; op N <tab> seq <tab> stream <tab> stream kind <tab> kind
# <tab> amount <tab> detail <tab> call <tab> host thread: common/emu/src/count.cpp). See explain.sh.
# Where the table has a timeline row, the copy and compute engines' timeline of each call, from
# its op lines: timeline.awk, which explain.sh loads before this file, schedules and draws it.
# The counts are data from the sandboxed workers: counts.awk (loaded first) takes a row only
# when its numbers are numbers, and renders every text of a row that is shown (a file or kernel
# name) visible. A source line is quoted only from the file that was compiled, by line number:
# yours from -v source=FILE (the copy of your file the compile sandbox built; a row counts as
# yours when its file is named source_name, as you named it), the reference's from -v
# ref_source=FILE (named ref_name), the lab's public headers' from -v header_dir=DIR (the
# files named in -v headers="a.h b.cuh"); a row of any other file is shown without its line, and
# no path a row names is ever opened.
#   -v shown=PATH: your file as you know it (the WHERE line's place).
#   -v timeline_out=FILE: that schedule, one line per copy or kernel (timeline_write).
#   -v gpu=KEY -v gpu_name=NAME: the SM count is that GPU's (make explain GPU_PROFILE=KEY).
#   -v where=1: one line instead of the tables, the place in your file that costs the most
#       against the lesson (make grade's hint under a speed check short of its mark): the
#       lesson's own counter first (branches, waves, loads in flight), then the memory access
#       furthest over its ideal; a line only where its figure is clearly worse than the ideal
#       and the reference's and a material part of the call (where_line says how much), else
#       nothing.
#
#   LC_ALL=C awk -F'\t' -v table=T -v label=L -v source=FILE -v source_name=NAME
#       [-v ref_source=FILE -v ref_name=NAME] [-v header_dir=DIR -v headers=NAMES] -v shown=PATH
#       -v lab=NN-name [-v gpu=KEY
#       -v gpu_name=NAME] [-v timeline_out=FILE] -f counts.awk -f timeline.awk -f explain.awk
#       sections counts

function ratio(a, b) { return b > 0 ? sprintf("%.1f", a / b) : "-" }
function percent(a, b) { return b > 0 ? sprintf("%.0f%%", 100 * a / b) : "-" }
# Divergent executions of a whole call: "N of M (P%)", with a finer percentage below 1%.
function divergent_text(d, e) {
    return d " of " e " (" percent_fine(d, e) ")"
}
# Prints the rows of section S: one per source line and counter, then the whole call.
function print_section(s, who,    k, n, i, parts, key, loc, rows, order, unit) {
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
    printf "  %-22s %-20s %9s %12s %6s %6s\n", "line", "access", "requests", "per request", "ideal", "lanes"
    rows = 0
    for (i = 1; i <= n; i++) {
        split(order[i], parts, SUBSEP)
        loc = parts[2]
        unit = parts[3] == "shared" ? "wavefronts" : "sectors"
        printf "  %-22s %-20s %9d %12s %6s %6s  %s\n", row_place(loc, who), parts[3] " " parts[4] ", " parts[5] " B",
            req[order[i]], ratio(units[order[i]], req[order[i]]), ratio(ideal[order[i]], req[order[i]]),
            ratio(lanes[order[i]], req[order[i]]), text_of(loc, who)
        rows++
    }
    if (rows == 0 && nkinds > 0) printf "  (no access of the kinds this lab looks at)\n"
    for (k = 1; k <= nkinds; k++) {
        key = s SUBSEP kinds[k]
        if (!(key in treq)) continue
        printf "  whole call, %-13s %s per request: %s (ideal %s), %d requests\n", kinds[k] ":",
            kinds[k] ~ /^shared/ ? "wavefronts" : "sectors", ratio(tunits[key], treq[key]),
            ratio(tideal[key], treq[key]), treq[key]
    }
    if ("branch" in wanted) print_branches(s, who)
    if ("waves" in wanted) print_waves(s)
    if ("loads in flight" in wanted) print_inflight(s, who)
    if ("timeline" in wanted) timeline_print(s)
}
# The branches of section S, one row per source line, and the whole call's.
function print_branches(s, who,    n, i, parts, order) {
    n = by_line(bexec, s, order)
    if (n == 0) { printf "  (no branch in the kernels)\n"; return }
    printf "  %-22s %-20s %9s %12s %6s %6s\n", "line", "branch", "runs", "divergent", "lanes", "in"
    for (i = 1; i <= n; i++) {
        split(order[i], parts, SUBSEP)
        printf "  %-22s %-20s %9d %12s %6s %6s  %s\n", row_place(parts[2], who), "condition", bexec[order[i]],
            bdiv[order[i]], ratio(blanes[order[i]], bexec[order[i]]),
            ratio(bin[order[i]], bent[order[i]]), text_of(parts[2], who)
    }
    printf "  whole call, branches:     lanes in %s of 32 when a body runs; divergent: %s\n",
        ratio(tbin[s], tbent[s]), divergent_text(tbdiv[s], tbexec[s])
}
# The keys of TABLE (section SUBSEP file:line) in section S, by file and line, into ORDER[1..n].
function by_line(table, s, order,    k, n, i, parts, key) {
    n = 0
    for (k in table) {
        split(k, parts, SUBSEP)
        if (parts[1] == s) order[++n] = k
    }
    for (i = 2; i <= n; i++) {
        key = order[i]
        for (k = i - 1; k >= 1 && line_key(order[k]) > line_key(key); k--) order[k + 1] = order[k]
        order[k + 1] = key
    }
    return n
}
function line_key(k,    p, f, l) {
    split(k, p, SUBSEP)
    f = p[2]; l = f; sub(/:[0-9]+$/, "", f); sub(/.*:/, "", l)
    return sprintf("%s:%08d", f, l)
}
# The loads a thread had in flight before each store of section S, one row per store's line.
function print_inflight(s, who,    n, i, parts, order) {
    n = by_line(fruns, s, order)
    if (n == 0) { printf "  (no store after a load)\n"; return }
    printf "  %-22s %-20s %9s %12s %6s %6s\n", "line (a store)", "loads in flight", "stores", "loads", "bytes", "most"
    for (i = 1; i <= n; i++) {
        split(order[i], parts, SUBSEP)
        printf "  %-22s %-20s %9d %12s %6s %6d  %s\n", row_place(parts[2], who), "before it", fruns[order[i]],
            ratio(floads[order[i]], fruns[order[i]]), ratio(fbytes[order[i]], fruns[order[i]]),
            fmost[order[i]], text_of(parts[2], who)
    }
    printf "  whole call, loads in flight: %s bytes a thread before a store (%s loads; the most %d bytes)\n",
        ratio(tfbytes[s], tfruns[s]), ratio(tfloads[s], tfruns[s]), tfmost[s]
}
# Launch I of section S as waves: "133 blocks on 132 SMs x 1 per SM: 2 waves, the last 1% full".
function waves_text(s, i,    wave, waves, last) {
    if (lper[s, i] == 0) return lblocks[s, i] " blocks that do not fit on an SM"
    wave = lsms[s, i] * lper[s, i]
    waves = int((lblocks[s, i] + wave - 1) / wave)
    last = lblocks[s, i] - (waves - 1) * wave
    return lblocks[s, i] " blocks on " lsms[s, i] " SMs x " lper[s, i] " per SM: " waves \
        (waves == 1 ? " wave" : " waves") ", the last " sprintf("%.0f", 100 * last / wave) "% full"
}
# The waves of every launch of section S, in order.
function print_waves(s,    i) {
    if (nlaunch[s] == 0) { printf "  (no kernel launched)\n"; return }
    for (i = 1; i <= nlaunch[s]; i++)
        printf "  launch %s: %s\n         (%d threads a block, %d registers a thread, %d B of shared memory a block)\n",
            visible(lname[s, i]), waves_text(s, i), lthreads[s, i], lregs[s, i], lshared[s, i]
}
# Section S's waves, each launch's, in a few words: "2 waves, the last 25% full".
function waves_short(s,    i, t, w) {
    t = ""
    for (i = 1; i <= nlaunch[s]; i++) {
        w = waves_text(s, i); sub(/^.*: /, "", w)
        t = t (i > 1 ? " + " : "") w
    }
    return t == "" ? "none" : t
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
    if ("waves" in wanted)
        printf "  %-29s %-28s %s\n", "waves:", waves_short(y), waves_short(r)
    if ("loads in flight" in wanted)
        printf "  %-29s %-24s %s\n", "bytes in flight a thread:", ratio(tfbytes[y], tfruns[y]), ratio(tfbytes[r], tfruns[r])
    if ("timeline" in wanted) {
        printf "  %-29s %-24s %s\n", "span / busiest engine:", span_text(y, tl_longest), span_text(r, tl_longest)
        printf "  %-29s %-24s %s\n", "span / all engines' work:", span_text(y, tl_sum), span_text(r, tl_sum)
    }
    if ("branch" in wanted) {
        printf "  %-29s %-24s %s\n", "branch lanes in, of 32:", ratio(tbin[y], tbent[y]), ratio(tbin[r], tbent[r])
        printf "  %-29s %-24s %s\n", "divergent branches:", divergent_text(tbdiv[y], tbexec[y]),
            divergent_text(tbdiv[r], tbexec[r])
    }
}
# Section S's span over BY[s] (the busiest engine's work, or all of it), "-" without a timeline.
function span_text(s, by) { return by[s] > 0 ? sprintf("%.2f", tl_span[s] / by[s]) : "-" }
function sort_key(k,    p, f, l) {
    split(k, p, SUBSEP)
    f = p[2]; l = f; sub(/:[0-9]+$/, "", f); sub(/.*:/, "", l)
    return sprintf("%s:%08d:%s %s:%04d:%08.1f", f, l, p[3], p[4], p[5], p[6])
}
# The source text of LOC (file:line) in a section of WHO, rendered visible: line N of a file
# that was compiled, when LOC names it: yours (your file as the compile sandbox built it), the
# reference's source, or one of the lab's public headers; "" for any other file, never opened.
function text_of(loc, who,    f) {
    f = loc_file(loc)
    if (who == "yours" && own(loc)) return quote("yours", loc_line(loc))
    if (who != "yours" && ref_name != "" && f == ref_name) return quote("reference", loc_line(loc))
    return ("header " f) in quoted_n ? quote("header " f, loc_line(loc)) : ""
}
# A row's place as shown: LOC (file:line), rendered visible; in the reference's sections a line
# of the reference's source is named as the reference's ("ref: coalescing.cu:25"), since its
# file has your file's name.
function row_place(loc, who) {
    return (who != "yours" && ref_name != "" && loc_file(loc) == ref_name ? "ref: " : "") visible(loc)
}
# Whether LOC (file:line, the file's folders dropped) is a line of your own file.
function own(loc) { return source_name != "" && loc_file(loc) == source_name }

BEGIN {
    while ((getline line < table) > 0) {
        if (line ~ /^#/ || line == "") continue
        split(line, f, "\t")
        if (f[1] == "not counted") { missing[++nmissing] = f[2]; continue }
        if (f[1] == "predict") continue # asked by explain.sh --predict, before the counts
        reading[f[1]] = f[2]
        wanted[f[1]] = 1
        if (f[1] == "branch" || f[1] == "waves" || f[1] == "loads in flight" || f[1] == "timeline") continue # their own tables

        kinds[++nkinds] = f[1]
    }
    close(table)
    quotable("yours", source)
    quotable("reference", ref_source)
    n_headers = split(headers, header_names, " ")
    for (h = 1; h <= n_headers; h++) quotable("header " header_names[h], header_dir "/" header_names[h])
}
FILENAME == ARGV[1] {
    if ($1 ~ /^section /) {
        s = $1; sub(/^section /, "", s)
        sections[++nsections] = s
        who[s] = $4; size[s] = $5; task[s] = $3
    }
    next
}
!count_row_ok() { next } # not a count as the emulator writes one: left out
$1 ~ /^loads / {
    if (!("loads in flight" in wanted)) next
    s = $1; sub(/^loads /, "", s)
    loc = $2
    sub(/^.*\//, "", loc)
    if (loc !~ /:[0-9]+$/) loc = "(no line info)"
    k = s SUBSEP loc
    fruns[k] += $3; floads[k] += $4; fbytes[k] += $5; if ($6 > fmost[k]) fmost[k] = $6
    tfruns[s] += $3; tfloads[s] += $4; tfbytes[s] += $5; if ($6 > tfmost[s]) tfmost[s] = $6
    next
}
$1 ~ /^op / {
    if (!("timeline" in wanted)) next
    s = $1; sub(/^op /, "", s)
    timeline_add(s)
    next
}
$1 ~ /^launch / {
    if (!("waves" in wanted)) next
    s = $1; sub(/^launch /, "", s)
    i = ++nlaunch[s]
    lname[s, i] = $2; lblocks[s, i] = $3; lthreads[s, i] = $4; lshared[s, i] = $5
    lregs[s, i] = $6; lper[s, i] = $7; lsms[s, i] = $8
    sms = $8
    next
}
$1 ~ /^range / && $3 == "branch" {
    if (!("branch" in wanted)) next
    s = $1; sub(/^range /, "", s)
    loc = $2
    sub(/^.*\//, "", loc)
    if (loc !~ /:[0-9]+$/) loc = "(no line info)"
    k = s SUBSEP loc
    bexec[k] += $6; blanes[k] += $7; bdiv[k] += $8; bent[k] += $9; bin[k] += $10
    tbexec[s] += $6; tbdiv[s] += $8; tbent[s] += $9; tbin[s] += $10
    next
}
$1 ~ /^range / {
    s = $1; sub(/^range /, "", s)
    kind = $3 " " $4
    if (!(kind in wanted)) next
    loc = $2
    sub(/^.*\//, "", loc) # file name and line: the folders differ between builds
    if (loc !~ /:[0-9]+$/) loc = "(no line info)" # a prebuilt reference carries none
    # One row per line, counter and width, and per cost: a line that reads a row and a column
    # keeps its two kinds of request apart; the instructions an unrolled loop made join.
    k = s SUBSEP loc SUBSEP $3 SUBSEP $4 SUBSEP $5 SUBSEP sprintf("%.1f", $6 > 0 ? $8 / $6 : 0)
    req[k] += $6; lanes[k] += $7; units[k] += $8; ideal[k] += $9
    t = s SUBSEP kind
    treq[t] += $6; tunits[t] += $8; tideal[t] += $9
}
# make grade's hint (-v where=1): the costliest place of your code, in one line, or nothing.
# Longer than most functions here: the three kinds of finding (a divergent branch, a wasteful
# access, a last wave nearly empty) are weighed against each other in one pass, and awk has no
# structures to hand the candidates between smaller functions.
function where_line(    i, s, r, k, parts, best, bestk, bestp, bestr, bests, v, yin, rin, t, w, n) {
    # the lesson's own counter first
    if ("branch" in wanted) {
        best = 0
        for (i = 1; i <= nsections; i++) {
            s = sections[i]
            if (who[s] != "yours") continue
            r = (i < nsections && who[sections[i + 1]] == "reference") ? sections[i + 1] : ""
            if (tbdiv[s] == 0) continue
            # (Not the share of divergent runs: a per-lane branch whose every run diverges
            # weighs little beside the loop turns it leads to.)
            # The cost of divergence is the lanes idle while a body runs, and the lesson's figure
            # for it is the whole call's lanes in (a loop's condition counts once per turn, so
            # a long body weighs as much as it runs): only a call clearly below the ideal (32)
            # and the reference's has a branch worth naming. A regrouping kernel whose scan
            # diverges for a few steps keeps its long bodies full, and gets no line.
            yin = tbent[s] > 0 ? tbin[s] / tbent[s] : 32
            rin = (r != "" && tbent[r] > 0) ? tbin[r] / tbent[r] : 32
            if (yin > BRANCH_CLEARLY * rin) continue
            for (k in bexec) {
                split(k, parts, SUBSEP)
                if (parts[1] != s || !own(parts[2])) continue
                if (bdiv[k] < 0.1 * bexec[k] || bdiv[k] < best) continue
                # of lines equally divergent (an if-else chain), the first in the file
                if (bdiv[k] == best && line_no(parts[2]) > line_no(bestp)) continue
                # and the line itself runs its body with clearly fewer lanes than that
                if (bent[k] > 0 && bin[k] / bent[k] > BRANCH_CLEARLY * rin) continue
                best = bdiv[k]; bestk = k; bestp = parts[2]; bests = r; bestr = rin
            }
        }
        if (best > 0) {
            split(bestk, parts, SUBSEP)
            printf "%s%s: this condition split the warp in %d of its %d warp-wide runs, %s of 32 lanes going in; the reference's bodies run with %s of 32\n",
                place(parts[2]), quoted(parts[2]), bdiv[bestk], bexec[bestk], ratio(bin[bestk], bent[bestk]),
                bests != "" ? sprintf("%.1f", bestr) : "-"
            return 1
        }
    }
    if ("waves" in wanted) {
        for (i = 1; i <= nsections; i++) {
            s = sections[i]
            if (who[s] != "yours" || nlaunch[s] == 0) continue
            r = (i < nsections && who[sections[i + 1]] == "reference") ? sections[i + 1] : ""
            for (n = 1; n <= nlaunch[s]; n++) {
                if (lper[s, n] == 0) continue
                w = lsms[s, n] * lper[s, n]
                v = int((lblocks[s, n] + w - 1) / w)
                t = (lblocks[s, n] - (v - 1) * w) / w
                # a last wave under half full, and a material share of the launch (8 waves or fewer)
                if (v >= 2 && v <= 8 && t < 0.5) {
                    printf "your launch of %s: %s: for the last wave most SMs idle (the reference: %s)\n",
                        visible(lname[s, n]), waves_text(s, n), r != "" ? waves_short(r) : "-"
                    return 1
                }
            }
        }
    }
    if ("loads in flight" in wanted) {
        for (i = 1; i <= nsections; i++) {
            s = sections[i]
            if (who[s] != "yours" || tfruns[s] == 0) continue
            r = (i < nsections && who[sections[i + 1]] == "reference") ? sections[i + 1] : ""
            if (r == "" || tfruns[r] == 0 || tfbytes[s] / tfruns[s] * 4 > tfbytes[r] / tfruns[r]) continue
            best = -1
            for (k in fruns) {
                split(k, parts, SUBSEP)
                if (parts[1] != s || !own(parts[2])) continue
                if (fruns[k] > best) { best = fruns[k]; bestk = k }
            }
            if (best < 0) continue
            split(bestk, parts, SUBSEP)
            printf "%s%s: a thread has %s bytes of loads in flight before this store, the reference's %s: each memory latency brings in that little\n",
                place(parts[2]), quoted(parts[2]), ratio(fbytes[bestk], fruns[bestk]), ratio(tfbytes[r], tfruns[r])
            return 1
        }
    }
    if ("timeline" in wanted) {
        for (i = 1; i <= nsections; i++) {
            s = sections[i]
            if (who[s] != "yours") continue
            r = (i < nsections && who[sections[i + 1]] == "reference") ? sections[i + 1] : ""
            if (r == "") continue
            timeline_schedule(s)
            timeline_schedule(r)
            if (tl_longest[s] <= 0 || tl_longest[r] <= 0) continue
            # yours lasts clearly longer against its busiest engine than the reference does
            if (tl_span[s] / tl_longest[s] < 1.25 * tl_span[r] / tl_longest[r]) continue
            printf "your copies and kernels, in the order a GPU's engines would run them: %s; the reference lasts %.2f x its busiest engine's work (make explain LAB=%s draws both)\n",
                timeline_reading(s), tl_span[r] / tl_longest[r], substr(lab, 1, 2)
            return 1
        }
    }
    # then the memory access furthest over its ideal, in wasted sectors or passes: a line whose
    # requests take clearly more than the ideal and than the reference's of the same kind
    # (its whole call's per request, over its ideal), and whose waste is material: at least
    # half of all the reference's call counted (global sectors and shared passes together), or,
    # with no reference counted, a quarter of your call's. A GEMM thread's epilogue storing its
    # tile of C a sector a lane is over the ideal, but its waste is a third of what the whole
    # reference costs, where each skeleton's lesson line wastes more than the reference's call
    # (about 3 to 30 times): no line.
    best = 0
    for (k in req) {
        split(k, parts, SUBSEP)
        if (who[parts[1]] != "yours" || !own(parts[2])) continue
        if (units[k] < 1.5 * ideal[k] || units[k] - ideal[k] <= best) continue
        r = reference_of(parts[1])
        v = r != "" ? MATERIAL_OF_REFERENCE * call_units(r) : MATERIAL_OF_YOURS * call_units(parts[1])
        if (units[k] - ideal[k] < v) continue
        t = r SUBSEP parts[3] " " parts[4]
        if (r != "" && (t in treq) && tideal[t] > 0 &&
            units[k] / ideal[k] < 1.5 * tunits[t] / tideal[t]) continue
        best = units[k] - ideal[k]; bestk = k
    }
    if (best > 0) {
        split(bestk, parts, SUBSEP)
        printf "%s%s: %s %ss of %d bytes a lane take %s %s per warp-wide request; ideal %s\n",
            place(parts[2]), quoted(parts[2]), parts[3], parts[4], parts[5], ratio(units[bestk], req[bestk]),
            parts[3] == "shared" ? "passes of the shared-memory pipe" : "32-byte sectors", ratio(ideal[bestk], req[bestk])
        return 1
    }
    return 0
}
# How much worse than the reference a whole call's lanes in must be (at most this fraction of
# the reference's), and how much a line must waste (against the reference's whole call, or
# without one, against yours), to be named.
BEGIN { BRANCH_CLEARLY = 0.8; MATERIAL_OF_REFERENCE = 0.5; MATERIAL_OF_YOURS = 0.25 }
# Section S's sectors and passes over every counter the table shows (its memory work, counted).
function call_units(s,    k, t) {
    t = 0
    for (k = 1; k <= nkinds; k++)
        if ((s SUBSEP kinds[k]) in tunits) t += tunits[s, kinds[k]]
    return t
}
# The reference's section beside your section S ("" if none).
function reference_of(s,    i) {
    for (i = 1; i < nsections; i++)
        if (sections[i] == s) return who[sections[i + 1]] == "reference" ? sections[i + 1] : ""
    return ""
}
# LOC (file:line of your own file: the WHERE line names no other) as you know the file.
function place(loc) { return visible(shown != "" ? shown : loc_file(loc)) ":" loc_line(loc) }
function quoted(loc,    t) {
    t = text_of(loc, "yours")
    return t == "" ? "" : " (" t ")"
}
# D of E as a percentage, finer below 1%: "0.01%".
function percent_fine(d, e) {
    return e > 0 && d > 0 && 100 * d / e < 1 ? sprintf("%.2f%%", 100 * d / e) : percent(d, e)
}
END {
    if (where) { where_line(); exit }
    what = "memory requests"
    if ("branch" in wanted) what = what " and branches"
    if ("waves" in wanted) what = what ", and every launch's waves"
    if ("loads in flight" in wanted) what = what ", and the loads each thread keeps in flight"
    if ("timeline" in wanted) {
        what = what ", and the order of its copies and kernels on the engines"
        for (i = 1; i <= nsections; i++) {
            timeline_schedule(sections[i])
            if (timeline_out != "") timeline_write(sections[i], timeline_out)
        }
    }
    printf "make explain, lab %s: every warp's %s, counted by the CPU emulator (no GPU needed)\n", lab, what
    for (i = 1; i <= nsections; i++) {
        s = sections[i]
        if (who[s] == "yours")
            printf "\n== %s, problem %s (%s)\n", task[s], size[s], "one call each, at the emulator's size"
        if (who[s] == "yours") {
            printf "%s:\n", visible(label)
            print_section(s, "yours")
        } else {
            printf "the reference:\n"
            print_section(s, "reference")
            if (i > 1 && who[sections[i - 1]] == "yours") compare(sections[i - 1], s)
        }
    }
    printf "\nHow to read it: per request = per warp-wide load or store; ideal = the same lanes on consecutive words\n"
    printf "(below it, lanes share a sector or a word: a broadcast); lanes = lanes of the warp taking part, of 32.\n"
    for (k = 1; k <= nkinds; k++)
        printf "  %-13s %s\n", kinds[k] ":", reading[kinds[k]]
    printf "Counted: every plain load and store of the kernels, grouped by warp as a GPU issues them; a row adds up\n"
    printf "every instruction the compiler made of that line (an unrolled loop makes several). Atomics are not counted.\n"
    if ("loads in flight" in wanted) {
        printf "Loads in flight: a GPU issues a thread's loads back to back and waits only where a value is first used;\n"
        printf "the emulator counts the global loads (and their bytes) a thread issued since its previous store, at each\n"
        printf "store: in a streaming kernel that store uses what they loaded, so they were in flight together.\n"
        printf "  %-13s %s\n", "in flight:", reading["loads in flight"]
    }
    if ("waves" in wanted) {
        printf "Waves: a launch's blocks go to the SMs as they free up; an SM holds as many at once as its threads,\n"
        printf "registers and shared memory allow (registers: 32 a thread, or what __launch_bounds__(N, M) allows\n"
        printf "when it names M blocks). SMs x that many blocks make a wave; the grid takes ceil(blocks / wave) of them.\n"
        printf "SMs: %s.\n", gpu != "" ? sms ", those of the " gpu_name " (GPU_PROFILE=" gpu "); each SM is the emulated one, compute capability 9.0" \
            : sms ", the emulated device's (make explain GPU_PROFILE=h200, or another key of make profiles, takes that GPU's count)"
        printf "  %-13s %s\n", "waves:", reading["waves"]
    }
    if ("branch" in wanted) {
        printf "Branches: runs = warp-wide executions of the line's if, while or for condition; divergent = runs in which\n"
        printf "some lanes went in and others did not; lanes = lanes of the warp that reached it; in = lanes that went in,\n"
        printf "which are the lanes active in the body while the warp runs it (the others wait).\n"
        printf "  %-13s %s\n", "branch:", reading["branch"]
    }
    if ("timeline" in wanted) {
        printf "Engines: the emulator runs each copy and kernel when it is issued; the rows show the order in which a\n"
        printf "GPU with one copy engine each way and the SMs would run them. An op starts once its host thread has issued\n"
        printf "it, its stream's previous op is done, the events it waits for are complete, the op ahead of it in its\n"
        printf "hardware queue has started and its engine is free: the streams share 8 queues (stream k queue k mod 8, stream\n"
        printf "0 one of its own), each handing out its ops in issue order, and an engine that comes free takes, of the ops\n"
        printf "whose turn has come, the one that has waited longest. Stream 0, the legacy default stream, waits for the\n"
        printf "blocking streams and they for it (not the cudaStreamNonBlocking ones); a host thread waits at each\n"
        printf "synchronize, at cudaMemcpy and at every copy from or to pageable memory, and holds back only what it issues\n"
        printf "after. A digit or letter is the stream: 0 the legacy default stream, the others 1, 2 ... in the order the\n"
        printf "call first used them. Not times: each engine's work is drawn as long as the others' (1.00: the lab sizes the\n"
        printf "kernel so that copy in, kernel and copy out take about as long on a GPU), each op in proportion to its\n"
        printf "bytes or threads.\n"
        printf "  %-13s %s\n", "engines:", reading["timeline"]
    }
    for (k = 1; k <= nmissing; k++)
        printf "Not shown by make explain: %s.\n", missing[k]
}

# the line number of a "file:line" place (0 when it has none)
function line_no(loc) {
    return match(loc, /:[0-9]+$/) ? substr(loc, RSTART + 1) + 0 : 0
}
