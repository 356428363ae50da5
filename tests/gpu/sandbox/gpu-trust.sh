#!/usr/bin/env bash
# gpu-trust.sh - the trust work on a GPU in one call: build, the self-check and the skeletons,
# grading where namespaces are refused (Landlock, another uid), and every GPU cheat case.
# Logs and a tarball under $OUT; a short table last.
set -o pipefail
OUT=${OUT:-build/gpu-trust}; mkdir -p "$OUT"; export OUT
cc -O2 tests/sandbox/no_namespaces.c -o /tmp/no-ns
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.limit --format=csv,noheader
(make -j16 all && make -j16 runners STUDENT=solutions) >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
s=$(date +%s); make --no-print-directory grade STUDENT=solutions >$OUT/grade-sol.txt 2>&1; st=$?
echo "self-check: exit $st, $(grep '^Score' $OUT/grade-sol.txt), $(( $(date +%s) - s )) s, ratios: $(grep -oE '[0-9.]+x the reference' $OUT/grade-sol.txt | cut -dx -f1 | tr '\n' ' ')"
python3 -c "import json; r=json.load(open('build/grade/results.json')); print('  isolation:', r['tamper_proof'], r['isolation'])"
make --no-print-directory grade >$OUT/grade-labs.txt 2>&1
echo "skeletons: $(grep '^Score' $OUT/grade-labs.txt), correctness FAIL/ERROR: $(grep -vE 'speed|x the reference' $OUT/grade-labs.txt | grep -cE ' (FAIL|ERROR) '), speed FAIL: $(grep -E 'x the reference' $OUT/grade-labs.txt | grep -c ' FAIL ')"
/tmp/no-ns make --no-print-directory grade STUDENT=solutions >$OUT/grade-nons.txt 2>&1; st=$?
echo "no namespaces (Landlock): exit $st, $(grep '^Score' $OUT/grade-nons.txt), ratios: $(grep -oE '[0-9.]+x the reference' $OUT/grade-nons.txt | cut -dx -f1 | tr '\n' ' ')"
python3 -c "import json; r=json.load(open('build/grade/results.json')); print('  isolation:', r['tamper_proof'], r['isolation'])"
timeout ${CHEATS_TIMEOUT:-330} tests/cheats/run.sh ${CHEATS:-} >$OUT/cheats.txt 2>&1
echo "cheats: $(tail -1 $OUT/cheats.txt)"; grep -v '^ok' $OUT/cheats.txt | head -20
grep -h "g10\|door" build/cheats/g10-lock-gpu-clocks/grade/*.log 2>/dev/null | sort | uniq -c | head
tar czf $OUT/logs.tgz build/cheats/*/out.txt build/cheats/*/grade/*.log build/grade 2>/dev/null
