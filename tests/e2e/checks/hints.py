"""hints.py - scaler hints on sc_hints (tests/e2e/hints): each mode's
profile gives its own pattern's hint, naming its row and figures, and no
other; the quiet mode and the normal sc_diffpair give none. Tiny I/O,
allocation churn and busy polling are recorded with --args (their sizes,
the poll timeouts, which the hint states): writes of 64 KB
as many as the tiny ones give none, nor do the tiny ones recorded without
--args (no evidence of their size), while churn without --args still
shows, saying its sizes are not recorded; lock contention with --args
says how many locks (1 mutex). Also the JSON form and a usage error. Check: hints (lazy)."""
import json
import os

from harness import guarded, run

MODE = "e2e"
VARIANTS = ("lazy",)

# mode: (kind, caller, api or None, words of the text)
WANT = {
    "lock": ("lock contention", "sc_hints", "pthread_mutex_lock", "of its 1,600 calls blocked"),
    "strcmp": ("string comparisons", "sc_hints", None, "string comparisons dominate sc_hints: "
               "1,000,0"),
    "poll": ("busy polling", "sc_hints", "poll", "a timeout of 0 in 100 % of them"),
    "tinyio": ("tiny I/O", "sc_hints", "write", "write from sc_hints 200,000 calls of 16 bytes "
               "on average (asked for; 16..31: 100 %)"),
    "churn": ("allocation churn", "sc_hints", "malloc", "malloc from sc_hints 500,000 calls"),
}
# recorded with --args (their sizes are the evidence)
WITH_ARGS = ("tinyio", "churn", "poll")


def hints_of(t, prog, mode, args=False):
    out = os.path.join(t.tmp, "%s-%s%s" % (prog, mode, "-args" if args else ""))
    rc, stdout, err = run([t.scaler, "record", "-o", out] + (["--args"] if args else []) +
                          ["--", t.exe(prog), mode])
    if rc != 0:
        raise RuntimeError("record sc_%s %s: exit %d %r" % (prog, mode, rc, err[-200:]))
    rc, js, err = run([t.scaler, "hints", "-i", out, "--format", "json"])
    rc2, text, err2 = run([t.scaler, "hints", "-i", out])
    if rc or rc2:
        raise RuntimeError("hints: exit %d %d %r" % (rc, rc2, (err + err2)[-200:]))
    d = json.loads(js)
    if d.get("format") != "scaler-hints" or d.get("version") != 1:
        raise RuntimeError("hints JSON format %r" % d.get("format"))
    return d["hints"], text.decode(errors="replace")


def check(t):
    bad, texts = [], {}
    for mode, (kind, caller, api, words) in WANT.items():
        hs, text = hints_of(t, "hints", mode, mode in WITH_ARGS)
        texts[mode] = text
        got = [(h["kind"], h["caller"], h["api"]) for h in hs]
        if got != [(kind, caller, api)]:
            bad.append("%s: hints %r, want one %r" % (mode, got, (kind, caller, api)))
        elif words not in hs[0]["text"] or hs[0]["text"] + "\n" != text:
            bad.append("%s: text %r lacks %r (or differs from %r)" % (mode, hs[0]["text"], words,
                                                                       text))
    hs, text = hints_of(t, "hints", "lock", True)
    if not hs or not hs[0]["text"].endswith("; 1 distinct mutex address"):
        bad.append("lock with --args: which lock not said: %r" % text)
    if "48 bytes on average (asked for; 32..63: 100 %)" not in texts["churn"]:
        bad.append("churn: no sizes in %r" % texts["churn"])
    for prog, mode, args in (("hints", "quiet", False), ("diffpair", "normal", False),
                             ("hints", "quiet", True), ("hints", "bigio", True),
                             ("hints", "tinyio", False)):
        hs, text = hints_of(t, prog, mode, args)
        if hs or not text.startswith("no hints"):
            bad.append("sc_%s %s%s: hints %r" % (prog, mode, " --args" if args else "",
                                                 [h["text"] for h in hs]))
    hs, text = hints_of(t, "hints", "churn")
    if [h["kind"] for h in hs] != ["allocation churn"] or \
            "sizes not recorded (scaler record --args)" not in text:
        bad.append("churn without --args: %r" % text)
    rc, out, err = run([t.scaler, "hints", "somedir"])
    if rc != 2 or out or b"unexpected argument 'somedir'" not in err:
        bad.append("hints somedir: exit %d %r" % (rc, err[:200]))
    return bad


def checks(t):
    guarded("hints", t.variant, lambda: check(t))
