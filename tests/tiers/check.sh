#!/usr/bin/env bash
# tests/tiers/check.sh - make test-tiers: the quick tier (make test) kept its promise, after its
# suites ran: every room of the grader and every lab was touched.
#   - every grader/*/ folder has its row in tests/tiers/rooms.tsv, the row's suite is one of
#     the quick tier's (QUICK_SUITES), and what the row says the suite leaves under BUILD was
#     made or changed in this run (newer than STAMP, which make test touches before any suite)
#     or, a build product that a second run in the same tree did not remake, up to date with
#     every source of the room;
#     the Slurm test's own words when this machine could not run it;
#   - every lab the lab manifest lists (MANIFEST student-rel: derived from grader/labs/, so a
#     tenth lab is covered without a list to edit) was graded by its reference solution in this
#     run under the emulator, every correctness check OK (test-emu's emu-grade-solutions), and
#     its emulated pieces built.
#   BUILD=build MANIFEST=build/host/lab-manifest QUICK_SUITES="test-unit ..." STAMP=file tests/tiers/check.sh
# Prints one line per room and lab and `N passed, M failed`; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
. tests/result.sh
build=${BUILD:-build}
stamp=${STAMP:?STAMP: the file make test touched before its suites}
table=tests/tiers/rooms.tsv

# newer GLOB ROOM KIND: the first file GLOB names under BUILD that this run made or changed; for
# KIND `built` (a build product), else one a build before this run made and that is still up to
# date with every source of the room (newer than each file under grader/ROOM/): a second make
# test in the same tree remakes nothing, and its suites (each of which ran, or make would not
# have reached test-tiers) used what was there. Prints the file, and why for the second kind.
newer() {
    local f src
    for f in $build/$1; do
        [ -e "$f" ] && [ "$f" -nt "$stamp" ] && { echo "$f"; return 0; }
    done
    [ "$3" = built ] || return 1
    for f in $build/$1; do
        [ -e "$f" ] || continue
        src=$(find "grader/$2" -type f -newer "$f" -print -quit)
        [ -z "$src" ] && { echo "$f (built before this run, up to date with grader/$2/)"; return 0; }
    done
    return 1
}

for dir in grader/*/; do
    room=$(basename "$dir")
    row=$(awk -F'\t' -v r="$room" '$1 == r' "$table")
    if [ -z "$row" ]; then
        result "room grader/$room/ in the quick tier" 1 "it has no row in $table: name the quick suite that runs its code and what that suite leaves under BUILD"
        continue
    fi
    IFS=$'\t' read -r _ suite evidence kind <<<"$row"
    case $kind in
    ran|built) ;;
    *) result "room grader/$room/ in the quick tier" 1 "its row in $table has the kind '$kind'; expected ran (a file the suite writes each run) or built (a build product)"
       continue ;;
    esac
    case " ${QUICK_SUITES:-} " in
    *" $suite "*) ;;
    *) result "room grader/$room/ in the quick tier" 1 "$table names $suite, which is not a suite of make test's quick tier ($QUICK_SUITES)"
       continue ;;
    esac
    if found=$(newer "$evidence" "$room" "$kind"); then
        what=""
        [ "$room" = slurm ] && grep -q '^SKIP' "${found%% *}" && what=" (this machine could not run it: $(grep -m1 '^SKIP' "${found%% *}" | cut -c6-120))"
        result "room grader/$room/ touched by $suite: $found$what" 0
    else
        result "room grader/$room/ touched by $suite" 1 "expected $build/$evidence made or changed in this run (newer than $stamp)$([ "$kind" = built ] && echo ", or up to date with grader/$room/'s sources"); did $suite run its quick slice?"
    fi
done

sol_json=$build/grade-emu-solutions/results.json
labs=$("${MANIFEST:?MANIFEST: the lab-manifest program}" student-rel) || { result "the lab manifest lists the labs" 1 "$MANIFEST student-rel failed"; labs=""; }
[ -n "$labs" ] || result "the lab manifest lists the labs" 1 "it listed none"
fresh=0
[ -f "$sol_json" ] && [ "$sol_json" -nt "$stamp" ] && fresh=1
while read -r name rel; do
    [ -n "$name" ] || continue
    verdict=$(python3 - "$sol_json" "$name" "$fresh" <<'PY'
import json, sys
path, name, fresh = sys.argv[1:]
if fresh != "1":
    sys.exit(print("no grading of the solutions in this run (%s)" % path))
labs = [l for l in json.load(open(path))["labs"] if l["lab"] == name]
if not labs:
    sys.exit(print("not graded in %s" % path))
bad = [c["name"] for c in labs[0]["checks"] if c["kind"] != "speed" and c["verdict"] != "OK"]
correct = [c for c in labs[0]["checks"] if c["kind"] != "speed"]
print(("checks not OK: %s" % ", ".join(bad)) if bad or not correct else "%d correctness checks OK" % len(correct))
PY
)
    built=$build/emu/.grader/$name/harness
    case $verdict in
    *"checks OK") [ -x "$built" ]
        result "lab $name ($rel): its reference graded in this run, $verdict, its emulated pieces built" $? "no $built" ;;
    *) result "lab $name ($rel) graded in the quick tier" 1 "$verdict" ;;
    esac
done <<<"$labs"
results "test-tiers (the quick tier touched every room and every lab)"
