# counts.awk - what make explain's awk programs share to read the CPU emulator's counts, and to
# show student text as data. The counts come from a process that held student code (each
# implementation's sandboxed worker, relayed by the harness: grader/harness/profile_trusted.cu), and a
# student names their file, lines, kernels and #line paths: so a row is taken only when its
# numbers are numbers, no path it names is ever opened, and every text of it that is shown goes
# through visible() (or xml_text() in an SVG). Loaded first, under LC_ALL=C (bytes, as
# common/text.c reads them):
#
#   awk -F'\t' -f counts.awk -f explain.awk ...        (and timeline.awk, svg/access.awk)
#   awk -v show_lines=1 -f counts.awk FILE              every line of FILE rendered visible
#
#   count_row_ok()      1 if the record in $0 (split on tabs) is a well-formed count row of its
#                       kind (the columns of common/emu/src/count.cpp), 0 if not
#   visible(s)          s as common/text.c's text_visible() renders it: \n \r \t, \xNN for the
#                       other C0 controls, DEL and each byte that is not part of valid UTF-8,
#                       \uNNNN for the C1 controls, the line and paragraph separators and the
#                       bidirectional controls; everything else unchanged
#   xml_text(s)         visible(s) with & < > " ' as XML references: text or an attribute of an
#                       SVG, well-formed whatever s holds
#   quotable(key, file) the lines of FILE (a regular file explain.sh copied from a path make
#                       named: never a path the counts name) kept as KEY's
#   quote(key, k)       line K of KEY's file, trimmed to 60 bytes, rendered visible ("" if none)
#   loc_file(loc), loc_line(loc), base(path)   "dir/file.cu:41" -> "dir/file.cu", 41, "file.cu"

BEGIN {
    for (counts_i = 1; counts_i < 256; counts_i++) counts_ord[sprintf("%c", counts_i)] = counts_i
    counts_hex = "0123456789abcdef"
}

function counts_hex2(b) { return "\\x" substr(counts_hex, int(b / 16) + 1, 1) substr(counts_hex, b % 16 + 1, 1) }

function visible(s,    out, i, n, b, c, len, cp, j, b2, ok) {
    n = length(s); out = ""
    for (i = 1; i <= n; i++) {
        c = substr(s, i, 1); b = counts_ord[c] + 0
        if (b >= 32 && b < 127) { out = out c; continue }
        if (b == 10) { out = out "\\n"; continue }
        if (b == 13) { out = out "\\r"; continue }
        if (b == 9) { out = out "\\t"; continue }
        if (b < 128) { out = out counts_hex2(b); continue }
        # a UTF-8 sequence: its length and first bits from the lead byte
        if (b >= 194 && b <= 223) { len = 2; cp = b - 192 }
        else if (b >= 224 && b <= 239) { len = 3; cp = b - 224 }
        else if (b >= 240 && b <= 244) { len = 4; cp = b - 240 }
        else { out = out counts_hex2(b); continue }
        ok = i + len - 1 <= n
        for (j = 1; ok && j < len; j++) {
            b2 = counts_ord[substr(s, i + j, 1)] + 0
            if (b2 < 128 || b2 > 191) ok = 0
            else cp = cp * 64 + b2 - 128
        }
        if (ok && ((len == 3 && cp < 2048) || (len == 4 && cp < 65536) || cp > 1114111 || (cp >= 55296 && cp <= 57343)))
            ok = 0 # overlong, beyond Unicode, or a surrogate
        if (!ok) { out = out counts_hex2(b); continue }
        if ((cp >= 128 && cp <= 159) || cp == 1564 || cp == 8206 || cp == 8207 || (cp >= 8232 && cp <= 8238) || (cp >= 8294 && cp <= 8297))
            out = out sprintf("\\u%04x", cp)
        else
            out = out substr(s, i, len)
        i += len - 1
    }
    return out
}

function xml_text(s) {
    s = visible(s)
    gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
    gsub(/"/, "\\&quot;", s); gsub(/'/, "\\&#39;", s)
    return s
}

function counts_num(x) { return x ~ /^[0-9]+$/ }
function counts_nums(from, to,    i) {
    for (i = from; i <= to; i++) if (!counts_num($i)) return 0
    return 1
}
# The 32 lanes of a request row: "-" or OFFSET+SIZE each, separated by single spaces.
function counts_lanes(f,    w, n, i) {
    n = split(f, w, " ")
    if (n != 32) return 0
    for (i = 1; i <= 32; i++) if (w[i] != "-" && w[i] !~ /^[0-9]+\+[0-9]+$/) return 0
    return 1
}

function count_row_ok(    kind) {
    if ($1 !~ /^(range|request|loads|launch|op|atomics|printf|sleep) [0-9]+$/) return 0
    kind = $1; sub(/ .*/, "", kind)
    if (kind == "range" && $3 == "branch")
        return NF == 10 && $4 == "condition" && counts_nums(5, 10)
    if (kind == "range")
        return NF == 9 && $3 ~ /^(global|shared)$/ && $4 ~ /^(load|store)$/ && counts_nums(5, 9)
    if (kind == "request")
        return NF == 7 && $3 ~ /^(global|shared)$/ && $4 ~ /^(load|store)$/ && counts_nums(5, 6) && counts_lanes($7)
    if (kind == "loads")
        return NF == 6 && counts_nums(3, 6)
    if (kind == "atomics" || kind == "printf" || kind == "sleep") # a call site: ops and distinct
        return NF == 4 && counts_nums(3, 4) # addresses; printf calls and bytes; sleeps and ns
    if (kind == "launch") # registers and blocks per SM as the occupancy API answers: -1 possible
        return NF == 8 && counts_nums(3, 5) && $6 ~ /^-?[0-9]+$/ && $7 ~ /^-?[0-9]+$/ && counts_num($8)
    # op: seq, stream, stream kind, kind, amount, detail, call, host thread (a count made before
    # the thread was written has none)
    return (NF == 8 || NF == 9 && counts_num($9)) && counts_num($2) && ($3 == "-" || counts_num($3)) &&
        $4 ~ /^(legacy|per-thread|blocking|non-blocking|-)$/ &&
        $5 ~ /^(h2d|d2h|d2d|h2h|memset|kernel|record|wait|sync)$/ && counts_num($6) &&
        ($5 == "kernel" || $7 ~ /^(pinned|pageable|-|event [0-9]+)$/) && $8 ~ /^[A-Za-z]+$/
}

function base(path) { sub(/.*\//, "", path); return path }
function loc_file(loc) { sub(/:[0-9]+$/, "", loc); return loc }
function loc_line(loc) { return loc ~ /:[0-9]+$/ ? substr(loc, match(loc, /:[0-9]+$/) + 1) + 0 : 0 }

function quotable(key, file,    n, l) {
    n = 0
    if (file != "") {
        while ((getline l < file) > 0) quoted_lines[key, ++n] = l
        close(file)
    }
    quoted_n[key] = n
}
function quote(key, k,    t) {
    if (!(key in quoted_n) || k < 1 || k > quoted_n[key]) return ""
    t = quoted_lines[key, k]
    gsub(/^[ \t]+|[ \t]+$/, "", t)
    if (length(t) > 60) t = substr(t, 1, 57) "..."
    return visible(t)
}

show_lines { print visible($0); next }
