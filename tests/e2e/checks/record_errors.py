"""record_errors.py - scaler record refusing what it must: a command that
does not exist, an output directory that is not a profile. Checks:
record-nosuchcmd, record-keeps-other-dirs."""
import os

from harness import guarded, run

MODE = "real"


def nosuch(scaler, tmp):
    d = os.path.join(tmp, "nosuch")
    os.mkdir(d)
    out = os.path.join(d, "prof")
    rc, sout, err = run([scaler, "record", "-o", out, "--", "scaler-no-such-command-xyz"])
    bad = []
    lines = err.decode(errors="replace").splitlines()
    if rc <= 0:
        bad.append("exit status %d" % rc)
    if len(lines) != 1 or not lines[0].startswith("scaler:"):
        bad.append("stderr is not one 'scaler:' line: %r" % lines[:3])
    if os.listdir(d):
        bad.append("wrote %s" % os.listdir(d))
    if sout:
        bad.append("wrote to stdout: %r" % sout[:100])
    return bad


def keep_others(scaler, tmp):
    """-o names a directory that is not a profile (sources, say): the
    record is refused and nothing in it is touched; a profile already
    there is kept as DIR.old, and a DIR.old that is not a profile is
    not removed to make room."""
    bad = []
    src = os.path.join(tmp, "src")
    os.mkdir(src)
    with open(os.path.join(src, "main.c"), "w") as f:
        f.write("int main(void) { return 0; }\n")
    for _ in range(2):
        rc, _, err = run([scaler, "record", "-o", src, "--", "/bin/true"])
        if rc == 0 or not err.decode(errors="replace").startswith("scaler:"):
            bad.append("record into a source directory: exit %d, %r" % (rc, err[:120]))
    if os.listdir(src) != ["main.c"] or os.path.exists(src + ".old"):
        bad.append("source directory touched: %r" % (os.listdir(src),))
    prof = os.path.join(tmp, "prof")
    pids = []
    for _ in range(3):
        rc, _, err = run([scaler, "record", "-o", prof, "--", "/bin/true"])
        if rc != 0:
            bad.append("record into a profile directory: exit %d %r" % (rc, err[:120]))
        pids.append(sorted(os.listdir(prof)))
    if sorted(os.listdir(prof + ".old")) != pids[1]:
        bad.append("DIR.old is not the run before: %r vs %r" % (os.listdir(prof + ".old"), pids))
    with open(os.path.join(prof + ".old", "notes.txt"), "w") as f:
        f.write("mine\n")
    rc, _, _ = run([scaler, "record", "-o", prof, "--", "/bin/true"])
    if rc == 0 or not os.path.exists(os.path.join(prof + ".old", "notes.txt")) or \
            sorted(os.listdir(prof)) != pids[2]:
        bad.append("a DIR.old holding other files was replaced (exit %d)" % rc)
    return bad


def checks(t):
    guarded("record-nosuchcmd", None, lambda: nosuch(t.scaler, t.tmp))
    guarded("record-keeps-other-dirs", None, lambda: keep_others(t.scaler, t.tmp))
