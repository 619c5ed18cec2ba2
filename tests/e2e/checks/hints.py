"""hints.py - scaler hints on sc_hints (tests/e2e/hints): each mode's
profile gives its own pattern's hint, naming its row and figures, and no
other; the quiet mode and the normal sc_diffpair give none. Also the JSON
form and a usage error. Check: hints (lazy)."""
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
    "poll": ("busy polling", "sc_hints", "poll", "poll from sc_hints 200,000 calls"),
}


def hints_of(t, prog, mode):
    out = os.path.join(t.tmp, "%s-%s" % (prog, mode))
    rc, stdout, err = run([t.scaler, "record", "-o", out, "--", t.exe(prog), mode])
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
    bad = []
    for mode, (kind, caller, api, words) in WANT.items():
        hs, text = hints_of(t, "hints", mode)
        got = [(h["kind"], h["caller"], h["api"]) for h in hs]
        if got != [(kind, caller, api)]:
            bad.append("%s: hints %r, want one %r" % (mode, got, (kind, caller, api)))
        elif words not in hs[0]["text"] or hs[0]["text"] + "\n" != text:
            bad.append("%s: text %r lacks %r (or differs from %r)" % (mode, hs[0]["text"], words,
                                                                       text))
    for prog, mode in (("hints", "quiet"), ("diffpair", "normal")):
        hs, text = hints_of(t, prog, mode)
        if hs or not text.startswith("no hints"):
            bad.append("sc_%s %s: hints %r" % (prog, mode, [h["text"] for h in hs]))
    rc, out, err = run([t.scaler, "hints", "somedir"])
    if rc != 2 or out or b"unexpected argument 'somedir'" not in err:
        bad.append("hints somedir: exit %d %r" % (rc, err[:200]))
    return bad


def checks(t):
    guarded("hints", t.variant, lambda: check(t))
