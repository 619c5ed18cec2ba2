"""real_python_ext.py - python3 hashing with hashlib (its _hashlib C
extension calling libcrypto) under plain `scaler record`: the interpreter
calls the extension's functions through pointers, which no GOT slot sees,
so by default every function of a Python extension module is patched for
its calls from other components. The output must not change, _hashlib must
be entered (function rows from another component), and the components'
self times must add up to the threads' time (within 2 %), none over it;
with SCALER_PYEXT=0 no call into _hashlib is seen (what the default is
for). Check: python3-extensions."""
import json
import os
import shutil

from harness import guarded, run, skip

MODE = "real"

SCRIPT = ("import hashlib, json\n"
          "data = b'x' * (4 << 20)\n"
          "h = [hashlib.sha256(data).hexdigest() for i in range(6)]\n"
          "print(h[-1], len(json.dumps(list(range(2000)))))\n")


def record(scaler, tmp, exe, name, env=None):
    prof = os.path.join(tmp, name)
    rc, out, err = run([scaler, "record", "-o", prof, "--", exe, "-c", SCRIPT], env=env)
    if rc != 0:
        return None, out, "exit %d: %s" % (rc, err[-300:])
    rc, rep, err = run([scaler, "report", "-i", prof, "--format", "json"])
    if rc != 0:
        return None, out, "report exit %d: %s" % (rc, err[-300:])
    return json.loads(rep), out, ""


def into_hashlib(rep):
    return [c for c in rep["calls"] if c["kind"] == "function"
            and c["callee"].startswith("_hashlib.") and not c["caller"].startswith("_hashlib.")]


def python_ext(scaler, tmp):
    py = shutil.which("python3")
    if not py:
        return skip("python3-extensions", "python3 not installed")
    rc, out, _ = run([py, "-c", "import sys, _hashlib; print(sys.executable)"])
    if rc != 0:
        return skip("python3-extensions", "python3 has no _hashlib")
    exe = out.decode().strip()
    rc, want, _ = run([exe, "-c", SCRIPT])
    rep, got, why = record(scaler, tmp, exe, "on")
    if not rep or got != want:
        return ["with scaler: %s, output %r, want %r" % (why, got, want)]
    bad = []
    calls = into_hashlib(rep)
    if sum(c["count"] for c in calls) < 6:
        bad.append("calls into _hashlib from other components: %r" % calls)
    threads = sum(t["wall_ns"] for t in rep["threads"])
    selfs = sum(c["self_ns"] for c in rep["components"])
    if threads <= 0 or abs(selfs - threads) > 0.02 * threads:
        bad.append("components' self times sum to %d ns, the threads' time is %d ns"
                   % (selfs, threads))
    over = [(c["name"], c["total_ns"]) for c in rep["components"]
            if c["total_ns"] > 1.01 * threads]
    if over:
        bad.append("over the threads' time (%d ns): %r" % (threads, over))
    env = dict(os.environ, SCALER_PYEXT="0")
    rep0, got0, why = record(scaler, tmp, exe, "off", env)
    if not rep0 or got0 != want:
        bad.append("SCALER_PYEXT=0: %s, output %r" % (why, got0))
    elif into_hashlib(rep0):
        bad.append("SCALER_PYEXT=0: calls into _hashlib seen: %r" % into_hashlib(rep0))
    return bad


def checks(t):
    guarded("python3-extensions", None, lambda: python_ext(t.scaler, t.tmp))
