"""pg_mcount.py - a -pg program's mcount calls: untimed, counted exactly,
the program's output unchanged under --timing=all. Check: pg-mcount."""
import json
import os

from harness import guarded, run

MODE = "real"


def pg_mcount(scaler, tmp):
    # A -pg program calls mcount from every function's prologue with
    # the function's arguments still live in registers: mcount keeps
    # them, and the program relies on it. Timed calls' return path
    # clobbers what the ABI lets a callee clobber, so mcount must stay
    # untimed (it reads its return address: peek.c), counted exactly,
    # and the program's output unchanged under --timing=all.
    d = os.path.join(tmp, "pg")
    os.mkdir(d)
    with open(os.path.join(d, "m.c"), "w") as f:
        f.write("#include <stdio.h>\n#include <stdlib.h>\n"
                "__attribute__((noinline)) long mix(long a, long b, long c,"
                " long d, long e, long f)\n"
                "{ return a * 3 + b * 5 + c * 7 + d * 11 + e * 13 + f * 17; }\n"
                "int main(int argc, char **argv) { long s = 0, n = atol(argv[1]);\n"
                " for (long i = 0; i < n; i++) s += mix(i, i + 1, i + 2, i + 3,"
                " i + 4, i + 5) % 1000003;\n printf(\"%ld\\n\", s); return 0; }\n")
    cc = os.environ.get("CC", "gcc")
    rc, _, err = run([cc, "-O1", "-pg", "-o", os.path.join(d, "m"), os.path.join(d, "m.c")])
    if rc != 0:
        return ["cc -pg: %s" % err.decode(errors="replace")[-200:]]
    prog = [os.path.join(d, "m"), "5000"]
    rc, want, _ = run(prog, cwd=d)
    out = os.path.join(d, "prof")
    rc2, got, err = run([scaler, "record", "-o", out, "--timing=all", "--"] + prog, cwd=d)
    if rc != 0 or rc2 != 0 or got != want:
        return ["output %r (exit %d) under scaler, %r (exit %d) without: %s"
                % (got, rc2, want, rc, err[-200:])]
    rc, rep, err = run([scaler, "report", "-i", out, "--format", "json"])
    rows = [c for c in json.loads(rep)["calls"] if c["api"] in ("mcount", "_mcount")]
    if len(rows) != 1 or rows[0]["count"] != 5001 or rows[0]["total_ns"] != 0:
        return ["mcount rows: %r (want one, 5001 calls, untimed)" % rows]
    return []


def checks(t):
    guarded("pg-mcount", None, lambda: pg_mcount(t.scaler, t.tmp))
