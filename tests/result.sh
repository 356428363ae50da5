# tests/result.sh - what the shell tests share, sourced (`. tests/result.sh`, before any cd): each
# check's line and the count.
#   result NAME STATUS [WHAT]   STATUS 0: "ok   NAME"; else "FAIL NAME: WHAT" (what happened)
#   results [LABEL]             "[LABEL: ]N passed, M failed"; its status is 1 if any failed,
#                               so that a test ends with it
pass=0 fail=0
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
    echo "${1:+$1: }$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
