# tool-options.sh - the options make gives profile.sh, sanitize.sh and explain.sh (sourced by
# each):
#   --lab NN-name --harness EXE --worker EXE --student SO --reference SO --out DIR
#   [--label TEXT] [--timeline] [--seed HEX] [--source FILE] [--shown PATH] [--ref-source FILE]
#   [--gpu KEY --profiles EXE [--pass-mark X]] [--hide DIR]... [--emulator-size] [--predict]
# sets lab, harness, worker, student, reference, out, label, timeline (0/1), seed ("" if none),
# source (the copy of the student's .cu file that was compiled, "" if not given), shown (the
# student's file as the student names it, for messages), ref_source (the reference's source,
# "" if none), gpu (a key of make profiles, "" if none), profiles (the make profiles tool, which
# knows the keys), pass_mark (the lab's pass mark in force, for the estimate: lab-manifest
# pass-mark's; "" if not given), hide (folders no
# sandboxed worker may see, one a line: what GRADER_HIDE names) and emulator_size (0/1:
# profile.sh runs each problem at make explain's size) and predict (0/1: explain.sh asks the
# lab's questions before it shows the counts).
lab="" harness="" worker="" student="" reference="" out="" label="your code" timeline=0 seed="" source=""
shown="" ref_source="" gpu="" profiles="" pass_mark="" hide="" emulator_size=0 predict=0
nl='
'
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
    --pass-mark) pass_mark=$2; shift 2 ;;
    --shown) shown=$2; shift 2 ;;
    --ref-source) ref_source=$2; shift 2 ;;
    --hide) hide="$hide$2$nl"; shift 2 ;;
    --emulator-size) emulator_size=1; shift ;;
    --predict) predict=1; shift ;;
    *) echo "$(basename "$0"): unknown option $1" >&2; exit 2 ;;
    esac
done
