#!/usr/bin/env bash
# slides/check.sh - what make slides-check demands of every built deck beyond its PDF:
#
#   slides/check.sh BUILD_SLIDES_DIR CODE_COLS slides/NN-name.md...
#
# From each deck's LaTeX log (BUILD_SLIDES_DIR/NN-name.pdf.log, pandoc --verbose): no frame
# taller than the slide (Overfull \vbox) and no line more than 10pt wider than it (Overfull
# \hbox); from its source, no code line longer than CODE_COLS columns (highlighted code runs
# off the slide's right edge without any LaTeX warning). One line per problem; exit 1 if any.
set -uo pipefail
dir=$1 cols=$2
shift 2
problems=0
for md in "$@"; do
    log=$dir/$(basename "$md" .md).pdf.log
    out=$(awk -v md="$md" '
        /^Overfull \\vbox/ { w = $3; gsub(/[(pt]/, "", w); print md ": a frame is taller than the slide by " w "pt"; next }
        /^Overfull \\hbox/ { w = $3; gsub(/[(pt]/, "", w); if (w + 0 > 10) wide = w; next }
        wide != "" { t = $0; gsub(/\\[^ ]* /, "", t); sub(/^\[\] */, "", t)
                     print md ": a line is wider than the slide by " wide "pt: " substr(t, 1, 60); wide = "" }
    ' "$log" | sort -u)
    out+=$(awk -v max="$cols" '/^```/ { code = !code; next }
        code && length($0) > max { printf "\n%s:%d: a code line of %d columns (at most %d fit the slide)", FILENAME, FNR, length($0), max }' "$md")
    out=$(printf '%s' "$out" | sed '/^$/d')
    if [ -n "$out" ]; then
        printf '%s\n' "$out" | sed 's/^/slides-check: /'
        problems=$((problems + 1))
    fi
done
[ $problems -eq 0 ]
