#!/usr/bin/env bash
# tests/emu/corpus/fetch.sh -- fetch the public sources tests/emu/corpus/run.sh builds, at the
# commits its list of programs was made against, into CORPUS_DIR (default build/corpus).
#
#   bash tests/emu/corpus/fetch.sh [CORPUS_DIR]
#   bash tests/emu/corpus/fetch.sh --from MIRROR [CORPUS_DIR]
#
# Plain: git clone from GitHub (needs the network). --from MIRROR takes each repository from
# MIRROR/OWNER+NAME, a git directory (bare or not) holding the pinned commit, for machines
# without the network; files its object store lacks (large binary data, absent from some
# mirrors) are skipped with a note. Nothing fetched here is ever committed: build/ is ignored.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
MIRROR=""
if [ "${1:-}" = "--from" ]; then
    MIRROR=${2:?--from needs a folder}
    shift 2
fi
DEST=${1:-$ROOT/build/corpus}
mkdir -p "$DEST"

# folder | GitHub owner/name | commit
SOURCES=(
"cuda-samples|NVIDIA/cuda-samples|c94ff366aed18c797b8a85dfaac7817b0228b420"
"cuda-training-series|olcf/cuda-training-series|9cd77d539d85ee3457e09a083ba299b787b7a16e"
"professional-cuda-c-programming|deeperlearning/professional-cuda-c-programming|ee58310bcdcec62a609f02b6c5193452d8102183"
)

status=0
for row in "${SOURCES[@]}"; do
    IFS='|' read -r folder repo commit <<<"$row"
    out=$DEST/$folder
    if [ -e "$out/.fetched-$commit" ]; then
        echo "$folder: already at $commit"
        continue
    fi
    rm -rf "$out"
    if [ -z "$MIRROR" ]; then
        if git clone --quiet "https://github.com/$repo" "$out" &&
                git -C "$out" checkout --quiet "$commit"; then
            touch "$out/.fetched-$commit"
            echo "$folder: $repo at $commit"
        else
            echo "$folder: could not clone $repo" >&2
            status=1
        fi
        continue
    fi
    gitdir=$MIRROR/${repo/\//+}
    [ -d "$gitdir/repo" ] && gitdir=$gitdir/repo
    if ! git --git-dir="$gitdir" cat-file -e "$commit^{commit}" 2>/dev/null; then
        echo "$folder: $gitdir does not hold $commit" >&2
        status=1
        continue
    fi
    mkdir -p "$out"
    skipped=0
    while IFS=$'\t' read -r meta path; do
        read -r _ type hash <<<"$meta"
        [ "$type" = blob ] || continue
        mkdir -p "$out/$(dirname "$path")"
        if ! git --git-dir="$gitdir" cat-file blob "$hash" >"$out/$path" 2>/dev/null; then
            rm -f "$out/$path"
            skipped=$((skipped + 1))
        fi
    done < <(git --git-dir="$gitdir" ls-tree -r "$commit")
    touch "$out/.fetched-$commit"
    echo "$folder: $repo at $commit (from $gitdir$([ $skipped -gt 0 ] && echo "; $skipped files absent from the mirror"))"
done
exit $status
