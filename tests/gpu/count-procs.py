#!/usr/bin/env python3
"""count-procs.py - how many processes of some names ran while this sampler did: every process
seen with one of the names (/proc/PID/comm) in a scan every INTERVAL seconds, counted once each,
until SIGTERM or SIGINT; then one line, `NAME COUNT ...`, to stdout.

    tests/gpu/count-procs.py harness/grade-driver@/gpu/ worker [--interval 0.05] &  ...; kill $!

NAME/PARENT counts only the processes whose parent is named PARENT: the grader's harness is
started by the grade driver, and the forks a harness makes for a sandbox keep its name without
being harnesses. NAME@PART (after any /PARENT) counts only those whose program's path holds
PART: the GPU's harnesses (build/gpu/.grader/...), not the emulator's of a WHERE count.
tests/gpu/scaling.sh runs it beside a batch: the CUDA processes (harnesses and workers) a
student's grading starts. A process shorter than the interval can be missed; the
grader's live for a CUDA context's start at least (0.1 s and more)."""
import os
import signal
import sys
import time

args = sys.argv[1:]
interval = 0.05
if "--interval" in args:
    i = args.index("--interval")
    interval = float(args[i + 1])
    del args[i:i + 2]


def parse(a):  # NAME[/PARENT][@PART] -> (name, parent or None, part or None)
    a, _, part = a.partition("@")
    name, _, parent = a.partition("/")
    return name, parent or None, part or None


want = [parse(a) for a in args]
seen = {a: set() for a in args}
done = False


def stop(*_):
    global done
    done = True


def comm_of(pid):
    with open("/proc/%s/comm" % pid) as f:
        return f.read().strip()


signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
while not done:
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            comm = comm_of(pid)
            for (name, parent, part), key in zip(want, args):
                if comm != name or (part is not None and part not in os.readlink("/proc/%s/exe" % pid)):
                    continue
                with open("/proc/%s/stat" % pid) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if parent is not None and comm_of(fields[1]) != parent:
                    continue
                seen[key].add((pid, fields[19]))  # (pid, start time): a pid given again is another
        except OSError:
            pass
    time.sleep(interval)
print(" ".join("%s %d" % (a, len(seen[a])) for a in args), flush=True)
