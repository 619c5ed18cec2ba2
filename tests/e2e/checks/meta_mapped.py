"""meta_mapped.py - an image's meta records past its first few go through
a mapping of the file, not a write(2) each (meta.c): python3 binds ~90
imports as it starts, a BIND record each. Under strace, python3's image
writes its .meta file at most a few dozen times (it wrote ~95 times when
each record was a write), yet the report names every API it called (a
call is named only through its BIND record); and a python3 that
SIGKILLs itself after calling more APIs than it had at start keeps them
all: the report has its calls of os.getppid's getppid and of
os.uname's uname, which it bound just before the kill, and the exit
`scaler record` appended after the file's unwritten room. A python3 that
exits gives the room back: its file holds records only.
Check: meta-mapped."""
import json
import os
import re
import shutil
import struct

from harness import guarded, record, run, skip

MODE = "real"

KILLED = ("import os, signal\n"
          "os.getppid(); os.uname()\n"
          "os.kill(os.getpid(), signal.SIGKILL)\n")


def apis_of(rep, pid):
    for pr in rep["processes"]:
        if pr["pid"] == pid:
            return {c["api"]: c["count"] for c in pr.get("calls", []) if c["caller"] == "python3"}
    return {}


def meta_records(out, pid):
    """The types of the records of pid's first .meta file in out."""
    with open(os.path.join(out, "p%d-0.meta" % pid), "rb") as f:
        b = f.read()
    types, off = [], struct.unpack_from("<I", b, 12)[0]
    while off + 8 <= len(b):
        typ, n = struct.unpack_from("<II", b, off)
        types.append(typ)
        off += 8 + ((n + 7) & ~7)
    return types


def check(t):
    py = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else shutil.which("python3")
    if not py:
        return skip("meta-mapped", "python3 not installed")
    if not shutil.which("strace"):
        return skip("meta-mapped", "strace not installed")
    bad = []
    out = os.path.join(t.tmp, "s")
    log = os.path.join(t.tmp, "strace.log")
    rc, _, err = run(["strace", "-f", "-y", "-qq", "-e", "trace=write,writev,pwrite64",
                      "-o", log, t.scaler, "record", "-o", out, "--", py, "-c", "pass"])
    if rc != 0:
        return ["strace scaler record exited %d: %s" % (rc, err[-300:])]
    writes = {}
    with open(log) as f:
        for line in f:
            m = re.match(r"(\d+) +\w+\(\d+<[^>]*/p(\d+)-\d+\.meta>", line)
            if m and m.group(1) == m.group(2):
                writes[int(m.group(1))] = writes.get(int(m.group(1)), 0) + 1
    rrc, rout, rerr = run([t.scaler, "report", "-i", out, "--format", "json"])
    if rrc != 0:
        return ["report exited %d: %s" % (rrc, rerr[-300:])]
    rep = json.loads(rout)
    pid = rep["processes"][0]["pid"] if rep.get("processes") else None
    apis = apis_of(rep, pid)
    if len(apis) < 50:
        bad.append("python3 calls %d APIs in the report, want >= 50 (each named by its BIND)"
                   % len(apis))
    if writes.get(pid, 0) > 30 or not writes.get(pid):
        bad.append("python3 wrote its .meta %d times, want 1-30 (records through the mapping)"
                   % writes.get(pid, 0))
    padding = [r for r in meta_records(out, pid) if r == 0]
    if padding:
        bad.append("python3's .meta holds %d padding records after its exit, want 0 (the "
                   "room given back)" % len(padding))
    # killed: every record stored before the SIGKILL is in the report
    rc, _, _, rep, problems = record(t.scaler, [py, "-c", KILLED], os.path.join(t.tmp, "k"))
    if rep is None:
        return bad + problems
    if rc != 137:
        bad.append("scaler record of a SIGKILLed python3 exited %d, want 137" % rc)
    pr = rep["processes"][0]
    got = apis_of(rep, pr["pid"])
    for api in ("getppid", "uname"):
        if got.get(api) != 1:
            bad.append("killed python3: %s called %r times in the report, want 1" %
                       (api, got.get(api)))
    if len(got) < 50:
        bad.append("killed python3 calls %d APIs in the report, want >= 50" % len(got))
    if pr.get("exit_status") != 137:
        bad.append("killed python3's exit status %r in the report, want 137 (the record "
                   "appended past the file's room)" % pr.get("exit_status"))
    return bad


def checks(t):
    guarded("meta-mapped", None, lambda: check(t))
