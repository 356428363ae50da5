# tool-options.sh - the options make gives profile.sh and sanitize.sh (sourced by both):
#   --lab NN-name --harness EXE --worker EXE --student SO --reference SO --out DIR
#   [--label TEXT] [--timeline] [--seed HEX]
# sets lab, harness, worker, student, reference, out, label, timeline (0/1), seed ("" if none).
lab="" harness="" worker="" student="" reference="" out="" label="your code" timeline=0 seed=""
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
    *) echo "$(basename "$0"): unknown option $1" >&2; exit 2 ;;
    esac
done
