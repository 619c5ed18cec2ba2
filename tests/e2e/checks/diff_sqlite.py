"""diff_sqlite.py - scaler diff on a real regression: sqlite3 answering 300
lookups on a column of a 20,000-row table with an index on that column
(base) and without it (new). Each lookup then scans the table inside
sqlite3_step; the diff must rank sqlite3 -> libsqlite3 sqlite3_step first,
significant, as longer calls. Both runs print the same rows, into a file:
written to a pipe, each row's fflush of the busy scan run waits for the
reader to be scheduled (18 µs against 0.4 µs per call), a real change but
a consequence, which then ranks second. Check: diff-sqlite3."""
import json
import os
import shutil

from harness import guarded, run, skip

MODE = "real"
ROWS = 20000


def workload(path, index):
    q = [".output out.txt",
         "CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, v TEXT);",
         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d) "
         "INSERT INTO t SELECT i, (i * 7919) %% %d, 'value-' || i FROM n;" % (ROWS, ROWS)]
    if index:
        q.append("CREATE INDEX t_k ON t(k);")
    q += ["SELECT v FROM t WHERE k = %d;" % ((i * 131) % ROWS) for i in range(300)]
    with open(path, "w") as f:
        f.write("\n".join(q) + "\n")


def check(scaler, tmp):
    sq = shutil.which("sqlite3")
    if not sq:
        return skip("diff-sqlite3", "sqlite3 not installed")
    if "libsqlite3" not in run(["ldd", sq])[1].decode(errors="replace"):
        return skip("diff-sqlite3", "this sqlite3 has the library built in")
    outs = {}
    for name, index in (("indexed", True), ("scan", False)):
        d = os.path.join(tmp, "sq-" + name)
        os.mkdir(d)
        sql = os.path.join(d, "w.sql")
        workload(sql, index)
        rc, out, err = run([scaler, "record", "-o", os.path.join(d, "prof"), "--", sq, "w.db"],
                           cwd=d, stdin=sql)
        if rc != 0 or out:
            return ["record sqlite3 (%s): exit %d %r %r" % (name, rc, out[:100], err[-200:])]
        with open(os.path.join(d, "out.txt"), "rb") as f:
            outs[name] = f.read()
    bad = []
    if outs["indexed"] != outs["scan"] or outs["scan"].count(b"\n") != 300:
        bad.append("the two runs printed different rows")
    rc, out, err = run([scaler, "diff", "--format", "json", os.path.join(tmp, "sq-indexed", "prof"),
                        os.path.join(tmp, "sq-scan", "prof")])
    if rc != 0:
        return bad + ["diff exited %d: %r" % (rc, err[-300:])]
    top = json.loads(out)["findings"][0]
    name = os.path.basename(os.path.realpath(sq))
    if (top["caller"], top["api"]) != (name, "sqlite3_step") or \
            not top["callee"].startswith("libsqlite3.so") or not top["significant"] or \
            "longer calls" not in top["pattern"]:
        bad.append("first finding: %s -> %s %s (significant %r): %s" %
                   (top["caller"], top["callee"], top["api"], top["significant"], top["pattern"]))
    return bad


def checks(t):
    guarded("diff-sqlite3", None, lambda: check(t.scaler, t.tmp))
