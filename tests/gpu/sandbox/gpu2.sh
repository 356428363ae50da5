set -o pipefail
export OUT
cc -O2 tests/sandbox/no_namespaces.c -o /tmp/no-ns
(make -j16 all && make -j16 runners STUDENT=solutions) >$OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build ok"
make --no-print-directory grade STUDENT=solutions >$OUT/grade-sol.txt 2>&1; echo "solutions: exit $?"; grep -E 'x the reference|Score|ERROR|tamper' $OUT/grade-sol.txt | head -20
python3 -c "import json; r=json.load(open('build/grade/results.json')); print(r['tamper_proof'], r['isolation'])"
make --no-print-directory grade >$OUT/grade-labs.txt 2>&1; echo "skeletons: exit $?"; grep -E 'Score|ERROR' $OUT/grade-labs.txt | head
/tmp/no-ns make --no-print-directory grade STUDENT=solutions LAB=01,07 >$OUT/grade-nons.txt 2>&1; echo "no namespaces: exit $?"; grep -E 'x the reference|Score|ERROR' $OUT/grade-nons.txt
python3 -c "import json; r=json.load(open('build/grade/results.json')); print(r['tamper_proof'], r['isolation'])"
timeout 300 tests/cheats/run.sh c19-worker-view c20-compile-device-include c21-compile-tty c22-compile-memory-bomb c23-include-the-reference c24-incbin-the-grader c25-link-to-the-reference c26-link-to-passwd c27-fifo c28-fill-tmp c15-proc-mem-escape c17-read-the-checkout c12-terminal-inject h02-streams-sync-workspace 2>&1 | tee $OUT/cheats.txt | tail -16
tar czf $OUT/logs.tgz build/cheats/*/grade/*.log build/grade 2>/dev/null
