"""real_gzip_functions.py - gzip compressing a file with every function of
its executable patched (`--functions='gzip:*'`; Debian's gzip is
stripped: its functions come from .eh_frame): the compressed bytes must
be identical to gzip's without scaler, functions must have been patched
and counted. Check: gzip-functions."""
import json
import os
import re
import shutil

from harness import guarded, run, skip

MODE = "real"


def gzip_functions(scaler, tmp):
    gz = shutil.which("gzip")
    if not gz:
        return skip("gzip-functions", "gzip not installed")
    src = os.path.join(tmp, "input")
    with open(src, "wb") as f:
        for i in range(40000):
            f.write(b"line %d of a compressible file, %x\n" % (i, i * 2654435761 % 65521))
    rc, want, _ = run([gz, "-c", src])
    prof = os.path.join(tmp, "prof")
    comp = os.path.basename(gz)      # named as invoked
    rc2, got, err = run([scaler, "record", "-o", prof, "--functions=%s:*" % comp,
                         "--", gz, "-c", src])
    if rc != 0 or rc2 != 0 or got != want:
        return ["gzip output differs under scaler (%d vs %d bytes, exit %d/%d): %s"
                % (len(got), len(want), rc2, rc, err[-300:])]
    m = re.search(rb"scaler: (\d+) functions patched", err)
    if not m or int(m.group(1)) < 20:
        return ["patched: %r" % err[-200:]]
    rc, rep, err = run([scaler, "report", "-i", prof, "--format", "json"])
    rows = [c for c in json.loads(rep)["calls"] if c["kind"] == "function"]
    if rc != 0 or not rows or max(c["count"] for c in rows) < 1000:
        return ["function rows: %r" % rows[:5]]
    # gzip's own calls, and main's from __libc_start_main
    if any(c["callee"] != comp or c["caller"] not in (comp, "libc.so.6") for c in rows):
        return ["a function row not of %s: %r" % (comp, rows[:3])]
    return []


def checks(t):
    guarded("gzip-functions", None, lambda: gzip_functions(t.scaler, t.tmp))
