#!/bin/sh
# pristine_skeletons.sh - the workbook's own skeletons, as labs/skeletons.sha256 records them,
# into DEST (DEST/NN-name/name.cu), whatever this checkout's labs/ holds now.
#
#   grader/batch/pristine_skeletons.sh DEST
#
# A batch grades a lab a student did not hand in, and recognises an untouched file, by the
# workbook's skeleton, never by the checkout's labs/: an instructor who worked a lab in the
# checkout must not grade empty submissions with their own code. A skeleton that labs/ holds
# unchanged is copied; an edited one is taken from the repository's history (the newest
# version whose SHA-256 is the recorded one), and a note says so once; where there is no such
# version (no history, as in a copied folder), it stops with what to do. Run from the
# workbook's top folder. Exit status: 0, or 1 with the reason on stderr.
set -eu
dest=$1
list=labs/skeletons.sha256
[ -r "$list" ] || { echo "error: $list is missing: it records the workbook's skeletons" >&2; exit 1; }
mkdir -p "$dest"
while read -r want rel; do
    [ -n "$rel" ] || continue
    file=labs/$rel
    mkdir -p "$dest/$(dirname "$rel")"
    if [ -f "$file" ] && [ "$(sha256sum <"$file" | cut -d' ' -f1)" = "$want" ]; then
        cp "$file" "$dest/$rel"
        continue
    fi
    found=
    if git rev-parse --git-dir >/dev/null 2>&1; then
        for rev in $(git rev-list HEAD -- "$file" 2>/dev/null); do
            if [ "$(git show "$rev:$file" 2>/dev/null | sha256sum | cut -d' ' -f1)" = "$want" ]; then
                git show "$rev:$file" >"$dest/$rel"
                found=$rev
                break
            fi
        done
    fi
    if [ -z "$found" ]; then
        echo "error: $file is not the workbook's skeleton (its SHA-256 is not the one $list records), and this checkout has no version of it that is." >&2
        echo "error: students who did not hand in that lab would be graded with this file: restore it (git checkout -- $file) or grade from a fresh clone of the workbook." >&2
        exit 1
    fi
    echo "note: $file differs from the workbook's skeleton (edited in this checkout); students who did not hand in that lab, or handed in the skeleton, are graded with the workbook's own (from commit $(git rev-parse --short "$found"))." >&2
done <"$list"
