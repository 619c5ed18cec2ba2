"""fork_parents.py - a fork child's records from before its fork: its .meta
refers to its parent's (SC_M_PARENT, format.h), which the reader follows.

fork-chain-deep: sc_forkchain (tests/e2e/forkchain/main.c) forks 100
levels deep without exec; level L calls b_mul L + 1 times, forks and
waits once (the last neither). Every one of the 101 processes has exactly
those counts: each has the import the first process bound, through a
chain of 100 references (a chain over 64 was cut, its deepest levels'
calls unreported).
fork-child-no-file: sc_forkchain 3 1, whose level 1 is forked with no
descriptor to spare: the runtime cannot create its file (the profile has
levels 0, 2 and 3 only). Its child referred to p<level 1>-<gen>.meta,
which does not exist (or, after pid reuse, is another process's): levels
2 and 3 lost their calls. Now they refer to level 0's file: b_mul 1, 3
and 4 calls, nothing skipped.
fork-cycle-bounded: sc_fork's child's reference is made to name the
child's own file, with 64 MB of records after it. The report ends under
a 1 GB address-space limit, exit 0, names the file as a cycle, and keeps
the parent's 100 b_mul calls. Before, each of 64 levels read the whole
file and kept it: a 16 MB one took 3.1 GB and 19 s.
"""
import json
import os
import struct

from harness import guarded, report_cmd, report_json_of, root_process, run

MODE = "e2e"
VARIANTS = ("lazy",)
DEPTH = 100
SC_M_PARENT = 12
SC_M_CMDLINE = 1


def calls(p, api):
    return sum(c["count"] for c in p["calls"] if c["api"] == api)


def fork_chain(t):
    prof = os.path.join(t.tmp, "chain")
    rc0, out0, _ = run([t.exe("forkchain")])
    rc, out, err = run([t.scaler, "record", "-o", prof, "--", t.exe("forkchain")])
    if rc != 0 or rc0 != 0 or out != out0:
        return ["record exited %d, output %r (without scaler %d, %r): %s"
                % (rc, out, rc0, out0, err[-300:])]
    d = report_json_of(t.scaler, prof)
    procs = d["processes"]
    kids = {p["ppid"]: p for p in procs}
    p, level, bad = root_process(d), 0, []
    while p:
        want = (level + 1, int(level < DEPTH), int(level < DEPTH))
        got = (calls(p, "b_mul"), calls(p, "fork"), calls(p, "waitpid"))
        if got != want:
            bad.append("level %d (pid %d): b_mul, fork, waitpid %r, want %r"
                       % (level, p["pid"], got, want))
        p, level = kids.get(p["pid"]), level + 1
    if level != DEPTH + 1 or len(procs) != DEPTH + 1:
        bad.append("a chain of %d processes of %d in the profile, want %d"
                   % (level, len(procs), DEPTH + 1))
    if d.get("skipped_files"):
        bad.append("files skipped: %r" % d["skipped_files"][:3])
    return bad[:5]


def fork_no_file(t):
    prof = os.path.join(t.tmp, "nofile")
    rc0, out0, _ = run([t.exe("forkchain"), "3", "1"])
    rc, out, err = run([t.scaler, "record", "-o", prof, "--", t.exe("forkchain"), "3", "1"])
    if rc != 0 or rc0 != 0 or out != out0:
        return ["record exited %d, output %r (without scaler %d, %r): %s"
                % (rc, out, rc0, out0, err[-300:])]
    d = report_json_of(t.scaler, prof)
    got = sorted(calls(p, "b_mul") for p in d["processes"])
    bad = []
    if got != [1, 3, 4]:
        bad.append("b_mul per process %r, want [1, 3, 4] (levels 0, 2, 3; level 1 has "
                   "no file)" % got)
    if d.get("skipped_files"):
        bad.append("files skipped: %r" % d["skipped_files"][:3])
    return bad


def rec(rtype, payload):
    return struct.pack("<II", rtype, len(payload)) + payload + b"\0" * (-len(payload) % 8)


def fork_cycle(t):
    prof = os.path.join(t.tmp, "cycle")
    rc, out, err = run([t.scaler, "record", "-o", prof, "--", t.exe("fork")])
    if rc != 0:
        return ["record exited %d: %s" % (rc, err[-300:])]
    d = report_json_of(t.scaler, prof)
    root = root_process(d)
    child = [p for p in d["processes"] if p["ppid"] == root["pid"]]
    if len(child) != 1:
        return ["%d children of the root in the profile, want 1" % len(child)]
    name = "p%d-%d.meta" % (child[0]["pid"], child[0].get("gen", 0))
    path = os.path.join(prof, name)
    b = open(path, "rb").read()
    hsz = struct.unpack_from("<I", b, 12)[0]
    rtype, rlen = struct.unpack_from("<II", b, hsz)
    if rtype != SC_M_PARENT:
        return ["%s starts with record type %d, not SC_M_PARENT" % (name, rtype)]
    at = hsz + 8 + rlen + (-rlen % 8)
    self_ref = rec(SC_M_PARENT, struct.pack("<IIQ", child[0]["pid"], child[0].get("gen", 0),
                                            1 << 40))
    pad = rec(SC_M_CMDLINE, b"x" * 8000) * ((64 << 20) // 8008)
    with open(path, "wb") as f:
        f.write(b[:hsz] + self_ref + pad + b[at:])
    rc, out, err = run(["sh", "-c", 'ulimit -v 1048576 && exec "$@"', "sh", t.scaler,
                        "report", "-i", prof, "--format", "json"])
    if rc != 0:
        return ["report of a 64 MB self-reference under 1 GB exited %d: %s"
                % (rc, err.decode(errors="replace")[-300:])]
    d = json.loads(out)
    bad = []
    root = root_process(d)
    if calls(root, "b_mul") != 100:
        bad.append("the parent's b_mul %d, want 100" % calls(root, "b_mul"))
    _, _, text = report_cmd(t.scaler, prof)
    if not any(name in line and "cycle" in line for line in text.splitlines()):
        bad.append("no line names %s as a cycle: %r" % (name, text[-300:]))
    return bad


def checks(t):
    guarded("fork-chain-deep", t.variant, lambda: fork_chain(t))
    guarded("fork-child-no-file", t.variant, lambda: fork_no_file(t))
    guarded("fork-cycle-bounded", t.variant, lambda: fork_cycle(t))
