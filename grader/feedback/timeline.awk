# timeline.awk - make explain's engine timeline (a lab whose explain.tsv has a timeline row: lab
# 05). The CPU emulator runs every copy and kernel at once, when it is issued, and writes them down
# in issue order, each with the host thread that issued it (op lines: common/emu/src/count.cpp).
# From those, the order in which a GPU with one copy engine each way (host to device, device to
# host: both can run at once) and one compute engine would run them:
#
#   an op starts once its host thread has issued it, the previous op of its stream has finished,
#   the events it waits for are complete, the op ahead of it in its hardware queue has started,
#   and its engine is free. Streams reach the GPU through 8 hardware queues (Hyper-Q; CUDA's
#   default CUDA_DEVICE_MAX_CONNECTIONS): stream k (numbered as the call first uses it) goes into
#   queue k mod 8, the legacy default stream into one of its own, and a queue hands out its ops
#   in issue order, so streams that share one (a ninth stream and the first) wait for each
#   other's turn. An engine takes, of the ops whose turn has come, the one that can start first,
#   and of those it could start at once, the one that has waited longest (then the earlier
#   issued): the queues are served side by side, not in the order the emulator wrote their ops
#   down. The legacy default stream (0) waits for all earlier work of the blocking streams
#   (cudaStreamCreate, and the per-thread default stream), and their later work waits for it;
#   non-blocking streams (cudaStreamNonBlocking) take no part in that. A host thread waits at
#   cudaStreamSynchronize, cudaEventSynchronize and cudaDeviceSynchronize, and for copies that
#   return only once done: cudaMemcpy without Async, and any copy from or to pageable memory (on
#   a GPU the driver stages it through a buffer of its own, with the CPU copying). Each host
#   thread keeps its own clock, so one thread's wait holds back only what that thread issues
#   after it (the emulator may run the threads one after another; on a GPU they issue side by
#   side). A graph's branches come as streams of their own (common/emu/src/runtime.cpp).
#
# Ordering only, not times: each engine's whole work is drawn the same length, 1.00 (the lab
# sizes the kernel so that copy in, kernel and copy out take about as long on a GPU), each op
# within it in proportion to its bytes (copies) or threads (kernels). Copies between device
# buffers and memsets go on a fourth row, at the copy-in rate. Fixed costs per op are left out.
#
# Functions only; explain.awk, loaded after it (explain.sh), calls them:
#   timeline_add(s)           the op line in $1..$9 belongs to section s (explain.awk's numbering;
#                             $9, the host thread, is 1 where the line has none)
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
BEGIN {
    tl_engines["in"]; tl_engines["compute"]; tl_engines["out"]; tl_engines["other"]
    TL_QUEUES = 8 # hardware queues the streams share (CUDA_DEVICE_MAX_CONNECTIONS' default)
}
function tl_lane(e) { return e == "in" ? "h2d" : e == "out" ? "d2h" : e == "compute" ? "kernel" : "other" }
function tl_max(a, b) { return a > b ? a : b }
function tl_min(a, b) { return a < b ? a : b }

function timeline_add(s,    i) {
    i = ++tl_n[s]
    tl_stream[s, i] = $3; tl_skind[s, i] = $4; tl_kind[s, i] = $5
    tl_amount[s, i] = $6 + 0; tl_detail[s, i] = $7; tl_call[s, i] = $8
    tl_thread[s, i] = NF >= 9 ? $9 : 1
    if (!((s, $3) in tl_seen) && $3 != "-") { tl_seen[s, $3] = 1; tl_nstreams[s]++ }
    # the host threads that issued work (one that only waits, as the caller after the call, is none)
    if ($5 != "sync" && !((s, tl_thread[s, i]) in tl_tseen)) { tl_tseen[s, tl_thread[s, i]] = 1; tl_nthreads[s]++ }
}

# Whether op i of section s is a copy that returns only once done: cudaMemcpy, or pageable memory.
function tl_host_blocking(s, i,    kind) {
    kind = tl_kind[s, i]
    return tl_engine(kind) != "" && kind != "kernel" && kind != "memset" &&
        (tl_call[s, i] !~ /Async$/ || tl_detail[s, i] == "pageable")
}
# The hardware queue of stream ST.
function tl_queue(st) { return st == "0" ? "legacy" : st % TL_QUEUES }
# Op i of section s may not start before op d has ended (how == "end") or started ("start").
function tl_after(s, i, d, how,    k) {
    if (d == "" || d == 0) return
    k = ++tl_nd[s, i]; tl_dep[s, i, k] = d; tl_dhow[s, i, k] = how
}

# What each op of section s waits for, from the ops issued before it (its stream's, its host
# thread's, the events', the legacy stream's rules, its queue's): tl_dep[s, i, 1..tl_nd[s, i]].
# A host wait (sync) waits for the ops it names; the next op of its thread waits for it. "Every
# earlier op" (the legacy stream's, cudaDeviceSynchronize's) is the ops since the last such op,
# and that op, which came after the rest: each op has a few dependencies, however many streams.
function tl_depends(s,    i, st, sk, kind, th, q, x, last, lastq, lastrec, host, since_legacy, since_all, all) {
    for (i = 1; i <= tl_n[s]; i++) {
        st = tl_stream[s, i]; sk = tl_skind[s, i]; kind = tl_kind[s, i]; th = tl_thread[s, i]
        tl_nd[s, i] = 0
        tl_after(s, i, host[th], "end")
        if (kind == "sync") {
            if (st != "-") tl_after(s, i, last[st], "end")
            else if (tl_detail[s, i] ~ /^event /) tl_after(s, i, lastrec[tl_detail[s, i]], "end")
            else { # cudaDeviceSynchronize
                tl_after(s, i, all, "end")
                for (x in since_all) tl_after(s, i, last[x], "end")
                split("", since_all); all = i
            }
            host[th] = i
            continue
        }
        tl_after(s, i, last[st], "end")
        if (sk == "legacy") { for (x in since_legacy) tl_after(s, i, last[x], "end"); split("", since_legacy) }
        else if (sk == "blocking" || sk == "per-thread") { tl_after(s, i, last["0"], "end"); since_legacy[st] = 1 }
        if (kind == "wait") tl_after(s, i, lastrec[tl_detail[s, i]], "end")
        q = tl_queue(st)
        tl_after(s, i, lastq[q], "start")
        last[st] = i; lastq[q] = i; since_all[st] = 1
        if (kind == "record") lastrec[tl_detail[s, i]] = i
        if (tl_host_blocking(s, i)) { host[th] = i; tl_host_waits[s]++ }
    }
}

# The earliest op i of section s may start, its dependencies all placed (its engine aside).
function tl_ready_at(s, i,    k, d, t) {
    t = 0
    for (k = 1; k <= tl_nd[s, i]; k++) {
        d = tl_dep[s, i, k]
        t = tl_max(t, tl_dhow[s, i, k] == "start" ? tl_start[s, d] : tl_end[s, d])
    }
    return t
}

# Op i of section s is placed: the ops waiting for it that wait for nothing else now become
# candidates (tl_cand, the earliest each may start in tl_soon), or, a host wait, are placed at
# once (it takes no engine, so its time is its dependencies'), and so on from there.
function tl_placed(s, i,    top, stack, x, k, j) {
    top = 0; stack[++top] = i
    while (top > 0) {
        x = stack[top--]
        for (k = 1; k <= tl_nnext[x]; k++) {
            j = tl_next[x, k]
            if (--tl_wait[j] > 0) continue
            if (tl_kind[s, j] != "sync") { tl_cand[j] = 1; tl_soon[j] = tl_ready_at(s, j); continue }
            tl_start[s, j] = tl_end[s, j] = tl_ready_at(s, j)
            stack[++top] = j
        }
    }
}

# Places every op of section s, earliest start first: each step takes, of the candidates (ops
# whose dependencies are placed: at most one a queue), the one that can start first (its engine
# free too); of those that can start at once, the one ready first, then the earlier issued.
# Starts come in order, so an engine's ops come out one after another: tl_order[s, e, 1..
# tl_nord[s, e]].
function tl_place(s,    i, k, d, e, t, best, best_t, rate, work, free) {
    for (i = 1; i <= tl_n[s]; i++) {
        e = tl_engine(tl_kind[s, i])
        if (e != "") work[e] += tl_amount[s, i]
    }
    rate["in"] = work["in"]; rate["out"] = work["out"]; rate["compute"] = work["compute"]
    rate["other"] = work["in"] > 0 ? work["in"] : work["out"] > 0 ? work["out"] : work["other"]
    split("", tl_cand); split("", tl_soon); split("", tl_wait); split("", tl_next); split("", tl_nnext)
    for (i = 1; i <= tl_n[s]; i++) {
        tl_wait[i] = tl_nd[s, i]
        for (k = 1; k <= tl_nd[s, i]; k++) { d = tl_dep[s, i, k]; tl_next[d, ++tl_nnext[d]] = i }
    }
    tl_wait[0] = 0
    for (i = 1; i <= tl_n[s]; i++) if (tl_nd[s, i] == 0) { tl_next[0, ++tl_nnext[0]] = i; tl_wait[i] = 1 }
    tl_placed(s, 0)
    for (e in tl_engines) { free[e] = 0; tl_nord[s, e] = 0 }
    while (1) {
        best = 0
        for (i in tl_cand) {
            e = tl_engine(tl_kind[s, i])
            t = e != "" ? tl_max(tl_soon[i], free[e]) : tl_soon[i]
            if (best == 0 || t < best_t || t == best_t && (tl_soon[i] < tl_soon[best] ||
                tl_soon[i] == tl_soon[best] && i + 0 < best)) { best = i + 0; best_t = t }
        }
        if (best == 0) break
        delete tl_cand[best]
        e = tl_engine(tl_kind[s, best])
        tl_start[s, best] = best_t
        tl_end[s, best] = best_t + (e != "" && rate[e] > 0 ? tl_amount[s, best] / rate[e] : 0)
        if (e != "") { free[e] = tl_end[s, best]; tl_order[s, e, ++tl_nord[s, e]] = best }
        tl_placed(s, best)
    }
}

function timeline_schedule(s,    i, e, sk, t) {
    if ((s in tl_scheduled)) return
    tl_scheduled[s] = 1
    tl_host_waits[s] = 0
    tl_depends(s)
    tl_place(s)
    tl_span[s] = 0
    for (i = 1; i <= tl_n[s]; i++) {
        e = tl_engine(tl_kind[s, i]); sk = tl_skind[s, i]
        if (tl_kind[s, i] != "sync") tl_span[s] = tl_max(tl_span[s], tl_end[s, i])
        if (e == "") continue
        t = tl_end[s, i] - tl_start[s, i]
        tl_busy[s, e] += t; tl_ops[s, e]++
        tl_longest_op[s, e] = tl_max(tl_longest_op[s, e], t)
        if (sk == "legacy") tl_on_legacy[s]++
        if (sk == "blocking" || sk == "per-thread") tl_on_blocking[s]++
    }
    tl_sum[s] = tl_busy[s, "in"] + tl_busy[s, "compute"] + tl_busy[s, "out"] + tl_busy[s, "other"]
    tl_longest[s] = tl_max(tl_max(tl_busy[s, "in"], tl_busy[s, "compute"]), tl_max(tl_busy[s, "out"], tl_busy[s, "other"]))
    tl_overlap(s)
}

# tl_two[s], tl_three[s]: the fractions of the span with two or more engines busy, and the
# three of the pipeline (copy in, compute, copy out) at once. An engine's ops run one after
# another (tl_order), so each engine's boundaries come sorted: merged, in one pass.
function tl_overlap(s,    e, i, k, n, at, next_at, pick, v, prev, active, count, both, all3) {
    for (e in tl_engines) {
        n[e] = 0
        for (k = 1; k <= tl_nord[s, e]; k++) {
            i = tl_order[s, e, k]
            if (tl_end[s, i] <= tl_start[s, i]) continue
            tl_b[s, e, n[e]++] = tl_start[s, i]; tl_b[s, e, n[e]++] = tl_end[s, i]
        }
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
    printf "  engines, in the order a GPU would run this call's %d operations on %d stream%s%s (not times):\n",
        tl_ops[s, "in"] + tl_ops[s, "compute"] + tl_ops[s, "out"] + tl_ops[s, "other"], n, n == 1 ? "" : "s",
        (tl_nthreads[s] > 1 ? " from " tl_nthreads[s] " host threads" : "")
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
