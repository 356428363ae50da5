#!/usr/bin/env python3
"""tests/stop/test_stop.py - stopping a grading run stops everything it started.

    tests/stop/test_stop.py BUILD_DIR

`make grade`, grader/driver/grade.sh and `make grade-batch` (CPU emulator, labs 01 and 02: one
harness serves both, one after the other) are stopped the
ways a person or a script stops them: Ctrl-C (SIGINT to the terminal's foreground process
group), a hang-up (SIGHUP to that group), SIGTERM or SIGINT to the command itself, and
`timeout` (its timer's own signal, sent at a chosen moment). Each at one of two moments: while
the student's file compiles (tests/stop/slow-to-compile.cu keeps g++ busy for half a minute),
or while the student's code runs (tests/stop/sleepy-coalescing.cu sleeps in every call). Then,
within 2 seconds of the stop:

  - no process of the run is left. This test is a child subreaper, so a process the run left
    behind is re-parented to it however it detached itself (its own process group, session,
    or a dead parent), and is found by walking the process tree down from here;
  - no lock is held: the grade folder's and the batch's (flock -n), and the shared build lock
    by no process of the run (/proc/locks; another suite of `make -j test` may hold it);
  - no half-written result: no temporary file is left, and every JSON file and gradebook there
    reads back whole;
  - the command ended with the stop's status (128 + the signal; `timeout`'s 124).

Finally each command runs again, unstopped, on the untouched skeleton and must grade it
normally, lab 02 in the harness that served lab 01. Prints one line per case and `N passed, M failed`; exits 1 if any failed.
"""
import csv
import ctypes
import fcntl
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
WORK = os.path.join(BUILD, "tests", "stop")  # relative: STUDENT must be a plain path
TREE = os.path.join(WORK, "tree")             # make grade and grade.sh grade this tree
GRADE = os.path.join(WORK, "grade")           # ... into this folder
SUBS = os.path.join(WORK, "subs")             # make grade-batch grades these submissions
OUT = os.path.join(WORK, "batch")             # ... into this folder
LOGS = os.path.join(WORK, "logs")             # what each run printed
LAB_FILE = os.path.join("01-coalescing", "coalescing.cu")
# The lab graded after it (its skeleton), in the harness that served lab 01.
NEXT_LAB_FILE = os.path.join("02-banks", "banks.cu")
SLOW_TO_COMPILE = "tests/stop/slow-to-compile.cu"  # stopped while it compiles
SLEEPY = "tests/stop/sleepy-coalescing.cu"          # stopped while it runs
SKELETON = os.path.join("labs", LAB_FILE)
LIMIT = 2.0            # seconds from the stop until nothing of the run is left
REACH_LIMIT = 120.0    # seconds a run may take to reach the moment of its stop

# Programs that run while the grader builds a lab (comm names, as /proc shows them): the
# compile proper, which make builds (grader/make/grade.mk) before it runs the driver (the
# grader's own pieces are built before the stops, and reading the Makefile compiles nothing).
DRIVER = "grade-driver"
BUILDING = {"emu-rewrite", "cc1plus", "collect2", "ld", "nvcc", "cicc", "ptxas", "vet.sh"}
# The sandboxed process that runs the student's code.
STUDENT_CODE = {"worker-emu", "worker"}

MAKE = os.environ.get("MAKE", "make")
COMMON = ["EMU=1", "LAB=01,02", "SEED=0x5eed"] + ([] if BUILD == "build" else ["BUILD=" + BUILD])
COMMANDS = {
    "make grade": [MAKE, "--no-print-directory", "grade", "STUDENT=" + TREE, "GRADE_DIR=" + GRADE] + COMMON,
    "grade.sh": ["grader/driver/grade.sh", "STUDENT=" + TREE, "GRADE_DIR=" + GRADE] + COMMON,
    "make grade-batch": [MAKE, "--no-print-directory", "grade-batch", "SUBMISSIONS=" + SUBS,
                         "OUT=" + OUT] + COMMON,
}
# Each run as if typed at a terminal: no make around it (this test runs under make test).
ENV = {k: v for k, v in os.environ.items()
       if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GNUMAKEFLAGS", "MAKEOVERRIDES")}


def as_at_a_terminal():
    """In each run's process: the stop signals as a terminal's shell leaves them (their default
    action). Started under nohup, or in the background of a script, this test inherits SIGHUP or
    SIGINT ignored, and the grader rightly keeps a signal ignored that it was started with."""
    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)

# How a run is stopped: (what is signalled, the signal, the status the command must end with).
STOPS = {
    "ctrl-c": ("group", signal.SIGINT, -signal.SIGINT),
    "hang-up": ("group", signal.SIGHUP, -signal.SIGHUP),
    "SIGTERM": ("command", signal.SIGTERM, -signal.SIGTERM),
    "SIGINT": ("command", signal.SIGINT, -signal.SIGINT),
    "timeout": ("timeout", signal.SIGALRM, 124),
}
# (command, stop, moment). The build cases compile a file that takes g++ half a minute; the
# grading cases a file that sleeps in every call (one compile of it, then it is up to date).
CASES = [
    ("make grade", "ctrl-c", "build"),
    ("make grade", "SIGTERM", "build"),
    ("make grade", "timeout", "build"),
    ("make grade", "hang-up", "grading"),
    ("make grade", "ctrl-c", "grading"),
    ("make grade", "SIGTERM", "grading"),
    ("make grade", "timeout", "grading"),
    ("grade.sh", "SIGTERM", "build"),
    ("grade.sh", "ctrl-c", "grading"),
    ("grade.sh", "SIGINT", "grading"),
    ("grade.sh", "timeout", "grading"),
    ("make grade-batch", "ctrl-c", "build"),
    ("make grade-batch", "SIGTERM", "grading"),
    ("make grade-batch", "timeout", "build"),
    ("make grade-batch", "timeout", "grading"),
]
MOMENTS = {"build": "while the student's file compiles", "grading": "while the student's code runs"}
# make test's quick tier (QUICK=1): one case of each command, the build and the grading both
# stopped, and one run to the end after them; make test-all: every case.
QUICK_CASES = [("make grade", "ctrl-c", "build"), ("grade.sh", "SIGTERM", "grading"),
               ("make grade-batch", "timeout", "grading")]
QUICK = os.environ.get("QUICK") == "1"

PASSED, FAILED = [], []


def check(ok, what, detail=""):
    (PASSED if ok else FAILED).append(what)
    print(("ok   " if ok else "FAIL ") + what + ("" if ok or not detail else ": " + str(detail)[:3000]))
    sys.stdout.flush()


# ------------------------------------------------------------------------------------------
# The process tree below this test

def become_subreaper():
    libc = ctypes.CDLL(None, use_errno=True)
    PR_SET_CHILD_SUBREAPER = 36
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("test_stop: cannot become a child subreaper (prctl: %s)" % os.strerror(ctypes.get_errno()))


def descendants():
    """pid -> (ppid, state, comm) of every process below this one."""
    table = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                data = f.read()
        except OSError:
            continue
        lp, rp = data.find(b"("), data.rfind(b")")
        rest = data[rp + 2:].split()
        table[int(name)] = (int(rest[1]), rest[0].decode(), data[lp + 1:rp].decode(errors="replace"))
    children = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found, todo = {}, [os.getpid()]
    while todo:
        for c in children.get(todo.pop(), []):
            found[c] = table[c]
            todo.append(c)
    return found


def live(procs):
    return {pid: v for pid, v in procs.items() if v[1] not in ("Z", "X")}


def reap_adopted(keep):
    """Reap the zombies re-parented to this test (never `keep`, the command, whose status
    subprocess collects)."""
    me = os.getpid()
    for pid, (ppid, state, _) in descendants().items():
        if ppid == me and state == "Z" and pid != keep:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass


def describe(pid, comm):
    try:
        cmd = open("/proc/%d/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        cmd = ""
    return "%d %s [%s]" % (pid, comm, cmd.strip()[:150])


def kill_everything_below(keep):
    """After a failed case: end whatever the run left, so that the next case starts clean."""
    for _ in range(200):
        left = live(descendants())
        if not left:
            break
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
        reap_adopted(keep)


# ------------------------------------------------------------------------------------------
# Locks and files

def lock_is_free(path):
    """flock -n on the file succeeds (a missing file holds no lock)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def lock_holders(path):
    """The live processes that have `path` open: a flock lasts as long as one of them does.
    (/proc/locks names the process that took the lock, which may be long gone, flock(1) for
    one; under make -j test another suite's build may hold the same lock meanwhile.)"""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return []
    holders = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        fd_dir = "/proc/%s/fd" % name
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                t = os.stat(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if t.st_ino == st.st_ino and t.st_dev == st.st_dev:
                holders.append(int(name))
                break
    return holders


def results_problems(folders):
    """Temporary files left, or result files that do not read back whole (removed once
    reported, so that one failure is not reported again by every later case)."""
    problems = []
    for folder in folders:
        for root, _, files in os.walk(folder):
            for name in files:
                path = os.path.join(root, name)
                try:
                    if ".tmp." in name:
                        problems.append("temporary file left: " + path)
                        os.unlink(path)
                    elif name.endswith(".json"):
                        json.load(open(path, "rb"))
                    elif name.endswith(".jsonl"):
                        for line in open(path, "rb"):
                            json.loads(line)
                    elif name == "gradebook.csv":
                        raw = open(path, "rb").read()
                        if not raw.endswith(b"\r\n"):
                            raise ValueError("does not end with a whole row")
                        list(csv.reader(io.StringIO(raw.decode("utf-8", "surrogateescape"), newline="")))
                except (ValueError, OSError) as e:
                    problems.append("%s is cut short or unreadable (%s)" % (path, e))
    return problems


# ------------------------------------------------------------------------------------------
# One stop

def put_student_file(src, touch=False):
    """The student's file of the tree and of the batch's one submission: a copy of src
    (touched when asked, so that make compiles it again)."""
    for tree in (TREE, os.path.join(SUBS, "alice")):
        nxt = os.path.join(tree, NEXT_LAB_FILE)
        if not os.path.exists(nxt):
            os.makedirs(os.path.dirname(nxt), exist_ok=True)
            shutil.copyfile(os.path.join("labs", NEXT_LAB_FILE), nxt)
    for dest in (os.path.join(TREE, LAB_FILE), os.path.join(SUBS, "alice", LAB_FILE)):
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if not os.path.exists(dest) or open(dest, "rb").read() != open(src, "rb").read():
            shutil.copyfile(src, dest)
        elif touch:
            os.utime(dest)


def how_ended(status):
    if status < 0:
        return "was ended by %s (status %d to a shell)" % (signal.Signals(-status).name, 128 - status)
    return "exited with status %d" % status


def reached(procs, moment):
    names = {comm for _, state, comm in procs.values() if state != "Z"}
    if moment == "build":
        return bool(names & BUILDING)
    return DRIVER in names and bool(names & STUDENT_CODE)


def log_tail(path, n=15):
    try:
        return "\n    | " + "\n    | ".join(open(path, errors="replace").read().splitlines()[-n:])
    except OSError:
        return ""


def stop_case(command, how, moment, number):
    what = "%s, %s %s" % (command, how, MOMENTS[moment])
    target, sig, expected = STOPS[how]
    if moment == "build":
        put_student_file(SLOW_TO_COMPILE, touch=True)
    else:
        put_student_file(SLEEPY)
    if command != "make grade-batch" and os.path.exists(os.path.join(GRADE, "results.json")):
        os.unlink(os.path.join(GRADE, "results.json"))  # one found after the stop is this run's
    argv = COMMANDS[command]
    if target == "timeout":
        argv = ["timeout", "600"] + argv
    log = os.path.join(LOGS, "%02d-%s-%s-%s.log" % (number, command.replace(" ", "-"), how, moment))
    seen = {}
    with open(log, "wb") as out:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             env=ENV, start_new_session=True, preexec_fn=as_at_a_terminal)
    start = time.monotonic()
    while p.poll() is None and time.monotonic() - start < REACH_LIMIT:
        procs = descendants()
        seen.update(procs)
        if reached(procs, moment):
            break
        time.sleep(0.02)
    else:
        kill_everything_below(p.pid)
        p.wait()
        check(False, what, "the run never got %s (it %s)%s" % (
            MOMENTS[moment], how_ended(p.returncode) if p.returncode is not None
            else "was still short of it after %.0f s" % REACH_LIMIT, log_tail(log)))
        return
    time.sleep(0.3)  # well inside that moment: the compiler, or the student's call, under way
    seen.update(descendants())

    if target == "group":
        os.killpg(p.pid, sig)  # what a terminal does: every process of the foreground group
    else:
        os.kill(p.pid, sig)    # the command alone (`timeout`: its timer went off)
    stopped = time.monotonic()
    left = {}
    while True:
        p.poll()
        reap_adopted(p.pid)
        procs = descendants()
        seen.update(procs)
        left = live(procs)
        if p.returncode is not None and not left:
            break
        if time.monotonic() - stopped > LIMIT:
            break
        time.sleep(0.02)
    took = time.monotonic() - stopped

    problems = []
    if left:
        problems.append("%d processes of the run were still there %.0f s after the stop (expected "
                        "none): %s" % (len(left), LIMIT, "; ".join(describe(pid, v[2]) for pid, v in sorted(left.items()))))
    if p.returncode is None:
        problems.append("the command itself had not ended")
    elif p.returncode != expected:
        problems.append("the command %s, expected it %s" % (how_ended(p.returncode), how_ended(expected)))
    for lock in (os.path.join(GRADE, ".lock"), os.path.join(OUT, ".lock")):
        if not lock_is_free(lock):
            problems.append("%s is still locked (flock -n fails)" % lock)
    ours = [pid for pid in lock_holders(os.path.join(BUILD, ".build-lock")) if pid in seen]
    if ours:
        problems.append("%s/.build-lock is still held, through process %s of the stopped run"
                        % (BUILD, ", ".join(map(str, ours))))
    kill_everything_below(p.pid)  # before reading files: nothing may still be writing them
    p.wait()
    problems += results_problems([GRADE, OUT])
    if problems:
        check(False, what, "; ".join(problems) + "\n  what it printed (%s):%s" % (log, log_tail(log)))
    else:
        check(True, "%s: everything ended in %.2f s, the command %s, no lock held, no partial file"
              % (what, took, how_ended(p.returncode)))


# ------------------------------------------------------------------------------------------
# The run after

def run_to_the_end(command, number):
    log = os.path.join(LOGS, "%02d-%s-after.log" % (number, command.replace(" ", "-")))
    with open(log, "wb") as out:
        p = subprocess.Popen(COMMANDS[command], stdin=subprocess.DEVNULL, stdout=out,
                             stderr=subprocess.STDOUT, env=ENV, start_new_session=True,
                             preexec_fn=as_at_a_terminal)
    try:
        p.wait(timeout=300)
    except subprocess.TimeoutExpired:
        kill_everything_below(p.pid)
        p.wait()
    reap_adopted(p.pid)
    return p.returncode, log


def after_case(command, number):
    what = "%s after the stops: grades the skeleton to the end" % command
    put_student_file(SKELETON)
    status, log = run_to_the_end(command, number)
    problems = []
    if command == "make grade-batch":
        book = os.path.join(OUT, "gradebook.csv")
        rows = list(csv.reader(open(book, newline=""))) if os.path.exists(book) else []
        state = rows[1][rows[0].index("state")] if len(rows) == 2 and "state" in rows[0] else None
        if status != 0 or state != "graded":
            problems.append("expected status 0 and one student graded in %s; got status %s, "
                            "state %s" % (book, status, state))
    else:
        path = os.path.join(GRADE, "results.json")
        results = json.load(open(path)) if os.path.exists(path) else {}
        # The skeletons graded to the end: every correctness check of both labs passed, speed
        # not graded (the emulator), both labs not started (the untouched skeletons): the
        # grader's status is 1, grade.sh's too, and make's 2 (make's own for a failed recipe).
        want = 2 if command == "make grade" else 1
        got = {k: results.get(k) for k in ("exit_status", "correct_passed", "correct_checks",
                                           "not_started", "speed_graded")} if results else None
        if status != want or got != {"exit_status": 1, "correct_passed": 20, "correct_checks": 20,
                                     "not_started": 2, "speed_graded": False}:
            problems.append("expected status %d, exit_status 1, 20 of 20 correctness checks passed "
                            "and 2 labs not started (speed not graded) in %s; got status %s, %s" % (
                                want, path, status, got if got else "no results"))
        # Lab 02 was served by the harness that served lab 01, which lived through lab 01's end
        # (which ends every process of lab 01's) to grade lab 02.
        second = os.path.join(GRADE, "banks.harness.log")
        said = open(second, errors="replace").read() if os.path.exists(second) else ""
        if "lab banks begins (lab 2 of this harness)" not in said:
            problems.append("lab 02 was not served by lab 01's harness (%s says nothing of "
                            "it)" % second)
    left = live(descendants())
    if left:
        problems.append("processes left after it ended: " + "; ".join(describe(pid, v[2]) for pid, v in left.items()))
        kill_everything_below(None)
    problems += results_problems([GRADE, OUT])
    check(not problems, what, "; ".join(problems) + log_tail(log))


def main():
    become_subreaper()
    # The commands must meet Ctrl-C as a terminal's foreground job does. A test run started in
    # the background by a shell without job control (`make test &` in a script) inherits SIGINT
    # ignored, and an ignored signal stays ignored through exec: every Ctrl-C case would then
    # stop nothing. A handled signal is reset to its default at exec, so the commands get it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(LOGS)
    os.makedirs(GRADE)
    n = 0
    for command, how, moment in (QUICK_CASES if QUICK else CASES):
        n += 1
        stop_case(command, how, moment, n)
    for command in (["make grade"] if QUICK else COMMANDS):
        n += 1
        after_case(command, n)
    print("stop: %d passed, %d failed%s%s" % (len(PASSED), len(FAILED),
                                              " (the quick tier: %d of %d cases)" % (len(QUICK_CASES), len(CASES)) if QUICK else "",
                                              " (logs: %s)" % LOGS if FAILED else ""))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
