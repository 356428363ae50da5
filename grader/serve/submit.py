#!/usr/bin/env python3
"""submit.py - make submit and make submit-status: the student's side of the course server.

    submit.py submit PACKER STUDENT LAB      (SERVER, TOKEN from the environment or the config)
    submit.py status

The lab's file and its helper files are packed by PACKER (build/host/serve-pack: grading's own
rule) and sent with the token; the place in the queue and the grading's progress are shown, then
the report `make grade` printed on the server's GPU, and the exit status is make grade's. The
files the report names (each check's log, results.json) are written into SUBMIT_LOGS/<id>
(make submit: build/submit/<id>), and the report names them there, and your files by STUDENT.
SERVER and TOKEN come from make's SERVER= and TOKEN=, else from the first config file found of
./.submit and ~/.config/cuda-workbook/submit (lines `server=URL` and `token=TOKEN`).
Only the standard library: python3 is on every machine the workbook supports.
"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

CONFIGS = [".submit", os.path.expanduser("~/.config/cuda-workbook/submit")]


def settings():
    server, token = os.environ.get("SERVER", ""), os.environ.get("TOKEN", "")
    for path in CONFIGS:
        if (server and token) or not os.path.isfile(path):
            continue
        for line in open(path, encoding="utf-8", errors="replace"):
            key, _, value = line.strip().partition("=")
            if key.strip() == "server" and not server:
                server = value.strip()
            if key.strip() == "token" and not token:
                token = value.strip()
    if not server or not token:
        sys.exit("make submit: no server or no token: give SERVER=https://... and TOKEN=... (your instructor "
                 "hands them out), or write them into .submit as lines server=... and token=...")
    return server.rstrip("/"), token


def call(server, token, method, path, body=None):
    """(status, JSON answer, Retry-After) of one request."""
    req = urllib.request.Request(server + path, data=body, method=method,
                                 headers={"Authorization": "Bearer " + token,
                                          "Content-Type": "application/x-tar"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:  # (a report holds what your code printed: any bytes)
            return r.status, json.loads((r.read() or b"{}").decode("utf-8", "replace")), None
    except urllib.error.HTTPError as e:
        try:
            answer = json.loads(e.read() or b"{}")
        except ValueError:
            answer = {}
        return e.code, answer, e.headers.get("Retry-After")
    except (urllib.error.URLError, OSError) as e:
        sys.exit(f"make submit: cannot reach the server at {server}: {getattr(e, 'reason', e)}. "
                 "Check SERVER= (and that the course server runs), then try again.")


def refused(code, answer, retry):
    if code == 401:
        sys.exit("make submit: the server refused your token (401): it is wrong, revoked or missing. "
                 "Check TOKEN= against the one your instructor gave you.")
    wait = f" The server asks you to wait {retry} s." if retry else ""
    sys.exit(f"make submit: the server answered {code}: {answer.get('error', 'no reason given')}.{wait}")


def local_paths(server, token, row, student):
    """The report, with the paths of the server's folders replaced by yours: your files' (STUDENT)
    and the one where the files it names (each check's log, results.json) are written here,
    SUBMIT_LOGS/<id> (make submit: build/submit/<id>)."""
    report, where = row.get("report", ""), row.get("graded_in")
    if not where:
        return report
    logdir = os.path.join(os.environ.get("SUBMIT_LOGS") or os.path.join("build", "submit"), str(int(row["id"])))
    code, files, _ = call(server, token, "GET", f"/api/submissions/{row['id']}/logs")
    if code == 200 and files:
        os.makedirs(logdir, exist_ok=True)
        for name, text in files.items():
            if name[:1] != "." and name.replace(".", "").replace("_", "").replace("-", "").isalnum() and name.isascii():
                with open(os.path.join(logdir, name), "w", encoding="utf-8", errors="replace") as f:
                    f.write(text)
    student = student.rstrip("/") or "."
    return (report.replace(where + "/out/", logdir + "/").replace(where + "/out", logdir)
            .replace(where + "/tree/", student + "/").replace(where + "/tree", student))


def submit(packer, student, lab):
    server, token = settings()
    pack = subprocess.run([packer, student, lab], stdout=subprocess.PIPE)
    if pack.returncode:
        sys.exit(2)
    code, answer, retry = call(server, token, "POST", "/api/submit?lab=" + lab, pack.stdout)
    if code != 202:
        refused(code, answer, retry)
    sid = answer["id"]
    late = " (after the deadline: marked late)" if answer.get("late") else ""
    print(f"Submitted lab {answer['lab']} as submission {sid}{late}.", flush=True)
    shown, seen = None, "queued:%d" % answer["position"]
    while True:  # a long poll: the server answers when the state or the place changes (or in 20 s)
        code, row, retry = call(server, token, "GET", f"/api/submissions/{sid}?wait=20&seen={seen}")
        if code != 200:
            refused(code, row, retry)
        if row["state"] == "done":
            break
        now = (f"queued: place {row.get('position')} in the queue" if row["state"] == "queued"
               else f"grading on {row.get('gpu')}" + (f" (attempt {row['attempts']})" if row.get("attempts", 1) > 1 else ""))
        if now != shown:
            print("  " + now, flush=True)
            shown = now
        seen = "%s:%d" % (row["state"], row.get("position", 0) if row["state"] == "queued" else 0)
    print(f"Graded on {row.get('gpu')}:", flush=True)
    sys.stdout.write(local_paths(server, token, row, student))
    sys.stdout.flush()
    return int(row.get("exit_code", 2))


def status():
    server, token = settings()
    code, rows, retry = call(server, token, "GET", "/api/submissions")
    if code != 200:
        refused(code, rows, retry)
    if not rows:
        print("No submissions yet (make submit LAB=.. sends one).")
        return 0
    print(f"{'id':>6}  {'lab':3}  {'state':8}  {'submitted (UTC)':19}  {'result':34}  gpu")
    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(r["created"]))
        result = ""
        if r["state"] == "done":
            score = (f"{r['score']:g}/{r['max']:g}" if r.get("speed_graded") and r.get("score") is not None
                     else "speed not graded")
            checks = f", {r.get('correct_passed')}/{r.get('correct_checks')} checks" if r.get("correct_checks") is not None else ""
            result = f"{score}{checks}, exit {r.get('exit_code')}"
        if r.get("late"):
            result += " (late)"
        print(f"{r['id']:>6}  {r['lab']:3}  {r['state']:8}  {when:19}  {result:34}  {r.get('gpu') or ''}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "submit":
        sys.exit(submit(*sys.argv[2:]))
    if len(sys.argv) == 2 and sys.argv[1] == "status":
        sys.exit(status())
    sys.exit(__doc__)
