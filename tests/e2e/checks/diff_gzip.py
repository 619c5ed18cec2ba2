"""diff_gzip.py - scaler diff on a real regression: gzip -1 (base) against
gzip -9 (new) compressing the same 1 MB of text, three runs a side, every
function of gzip patched (`--functions=gzip:*`; Debian's gzip is stripped,
its functions are named gzip+0xOFFSET from .eh_frame). -9 searches longer
for each match: more calls of gzip's longest_match, each longer. Without
--functions the whole change is gzip's own time, which on a loaded machine
moves as much from run to run (13 to 67 ms for the same -1 run) and is no
significant finding; the calls are counted exactly and are.

The first finding must be a function of gzip called by gzip with
significantly more calls in NEW (the match search: on this input
gzip+0x4290 of Debian 12's gzip 1.12, ×1.30 calls, p50 ×78), and the
output must be gzip's own. Check: diff-gzip."""
import json
import os
import random
import shutil

from harness import guarded, run, skip

MODE = "real"
RUNS = 3


def text(path):
    rnd = random.Random(22)
    words = ["%s%d" % (w, i) for i in range(40) for w in
             ("lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit")]
    with open(path, "w") as f:
        n = 0
        while n < 1 << 20:
            line = " ".join(rnd.choice(words) for _ in range(12)) + "\n"
            f.write(line)
            n += len(line)


def check(scaler, tmp):
    gz = shutil.which("gzip")
    if not gz:
        return skip("diff-gzip", "gzip not installed")
    comp = os.path.basename(gz)
    src = os.path.join(tmp, "gzip-in.txt")
    text(src)
    sides = {}
    for level in ("1", "9"):
        rc, want, _ = run([gz, "-" + level, "-c", src])
        profs = []
        for r in range(RUNS):
            prof = os.path.join(tmp, "gz%s.%d" % (level, r))
            rc2, got, err = run([scaler, "record", "-o", prof, "--functions=%s:*" % comp, "--",
                                 gz, "-" + level, "-c", src])
            if rc != 0 or rc2 != 0 or got != want:
                return ["gzip -%s output differs under scaler (exit %d/%d): %r"
                        % (level, rc2, rc, err[-200:])]
            profs.append(prof)
        sides[level] = ",".join(profs)
    rc, out, err = run([scaler, "diff", "--format", "json", sides["1"], sides["9"]])
    if rc != 0:
        return ["diff exited %d: %r" % (rc, err[-300:])]
    f = json.loads(out)["findings"]
    top = f[0] if f else {}
    calls = top.get("tests", {}).get("calls", {})
    if (top.get("kind"), top.get("caller"), top.get("callee"), top.get("significant")) != \
            ("call", comp, comp, True) or not calls.get("significant") or \
            calls.get("ratio", 0) <= 1.2:
        return ["first finding: %s -> %s %s (significant %r, calls %r): %s" %
                (top.get("caller"), top.get("callee"), top.get("api"), top.get("significant"),
                 calls, top.get("pattern"))]
    return []


def checks(t):
    guarded("diff-gzip", None, lambda: check(t.scaler, t.tmp))
