"""diff.py - scaler diff on pairs of sc_diffpair runs (tests/e2e/diffpair):
a normal run against one slow in a single way ranks that way's API first,
named by its pattern, above dl_heavy, which costs more than the change
but as much in both runs; two normal runs give no significant finding in
at least 9 tries of 10; several runs a side; the output formats; and the
command's errors.

Why 9 of 10: a finding is significant when a test rejects at 0.05 over the
number of findings (Bonferroni: at most 5 % of tries have a false one by
chance) and the change also moves 0.5 % of the run's time and, with one
run a side, by more than a 25 % run-to-run spread of times allows; so a
false finding is rarer than 1 try in 20, and 2 or more in 10 tries rarer
than 1 in 10 (binomial, at 5 %: 8.6 %; at the 1 % the thresholds give,
0.4 %), while a check that wanted 10 of 10 would fail on a loaded machine
for reasons that are not scaler's.

Also: a lock held 1 ms at a time by a second thread (sc_diffpair lock)
makes pthread_mutex_lock a significant finding, "lock held longer or
contended", above dl_heavy; 6 more threads rank the threads finding first ("more threads:
7, was 1"); a profile against itself has no significant finding.

Checks: diff-calls, diff-longer, diff-block, diff-appear, diff-lock,
diff-threads, diff-itself, diff-identical, diff-runs, diff-formats,
diff-errors (lazy)."""
import json
import os

from harness import guarded, run

MODE = "e2e"
VARIANTS = ("lazy",)

# mode: (caller, callee, api) of the cause, words its pattern has, vProf's
CAUSES = {
    "calls": (("libsc_dp.so", "libc.so.6", "strcmp"), "strcmp ×32 per dl_lookup",
              "missing constraint"),
    "longer": (("sc_diffpair", "libsc_dp.so", "dl_step"), "longer calls: p50 ×", "scalability"),
    "block": (("libsc_dp.so", "libc.so.6", "poll"), "new blocking in poll", None),
    "appear": (("sc_diffpair", "libsc_dp.so", "dl_check"), "API appeared: 200 calls",
               "wrong constraint"),
}
HEAVY = ("sc_diffpair", "libsc_dp.so", "dl_heavy")


class Pairs:
    """Profiles of sc_diffpair MODE, recorded once each and shared."""

    def __init__(self, t):
        self.t, self.n = t, {}

    def record(self, mode):
        self.n[mode] = self.n.get(mode, 0) + 1
        out = os.path.join(self.t.tmp, "%s%d" % (mode, self.n[mode]))
        rc, stdout, err = run([self.t.scaler, "record", "-o", out, "--", self.t.exe("diffpair"),
                               mode])
        if rc != 0 or stdout != b"1260000\n":
            raise RuntimeError("record sc_diffpair %s: exit %d %r %r" %
                               (mode, rc, stdout[:100], err[-200:]))
        return out


def diff_json(scaler, base, new):
    rc, out, err = run([scaler, "diff", "--format", "json", base, new])
    if rc != 0:
        raise RuntimeError("diff exited %d: %s" % (rc, err.decode(errors="replace")[-300:]))
    return json.loads(out)


def key(f):
    return (f["caller"], f["callee"], f["api"])


def check_cause(t, pairs, mode):
    cause, words, vprof = CAUSES[mode]
    d = diff_json(t.scaler, pairs.record("normal"), pairs.record(mode))
    fs = d["findings"]
    top = fs[0]
    bad = []
    if key(top) != cause or not top["significant"]:
        bad.append("first finding %r (%s, significant %r), want %r" %
                   (key(top), top["pattern"], top["significant"], cause))
    if words not in top["pattern"]:
        bad.append("pattern %r lacks %r" % (top["pattern"], words))
    if vprof and top["vprof"] != vprof:
        bad.append("vprof %r, want %r" % (top["vprof"], vprof))
    heavy = [f for f in fs if key(f) == HEAVY]
    if not heavy:
        return bad + ["no dl_heavy finding"]
    h = heavy[0]
    # it costs more than the change, in both runs...
    change = abs(top["new"]["self_ns"] - top["base"]["self_ns"])
    if not min(h["base"]["self_ns"], h["new"]["self_ns"]) > change:
        bad.append("dl_heavy (%d, %d ns) does not cost more than the change (%d ns)" %
                   (h["base"]["self_ns"], h["new"]["self_ns"], change))
    # ...and ranks below it, discounted
    if h["rank"] <= top["rank"] or h["significant"]:
        bad.append("dl_heavy ranks %d (significant %r, %s)" % (h["rank"], h["significant"],
                                                                h["pattern"]))
    if h["discount"] != 0.8:
        bad.append("dl_heavy's discount %r, want 0.8" % h["discount"])
    sig = [f for f in fs if f["significant"]]
    if fs[:len(sig)] != sig:
        bad.append("significant findings are not all first")
    return bad


def check_lock(t, pairs):
    d = diff_json(t.scaler, pairs.record("normal"), pairs.record("lock"))
    want = ("libsc_dp.so", "libc.so.6", "pthread_mutex_lock")
    lock = [f for f in d["findings"] if key(f) == want]
    heavy = [f for f in d["findings"] if key(f) == HEAVY]
    if not lock or not lock[0]["significant"] or \
            "lock held longer or contended: pthread_mutex_lock mean ×" not in lock[0]["pattern"]:
        return ["pthread_mutex_lock: %r" % ({k: lock[0][k] for k in ("rank", "significant",
                                                                      "pattern")}
                                            if lock else None)]
    if heavy and heavy[0]["rank"] < lock[0]["rank"]:
        return ["dl_heavy (the same in both) ranks %d, above pthread_mutex_lock (%d)" %
                (heavy[0]["rank"], lock[0]["rank"])]
    return []


def check_threads(t, pairs):
    d = diff_json(t.scaler, pairs.record("normal"), pairs.record("threads"))
    top = d["findings"][0]
    if top["kind"] != "threads" or not top["significant"] or \
            "more threads: 7, was 1" not in top["pattern"]:
        return ["first finding %r %r %r" % (top["kind"], top["significant"], top["pattern"])]
    return []


def check_itself(t, pairs):
    """Each side the same profile (of 2 threads and a contended lock)."""
    prof = pairs.record("lock")
    sig = [(f["kind"], key(f), f["pattern"]) for f in diff_json(t.scaler, prof, prof)["findings"]
           if f["significant"]]
    return ["significant %r" % sig[:3]] if sig else []


def check_identical(t, pairs):
    """10 tries of normal against normal: at most one with a significant
    finding (the module's docstring says why)."""
    hits = []
    for i in range(10):
        d = diff_json(t.scaler, pairs.record("normal"), pairs.record("normal"))
        sig = [(f["kind"], key(f), f["pattern"]) for f in d["findings"] if f["significant"]]
        if sig:
            hits.append("try %d: %r" % (i + 1, sig[:3]))
    return ["%d tries of 10 had significant findings: %s" % (len(hits), "; ".join(hits))] \
        if len(hits) > 1 else []


def check_runs(t, pairs):
    """Three runs a side, recorded alternately (so that the machine's drift
    falls on both sides alike): the spread is measured, identical sides
    have no significant finding, and the cause still ranks first."""
    base, other, slow = [], [], []
    for _ in range(3):
        base.append(pairs.record("normal"))
        slow.append(pairs.record("calls"))
        other.append(pairs.record("normal"))
    bad = []
    d = diff_json(t.scaler, ",".join(base), ",".join(slow))
    if len(d["base"]) != 3 or len(d["new"]) != 3:
        bad.append("sides %r %r" % (d["base"], d["new"]))
    top = d["findings"][0]
    if key(top) != CAUSES["calls"][0] or not top["significant"]:
        bad.append("3 runs a side: first %r %s" % (key(top), top["pattern"]))
    d = diff_json(t.scaler, ",".join(base), ",".join(other))
    sig = [(key(f), f["pattern"]) for f in d["findings"] if f["significant"]]
    if sig:
        bad.append("3 normal runs against 3 others: significant %r" % sig[:3])
    return bad


def check_formats(t):
    base, new = os.path.join(t.tmp, "normal1"), os.path.join(t.tmp, "calls1")
    bad = []
    d = diff_json(t.scaler, base, new)
    if d.get("format") != "scaler-diff" or d.get("version") != 1:
        bad.append("format/version %r %r" % (d.get("format"), d.get("version")))
    for f in d["findings"]:
        missing = {"rank", "caller", "callee", "api", "significant", "score", "pattern", "base",
                   "new"} - set(f)
        if missing:
            bad.append("finding lacks %r" % sorted(missing))
            break
    if [f["rank"] for f in d["findings"]] != list(range(1, len(d["findings"]) + 1)):
        bad.append("ranks are not 1..n")
    if not d.get("work") or d["work"]["api"] != "dl_lookup":
        bad.append("unit of work %r, want dl_lookup" % d.get("work"))
    rc, out, err = run([t.scaler, "diff", base, new])
    text = out.decode(errors="replace")
    if rc != 0 or "1. libsc_dp.so -> libc.so.6  strcmp" not in text or \
            "strcmp ×32 per dl_lookup" not in text:
        bad.append("text: exit %d %r" % (rc, text[:400]))
    html = os.path.join(t.tmp, "d.html")
    rc, out, err = run([t.scaler, "diff", "--format=html", "-o", html, base, new])
    page = open(html, encoding="utf-8").read() if rc == 0 and os.path.exists(html) else ""
    if rc != 0 or out or not page.startswith("<!DOCTYPE html>") or \
            "strcmp ×32 per dl_lookup" not in page or not page.rstrip().endswith("</html>"):
        bad.append("html: exit %d, %r" % (rc, page[:200]))
    return bad


def check_errors(t):
    base = os.path.join(t.tmp, "normal1")
    bad = []
    cases = [
        ([base], 2, "wants two profiles: BASE NEW"),
        ([base, base, base], 2, "unexpected argument"),
        ([base, os.path.join(t.tmp, "nonesuch")], 1, "nonesuch"),
        (["--format", "xml", base, base], 2, "unknown --format 'xml'"),
        ([base, ","], 1, "no profile directory in ','"),
    ]
    for args, want_rc, want in cases:
        rc, out, err = run([t.scaler, "diff"] + args)
        e = err.decode(errors="replace")
        if rc != want_rc or out or len(e.splitlines()) != 1 or want not in e or \
                not e.startswith("scaler:"):
            bad.append("diff %s: exit %d, stdout %r, stderr %r" % (" ".join(args), rc, out[:80],
                                                                   e[:200]))
    return bad


def checks(t):
    pairs = Pairs(t)
    for mode in CAUSES:
        guarded("diff-" + mode, t.variant, lambda m=mode: check_cause(t, pairs, m))
    guarded("diff-lock", t.variant, lambda: check_lock(t, pairs))
    guarded("diff-threads", t.variant, lambda: check_threads(t, pairs))
    guarded("diff-itself", t.variant, lambda: check_itself(t, pairs))
    guarded("diff-identical", t.variant, lambda: check_identical(t, pairs))
    guarded("diff-runs", t.variant, lambda: check_runs(t, pairs))
    guarded("diff-formats", t.variant, lambda: check_formats(t))
    guarded("diff-errors", t.variant, lambda: check_errors(t))
