"""cmdline.py - each image's command line is its argv, byte for byte:
empty arguments, spaces and non-ASCII bytes kept, an exec'd image's own.
Check: record-cmdline."""
import os

from harness import guarded, record_json, root_process

MODE = "real"


def cmdline(scaler, tmp):
    out = os.path.join(tmp, "cl")
    argv = ["sh", "-c", 'exec /bin/echo "" "a b" "$0"', "\u00e9t\u00e9"]
    bad, d = record_json(scaler, out, argv)
    if bad:
        return bad
    sh = root_process(d).get("pid")
    imgs = sorted((p for p in d["processes"] if p["pid"] == sh),
                  key=lambda p: p.get("gen", 0))
    got = [p.get("command") for p in imgs]
    want = [argv, ["/bin/echo", "", "a b", "\u00e9t\u00e9"]]
    return [] if got == want else ["command lines %r, want %r" % (got, want)]


def checks(t):
    guarded("record-cmdline", None, lambda: cmdline(t.scaler, t.tmp))
