#!/bin/sh
# diagrams.sh - draw the labs' teaching diagrams as SVG, from the arithmetic they illustrate
# (addresses, banks, waves), so a picture cannot disagree with its lesson.
#
#   grader/tools/svg/diagrams.sh [ROOT]     writes ROOT/labs/NN-name/*.svg (ROOT: this repo)
#
# POSIX sh and awk only. Each diagram is one awk program; common pieces (header, text, box)
# are the awk functions of prelude.awk. The SVGs are committed; rerun after editing.
set -eu
root=${1:-$(cd "$(dirname "$0")/../../.." && pwd)}

# The drawing pieces, shared with make explain's pictures (access.awk).
PRELUDE=$(cat "$(dirname "$0")/prelude.awk")

# Lab 01: a warp's 32 addresses over 32-byte sectors, three ways.
sectors() {
    awk "$PRELUDE"'
    BEGIN {
        W = 900; head(W, 450)
        text(12, 22, "One warp, one load instruction: which 32-byte sectors do its 32 addresses touch?", "font-size=\"15\" font-weight=\"bold\"")
        # panel(y, title, bytes per thread, stride in bytes between threads, sectors shown)
        panel(50, "coalesced, 4 bytes per thread: in[base + t]", 4, 4)
        panel(185, "coalesced float4, 16 bytes per thread: in4[base + t]", 16, 16)
        panel(320, "strided, 4 bytes per thread: in[t * cols + c] (a column walk; the sectors are 32 KB apart)", 4, 4 * 8191)
        foot()
    }
    function panel(y, title, size, stride,    t, s, used, nsec, x, sx, first, last, sw, touched, k, n) {
        text(12, y, title, "font-weight=\"bold\"")
        # threads along the top, 32 of them
        for (t = 0; t < 32; t++) {
            x = 40 + t * 26
            box(x, y + 10, 20, 16, "#4c78a8", "")
            if (t % 4 == 0 || t == 31) text(x + 10, y + 22, t, "fill=\"white\" font-size=\"9\" text-anchor=\"middle\"")
        }
        # sectors touched: 32-byte units of (t * stride) .. + size - 1
        n = 0
        for (t = 0; t < 32; t++) {
            first = int(t * stride / 32); last = int((t * stride + size - 1) / 32)
            for (k = first; k <= last; k++) if (!(k in touched)) { touched[k] = ++n; order[n] = k }
            tsec[t] = touched[first]
        }
        sw = n <= 16 ? 832 / 16 : 832 / 32
        for (s = 1; s <= n; s++) {
            sx = 40 + (s - 1) * sw
            box(sx + 1, y + 66, sw - 2, 22, "#f2b134", "#8a6d1f")
        }
        for (t = 0; t < 32; t++) {
            x = 40 + t * 26 + 10
            sx = 40 + (tsec[t] - 1) * sw + sw / 2
            line(x, y + 26, sx, y + 66, "#555", "stroke-width=\"0.8\"")
        }
        used = 32 * size
        text(40, y + 106, n " sectors of 32 bytes = " n * 32 " bytes moved for " used " bytes used (" int(100 * used / (n * 32) + 0.5) "% of each sector used)", "")
    }' > "$root/labs/01-coalescing/sectors.svg"
}

# Lab 02: which bank each thread of a warp reads when it reads column k of its row.
banks() {
    awk "$PRELUDE"'
    BEGIN {
        C = 9; K = 5
        head(760, 32 * C + 130)
        text(12, 22, "Thread t of a warp reads tile[t][" K "]: which of the 32 banks serves it?", "font-size=\"15\" font-weight=\"bold\"")
        grid(20, 75, 32, "float tile[32][32]", "word 32t + k: bank k for all 32 threads, 32 passes")
        grid(400, 75, 33, "float tile[32][33] (one float of padding)", "word 33t + k: bank (t + k) % 32, 32 banks, 1 pass")
        foot()
    }
    function grid(x0, y0, row, title, subtitle,    t, b, hit) {
        text(x0, y0 - 26, title, "font-weight=\"bold\""); text(x0, y0 - 12, subtitle, "font-size=\"11\"")
        for (b = 0; b < 32; b += 4) text(x0 + 30 + b * C + C / 2, y0 + 8, b, "font-size=\"8\" text-anchor=\"middle\"")
        text(x0 + 30, y0 - 1, "", "")
        for (t = 0; t < 32; t++) {
            if (t % 4 == 0) text(x0 + 26, y0 + 20 + t * C, "t" t, "font-size=\"8\" text-anchor=\"end\"")
            hit = (row * t + K) % 32
            for (b = 0; b < 32; b++)
                box(x0 + 30 + b * C, y0 + 12 + t * C, C - 1, C - 1, b == hit ? "#c0392b" : "#eeeeee", "")
        }
        text(x0 + 30, y0 + 28 + 32 * C, "columns: banks; rows: threads; red: the bank read", "font-size=\"10\"")
    }' > "$root/labs/02-banks/banks.svg"
}

# Lab 05: copy engines and SMs over time, sequential and pipelined (3 equal stages, 8 chunks).
timeline() {
    awk "$PRELUDE"'
    BEGIN {
        W = 900; head(W, 400); S = 240   # pixels per stage (one stage = the whole array)
        text(12, 22, "Copy in, compute, copy out: one stream vs 8 chunks over 4 streams (three equal stages)", "font-size=\"15\" font-weight=\"bold\"")
        lanes(50, "one stream: each engine waits for the other two")
        bar(50, 0, 0, S, "all"); bar(50, 1, S, S, "all"); bar(50, 2, 2 * S, S, "all")
        text(130 + 3 * S - 40, 50 + 3 * 34 + 16, "3 T", "")
        lanes(210, "8 chunks, 4 non-blocking streams: all three busy in the steady state")
        C = 8; w = S / C
        for (i = 0; i < C; i++) {
            bar(210, 0, i * w, w, i); bar(210, 1, (i + 1) * w, w, i); bar(210, 2, (i + 2) * w, w, i)
        }
        text(130 + (C + 2) * w + 6, 210 + 3 * 34 + 16, "T + 2T/8", "")
        line(130 + S, 200, 130 + S, 330, "#333", "stroke-dasharray=\"4 3\"")
        text(130 + S + 4, 345, "T: the busiest stage alone (the ideal when stages are equal)", "font-size=\"11\"")
        foot()
    }
    function lanes(y, title,    k) {
        text(12, y - 6, title, "font-weight=\"bold\"")
        split("copy engine H2D|SMs (kernel)|copy engine D2H", name, "|")
        for (k = 0; k < 3; k++) {
            text(122, y + 20 + k * 34, name[k + 1], "text-anchor=\"end\"")
            box(130, y + 4 + k * 34, 3 * 240 + 20, 26, "#f4f4f4", "")
        }
    }
    function bar(y, lane, x, w, chunk,    col) {
        split("#4c78a8 #2e7d32 #f2b134", cols, " ")
        col = cols[lane + 1]
        box(130 + x + 0.5, y + 6 + lane * 34, w - 1, 22, col, "white")
        if (chunk != "all") text(130 + x + w / 2, y + 21 + lane * 34, chunk, "fill=\"white\" font-size=\"10\" text-anchor=\"middle\"")
    }' > "$root/labs/05-streams/timeline.svg"
}

# Lab 08: blocks over SMs, one wave + 1 block vs the same work in equal shares.
waves() {
    awk "$PRELUDE"'
    BEGIN {
        SMS = 132; cw = 6; W = 60 + SMS * cw + 40
        head(W, 330)
        text(12, 22, "133 equal blocks on 132 SMs (one block per SM at a time): the last wave is nearly empty", "font-size=\"15\" font-weight=\"bold\"")
        axis(60, 50, "one block per item: 2 waves of time for 1.008 waves of work (0.50 of the ideal)")
        for (s = 0; s < SMS; s++) box(60 + s * cw, 60, cw - 1, 50, "#4c78a8", "")
        box(60, 112, cw - 1, 50, "#c0392b", "")
        text(60 + 8, 140, "block 132 runs alone; 131 SMs idle for a whole wave", "font-size=\"11\"")
        axis(60, 200, "persistent grid, equal shares: every SM does 133/132 of a block (0.97 of the ideal)")
        for (s = 0; s < SMS; s++) box(60 + s * cw, 210, cw - 1, 50 * 133 / 132, "#2e7d32", "")
        line(40, 60, 40, 162, "#333", ""); text(36, 110, "time", "text-anchor=\"end\" font-size=\"10\" transform=\"rotate(-90 36 110)\"")
        text(60, 300, "x: SMs 0..131; y: time, down; each box: one block of work", "font-size=\"11\"")
        foot()
    }
    function axis(x, y, title) { text(x, y, title, "font-weight=\"bold\"") }' > "$root/labs/08-tail/waves.svg"
}

# Lab 07: sequential addressing over 16 values: at each level the low half adds the high half.
tree() {
    awk "$PRELUDE"'
    BEGIN {
        N = 16; cw = 44; W = 60 + N * cw; head(W, 330)
        text(12, 22, "Sequential addressing: at stride s, thread t &lt; s adds sdata[t + s] into sdata[t]", "font-size=\"15\" font-weight=\"bold\"")
        y = 50; s = N
        for (level = 0; s >= 1; level++) {
            for (t = 0; t < N; t++)
                box(40 + t * cw, y, cw - 4, 26, t < s ? "#4c78a8" : "#eeeeee", "")
            text(36, y + 17, s == N ? "load" : "s=" s, "text-anchor=\"end\" font-size=\"11\"")
            if (s > 1) for (t = 0; t < s / 2; t++) {
                line(40 + (t + s / 2) * cw + 20, y + 26, 40 + t * cw + 20, y + 52, "#c0392b", "")
                line(40 + t * cw + 20, y + 26, 40 + t * cw + 20, y + 52, "#555", "")
            }
            y += 52; s /= 2
        }
        text(40, y + 10, "Active threads stay the lowest: whole warps skip the add (yet meet every barrier); a warp reads 32 consecutive words.", "font-size=\"11\"")
        foot()
    }' > "$root/labs/07-reduction/tree.svg"
}

# Lab 06: a tile's trip through shared memory.
transpose_tile() {
    awk "$PRELUDE"'
    BEGIN {
        head(900, 360)
        text(12, 22, "Transpose through a shared tile: read rows of in, write rows of out (columns of the tile)", "font-size=\"15\" font-weight=\"bold\"")
        G = 8; c = 22                        # an 8 x 8 grid of tiles shown, cell size
        grid(30, 60, "in (rows x cols)", 2, 5, "#4c78a8", "rows")
        grid(620, 60, "out (cols x rows)", 5, 2, "#2e7d32", "cols")
        # the shared tile in the middle, 8 x 8 elements with row arrows in, column arrows out
        x0 = 330; y0 = 90; e = 22
        text(x0, y0 - 12, "shared tile[32][33] (8 x 8 shown)", "font-weight=\"bold\"")
        for (r = 0; r < 8; r++) for (k = 0; k < 8; k++)
            box(x0 + k * e, y0 + r * e, e - 2, e - 2, r == 2 ? "#4c78a8" : (k == 5 ? "#2e7d32" : "#eeeeee"), "")
        line(30 + 5 * c + c, 60 + 2 * c + c / 2, x0 - 4, y0 + 2 * e + e / 2, "#4c78a8", "stroke-width=\"2\" marker-end=\"url(#a)\"")
        line(x0 + 5 * e + e / 2, y0 + 8 * e + 4, 620 + 2 * c + c / 2, 60 + 5 * c + c + 4, "#2e7d32", "stroke-width=\"2\"")
        text(30, 300, "1. a warp reads one row segment of the tile from in: 32 consecutive floats, whole sectors", "")
        text(30, 320, "2. __syncthreads(); a warp reads one COLUMN of the tile from shared memory (the +1 padding: 32 banks)", "")
        text(30, 340, "3. ... and writes it as one row segment of out: 32 consecutive floats again", "")
        foot()
    }
    function grid(x, y, title, tr, tc, col, what,    i, j) {
        text(x, y - 12, title, "font-weight=\"bold\"")
        for (i = 0; i < G; i++) for (j = 0; j < G; j++)
            box(x + j * c, y + i * c, c - 2, c - 2, (i == tr && j == tc) ? col : "#eeeeee", "")
        text(x, y + G * c + 16, "highlighted: the tile at (" tr ", " tc ")", "font-size=\"11\"")
    }' > "$root/labs/06-transpose/tile.svg"
}

# Lab 09: which parts of A and B a block tile of C reads, one BK slice at a time.
sgemm_tiling() {
    awk "$PRELUDE"'
    BEGIN {
        head(900, 445)
        text(12, 22, "Block tiling: a BM x BN tile of C needs a BM-row strip of A and a BN-column strip of B", "font-size=\"15\" font-weight=\"bold\"")
        # B on top right, A left, C below right
        bx = 360; by = 50; ax = 60; ay = 200; u = 16
        text(bx, by - 8, "B (K x N)", "font-weight=\"bold\"")
        box(bx, by, 26 * u / 2, 8 * u / 2 + 60, "#eeeeee", "#999")
        box(bx + 5 * u, by, 4 * u, 8 * u / 2 + 60, "#cfe0f1", "#4c78a8")
        box(bx + 5 * u, by + 2 * u, 4 * u, u, "#4c78a8", "")
        text(bx + 9 * u + 6, by + 2 * u + 12, "one BK slice of B (BK x BN) in shared memory", "font-size=\"11\"")
        text(ax, ay - 8, "A (M x K)", "font-weight=\"bold\"")
        box(ax, ay, 8 * u / 2 + 60, 12 * u, "#eeeeee", "#999")
        box(ax, ay + 4 * u, 8 * u / 2 + 60, 4 * u, "#f6e3b4", "#b8860b")
        box(ax + 2 * u, ay + 4 * u, u, 4 * u, "#f2b134", "")
        text(ax, ay + 12 * u + 16, "one BK slice of A (BM x BK), stored transposed", "font-size=\"11\"")
        text(bx, ay - 8, "C (M x N)", "font-weight=\"bold\"")
        box(bx, ay, 26 * u / 2, 12 * u, "#eeeeee", "#999")
        box(bx + 5 * u, ay + 4 * u, 4 * u, 4 * u, "#2e7d32", "")
        text(bx + 5 * u, ay + 4 * u - 4, "BM x BN tile of one block", "font-size=\"11\"")
        for (i = 0; i < 4; i++) for (j = 0; j < 4; j++)
            box(bx + 5 * u + j * u + 3, ay + 4 * u + i * u + 3, u - 6, u - 6, "none", "white")
        text(bx + 9 * u + 6, ay + 6 * u, "each small square: one thread'"'"'s register tile (8 x 8 outputs)", "font-size=\"11\"")
        text(60, 435, "Per slice: load BK x (BM + BN) floats once into shared memory, then every thread does 64 FMAs per k from 16 loaded values.", "font-size=\"11\"")
        foot()
    }' > "$root/labs/09-sgemm/tiling.svg"
}

sectors; banks; timeline; waves; tree; transpose_tile; sgemm_tiling
for f in labs/01-coalescing/sectors.svg labs/02-banks/banks.svg labs/05-streams/timeline.svg \
         labs/08-tail/waves.svg labs/07-reduction/tree.svg labs/06-transpose/tile.svg \
         labs/09-sgemm/tiling.svg; do
    echo "diagrams: wrote $f"
done
