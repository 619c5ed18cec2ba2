"""report_not_profile.py - scaler report on an empty directory, one of
other files and a missing one: an error, not a crash. Check:
report-not-a-profile."""
import os

from harness import guarded, run

MODE = "real"


def bad_report(scaler, tmp):
    bad = []
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    junk = os.path.join(tmp, "junk")
    os.mkdir(junk)
    with open(os.path.join(junk, "p1-0.meta"), "wb") as f:
        f.write(b"this is not a profile\n" * 10)
    with open(os.path.join(junk, "notes.txt"), "w") as f:
        f.write("hello\n")
    for d in (empty, junk, os.path.join(tmp, "does-not-exist")):
        for fmt in ("json", "text"):
            rc, sout, err = run([scaler, "report", "-i", d, "--format", fmt])
            e = err.decode(errors="replace")
            what = "%s (%s)" % (os.path.basename(d), fmt)
            if rc == 0 or rc >= 126 or rc < 0:
                bad.append("%s: exit status %d" % (what, rc))
            if not e.startswith("scaler:"):
                bad.append("%s: stderr %r" % (what, e[:120]))
    return bad


def checks(t):
    guarded("report-not-a-profile", None, lambda: bad_report(t.scaler, t.tmp))
