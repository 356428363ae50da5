# tests/result.sh - what the shell tests share, sourced (`. tests/result.sh`, before any cd): each
# check's line and the count.
#   result NAME STATUS [WHAT]   STATUS 0: "ok   NAME"; else "FAIL NAME: WHAT" (what happened)
#   results [LABEL]             "[LABEL: ]N passed, M failed"; its status is 1 if any failed,
#                               so that a test ends with it
#   full_only                   true under make test-all (every case); under make test's quick
#                               tier (QUICK=1) false, and the part it guards is counted as left
#                               to make test-all: `if full_only && ...; then`
pass=0 fail=0 left_to_full=0
full_only() {
    [ "${QUICK:-}" = 1 ] || return 0
    left_to_full=$((left_to_full + 1))
    return 1
}
result() {
    if [ "$2" = 0 ]; then
        echo "ok   $1"
        pass=$((pass + 1))
    else
        echo "FAIL $1${3:+: $3}"
        fail=$((fail + 1))
    fi
}
results() {
    echo "${1:+$1: }$pass passed, $fail failed$([ "$left_to_full" = 0 ] || echo " (the quick tier: $left_to_full parts left to make test-all)")"
    [ "$fail" -eq 0 ]
}
