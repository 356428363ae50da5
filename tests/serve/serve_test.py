#!/usr/bin/env python3
"""serve_test.py - the course server (grader/serve/) on loopback, with no GPU.

    tests/serve/serve_test.py [--quick] [CASE...]        (BUILD from the environment)

Cases (all by default; --quick: the quick tier's slice, tokens hostile limits roundtrip slurm):
  tokens      a wrong, revoked or missing token: 401 and no detail; roster's tokens.csv 0600,
              only hashes in the store; a student sees only their own submissions, and fetches
              only their own grading's files
  hostile     links, "..", absolute paths, a device, garbage bytes, a tar bomb (too many files,
              a huge declared size), an upload over 6 MiB: refused with the rule in one line,
              nothing queued, nothing written; the packer refuses a linked helper
  limits      the rate limit (429; kept in the store: a restart forgets none), the queue caps
              (503, 429), each with Retry-After; a student's connections open at once capped
              (STUDENT_CONNECTIONS: 429, the connection closed), another student still answered
  roundtrip   make submit and make submit-status through the stand-in grader
  slurm       SLURM=2 through a stand-in srun (tests/serve/fake-srun): one job step a grading,
              with a task, a GPU and the partition asked, each report its owner's
  tls         TLS_CERT= and TLS_KEY= (a certificate made by openssl): make submit over HTTPS;
              an untrusted certificate refused; plain HTTP answered nothing
  concurrent  100 students submitting at once, graded for real (make grade on the emulator, as the
              server grades a real submission; JOBS= slots): a third send the reference's lab
              01, a third a wrong one, a third a fault; each report is make grade's own for that
              student's file (its verdict, its exit status) and names that student's submission
              alone; each graded once (started once, one grading recorded)
  kill9       the server killed with SIGKILL three times while 50 submissions (the same three
              files) are sent and graded for real, restarted: no acknowledged submission lost,
              each done with make grade's report of its own file, each graded once (the gradings
              table), cut-off gradings run again
  kill9real   the server killed with SIGKILL while make grade grades a submission: no process of
              that grading left after the restart, the submission graded again, recorded once
  real        make submit on the CPU emulator: the report is make grade's for the same files
              and seed, and the exit status make grade's; it names the student's files and the
              files it names (results.json) written where it says, nothing of the server's
  page        the status page in headless Chromium (its DOM: the queue, the GPUs, each student's
              latest and best), DEADLINE= marking late, make serve-export's CSV and JSON Lines
Where grading is what is under test (concurrent, kill9, kill9real, real), make grade grades.
The stand-in for make grade (tests/serve/stand-in-grade.sh: a sleep and a report naming the
file's SHA-256) stays in the cases that test something else (the quick tier's five among
them: no emulator runs there): who may submit and read (tokens), what is refused before any grading
(hostile), the caps, which need gradings that last (limits: a 30 s sleep holds the queue),
the client's output and exit status (roundtrip), srun's command line (slurm, through a stand-in
srun), the transport (tls), and the status page and the exports from a results.json with a
score (page: the emulator grades no speed, so a real grading has none).
The real gradings take each file's compile from the cache of student objects (STUDENT_CACHE,
which tests/tests.mk sets): each case grades its three files once with make grade first, the
references, in the course folder the server hides, so that the key is the server's.
SERVE_TEST_JOBS= sets their grading slots (make serve's JOBS=; 2, the cores of the machine the
full tier is timed on).
Prints one line per check: ok/FAIL/SKIP; exits 1 on a FAIL.
"""
import hashlib
import http.client
import io
import json
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import threading
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.path.abspath(os.path.join(ROOT, os.environ.get("BUILD", "build")))
HOST = os.path.join(BUILD, "host")
STAND_IN = os.path.join(ROOT, "tests/serve/stand-in-grade.sh")
WORK = os.path.join(BUILD, "tests", "serve")
# The emulator's grading slots of the real-grading cases (make serve's JOBS=), and how long the
# kill9 case lets the server grade between its kills.
SERVE_JOBS = int(os.environ.get("SERVE_TEST_JOBS", "2"))
KILL9_EVERY = 0.8
failures = []


def check(ok, what, detail=""):
    print(("ok    " if ok else "FAIL  ") + what + ("" if ok else f": {detail}"), flush=True)
    if not ok:
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def roster(course, names):
    csv = os.path.join(WORK, "roster.csv")
    with open(csv, "w") as f:
        f.write("name\n" + "".join(n + "\n" for n in names))
    subprocess.run([os.path.join(HOST, "serve-roster"), course, csv], check=True, stdout=subprocess.DEVNULL)
    toks = {}
    for line in open(os.path.join(course, "tokens.csv")).read().splitlines()[1:]:
        name, tok = line.rsplit(",", 1)
        toks[name] = tok
    return toks


class Server:
    def __init__(self, course, stand_in=True, **env):
        self.course, self.port = course, free_port()
        self.env = dict(os.environ, BUILD=BUILD, EMU="1", **{k: str(v) for k, v in env.items()})
        if stand_in:
            self.env["SERVE_GRADE_CMD"] = STAND_IN
        self.start()

    def start(self):
        self.proc = subprocess.Popen([os.path.join(HOST, "serve-course"), self.course, str(self.port)],
                                     cwd=ROOT, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        line = self.proc.stdout.readline().decode()
        if not line.startswith("Serving"):
            raise SystemExit("the server did not start: " + line + self.proc.stdout.read().decode())

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill9()
            check(False, "the server stops on SIGTERM", "still running after 20 s")

    def url(self):
        return f"{'https' if self.env.get('TLS_CERT') else 'http'}://127.0.0.1:{self.port}"

    def call(self, method, path, token=None, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        h = dict(headers or {})
        if token is not None:
            h["Authorization"] = "Bearer " + token
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, dict(r.getheaders()), data


def tar_bytes(entries):
    """entries: (name, bytes) for regular files, or a tarfile.TarInfo with no data."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.USTAR_FORMAT) as t:
        for e in entries:
            if isinstance(e, tarfile.TarInfo):
                t.addfile(e)
            else:
                info = tarfile.TarInfo(e[0])
                info.size = len(e[1])
                t.addfile(info, io.BytesIO(e[1]))
    return buf.getvalue()


def lab01(text):
    return tar_bytes([("01-coalescing/coalescing.cu", text.encode())])


def wait_done(server, course, ids, limit=120):
    end = time.time() + limit
    while time.time() < end:
        db = sqlite3.connect(os.path.join(course, "serve.db"))
        left = db.execute(f"SELECT count(*) FROM submissions WHERE state!='done' AND id IN ({','.join(map(str, ids)) or 0})").fetchone()[0]
        db.close()
        if not left:
            return True
        time.sleep(0.2)
    return False


def new_course(name, names):
    course = os.path.join(WORK, name)
    shutil.rmtree(course, ignore_errors=True)
    shutil.rmtree(logs_of(course), ignore_errors=True)
    os.makedirs(WORK, exist_ok=True)
    return course, roster(course, names)


def case_tokens():
    course, toks = new_course("tokens", ["alice", "bob", "carol"])
    mode = os.stat(os.path.join(course, "tokens.csv")).st_mode & 0o777
    check(mode == 0o600, "tokens.csv is mode 0600", oct(mode))
    db = open(os.path.join(course, "serve.db"), "rb").read()
    check(all(t.encode() not in db for t in toks.values()), "the store holds no token, only hashes")
    subprocess.run([os.path.join(HOST, "serve-roster"), course, "--revoke", "carol"], check=True, stdout=subprocess.DEVNULL)
    s = Server(course)
    try:
        for what, tok in [("a wrong token", "cw-" + "0" * 48), ("a revoked token", toks["carol"]), ("no token", None),
                          ("an empty token", ""), ("a token of a student's, altered", toks["alice"][:-1] + "x")]:
            code, _, body = s.call("POST", "/api/submit?lab=01", tok, lab01("x"))
            check(code == 401 and body == b'{"error":"unauthorized"}', f"{what}: 401 and no detail", f"{code} {body[:80]}")
        code, _, _ = s.call("GET", "/status", toks["alice"])
        check(code == 401, "a student's token does not open the status page", code)
        code, _, body = s.call("POST", "/api/submit?lab=01", toks["alice"], lab01("// alice\n"))
        check(code == 202, "alice's submission acknowledged (202)", f"{code} {body}")
        aid = json.loads(body)["id"]
        code, _, body = s.call("GET", f"/api/submissions/{aid}", toks["bob"])
        check(code == 404, "bob cannot see alice's submission (404)", f"{code} {body[:100]}")
        code, _, body = s.call("GET", "/api/submissions", toks["bob"])
        check(code == 200 and json.loads(body) == [], "bob's list holds none of alice's", body[:100])
        wait_done(s, course, [aid], 30)
        code, _, body = s.call("GET", f"/api/submissions/{aid}", toks["alice"])
        sha = hashlib.sha256(b"// alice\n").hexdigest()
        check(code == 200 and sha in json.loads(body).get("report", ""), "alice sees her own report", body[:200])
        code, _, body = s.call("GET", f"/api/submissions/{aid}/logs", toks["alice"])
        check(code == 200 and "results.json" in json.loads(body), "alice fetches the files her report names", f"{code} {body[:100]}")
        code, _, body = s.call("GET", f"/api/submissions/{aid}/logs", toks["bob"])
        check(code == 404 and b"results" not in body, "bob cannot fetch them (404)", f"{code} {body[:100]}")
        log = open(os.path.join(course, "serve.log")).read()
        check("POST /api/submit 401" in log and "GET /api/submissions/%d 404 bob" % aid in log,
              "every request is in the log (who, what, the answer)", log[-300:])
        check(all(t not in log for t in toks.values()), "the log holds no token")
    finally:
        s.stop()


def raw_header(name, size, kind=b"0"):
    h = bytearray(512)
    h[0:len(name)] = name
    h[100:108] = b"0000644\0"
    h[108:116] = b"0000000\0"
    h[116:124] = b"0000000\0"
    h[124:136] = b"%011o\0" % size
    h[136:148] = b"00000000000\0"
    h[156:157] = kind
    h[257:263] = b"ustar\0"
    h[263:265] = b"00"
    h[148:156] = b" " * 8
    h[148:156] = b"%06o\0 " % sum(h)
    return bytes(h)


def case_hostile():
    course, toks = new_course("hostile", ["mallory"])
    s = Server(course)
    t = toks["mallory"]
    link = tarfile.TarInfo("01-coalescing/tile.cuh"); link.type = tarfile.SYMTYPE; link.linkname = "/etc/passwd"
    hard = tarfile.TarInfo("01-coalescing/tile.cuh"); hard.type = tarfile.LNKTYPE; hard.linkname = "01-coalescing/coalescing.cu"
    dev = tarfile.TarInfo("01-coalescing/null"); dev.type = tarfile.CHRTYPE; dev.devmajor, dev.devminor = 1, 3
    fifo = tarfile.TarInfo("01-coalescing/fifo"); fifo.type = tarfile.FIFOTYPE
    good = ("01-coalescing/coalescing.cu", b"// mine\n")
    cases = [
        ("a symbolic link", tar_bytes([good, link]), 400, "a link"),
        ("a hard link", tar_bytes([good, hard]), 400, "a link"),
        ("a character device", tar_bytes([good, dev]), 400, "a device or pipe"),
        ("a pipe", tar_bytes([good, fifo]), 400, "a device or pipe"),
        ("a name with ..", tar_bytes([good, ("01-coalescing/../../../etc/cron.d/x", b"x")]), 400, '".."'),
        ("an absolute path", tar_bytes([good, ("/etc/cron.d/x", b"x")]), 400, "an absolute path"),
        ("a file outside the lab's folder", tar_bytes([good, ("02-banks/banks.cu", b"x")]), 400, "outside the rule"),
        ("a name with a newline", tar_bytes([good, ("01-coalescing/a\nb.cuh", b"x")]), 400, "outside the rule"),
        ("garbage bytes", os.urandom(4096), 400, "not a tar archive"),
        ("an empty body", b"", 400, "not a tar archive"),
        ("a tar bomb: 1,000 files", tar_bytes([good] + [(f"01-coalescing/f{i}.cuh", b"x") for i in range(1000)]), 400, "too many files"),
        ("a tar bomb: a huge size declared", raw_header(b"01-coalescing/coalescing.cu", 1 << 32) + bytes(1024), 400, "over 1 MiB"),
        ("a file that runs past the end", raw_header(b"01-coalescing/coalescing.cu", 5000) + bytes(1024), 400, "ends inside a file"),
        ("bytes after the end", lab01("x") + b"\x01" + bytes(511), 400, "nothing after them"),
        ("no lab file", tar_bytes([("01-coalescing/other.cu", b"x")]), 400, "holds no 01-coalescing/coalescing.cu"),
    ]
    try:
        for what, body, want, says in cases:
            code, _, answer = s.call("POST", "/api/submit?lab=01", t, body)
            try:
                err = json.loads(answer).get("error", "")
            except ValueError:
                err = answer.decode(errors="replace")
            check(code == want and says in err and "\n" not in err and (want == 413 or "an upload holds regular files" in err or "holds no" in err),
                  f"{what}: {want}, the rule in one line", f"{code} {err[:200]}")
        # over 6 MiB: refused from its Content-Length, before a byte of the body is read
        with socket.create_connection(("127.0.0.1", s.port)) as c:
            c.sendall(b"POST /api/submit?lab=01 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + t.encode() +
                      b"\r\nContent-Length: %d\r\n\r\n" % (7 << 20))
            answer = c.recv(4096).decode(errors="replace")
        check(answer.startswith("HTTP/1.1 413") and "over 6 MiB" in answer, "an upload over 6 MiB: 413 before its body is read", answer[:200])
        # over 6 MiB without a Content-Length (chunked): cut off as it arrives
        c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=60)
        c.putrequest("POST", "/api/submit?lab=01")
        c.putheader("Authorization", "Bearer " + t)
        c.putheader("Transfer-Encoding", "chunked")
        c.endheaders()
        try:
            for _ in range(8):
                c.send(b"100000\r\n" + bytes(1 << 20) + b"\r\n")
            c.send(b"0\r\n\r\n")
            r = c.getresponse()
            code, err = r.status, r.read().decode(errors="replace")
        except OSError as e:
            code, err = 0, str(e)
        check(code == 413 and "over 6 MiB" in err, "a chunked upload over 6 MiB: 413", f"{code} {err[:200]}")
        db = sqlite3.connect(os.path.join(course, "serve.db"))
        check(db.execute("SELECT count(*) FROM submissions").fetchone()[0] == 0, "nothing refused was queued")
        check(os.listdir(os.path.join(course, "work")) == [], "nothing refused was written")
        code, _, _ = s.call("POST", "/api/submit?lab=10", t, lab01("x"))
        check(code == 400, "a lab that is not the workbook's: 400", code)
    finally:
        s.stop()
    tree = os.path.join(WORK, "hostile-tree")
    shutil.rmtree(tree, ignore_errors=True)
    os.makedirs(os.path.join(tree, "01-coalescing"))
    with open(os.path.join(tree, "01-coalescing/coalescing.cu"), "w") as f:
        f.write('#include "tile.cuh"\n')
    os.symlink("/etc/passwd", os.path.join(tree, "01-coalescing/tile.cuh"))
    p = subprocess.run([os.path.join(HOST, "serve-pack"), tree, "01"], capture_output=True)
    check(p.returncode == 2 and b"link" in p.stderr and not p.stdout, "the packer refuses a helper that is a link", p.stderr[:200])


def case_limits():
    course, toks = new_course("limits", ["a", "b", "c", "d"])
    s = Server(course, RATE=3, STUDENT_QUEUE=10, QUEUE_MAX=4, STANDIN_SLEEP=30)
    try:
        codes = [s.call("POST", "/api/submit?lab=01", toks["a"], lab01(f"// {i}\n")) for i in range(4)]
        check([c[0] for c in codes] == [202, 202, 202, 429], "the rate limit: a 4th submission in a minute gets 429", [c[0] for c in codes])
        ra = codes[3][1].get("Retry-After", "")
        check(ra.isdigit() and 0 < int(ra) <= 61, "429 says Retry-After in seconds", ra)
        s.call("POST", "/api/submit?lab=01", toks["b"], lab01("// b\n"))
        code, h, body = s.call("POST", "/api/submit?lab=01", toks["c"], lab01("// c\n"))
        check(code == 503 and h.get("Retry-After", "").isdigit(), "the queue cap: a 5th waiting submission gets 503 with Retry-After", f"{code} {h.get('Retry-After')} {body[:100]}")
        s.kill9()
        s.start()
        code, h, body = s.call("POST", "/api/submit?lab=01", toks["a"], lab01("// after the restart\n"))
        ra = h.get("Retry-After", "")
        check(code == 429 and b"this minute" in body and ra.isdigit() and 0 < int(ra) <= 61,
              "the rate limit outlives a restart (SIGKILL): a's next submission in the minute still gets 429", f"{code} {ra} {body[:100]}")
        code, _, body = s.call("POST", "/api/submit?lab=01", toks["d"], lab01("// d\n"))
        check(code == 503, "... while another student meets the queue cap (503), not the rate limit", f"{code} {body[:100]}")
    finally:
        s.stop()
    course, toks = new_course("limits2", ["a"])
    s = Server(course, RATE=10, STUDENT_QUEUE=2, STANDIN_SLEEP=30)
    try:
        codes = [s.call("POST", "/api/submit?lab=01", toks["a"], lab01(f"// {i}\n"))[0] for i in range(3)]
        check(codes == [202, 202, 429], "a student's own cap on waiting submissions: 429", codes)
    finally:
        s.stop()
    course, toks = new_course("limits3", ["a", "b"])
    s = Server(course, STUDENT_CONNECTIONS=3)
    held = []
    try:
        def get(tok, conn=None):
            c = conn or http.client.HTTPConnection("127.0.0.1", s.port, timeout=10)
            c.request("GET", "/api/submissions", headers={"Authorization": "Bearer " + tok})
            r = c.getresponse()
            return c, r.status, dict(r.getheaders()), r.read()
        for _ in range(3):  # three connections of a's held open (keep-alive), as long polls would be
            held.append(get(toks["a"])[0])
        c4, code, h, body = get(toks["a"])
        try:
            if c4.sock:
                c4.sock.settimeout(2)
            closed = c4.sock is None or c4.sock.recv(1) == b""
        except OSError:  # still open 2 s on
            closed = False
        check(code == 429 and b"3 connections" in body and h.get("Connection") == "close" and closed and h.get("Retry-After") == "5",
              "a student's 4th connection open at once (STUDENT_CONNECTIONS=3): 429, said why, the connection closed", f"{code} {h} {body[:160]}")
        check(get(toks["b"])[1] == 200, "... while another student is answered")
        check(get(toks["a"], held[0])[1] == 200, "... and a's connections already open still are")
        held.pop().close()
        time.sleep(0.3)
        check(get(toks["a"])[1] == 200, "one of a's closed: a new one of a's is answered")
    finally:
        for c in held:
            c.close()
        s.stop()


def student_tree(name, text):
    tree = os.path.join(WORK, "trees", name)
    os.makedirs(os.path.join(tree, "01-coalescing"), exist_ok=True)
    with open(os.path.join(tree, "01-coalescing/coalescing.cu"), "w") as f:
        f.write(text)
    return tree


def logs_of(course):
    """make submit's SUBMIT_LOGS for a course's students: where the files a report names are written."""
    return os.path.join(WORK, "submit-logs", os.path.basename(course))


def client(server, token, tree, lab="01", status=False, **extra):
    env = dict(os.environ, SERVER=server.url(), TOKEN=token, SUBMIT_LOGS=logs_of(server.course), **extra)
    args = ["status"] if status else ["submit", os.path.join(HOST, "serve-pack"), tree, lab]
    return subprocess.run([sys.executable, os.path.join(ROOT, "grader/serve/submit.py")] + args,
                          env=env, capture_output=True, text=True, cwd=WORK)


def case_roundtrip():
    course, toks = new_course("roundtrip", ["ann"])
    s = Server(course)
    try:
        tree = student_tree("ann", "// ann's work\n")
        with open(os.path.join(tree, "01-coalescing/tile.cuh"), "w") as f:
            f.write("// a helper\n")
        with open(os.path.join(tree, "01-coalescing/coalescing.cu"), "a") as f:
            f.write('#include "tile.cuh"\n')
        sha = hashlib.sha256(open(os.path.join(tree, "01-coalescing/coalescing.cu"), "rb").read()).hexdigest()
        p = subprocess.run(["make", "-s", "--no-print-directory", "submit", "LAB=01", f"STUDENT={tree}", f"SERVER={s.url()}",
                            f"TOKEN={toks['ann']}", f"BUILD={BUILD}"], cwd=ROOT, capture_output=True, text=True)
        check(p.returncode == 0 and f"file {sha}, helpers 2" in p.stdout and "Graded on no GPU" in p.stdout,
              "make submit: the report of the lab file and its helper, exit 0", p.stdout[-400:] + p.stderr[-400:])
        fail_tree = student_tree("ann-fail", "// FAIL\n")
        p = client(s, toks["ann"], fail_tree)
        check(p.returncode == 2, "make submit exits with the grading's code (2)", p.returncode)
        p = subprocess.run(["make", "-s", "--no-print-directory", "submit-status", f"SERVER={s.url()}", f"TOKEN={toks['ann']}",
                            f"BUILD={BUILD}"], cwd=ROOT, capture_output=True, text=True)
        lines = p.stdout.splitlines()
        check(p.returncode == 0 and len(lines) == 3 and " done " in lines[1] and "exit 2" in lines[1] and "exit 0" in lines[2],
              "make submit-status lists both, their labs, states and results", p.stdout + p.stderr)
        p = client(s, "cw-" + "1" * 48, tree)
        check(p.returncode != 0 and "401" in p.stderr and "TOKEN" in p.stderr, "make submit with a wrong token says so", p.stderr)
    finally:
        s.stop()


# The real-grading cases' three files of lab 01, each graded by make grade on the emulator: the
# reference's (in a student kit the skeleton, correct too), one that leaves the bias out (every
# check fails on its output) and one that writes past the end of out (the emulator's fault report,
# its line named). Each is byte for byte the same for every student who sends it, so that the
# cache of student objects (STUDENT_CACHE) compiles it once; what tells one student's report from
# another's is the submission's own folder, which make grade's report names.
KERNEL = """#include "coalescing.h"

__global__ void scale_rows(float *out, const float *in, const float *scale, const float *bias, int rows, int cols)
{
    const size_t n = (size_t)rows * cols, i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = in[i] * scale[i / cols]%s;%s
    }
}

void coalescing(float *out, const float *in, const float *scale, const float *bias, int rows, int cols,
                cudaStream_t stream)
{
    const size_t n = (size_t)rows * cols;
    scale_rows<<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(out, in, scale, bias, rows, cols);
}
"""
WRONG = KERNEL % ("", "  /* the bias left out */")
FAULT = KERNEL % (" + bias[i / cols]", "\n        if (i == 0)\n            out[n + 64] = 1.0f; /* past the end of out */")
SEED = "0x5eed5eed5eed5eed"
VERDICT = {"right": "correctness 10 of 10 checks passed", "wrong": "wrong output", "fault": "past the end"}


def kinds():
    return {"right": open(lab01_file()).read(), "wrong": WRONG, "fault": FAULT}


def references(course):
    """make grade's own report (normalised) and exit status for each of kinds()'s files, with the
    server's seed, in a tree inside COURSE, hidden as the server hides it from its gradings
    (GRADER_HIDE=COURSE): its compile's key is the server's, so the server's gradings of the same
    bytes take that object (the cache of student objects) and compile nothing."""
    refs = {}
    for kind, text in kinds().items():
        tree, out = os.path.join(course, "ref", kind, "tree"), os.path.join(course, "ref", kind, "out")
        shutil.rmtree(os.path.dirname(tree), ignore_errors=True)
        os.makedirs(os.path.join(tree, "01-coalescing"))
        with open(os.path.join(tree, "01-coalescing/coalescing.cu"), "w") as f:
            f.write(text)
        g = subprocess.run(["make", "-s", "--no-print-directory", "grade", f"STUDENT={tree}", "LAB=01", f"SEED={SEED}",
                            f"BUILD={BUILD}", f"GRADE_DIR={out}", f"GRADER_HIDE={course}"], cwd=ROOT, capture_output=True,
                           text=True, env=dict({k: v for k, v in os.environ.items() if k not in MAKE_VARS}, EMU="1"))
        refs[kind] = (normalise(g.stdout + g.stderr, tree, out), g.returncode)
        check(VERDICT[kind] in g.stdout, f"make grade's own verdict on the {kind} file", g.stdout[-600:])
    return refs


def own_report(course, sid, tree, text):
    """The report in make submit's output (after "Graded on"), normalised as make submit writes it
    for submission SID sent from TREE: the server's folders replaced by TREE and logs_of(COURSE)/SID, where
    the files it names were written. None when it names anything of the server's (another
    submission's folder, which make submit leaves as it is) or another submission's files."""
    logs = logs_of(course)
    if "Graded on" not in text:
        return None
    got = text[text.index("\n", text.index("Graded on")) + 1:]
    if course in got or {int(i) for i in re.findall(re.escape(logs) + r"/(\d+)/", got)} != {sid}:
        return None
    return normalise(got, tree, os.path.join(logs, str(sid)))


def case_concurrent():
    names = [f"s{i:03d}" for i in range(100)]
    course, toks = new_course("concurrent", names)
    refs = references(course)
    files = kinds()
    kind = {n: ("right", "wrong", "fault")[i % 3] for i, n in enumerate(names)}
    s = Server(course, stand_in=False, SEED=SEED, JOBS=SERVE_JOBS, QUEUE_MAX=200)
    results = {}
    try:
        def one(n):
            results[n] = client(s, toks[n], student_tree(n, files[kind[n]]))
        threads = [threading.Thread(target=one, args=(n,)) for n in names]
        t0 = time.time()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        took = time.time() - t0
        sid = {n: int(m.group(1)) for n in names for m in [re.search(r"as submission (\d+)", results[n].stdout)] if m}
        own = [n for n in names if n in sid and results[n].returncode == refs[kind[n]][1] and
               own_report(course, sid[n], os.path.join(WORK, "trees", n), results[n].stdout) == refs[kind[n]][0]]
        bad = [n for n in names if n not in own]
        check(len(own) == 100, "100 students at once (a third each: the reference's file, a wrong one, a fault): each got "
              "make grade's report of their own file, its verdict and its exit status",
              f"{len(own)} of 100 ({took:.1f} s); {bad[:1]}: {results[bad[0]].stdout[-800:] if bad else ''}")
        print(f"      (100 real gradings, JOBS={SERVE_JOBS}: {took:.1f} s)")
        db = sqlite3.connect(os.path.join(course, "serve.db"))
        check(db.execute("SELECT count(*), count(DISTINCT submission) FROM gradings").fetchone() == (100, 100)
              and db.execute("SELECT count(*) FROM submissions WHERE attempts != 1").fetchone()[0] == 0,
              "each of the 100 graded once: started once, one grading recorded a submission")
        graded = re.findall(r"submission (\d+) \(lab 01\) graded on", open(os.path.join(course, "serve.log")).read())
        check(len(graded) == 100 and len(set(graded)) == 100, "the log names 100 gradings, each submission once", len(graded))
        others = [n for n in names if n in sid and {int(x) for x in re.findall(r"/work/(\d+)\.", results[n].stdout)} |
                  {int(x) for x in re.findall(re.escape(logs_of(course)) + r"/(\d+)/", results[n].stdout)} != {sid[n]}]
        check(len(sid) == 100 and not others, "no report reached another student (each names its own submission's files alone)",
              others[:5])
        faults = [n for n in names if kind[n] == "fault" and n in sid]
        got = [os.path.join(logs_of(course), str(sid[n])) for n in faults]
        logs = [d for d in got if os.path.exists(d + "/coalescing.0.log") and "heap-buffer-overflow" in open(d + "/coalescing.0.log").read()
                and os.path.exists(d + "/results.json")]
        check(faults and logs == got, "the files a fault's report names (each check's log, results.json) are the student's, "
              "where the report says", f"{len(logs)} of {len(faults)}")
    finally:
        s.stop()


def case_kill9():
    names = [f"k{i:02d}" for i in range(10)]
    course, toks = new_course("kill9", names)
    refs = references(course)
    files = kinds()
    s = Server(course, stand_in=False, SEED=SEED, JOBS=SERVE_JOBS, RATE=60, STUDENT_QUEUE=10)
    acked, lock, stop = {}, threading.Lock(), threading.Event()

    def submitter(n):
        k = 0
        while not stop.is_set():
            with lock:
                if len(acked) >= 50:
                    return
            kind = ("right", "wrong", "fault")[(int(n[1:]) + k) % 3]
            k += 1
            try:
                code, _, body = s.call("POST", "/api/submit?lab=01", toks[n], lab01(files[kind]))
            except OSError:
                time.sleep(0.05)
                continue
            if code == 202:
                with lock:
                    acked[json.loads(body)["id"]] = (n, kind)
            time.sleep(0.05)
    threads = [threading.Thread(target=submitter, args=(n,)) for n in names]
    try:
        for t in threads:
            t.start()
        for _ in range(3):
            time.sleep(KILL9_EVERY)
            s.kill9()
            time.sleep(0.1)
            s.start()
        for t in threads:
            t.join()
        ids = sorted(acked)
        check(len(ids) >= 50, "50 submissions acknowledged across three kills", len(ids))
        check(wait_done(s, course, ids, 300), "every acknowledged submission graded after the restarts")
        db = sqlite3.connect(os.path.join(course, "serve.db"))
        rows = {i: (r, a, c) for i, r, a, c in db.execute("SELECT id, report, attempts, exit_code FROM submissions WHERE state='done'")}
        lost = [i for i in ids if i not in rows or rows[i][2] != refs[acked[i][1]][1] or
                normalise((rows[i][0] or b"").decode(), f"{course}/work/{i}.{rows[i][1]}/tree", f"{course}/work/{i}.{rows[i][1]}/out")
                != refs[acked[i][1]][0]]
        check(not lost, "none lost: each acknowledged one is done with make grade's report of its own file (its folder, "
              "its verdict, its exit status)", lost[:5])
        owners = dict(db.execute("SELECT s.id, t.name FROM submissions s JOIN students t ON t.id = s.student").fetchall())
        check(all(owners.get(i) == acked[i][0] for i in ids), "each recorded as its sender's")
        per = db.execute("SELECT submission, count(*) FROM gradings GROUP BY submission HAVING count(*) != 1").fetchall()
        n_grad = db.execute("SELECT count(*) FROM gradings").fetchone()[0]
        n_done = db.execute("SELECT count(*) FROM submissions WHERE state='done'").fetchone()[0]
        check(not per and n_grad == n_done, "each graded exactly once (one grading recorded a submission)", f"{per[:5]} {n_grad} {n_done}")
        cut = db.execute("SELECT count(*), coalesce(sum(attempts), 0) FROM submissions WHERE attempts > 1").fetchone()
        log = open(os.path.join(course, "serve.log")).read()
        requeued = len(re.findall(r"its grading was cut off; queued again", log))
        check(cut[0] >= 1 and requeued >= cut[0], "gradings cut off by a kill were run again (and recorded once)",
              f"{cut[0]} rerun, {requeued} cut off in the log, {n_done} done")
    finally:
        stop.set()
        s.stop()


def normalise(text, tree, out):
    text = text.replace(out, "GRADE_DIR").replace(tree + "/", "").replace(tree, "STUDENT")
    text = re.sub(r"done at +[0-9.]+ s", "done at N s", text)
    text = re.sub(r"Built in [0-9.]+ s", "Built in N s", text)
    text = re.sub(r"\( *[0-9.]+s\)", "(N s)", text)
    text = re.sub(r" at 0x[0-9a-f]+ ", " at ADDRESS ", text)  # a fault's address (the loader places memory anew each run)
    return [l for l in text.splitlines() if not re.match(r"make(\[\d+\])?: \*\*\* \[Makefile:\d+: grade\] Error \d+$", l) and "the grader " not in l and not re.match(r"  \[\d+/\d+\]", l)
            and not l.startswith("Building")]


# What the server takes out of its gradings' environment (grading.c's slot_env): the reference
# make grade goes without them too, so that an outer make -jN's jobserver warning is in neither.
MAKE_VARS = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "GNUMAKEFLAGS", "MAKEOVERRIDES")


def case_real():
    course, toks = new_course("real", ["rita"])
    seed = "0x5eed5eed5eed5eed"
    s = Server(course, stand_in=False, SEED=seed, STUDENT_CACHE=os.environ.get("STUDENT_CACHE", ""))
    try:
        src = open(lab01_file()).read()
        tree = student_tree("rita", src)
        p = client(s, toks["rita"], tree)
        report = p.stdout.split("\n", 2)
        got = p.stdout[p.stdout.index("\n", p.stdout.index("Graded on")) + 1:] if "Graded on" in p.stdout else ""
        db = sqlite3.connect(os.path.join(course, "serve.db"))
        (sid,) = [i for (i,) in db.execute("SELECT id FROM submissions")]
        logdir = os.path.join(logs_of(course), str(sid))
        mine = os.path.join(WORK, "trees", "rita-local")
        shutil.rmtree(mine, ignore_errors=True)
        shutil.copytree(tree, mine)
        g = subprocess.run(["make", "-s", "--no-print-directory", "grade", f"STUDENT={mine}", "LAB=01", f"SEED={seed}", f"BUILD={BUILD}",
                            f"GRADE_DIR={WORK}/real-grade"], cwd=ROOT, capture_output=True, text=True,
                           env=dict({k: v for k, v in os.environ.items() if k not in MAKE_VARS}, EMU="1"))
        a, b = normalise(got, tree, logdir), normalise(g.stdout + g.stderr, mine, f"{WORK}/real-grade")
        check(a == b and any("coalescing" in l for l in a), "make submit's report is make grade's (times and paths aside)",
              "\n".join(f"  server: {x!r}\n  grade:  {y!r}" for x, y in zip(a + [""] * 9, b + [""] * 9) if x != y)[:1500])
        res = os.path.join(logdir, "results.json")
        check(course not in got and f"{tree}/01-coalescing/coalescing.cu" in got and f"{logdir}/results.json" in got and
              os.path.exists(res) and json.load(open(res)).get("correct_passed") == 10,
              "the report names the student's own files and the files it names written beside them (results.json), "
              "nothing of the server's", got[-400:])
        check(p.returncode == g.returncode, "make submit exits with make grade's code", f"{p.returncode} {g.returncode}")
        print(f"      (make submit: {p.returncode}; make grade: {g.returncode}; report {len(a)} lines)")
        out = os.path.join(WORK, "real-export")
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([os.path.join(HOST, "serve-export"), course, out], capture_output=True)
        csv = open(os.path.join(out, "gradebook.csv"), newline="").read() if os.path.exists(os.path.join(out, "gradebook.csv")) else ""
        check("\r\nrita,,,,,,,,,,,,10/10 checks,not graded (no GPU),2,graded,tamper-proof,," in csv,
              "make serve-export from make grade's results.json: the batch's line (no GPU: no total)", csv)
    finally:
        s.stop()


def case_slurm():
    course, toks = new_course("slurm", ["sam", "sue"])
    bin_dir = os.path.join(WORK, "fake-bin")
    shutil.rmtree(bin_dir, ignore_errors=True)
    os.makedirs(bin_dir)
    os.symlink(os.path.join(ROOT, "tests/serve/fake-srun"), os.path.join(bin_dir, "srun"))
    log = os.path.join(course, "srun.log")
    s = Server(course, SERVE_SLURM=2, SERVE_SLURM_GPU=1, SERVE_SLURM_PARTITION="gpu", FAKE_SRUN_LOG=log,
               PATH=bin_dir + ":" + os.environ["PATH"], STANDIN_SLEEP=0.01)
    try:
        ids = {}
        for n in ("sam", "sue"):
            for k in range(2):
                code, _, body = s.call("POST", "/api/submit?lab=01", toks[n], lab01(f"// {n} {k}\n"))
                ids[json.loads(body)["id"]] = hashlib.sha256(f"// {n} {k}\n".encode()).hexdigest()
        check(wait_done(s, course, list(ids), 30), "SLURM=2: every submission graded through srun")
        calls = open(log).read().splitlines()
        want = {f"--quiet --ntasks=1 --job-name=cw-serve-{i} --gres=gpu:1 --partition=gpu {STAND_IN}" for i in ids}
        got = {c.split(" /")[0] + " " + STAND_IN for c in calls if STAND_IN in c}
        check(len(calls) == 4 and got == want, "one srun job step a grading: a task, a GPU, the partition, named for the submission",
              f"{calls[:2]} ...")
        db = sqlite3.connect(os.path.join(course, "serve.db"))
        rows = db.execute("SELECT id, gpu, report FROM submissions").fetchall()
        check(all(r[1].startswith("Slurm (slot") and ids[r[0]] in r[2].decode() for r in rows),
              "each report its own, its slot named as Slurm's", [r[:2] for r in rows])
    finally:
        s.stop()


def case_tls():
    if not shutil.which("openssl"):
        print("SKIP  TLS: no openssl here to make a test certificate")
        return
    course, toks = new_course("tls", ["tia"])
    cert, key = os.path.join(course, "cert.pem"), os.path.join(course, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    s = Server(course, TLS_CERT=cert, TLS_KEY=key, STANDIN_SLEEP=0.01)
    try:
        tree = student_tree("tia", "// tia over TLS\n")
        p = client(s, toks["tia"], tree, SSL_CERT_FILE=cert)
        sha = hashlib.sha256(b"// tia over TLS\n").hexdigest()
        check(s.url().startswith("https:") and p.returncode == 0 and sha in p.stdout,
              "TLS_CERT= and TLS_KEY=: make submit over HTTPS gets its report", p.stdout[-300:] + p.stderr[-300:])
        p = client(s, toks["tia"], tree)
        check(p.returncode != 0 and "cannot reach" in p.stderr, "a certificate the student does not trust: refused, said so", p.stderr[-300:])
        try:
            code = s.call("GET", "/api/submissions", toks["tia"])[0]
        except (OSError, http.client.HTTPException) as e:
            code = type(e).__name__
        check(code != 200, "plain HTTP to the TLS port gets nothing", code)
    finally:
        s.stop()


def leftovers(path):
    """The processes whose command line names PATH."""
    found = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and path.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                found.append(int(pid))
        except OSError:
            pass
    return found


def case_kill9real():
    course, toks = new_course("kill9real", ["kim"])
    s = Server(course, stand_in=False, SEED="0x5eed5eed5eed5eed", STUDENT_CACHE=os.environ.get("STUDENT_CACHE", ""))
    try:
        # a source of this run alone: a compile of it cached by an earlier run (STUDENT_CACHE) would
        # leave make grade done before the kill
        src = open(lab01_file()).read() + f"// kim {time.time_ns()}\n"
        code, _, body = s.call("POST", "/api/submit?lab=01", toks["kim"], lab01(src))
        sid = json.loads(body)["id"]
        work = f"{course}/work/{sid}.1"
        end = time.time() + 60
        while time.time() < end and not any(p != s.proc.pid for p in leftovers(work + "/tree")):
            time.sleep(0.1)
        time.sleep(1.5)  # make grade under way: building, or running the checks
        running = [p for p in leftovers(work) if p != s.proc.pid]
        s.kill9()
        time.sleep(0.5)
        s.start()
        time.sleep(1.0)
        left = leftovers(work + "/")
        for p in left:
            try:
                st = open(f"/proc/{p}/stat").read().split(") ")[1].split()
                print(f"      left: pid {p} ppid {st[1]} pgid {st[2]} sid {st[3]}: {open(f'/proc/{p}/cmdline','rb').read()[:150]}")
            except OSError:
                pass
        check(running and not left, "make grade cut off by SIGKILL: its processes ended at the restart",
              f"{len(running)} running before the kill, left after the restart: {left}")
        check(wait_done(s, course, [sid], 120), "the cut-off submission graded again")
        db = sqlite3.connect(os.path.join(course, "serve.db"))
        row = db.execute("SELECT attempts, exit_code, report FROM submissions WHERE id=?", (sid,)).fetchone()
        grades = db.execute("SELECT count(*) FROM gradings WHERE submission=?", (sid,)).fetchone()[0]
        check(row[0] == 2 and grades == 1 and "1 x 1 " in (row[2] or b"").decode(),
              "graded once, on its second attempt, with make grade's report", f"attempts {row[0]}, gradings {grades}")
    finally:
        s.stop()


def lab01_file():
    """The reference's lab 01, or in a student kit (no solutions' sources) the skeleton."""
    ref = os.path.join(ROOT, "solutions/01-coalescing/coalescing.cu")
    return ref if os.path.exists(ref) else os.path.join(ROOT, "labs/01-coalescing/coalescing.cu")


def chromium():
    for c in ("chromium", "chromium-browser"):
        if shutil.which(c):
            return shutil.which(c)
    return None


def case_page():
    course, toks = new_course("page", ["ada", "<b>bob</b>", "=cmd|' /C calc'!A0"])
    s = Server(course, STANDIN_SLEEP=0.01, DEADLINE="2000-01-01T00:00Z")
    try:
        for n, text in [("ada", "// ok\n"), ("ada", "// FAIL\n"), ("<b>bob</b>", "// bob\n")]:
            code, _, body = s.call("POST", "/api/submit?lab=01", toks[n], lab01(text))
        wait_done(s, course, [1, 2, 3], 20)
        code, _, body = s.call("GET", "/api/submissions/1", toks["ada"])
        check(json.loads(body).get("late") is True, "a submission after DEADLINE= is marked late", body[:200])
        out = os.path.join(WORK, "page-export")
        shutil.rmtree(out, ignore_errors=True)
        p = subprocess.run([os.path.join(HOST, "serve-export"), course, out], capture_output=True, text=True)
        csv = open(os.path.join(out, "gradebook.csv"), newline="").read().split("\r\n") if p.returncode == 0 else []
        check(len(csv) == 5 and csv[0].startswith("student,01-coalescing,02-banks") and
              "ada,5,,,,,,,,,5,5,1/1 checks,graded,0,graded,tamper-proof,," in csv and
              any(l.startswith("'=cmd") and ",missing," in l and "no graded submission" in l for l in csv),
              "make serve-export: the batch's gradebook, each student's best per lab (ada: #1's 5), a formula defused", csv)
        jl = [json.loads(l) for l in open(os.path.join(out, "gradebook.jsonl"))] if p.returncode == 0 else []
        ada = [j for j in jl if j["student"] == "ada"]
        check(len(jl) == 3 and ada and ada[0]["labs"]["coalescing"] == {"score": 5, "max": 5} and ada[0]["total"] == 5,
              "make serve-export's JSON Lines: ada's best is 5 of 5", jl)
        gs = [json.load(open(os.path.join(out, "students", d, "gradescope.json"))) for d in os.listdir(os.path.join(out, "students"))]
        check(sorted(g["score"] for g in gs) == [0, 5, 5] and any("seed 0x5eed" in g["output"] for g in gs) and
              any(t["name"] == "01 coalescing: speed: stand-in" for g in gs for t in g["tests"]),
              "make serve-export's Gradescope results, one a student", gs)
        late = open(os.path.join(out, "late.csv"), newline="").read()
        check(late == "student,late labs\r\n<b>bob</b>,01\r\nada,01\r\n", "make serve-export's late.csv names the late labs", late)
        itok = open(os.path.join(course, "instructor.token")).read().strip()
        code, _, body = s.call("GET", "/api/status", itok)
        st = json.loads(body) if code == 200 else {}
        check(st.get("done") == 3 and st.get("queued") == 0 and len(st.get("gpus", [])) == 1, "/api/status: the queue and the GPUs as JSON", f"{code} {body[:200]}")
        check(s.call("GET", "/api/status", toks["ada"])[0] == 401, "/api/status refuses a student's token")
        code, _, html = s.call("GET", "/status?token=" + itok)
        check(code == 200 and b"&lt;b&gt;bob&lt;/b&gt;" in html and b"<b>bob" not in html, "the status page escapes names", html[:200])
        browser = chromium()
        if not browser:
            print("SKIP  the status page in headless Chromium: no chromium here (make test-all installs it: tests/packages.sh)")
            return
        prof = tempfile.mkdtemp(prefix="serve-chromium-")
        p = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={prof}", "--virtual-time-budget=2000",
                            "--dump-dom", f"{s.url()}/status?token={itok}"], capture_output=True, text=True, timeout=120)
        shutil.rmtree(prof, ignore_errors=True)
        dom = p.stdout
        rows = re.findall(r"<tr><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td><td>(\d+)</td></tr>", dom)
        ada = [r for r in rows if r[0] == "ada"]
        check("3 graded" in dom and "no GPU: the CPU emulator" in dom, "Chromium renders the queue and the GPUs", dom[:300] + p.stderr[-300:])
        check(len(ada) == 1 and ada[0][1] == "01" and "#2 done 0/5" in ada[0][2] and "#1 done 5/5" in ada[0][3] and ada[0][4] == "2"
              and ada[0][2].endswith("late"),
              "Chromium renders ada's latest (#2, 0/5) and best (#1, 5/5) of lab 01", ada or rows)
        check(any(r[0] == "&lt;b&gt;bob&lt;/b&gt;" for r in rows), "Chromium shows bob's name as text, not markup", rows)
        check('http-equiv="refresh"' in dom, "the page refreshes itself")
    finally:
        s.stop()


CASES = {"tokens": case_tokens, "hostile": case_hostile, "limits": case_limits, "roundtrip": case_roundtrip,
         "concurrent": case_concurrent, "kill9": case_kill9, "real": case_real, "kill9real": case_kill9real, "slurm": case_slurm, "tls": case_tls, "page": case_page}
QUICK = ["tokens", "hostile", "limits", "roundtrip", "slurm"]

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--quick"]
    names = args or (QUICK if "--quick" in sys.argv else list(CASES))
    for n in names:
        if n not in CASES:
            raise SystemExit(f"no case {n}: {' '.join(CASES)}")
        t0 = time.time()
        CASES[n]()
        print(f"      ({n}: {time.time() - t0:.1f} s)", flush=True)
    if failures:
        print(f"test-serve: {len(failures)} FAIL")
        sys.exit(1)
    print("test-serve: all passed")
