# tool-options.sh - the options make gives profile.sh, sanitize.sh and explain.sh (sourced by
# each):
#   --lab NN-name --harness EXE --worker EXE --student SO --reference SO --out DIR
#   [--label TEXT] [--timeline] [--seed HEX] [--source FILE] [--gpu KEY --profiles EXE] [--where]
#   [--sandbox EXE] [--emulator-size]
# sets lab, harness, worker, student, reference, out, label, timeline (0/1), seed ("" if none),
# source (the student's .cu file, "" if not given), gpu (a key of make profiles, "" if none)
# profiles (the make profiles tool, which knows the keys), where (0/1: explain.sh's one-line
# hint for make grade), sandbox (sandbox-run, "" if none) and emulator_size (0/1: profile.sh
# runs each problem at make explain's size).
lab="" harness="" worker="" student="" reference="" out="" label="your code" timeline=0 seed="" source=""
gpu="" profiles="" where=0 sandbox="" emulator_size=0
while [ $# -gt 0 ]; do
    case $1 in
    --lab) lab=$2; shift 2 ;;
    --harness) harness=$2; shift 2 ;;
    --worker) worker=$2; shift 2 ;;
    --student) student=$2; shift 2 ;;
    --reference) reference=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --label) label=$2; shift 2 ;;
    --timeline) timeline=1; shift ;;
    --seed) seed=$2; shift 2 ;;
    --source) source=$2; shift 2 ;;
    --gpu) gpu=$2; shift 2 ;;
    --profiles) profiles=$2; shift 2 ;;
    --where) where=1; shift ;;
    --sandbox) sandbox=$2; shift 2 ;;
    --emulator-size) emulator_size=1; shift ;;
    *) echo "$(basename "$0"): unknown option $1" >&2; exit 2 ;;
    esac
done
