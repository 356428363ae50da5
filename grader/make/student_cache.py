#!/usr/bin/env python3
"""student_cache.py - TRUSTED: a student's file that is byte for byte one already compiled, with
the same flags and the same inputs, takes that compile's vetted object instead of compiling again.

    STUDENT_CACHE=DIR student_cache.py [--stat PATH]... -- SANDBOX-RUN ARGS... -- COMPILE...

The Makefile's student build (grader/make/lab_rules.mk) runs the compile sandbox
(grader/sandbox/sandbox_run.c) through it when STUDENT_CACHE names a folder (the test suites
set it: tests/tests.mk; make grade does not). With STUDENT_CACHE empty, or anything unusual
about the inputs, it runs the command and nothing else (exec: the same process, signals and all).

The key is the SHA-256 of everything the compile's result depends on, read from sandbox-run's
own command line:
  - the student's file (--student TREE REL): REL, and every entry of the lab file's folder and
    below: names, kinds and the bytes of every regular file (the helpers the sandbox may copy
    in are among them, whichever it takes); a lab file that is not a regular file reached
    through real folders, or a folder of more than MAX_ENTRIES entries or MAX_BYTES bytes, is
    not cached;
  - each --copy SRC DEST: DEST and SRC's bytes (the lab's headers, vet.sh, the build script);
    sandbox-run's own bytes;
  - each --visible path's identity (path, size, modification time: the emulator's tools, its
    headers and precompiled prelude), and each --stat PATH's (the toolkit's nvcc, cuobjdump);
  - the folders hidden from the compile (--hide: each one not inside another), the sandbox's
    limits and --env settings, the uid, the GRADER_*, SANDBOX_* and CUDA_* environment, and the
    compile command after the sandbox's `--` (the compiler, its flags, the lab and its rules);
    not the places of this build (--work, --get's destinations), which name no input.
So a file never takes another file's object: two compiles share an entry only when all of it is
the same. Only a compile that succeeded is kept, with what it printed (replayed on a hit), and
only when the copy the sandbox compiled (--get REL: source.cu) is the bytes that were hashed; an
entry is written whole into a temporary folder and renamed into place, so that a reader never
sees half of one, and one key compiles once at a time (a lock a key: a batch's students side by
side wait for the first compile of their shared file). Nothing in the cache is shown to a sandbox (the Makefile hides STUDENT_CACHE
from the compile and from the workers), and nothing a student's code writes reaches it: the
object kept is the one the sandbox handed back, vetted, as without the cache.
"""
import fcntl
import hashlib
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

MAX_ENTRIES = 256
MAX_BYTES = 32 << 20


def parse(argv):
    """--stat PATHs, then sandbox-run's command line."""
    stats, i = [], 0
    while i < len(argv) and argv[i] != "--":
        if argv[i] == "--stat":
            stats.append(argv[i + 1])
        i += 2
    return stats, argv[i + 1:]


def file_digest(path):
    """The bytes of a regular file, opened without following a link; None for anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        h = hashlib.sha256()
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
        return h.hexdigest()


def folder_lines(top):
    """Every entry below the lab file's folder (names, kinds, bytes), or None when too big."""
    lines, total = [], 0
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(dirs + files):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, top)
            st = os.lstat(path)
            if len(lines) >= MAX_ENTRIES:
                return None
            if stat.S_ISREG(st.st_mode):
                total += st.st_size
                if total > MAX_BYTES:
                    return None
                lines.append("f %r %s" % (rel, file_digest(path)))
            elif stat.S_ISLNK(st.st_mode):
                lines.append("l %r %r" % (rel, os.readlink(path)))
            elif stat.S_ISDIR(st.st_mode):
                lines.append("d %r" % rel)
            else:
                lines.append("o %r %o" % (rel, stat.S_IFMT(st.st_mode)))
    return lines


def identity(path):
    out = []
    paths = [path]
    if os.path.isdir(path):
        paths = sorted(os.path.join(r, f) for r, _, fs in os.walk(path) for f in fs)
    for p in paths:
        try:
            st = os.stat(p)
            out.append("s %s %d %d" % (os.path.realpath(p), st.st_size, st.st_mtime_ns))
        except OSError:
            out.append("s %s gone" % p)
    return out


# sandbox-run's options with two values, and those with none (grader/sandbox/sandbox_run.c)
TWO = ("--student", "--copy", "--get", "--deps")
NONE = ("--no-proc",)


def key_of(stats, command):
    """(key, the lab file's digest, the object's and the copy's paths), or None: not cached."""
    lines = ["student-cache 1", "uid %d" % os.getuid(), "sandbox-run " + str(file_digest(command[0]))]
    lines += sorted("env %s=%s" % kv for kv in os.environ.items()
                    if kv[0].startswith(("GRADER_", "SANDBOX_", "CUDA_")))
    tree = rel = obj = copy = deps = None
    student_as = None
    gets, hidden = [], []
    i = 1
    while i < len(command) and command[i] != "--":
        a = command[i]
        if a in NONE:
            lines.append(a)
            i += 1
            continue
        v = command[i + 1]
        v2 = command[i + 2] if a in TWO else None
        if a == "--student":
            tree, rel = v, v2
            lines.append("student " + rel)
        elif a == "--copy":
            lines.append("copy %s %s" % (v2, file_digest(v)))
        elif a == "--get":
            gets.append((v, v2))
            lines.append("get " + v)
        elif a == "--student-as":
            student_as = v
            lines.append("student-as " + v)
        elif a == "--deps":  # where make's record of the student's files goes, and its name
            deps = v
            lines.append("deps-var " + v2)
        elif a == "--visible":
            lines.append("visible " + v)
            lines += identity(v)
        elif a == "--hide":
            hidden.append(os.path.realpath(v))
        elif a != "--work":
            lines.append("%s %s" % (a, v))
        i += 3 if v2 is not None else 2
    if tree is None or i >= len(command):
        return None
    # a folder inside another hidden one hides nothing more (a student's tree inside the build)
    lines += ["hide " + h for h in sorted(set(hidden))
              if not any(h != o and h.startswith(o.rstrip("/") + "/") for o in hidden)]
    lines.append("command %r" % (command[i + 1:],))
    for path in stats:
        lines += identity(path)
    lab_file = os.path.join(tree, rel)
    st = os.lstat(lab_file)
    # a lab file that is not a regular file reached through real folders: the sandbox says why
    if not stat.S_ISREG(st.st_mode) or os.path.realpath(lab_file) != os.path.abspath(lab_file):
        return None
    folder = folder_lines(os.path.dirname(os.path.abspath(lab_file)))
    own = file_digest(lab_file)
    if folder is None or own is None:
        return None
    lines += ["lab-file " + own] + folder
    for name, dest in gets:
        if name == "student.o":
            obj = dest
        elif name == (student_as or rel):
            copy = dest
    if not obj or not copy:
        return None
    key = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    if os.environ.get("STUDENT_CACHE_KEYS") == "1":  # what a key was made of, to compare two
        os.makedirs(os.path.join(os.environ["STUDENT_CACHE"], "keys"), exist_ok=True)
        with open(os.path.join(os.environ["STUDENT_CACHE"], "keys", key + ".txt"), "w") as f:
            f.write("\n".join(lines) + "\n")
    # make's record of the student's files names them under TREE: kept with TREE cut out and put
    # back as this compile's, so a TREE that make would read otherwise than as plain text is not
    # cached (sandbox-run says for itself what it does with one)
    if deps and not all(c.isalnum() or c in "._/+-" for c in tree.rstrip("/")):
        return None
    return key, own, obj, copy, deps, tree.rstrip("/")


def deps_keep(deps, tree, entry_dir):
    """make's record (deps, under TREE) into the entry, TREE cut out; 0 where there is none."""
    if not deps:
        return 1
    try:
        with open(deps) as f:
            text = f.read()
    except OSError:
        return 0
    with open(os.path.join(entry_dir, "student.deps"), "w") as f:
        f.write(text.replace(tree + "/", "\0TREE/"))
    return 1


def deps_put(deps, tree, entry_dir):
    """The entry's record of the student's files, as this compile's (under this TREE)."""
    if not deps:
        return
    with open(os.path.join(entry_dir, "student.deps")) as f:
        text = f.read()
    with open(deps, "w") as f:
        f.write(text.replace("\0TREE/", tree + "/"))


def main():
    stats, command = parse(sys.argv[1:])
    cache = os.environ.get("STUDENT_CACHE", "")
    if not cache:
        os.execvp(command[0], command)
    try:
        found = key_of(stats, command)
    except OSError:
        found = None
    if found is None:
        os.execvp(command[0], command)
    key, own, obj, copy, deps, tree = found
    entry = os.path.join(cache, key[:2], key)
    # one compile a key at a time: a second asking for the same key (a batch's students side by
    # side) waits for the first, then takes its object (the lock goes when this process does)
    os.makedirs(os.path.dirname(entry), exist_ok=True)
    lock = os.open(entry + ".lock", os.O_WRONLY | os.O_CREAT, 0o644)
    fcntl.flock(lock, fcntl.LOCK_EX)
    hit = os.path.isfile(os.path.join(entry, "student.o")) and (
        not deps or os.path.isfile(os.path.join(entry, "student.deps")))
    # one line a compile asked for (log.tsv: hit or compiled, the key, the file's bytes, where),
    # so that a run can count what it compiled twice (tests/RESULTS.md)
    try:
        with open(os.path.join(cache, "log.tsv"), "a") as log:
            log.write("%s\t%s\t%s\t%s\n" % ("hit" if hit else "compiled", key, own, obj))
    except OSError:
        pass
    if hit:
        shutil.copyfile(os.path.join(entry, "student.o"), obj)
        shutil.copyfile(os.path.join(entry, "source.cu"), copy)
        deps_put(deps, tree, entry)
        for name, stream in (("stdout", sys.stdout.buffer), ("stderr", sys.stderr.buffer)):
            with open(os.path.join(entry, name), "rb") as f:
                stream.write(f.read())
        return 0
    os.makedirs(os.path.dirname(entry), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".new-", dir=os.path.dirname(entry))
    try:
        with open(os.path.join(tmp, "stdout"), "wb") as out, open(os.path.join(tmp, "stderr"), "wb") as err:
            status = subprocess.call(command, stdout=out, stderr=err)
        for name, stream in (("stdout", sys.stdout.buffer), ("stderr", sys.stderr.buffer)):
            with open(os.path.join(tmp, name), "rb") as f:
                stream.write(f.read())
            stream.flush()
        if status < 0:  # stopped by a signal: end the same way
            signal.signal(-status, signal.SIG_DFL)
            os.kill(os.getpid(), -status)
        if (status == 0 and os.path.isfile(obj) and file_digest(copy) == own and
                deps_keep(deps, tree, tmp)):
            shutil.copyfile(obj, os.path.join(tmp, "student.o"))
            shutil.copyfile(copy, os.path.join(tmp, "source.cu"))
            try:
                os.rename(tmp, entry)
                tmp = None
            except OSError:  # another make kept the same entry first
                pass
        return status
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
