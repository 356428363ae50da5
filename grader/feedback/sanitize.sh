#!/bin/sh
# sanitize.sh - `make sanitize`: the lab's correctness cases (visible and hidden, as make grade
# runs them) under compute-sanitizer's memcheck, racecheck, synccheck and initcheck, and a
# summary: per tool, how many problems and in which case, with the first report of each case.
#
#   grader/feedback/sanitize.sh --lab NN-name --harness EXE --worker EXE --student SO
#                            --reference SO --out DIR [--seed HEX] [--label TEXT]
#
# The harness runs your code in its own process (a sanitizer follows one process; this grades
# nothing). Full reports: DIR/<tool>.txt. SANITIZE_TOOLS="memcheck racecheck" picks tools;
# COMPUTE_SANITIZER=path picks the program. Exit status: 0 when every tool is clean, 1 when
# one found a problem, 2 when it could not run.
set -u
. "$(dirname "$0")/tool-options.sh"
cs=${COMPUTE_SANITIZER:-}
if [ -z "$cs" ]; then
    for c in "$(command -v compute-sanitizer 2>/dev/null)" "${CUDA_HOME:+$CUDA_HOME/bin/compute-sanitizer}" \
        /usr/local/cuda/bin/compute-sanitizer; do
        [ -n "$c" ] && [ -x "$c" ] && { cs=$c; break; }
    done
fi
if [ -z "$cs" ]; then
    echo "make sanitize needs compute-sanitizer (part of the CUDA Toolkit); it is not on PATH or beside nvcc." >&2
    echo "Install the toolkit's sanitizer (apt-get install cuda-sanitizer-<version>) or set COMPUTE_SANITIZER=/path." >&2
    exit 2
fi
mkdir -p "$out" || exit 2
[ -n "$seed" ] || seed=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
seed=${seed#0x}

# One command per correctness case, in the driver's protocol (see grader/harness/harness.cu).
"$harness" --list-checks >"$out/checks.txt" || { echo "sanitize.sh: $harness --list-checks failed" >&2; exit 2; }
awk -F'\t' -v seed="$seed" -v out="$out" '$2 != "speed" {
    printf "check %d %s 0 0 600 %s/records.%d %s/log.%d\n", $1, seed, out, $1, out, $1 }' \
    "$out/checks.txt" >"$out/commands.txt"
ncases=$(wc -l <"$out/commands.txt")
printf 'compute-sanitizer on the %d correctness cases of %s (hidden ones from SEED=0x%s):\n' \
    "$ncases" "$label" "$seed" | tee "$out/summary.txt"

found=0 unfinished=0
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck initcheck}; do
    case $tool in
    memcheck) opts="--leak-check no" ;;
    racecheck) opts="--racecheck-report hazard" ;;
    initcheck) opts="" ;;
    synccheck) opts="" ;;
    *) echo "sanitize.sh: unknown tool $tool (memcheck, racecheck, synccheck, initcheck)" >&2; exit 2 ;;
    esac
    # Replies ("done N") and the sanitizer's reports share stdout, in order: a report belongs
    # to the case whose reply follows it. A case that breaks the process's CUDA context (a
    # memcheck error aborts the kernel) ends the harness before its reply: its reports are
    # the rest of that output ("broke N" marks them), and a fresh harness takes the cases after
    # it.
    cp "$out/commands.txt" "$out/$tool.todo"
    : >"$out/$tool.txt"
    : >"$out/$tool.stderr"
    status=0
    while [ -s "$out/$tool.todo" ]; do
        "$cs" --tool "$tool" $opts --print-limit 50 --error-exitcode 0 \
            "$harness" --serve --isolation off --no-guards --worker "$worker" --student "$student" \
            --reference "$reference" <"$out/$tool.todo" >"$out/$tool.part" 2>>"$out/$tool.stderr"
        status=$?
        cat "$out/$tool.part" >>"$out/$tool.txt"
        answered=$(grep -c '^done [0-9]*$' "$out/$tool.part")
        [ "$answered" -lt "$(wc -l <"$out/$tool.todo")" ] || { status=0; break; }
        # not one case answered and nothing reported: the program cannot run here at all
        [ "$answered" -gt 0 ] || grep -q '^========= [A-Z]' "$out/$tool.part" || { status=2; break; }
        echo "broke $(sed -n "$((answered + 1))p" "$out/$tool.todo" | cut -d' ' -f2)" >>"$out/$tool.txt"
        tail -n +"$((answered + 2))" "$out/$tool.todo" >"$out/$tool.rest"
        mv "$out/$tool.rest" "$out/$tool.todo"
        status=0
    done
    rm -f "$out/$tool.todo" "$out/$tool.part"
    awk -v tool="$tool" -v checks="$out/checks.txt" -v status="$status" -v full="$out/$tool.txt" '
    # "at f(args)+0x1b0 in /path/labs/01-coalescing/coalescing.cu:41" -> "coalescing.cu:41, in f(args)"
    function where(l,    fn, loc) {
        sub(/^=========     at /, "", l)
        sub(/^========= +Device Frame: /, "", l)
        fn = l; sub(/\+0x[0-9a-f]+ in .*$/, "", fn); sub(/ in [^ ]+$/, "", fn)
        loc = l; if (!sub(/^.* in /, "", loc)) return l
        sub(/^.*\//, "", loc)
        return loc ", in " fn
    }
    BEGIN { FS = "\t"; while ((getline l < checks) > 0) { split(l, f, "\t"); name[f[1]] = f[3] } ; FS = " " }
    /^(done|broke) [0-9]+$/ {
        c = $2; cnt[c] = n; first[c] = f1; at[c] = a1; order[++nc] = c; n = 0; f1 = ""; a1 = ""; done++
        if ($1 == "broke") broke[c] = 1
        next
    }
    /^========= (ERROR|RACECHECK|LEAK|COMPUTE-SANITIZER)/ { if ($0 ~ /SUMMARY/) summary = $0; next }
    /^========= (Target application returned|Error: process didn.t terminate)/ { next }
    # the first device frame outside CUDA'"'"'s own headers: an intrinsic (__stcs) reports its header
    /^========= +Device Frame: / && n && a1 ~ /\.hp?p?:[0-9]+,/ && $0 !~ /\.hp?p?:[0-9]+$/ { a1 = where($0); next }
    /^========= +(Saved host backtrace|Host Frame|Device Frame)/ { next }
    /^========= [^ ]/ { n++; if (f1 == "") f1 = substr($0, 11); next }
    /^=========     at / && a1 == "" && n { a1 = where($0); next }
    /^=========     (Write|Read) Thread .* at .* in [^ ]+:[0-9]+$/ && a1 == "" && n {
        l = $0; sub(/^=========     (Write|Read) Thread [^ ]+ at /, "=========     at ", l); a1 = where(l); next
    }
    END {
        total = 0
        for (i = 1; i <= nc; i++) total += cnt[order[i]]
        if (status != 0 || done == 0) {
            printf "  %-10s could not finish (status %d); see %s\n", tool, status, full
            exit 3
        }
        silent = 0 # cases that ended the program without a report
        for (i = 1; i <= nc; i++) if (broke[order[i]] && !cnt[order[i]]) silent++
        if (total == 0 && !silent) { printf "  %-10s clean\n", tool; exit 0 }
        printf "  %-10s %d report%s\n", tool, total, total == 1 ? "" : "s"
        for (i = 1; i <= nc; i++) {
            c = order[i]
            if (broke[c] && !cnt[c])
                printf "    %s: the program ended during this case with no report (see %s)\n", name[c], full
            if (!cnt[c]) continue
            printf "    %s: %d%s; first: %s\n", name[c], cnt[c],
                   broke[c] ? " (it broke the GPU context: the next cases ran in a fresh process)" : "", first[c]
            if (at[c] != "") printf "        at %s\n", at[c]
        }
        exit total ? 1 : 3
    }' "$out/$tool.txt" >"$out/$tool.summary"
    case $? in 0) ;; 1) found=1 ;; *) unfinished=1 ;; esac
    cat "$out/$tool.summary" | tee -a "$out/summary.txt"
done
# The grader's own comparison in the last run (records of the driver's protocol): a tool can be
# clean while the output is wrong, and an out-of-bounds write can land on valid memory.
awk -F'\t' -v out="$out" '$2 != "speed" {
    n++; f = out "/records." $1; good = 0
    while ((getline l < f) > 0)
        if (l ~ /^correct / && l ~ / bad=0 / && l ~ / guard_ok=1 / && l ~ / input_ok=1 / && l ~ / problem=$/) good = 1
    bad = !good
    close(f); if (bad) { wrong++; names = names (wrong > 1 ? ", " : "") $3 }
} END {
    if (wrong) printf "  and the grader: %d of %d cases wrong (%s); make grade says where\n", wrong, n, names
    else printf "  and the grader: every case right\n"
}' "$out/checks.txt" | tee -a "$out/summary.txt"
echo "Full reports: $out/<tool>.txt" | tee -a "$out/summary.txt"
[ "$found" = 1 ] && exit 1
[ "$unfinished" = 1 ] && exit 2
exit 0
