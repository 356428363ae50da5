# profile-timeline.awk - make profile's timeline (lab 05): for your call and the reference's,
# one lane per engine (copies to the GPU, kernels, copies to the host), drawn from the CUDA
# events the harness recorded around every copy and kernel, with how busy each lane was and
# how much of the call ran two or more engines at once. See profile.sh.
#
#   awk -F'\t' -v label=L -f profile-timeline.awk sections.txt timeline.tsv
#
# timeline.tsv: section, lane (h2d|kernel|d2h|other), stream, start_ms, end_ms, bytes; times
# from the call's start. A lane's busy time is the union of its bars, exact even where a
# bar includes a wait for the engine (its stream was ready, another stream's copy ran).

FNR == NR {
    if ($1 !~ /^section /) next
    s = substr($1, 9) + 0
    sec_task[s] = $3; sec_who[s] = $4; sec_size[s] = $5
    if (s > nsec) nsec = s
    next
}
{
    s = $1 + 0; k = ++nop[s]
    lane[s, k] = $2; stream[s, k] = $3; t0[s, k] = $4 + 0; t1[s, k] = $5 + 0; bytes[s, k] = $6 + 0
    if ($5 + 0 > span[s]) span[s] = $5 + 0
    if (!((s, $3) in seen)) { seen[s, $3] = 1; nstreams[s]++ }
}

function draw(s,    L, W, B, k, c, a, b, i, j, line, busy, any, multi, n, nb, ms, name, ns) {
    W = 64; B = 4000
    split("h2d kernel d2h other", L, " ")
    name["h2d"] = "copies to the GPU"; name["kernel"] = "kernels"
    name["d2h"] = "copies to the host"; name["other"] = "other copies"
    ns = nstreams[s] + 0
    printf "\n  %s: %.2f ms, %d operations on %d stream%s\n", sec_who[s] == "yours" ? "yours" : "reference", span[s], nop[s], ns, ns == 1 ? "" : "s"
    if (span[s] <= 0) { print "  (no copy or kernel was recorded)"; return }
    for (i = 0; i < B; i++) cnt[i] = 0
    for (j = 1; j <= 4; j++) {
        n = 0; nb = 0
        for (c = 0; c < W; c++) row[c] = "."
        for (i = 0; i < B; i++) on[i] = 0
        for (k = 1; k <= nop[s]; k++) {
            if (lane[s, k] != L[j]) continue
            n++; nb += bytes[s, k]
            a = int(t0[s, k] / span[s] * W); b = int(t1[s, k] / span[s] * W - 1e-9)
            if (b < a) b = a
            for (c = a; c <= b && c < W; c++) row[c] = substr("HKDO", j, 1)
            a = int(t0[s, k] / span[s] * B); b = int(t1[s, k] / span[s] * B)
            for (i = a; i < b && i < B; i++) on[i] = 1
        }
        if (!n && L[j] == "other") continue
        busy = 0
        for (i = 0; i < B; i++) if (on[i]) { busy++; cnt[i]++ }
        line = ""
        for (c = 0; c < W; c++) line = line row[c]
        ms = busy / B * span[s]
        printf "    %-19s |%s| %3.0f%% busy, %.2f ms", name[L[j]], line, 100 * busy / B, ms
        if (L[j] == "kernel") printf ", %d kernels\n", n
        else printf ", %d copies, %.0f MB\n", n, nb / 1e6
        if (ms > lane_max[s]) lane_max[s] = ms
    }
    multi = 0; any = 0
    for (i = 0; i < B; i++) { if (cnt[i] >= 2) multi++; if (cnt[i]) any++ }
    printf "    two or more engines at once: %.0f%% of the call; the busiest engine alone needs %.2f ms (%.0f%% of it)\n", 100 * multi / B, lane_max[s], 100 * lane_max[s] / span[s]
}

END {
    if (nsec == 0) { print "profile: the harness announced no sections (see harness.log)" > "/dev/stderr"; exit 2 }
    printf "Timeline of one call each of %s and of the reference, after a warm-up call,\n", label
    printf "from CUDA events around every copy and kernel (H: copy to the GPU, K: kernel, D: copy back).\n"
    for (s = 1; s <= nsec; s += 2) {
        printf "\n== %s, %s\n", sec_task[s], sec_size[s]
        draw(s); draw(s + 1)
    }
    printf "\nA pipeline keeps the copy engines and the SMs busy at the same time: its call lasts little more\n"
    printf "than its busiest engine. Bars in one lane that overlap show work queued for the same engine.\n"
    printf "Every operation, with its stream and times: %s/timeline.tsv\n", out
}
