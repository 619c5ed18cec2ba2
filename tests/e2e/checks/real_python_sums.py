"""real_python_sums.py - python3 hashing 64 MB with hashlib.sha256 and
dumping JSON (issue 19): Python calls _hashlib's C functions through
pointers nothing intercepts, so _hashlib calls libcrypto without ever being
seen entered. The self times must still add up to the threads' time and
nothing be over 100 % (sums.py), the time _hashlib was entered unseen must
come off python3 (JSON unseen_in_ns / unseen_out_ns), and the text and HTML
must say "entered through pointers: not seen", and a shared libpython
(pyenv's) is on the stack no longer than the executable's calls into it
(the modules' calls back into it are inside those). That is with
SCALER_PYEXT=0:
by default the runtime patches extension modules' functions, and then
_hashlib's entries are seen and the sums must hold as well.
Check: python3-hashlib-sums."""
import os
import shutil

from harness import guarded, record, report_cmd, run, skip
from sums import check_sums

MODE = "real"

SCRIPT = """
import hashlib, json
data = b"x" * (64 << 20)
h = hashlib.sha256(data).hexdigest()
print(json.dumps({"sha": h, "n": list(range(100000))})[:24])
"""
NOTE = "entered through pointers: not seen"


def interpreters():
    """Debian's /usr/bin/python3 (the executable holds the interpreter) and
    the one PATH finds, when another (pyenv's: libpython holds it)."""
    found = []
    py = shutil.which("python3")
    if py:
        rc, out, _ = run([py, "-c", "import sys; print(sys.executable)"])
        found.append(out.decode().strip() or py)
    if os.access("/usr/bin/python3", os.X_OK):
        found.append("/usr/bin/python3")
    return sorted(set(os.path.realpath(p) for p in found))


def hashlib_sums(scaler, tmp):
    pys = interpreters()
    if not pys:
        return skip("python3-hashlib-sums", "python3 not installed")
    bad = []
    for n, py in enumerate(pys):
        for pyext in (True, False):
            bad += ["%s%s: %s" % (py, "" if pyext else " (SCALER_PYEXT=0)", b)
                    for b in one_python(scaler, py, os.path.join(tmp, "h%d%d" % (n, pyext)),
                                        pyext)]
    return bad


def one_python(scaler, py, prof, pyext):
    old = os.environ.pop("SCALER_PYEXT", None)
    if not pyext:
        os.environ["SCALER_PYEXT"] = "0"
    try:
        rc, out, err, rep, bad = record(scaler, [py, "-c", SCRIPT], prof)
    finally:
        os.environ.pop("SCALER_PYEXT", None)
        if old is not None:
            os.environ["SCALER_PYEXT"] = old
    if rc != 0 or rep is None:
        return bad + ["python3 exited %d: %s" % (rc, err.decode(errors="replace")[-200:])]
    if not out.startswith(b'{"sha": "'):
        bad.append("python3's output %r" % out[:60])
    bad += check_sums(rep)
    comps = {c["name"]: c for c in rep["components"]}
    bad += libpython_once(rep, comps)
    hl = [c for n, c in comps.items() if n.startswith("_hashlib")]
    # the edges' times (each call's edge_ns), as the model sums them
    crypto = sum(c["edge_ns"] for c in rep["calls"]
                 if c["caller"].startswith("_hashlib") and c["callee"].startswith("libcrypto"))
    if not hl or crypto <= 0:
        return bad + ["no _hashlib calls into libcrypto: %s" % sorted(comps)]
    if pyext:
        # its functions patched: python3's calls into _hashlib are seen
        if not any(c["callee"].startswith("_hashlib") and not c["caller"].startswith("_hashlib")
                   for c in rep["calls"]):
            bad.append("no call into _hashlib seen with its functions patched")
        return bad
    # what _hashlib called out while entered unseen is at least what its
    # seen entries cannot hold, and it came off the interpreter
    seen_in = sum(c["edge_ns"] for c in rep["calls"]
                  if c["callee"].startswith("_hashlib") and not c["caller"].startswith("_hashlib"))
    if hl[0].get("unseen_in_ns", 0) < crypto - seen_in:
        bad.append("_hashlib unseen_in_ns %d, its calls into libcrypto %d, seen in %d"
                   % (hl[0].get("unseen_in_ns", 0), crypto, seen_in))
    donors = sum(c.get("unseen_out_ns", 0) for c in rep["components"])
    if donors != sum(c.get("unseen_in_ns", 0) for c in rep["components"]):
        bad.append("unseen_out_ns %d != unseen_in_ns %d"
                   % (donors, sum(c.get("unseen_in_ns", 0) for c in rep["components"])))
    if crypto - seen_in <= 0:
        bad.append("_hashlib was seen entered for all its calls out: nothing tested")
    for fmt in ("text", "html"):
        rrc, text, rerr = report_cmd(scaler, prof, "--format", fmt)
        if rrc != 0 or NOTE not in text:
            bad.append("the %s report does not say %r (exit %d)" % (fmt, NOTE, rrc))
    return bad


def libpython_once(rep, comps):
    """A shared libpython (pyenv's) is on the stack as long as the calls
    into it from the executable: _json's and the other modules' calls back
    into it are inside those (model.c: find_nested), not added on (not
    even half of them: the script's are ~2 ms, and held to the threads'
    time, which is ~1 ms above the executable's calls, they were added
    on before)."""
    lp = [c for n, c in comps.items() if n.startswith("libpython")]
    if not lp:
        return []
    name = lp[0]["name"]
    calls = [c for c in rep["calls"] if c["callee"] == name and c["caller"] != name]
    edge = sum(c["edge_ns"] for c in calls if c["caller"].startswith("python"))
    back = sum(c["edge_ns"] for c in calls if not c["caller"].startswith("python"))
    if lp[0]["total_ns"] > edge + back / 2 + 1000:
        return ["%s total %d ns, the executable's calls into it %d, the modules' %d" %
                (name, lp[0]["total_ns"], edge, back)]
    return []


def checks(t):
    guarded("python3-hashlib-sums", None, lambda: hashlib_sums(t.scaler, t.tmp))
