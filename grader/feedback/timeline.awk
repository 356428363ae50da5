# timeline.awk - make explain's engine timeline (a lab whose explain.tsv has a timeline row: lab
# 05). The CPU emulator runs every copy and kernel at once, when it is issued, and writes them down
# in issue order (op lines: common/emu/src/count.cpp). From those, the order in which a GPU with
# one copy engine each way (host to device, device to host: both can run at once) and one compute
# engine would run them:
#
#   an op starts once the host has issued it, the previous op of its stream has finished, the
#   events it waits for are complete and its engine is free; an engine takes its ops in issue
#   order. The legacy default stream (0) waits for all earlier work of the blocking streams
#   (cudaStreamCreate, and the per-thread default stream), and their later work waits for it;
#   non-blocking streams (cudaStreamNonBlocking) take no part in that. The host waits at
#   cudaStreamSynchronize, cudaEventSynchronize and cudaDeviceSynchronize, and for copies that
#   return only once done: cudaMemcpy without Async, and any copy from or to pageable memory
#   (on a GPU the driver stages it through a buffer of its own, with the CPU copying).
#
# Ordering only, not times: each engine's whole work is drawn the same length, 1.00 (the lab
# sizes the kernel so that copy in, kernel and copy out take about as long on a GPU), each op
# within it in proportion to its bytes (copies) or threads (kernels). Copies between device
# buffers and memsets go on a fourth row, at the copy-in rate. Fixed costs per op are left out.
#
# Functions only; explain.awk, loaded after it (explain.sh), calls them:
#   timeline_add(s)           the op line in $1..$8 belongs to section s (explain.awk's numbering)
#   timeline_schedule(s)      the schedule of section s; sets tl_span[s], tl_sum[s],
#                             tl_longest[s], tl_two[s], tl_three[s] (fractions of the span)
#   timeline_print(s)         the rows of section s, and a line or two on what they show
#   timeline_write(s, file)   one line per engine op to FILE: section, lane (h2d|kernel|d2h|
#                             other), stream, start, end, bytes or threads (the columns of make
#                             profile's timeline.tsv; start and end in engines' lengths)

# The engine that runs an op of KIND ("" for marks: event records and waits, host waits).
function tl_engine(kind) {
    if (kind == "h2d") return "in"
    if (kind == "d2h") return "out"
    if (kind == "kernel") return "compute"
    if (kind == "d2d" || kind == "h2h" || kind == "memset") return "other"
    return ""
}
BEGIN { tl_engines["in"]; tl_engines["compute"]; tl_engines["out"]; tl_engines["other"] }
function tl_lane(e) { return e == "in" ? "h2d" : e == "out" ? "d2h" : e == "compute" ? "kernel" : "other" }
function tl_max(a, b) { return a > b ? a : b }
function tl_min(a, b) { return a < b ? a : b }

function timeline_add(s,    i) {
    i = ++tl_n[s]
    tl_stream[s, i] = $3; tl_skind[s, i] = $4; tl_kind[s, i] = $5
    tl_amount[s, i] = $6 + 0; tl_detail[s, i] = $7; tl_call[s, i] = $8
    if (!((s, $3) in tl_seen) && $3 != "-") { tl_seen[s, $3] = 1; tl_nstreams[s]++ }
}

function timeline_schedule(s,    i, e, st, sk, kind, t, host, rate, work, ready, free, ev, blocking_end, all_end) {
    for (i = 1; i <= tl_n[s]; i++) {
        e = tl_engine(tl_kind[s, i])
        if (e != "") work[e] += tl_amount[s, i]
    }
    rate["in"] = work["in"]; rate["out"] = work["out"]; rate["compute"] = work["compute"]
    rate["other"] = work["in"] > 0 ? work["in"] : work["out"] > 0 ? work["out"] : work["other"]
    host = 0; blocking_end = 0; all_end = 0
    for (i = 1; i <= tl_n[s]; i++) {
        st = tl_stream[s, i]; sk = tl_skind[s, i]; kind = tl_kind[s, i]; e = tl_engine(kind)
        if (kind == "sync") { # the host waits: nothing issued after this starts earlier
            if (st != "-") host = tl_max(host, ready[st])
            else if (tl_detail[s, i] ~ /^event /) host = tl_max(host, ev[tl_detail[s, i]])
            else host = tl_max(host, all_end)
            continue
        }
        t = tl_max(host, ready[st])
        if (sk == "legacy") t = tl_max(t, blocking_end)
        else if (sk == "blocking" || sk == "per-thread") t = tl_max(t, ready["0"])
        if (kind == "wait") t = tl_max(t, ev[tl_detail[s, i]])
        if (e != "") t = tl_max(t, free[e])
        tl_start[s, i] = t
        tl_end[s, i] = t + (e != "" && rate[e] > 0 ? tl_amount[s, i] / rate[e] : 0)
        if (e != "") free[e] = tl_end[s, i]
        if (kind == "record") ev[tl_detail[s, i]] = t
        ready[st] = tl_end[s, i]
        if (sk == "blocking" || sk == "per-thread") blocking_end = tl_max(blocking_end, tl_end[s, i])
        all_end = tl_max(all_end, tl_end[s, i])
        # copies that return only once done: cudaMemcpy, or pageable host memory
        if (e != "" && kind != "kernel" && kind != "memset" && (tl_call[s, i] !~ /Async$/ || tl_detail[s, i] == "pageable")) {
            host = tl_max(host, tl_end[s, i])
            tl_host_waits[s]++
        }
        if (e != "") {
            tl_busy[s, e] += tl_end[s, i] - t; tl_ops[s, e]++
            tl_longest_op[s, e] = tl_max(tl_longest_op[s, e], tl_end[s, i] - t)
        }
        if (sk == "legacy" && e != "") tl_on_legacy[s]++
        if ((sk == "blocking" || sk == "per-thread") && e != "") tl_on_blocking[s]++
    }
    tl_span[s] = all_end
    tl_sum[s] = tl_busy[s, "in"] + tl_busy[s, "compute"] + tl_busy[s, "out"] + tl_busy[s, "other"]
    tl_longest[s] = tl_max(tl_max(tl_busy[s, "in"], tl_busy[s, "compute"]), tl_max(tl_busy[s, "out"], tl_busy[s, "other"]))
    tl_overlap(s)
}

# tl_two[s], tl_three[s]: the fractions of the span with two or more engines busy, and the
# three of the pipeline (copy in, compute, copy out) at once. An engine's ops run one after
# another in issue order, so each engine's boundaries come sorted: merged, in one pass.
function tl_overlap(s,    e, i, n, at, next_at, pick, v, prev, active, count, both, all3) {
    for (e in tl_engines) n[e] = 0
    for (i = 1; i <= tl_n[s]; i++) {
        e = tl_engine(tl_kind[s, i])
        if (e == "" || tl_end[s, i] <= tl_start[s, i]) continue
        tl_b[s, e, n[e]++] = tl_start[s, i]; tl_b[s, e, n[e]++] = tl_end[s, i]
    }
    for (e in tl_engines) { at[e] = 0; active[e] = 0 }
    both = 0; all3 = 0; prev = 0; count = 0
    while (1) {
        pick = ""
        for (e in tl_engines)
            if (at[e] < n[e] && (pick == "" || tl_b[s, e, at[e]] < next_at)) { pick = e; next_at = tl_b[s, e, at[e]] }
        if (pick == "") break
        v = next_at
        if (count >= 2) both += v - prev
        if (active["in"] && active["compute"] && active["out"]) all3 += v - prev
        prev = v
        active[pick] = at[pick] % 2 == 0 # a start, or an end
        count += active[pick] ? 1 : -1
        at[pick]++
    }
    tl_two[s] = tl_span[s] > 0 ? both / tl_span[s] : 0
    tl_three[s] = tl_span[s] > 0 ? all3 / tl_span[s] : 0
}

# The character that draws stream ST: its number, then letters (0 is the legacy default stream).
function tl_char(st) {
    st += 0
    if (st < 10) return st ""
    if (st < 62) return substr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", st - 9, 1)
    return "*"
}
function tl_size(bytes) {
    return bytes >= 1048576 ? sprintf("%.1f MiB", bytes / 1048576) : bytes >= 1024 ? sprintf("%.1f KiB", bytes / 1024) : bytes " B"
}
function tl_fixed(x) { return sprintf("%.2f", x) }

# Engine E's row of section S from 0 to T in W characters, each a step of T / W: the stream that
# filled most of a step the engine is busy for 3/4 of the step or more, ":" for one it is busy
# for 1/8 to 3/4 of, "." for less (idle). Sets tl_partial to the row's ":" steps.
function tl_row(s, e, W, T,    i, a, b, c, f, step, busy, most, by, cells, line) {
    step = T / W
    for (i = 1; i <= tl_n[s]; i++) {
        if (tl_engine(tl_kind[s, i]) != e || tl_end[s, i] <= tl_start[s, i] || tl_start[s, i] >= T) continue
        a = int(tl_start[s, i] / step); b = int(tl_end[s, i] / step)
        for (c = a; c <= b && c < W; c++) {
            f = tl_min(tl_end[s, i], (c + 1) * step) - tl_max(tl_start[s, i], c * step)
            if (f <= 0) continue
            busy[c] += f
            by[c, tl_stream[s, i]] += f
            if (by[c, tl_stream[s, i]] > most[c]) { most[c] = by[c, tl_stream[s, i]]; cells[c] = tl_char(tl_stream[s, i]) }
        }
    }
    line = ""; tl_partial = 0
    for (c = 0; c < W; c++) {
        if (busy[c] >= 0.75 * step) line = line cells[c]
        else if (busy[c] >= 0.125 * step) { line = line ":"; tl_partial++ }
        else line = line "."
    }
    return line
}

# The width, 48 to 64 characters, at which section S's rows have the fewest part-busy steps (an
# op that ends mid-step): 63 draws three engines' work one after another, or 7 chunks, exactly.
function tl_width(s,    W, best, fewest, n, r, rows) {
    split("in compute out other", rows, " ")
    fewest = -1
    for (W = 64; W >= 48; W--) {
        n = 0
        for (r = 1; r <= 4; r++) { tl_row(s, rows[r], W, tl_span[s]); n += tl_partial }
        if (fewest < 0 || n < fewest) { fewest = n; best = W }
    }
    return best
}

# The rows of section S from 0 to T in W characters, and the time under them.
function tl_rows(s, W, T,    rows, names, r, e, i, line, amount, what, pageable, partial) {
    split("in compute out other", rows, " ")
    names["in"] = "copy in (H2D)"; names["compute"] = "compute"; names["out"] = "copy out (D2H)"
    names["other"] = "other copies"
    partial = 0
    for (r = 1; r <= 4; r++) {
        e = rows[r]
        if (e == "other" && !tl_ops[s, e]) continue
        line = tl_row(s, e, W, T)
        partial += tl_partial
        amount = 0; pageable = 0
        for (i = 1; i <= tl_n[s]; i++) {
            if (tl_engine(tl_kind[s, i]) != e) continue
            amount += tl_amount[s, i]
            if (tl_detail[s, i] == "pageable") pageable++
        }
        if (e == "compute")
            what = tl_ops[s, e] + 0 " kernel" (tl_ops[s, e] == 1 ? "" : "s") ", " amount " threads"
        else
            what = tl_ops[s, e] + 0 " cop" (tl_ops[s, e] == 1 ? "y" : "ies") ", " tl_size(amount) \
                (pageable ? ", " pageable " from or to pageable memory" : "")
        printf "    %-15s |%s|%s\n", names[e], line, T < tl_span[s] ? "" : " " what
    }
    printf "    %-15s  0%s\n", "", sprintf("%" (W - 1) "s", tl_fixed(T))
    return partial
}

function timeline_print(s,    W, n, e, partial, shortest, T) {
    n = tl_nstreams[s] + 0
    if (tl_span[s] <= 0) { printf "  engines: (no copy or kernel was issued)\n"; return }
    W = tl_width(s)
    printf "  engines, in the order a GPU would run this call's %d operations on %d stream%s (not times):\n",
        tl_ops[s, "in"] + tl_ops[s, "compute"] + tl_ops[s, "out"] + tl_ops[s, "other"], n, n == 1 ? "" : "s"
    partial = tl_rows(s, W, tl_span[s])
    if (partial)
        printf "  (a character is a step of %.3f; \":\" an engine busy for part of the step)\n", tl_span[s] / W
    # ops too short to draw: the start again, magnified until the longest op of the engine whose
    # ops are shortest takes 4 characters
    shortest = 0
    for (e in tl_engines)
        if (tl_ops[s, e] && (shortest == 0 || tl_longest_op[s, e] < shortest)) shortest = tl_longest_op[s, e]
    T = shortest * 64 / 4
    if (partial > W / 4 && T < tl_span[s] / 2) {
        printf "  its start, magnified:\n"
        tl_rows(s, 64, T)
    }
    printf "  span %s (the busiest engine's work %s, all engines' %s); two or more engines busy %.0f%% of it, all three %.0f%%\n",
        tl_fixed(tl_span[s]), tl_fixed(tl_longest[s]), tl_fixed(tl_sum[s]), 100 * tl_two[s], 100 * tl_three[s]
    printf "  => %s\n", timeline_reading(s)
    if (tl_on_legacy[s] && tl_on_blocking[s])
        printf "  stream 0, the legacy default stream, waited for all earlier work of the blocking streams, and they for it\n"
    if (tl_host_waits[s])
        printf "  %d cop%s returned only once done (cudaMemcpy, or pageable memory): what the host issued after %s could not start before %s end\n",
            tl_host_waits[s], tl_host_waits[s] == 1 ? "y" : "ies", tl_host_waits[s] == 1 ? "it" : "one", tl_host_waits[s] == 1 ? "its" : "that one's"
}

# What section S's span says, in the lesson's words.
function timeline_reading(s) {
    if (tl_span[s] >= 0.999 * tl_sum[s])
        return "no overlap: one engine at a time, so the call lasts as long as all their work added up"
    if (tl_span[s] <= 1.1 * tl_longest[s])
        return "a full pipeline: the call lasts " sprintf("%.2f", tl_span[s] / tl_longest[s]) \
            " x its busiest engine's work (1.00 is perfect overlap)"
    return "overlap: the call lasts " sprintf("%.2f", tl_span[s] / tl_longest[s]) " x its busiest engine's work (1.00 is perfect), " \
        sprintf("%.2f", tl_span[s] / tl_sum[s]) " of all of it"
}

function timeline_write(s, file,    i, e) {
    for (i = 1; i <= tl_n[s]; i++) {
        e = tl_engine(tl_kind[s, i])
        if (e == "") continue
        printf "%d\t%s\t%s\t%.6f\t%.6f\t%d\n", s, tl_lane(e), tl_stream[s, i], tl_start[s, i], tl_end[s, i], tl_amount[s, i] > file
    }
}
