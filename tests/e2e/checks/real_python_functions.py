"""real_python_functions.py - python3 running tests/e2e/real/py_workload.py
with every function of its executable patched (`--functions=EXE:*`;
Debian's is stripped: functions from .eh_frame, .cold parts left out):
the same output as without scaler, thousands of functions patched, and
the interpreter's own calls counted. Check: python3-functions."""
import json
import os
import re

from harness import HERE, guarded, run, skip

MODE = "real"


def python_functions(scaler, tmp):
    # Debian's: the interpreter is in the executable (another build may
    # keep it in libpython)
    if not os.path.exists("/usr/bin/python3"):
        return skip("python3-functions", "no /usr/bin/python3")
    exe = os.path.realpath("/usr/bin/python3")
    name = os.path.basename(exe)
    argv = [exe, os.path.join(HERE, "real", "py_workload.py")]
    rc, want, _ = run(argv)
    prof = os.path.join(tmp, "prof")
    rc2, got, err = run([scaler, "record", "-o", prof, "--functions=%s:*" % name, "--"] + argv)
    if rc != 0 or rc2 != 0 or got != want:
        return ["output differs under scaler (exit %d/%d): %s" % (rc2, rc, err[-300:])]
    m = re.search(rb"scaler: (\d+) functions patched", err)
    if not m or int(m.group(1)) < 1000:
        return ["patched: %r" % err[-200:]]
    rc, rep, err = run([scaler, "report", "-i", prof, "--format", "json"])
    rows = [c for c in json.loads(rep)["calls"] if c["kind"] == "function"]
    if rc != 0 or sum(c["count"] for c in rows) < 100000:
        return ["function rows: %d, %d calls" % (len(rows), sum(c["count"] for c in rows))]
    return []


def checks(t):
    guarded("python3-functions", None, lambda: python_functions(t.scaler, t.tmp))
