"""cli_install.py - make install into a DESTDIR and make uninstall.
Check: cli-install."""
import os

from clitools import run
from harness import ROOT, guarded

MODE = "real"


def check_install(scaler, tmp):
    """make install into a DESTDIR puts down the binary, the runtime, the
    gdb script, the man pages (with the version) and the completion, and a
    scaler that records with the installed runtime; make uninstall leaves no
    file behind."""
    dest = os.path.join(tmp, "dest")
    build = os.path.relpath(os.path.dirname(os.path.dirname(scaler)), ROOT)
    make = ["make", "--no-print-directory", "-C", ROOT, "BUILD=" + build, "DESTDIR=" + dest,
            "PREFIX=/opt/sc"]
    rc, out, err = run(make + ["install"], timeout=600)
    if rc != 0:
        return ["make install exited %d: %s" % (rc, (err or out)[-300:])]
    files = sorted(os.path.relpath(os.path.join(r, f), dest)
                   for r, _, fs in os.walk(dest) for f in fs)
    want = sorted(["opt/sc/bin/scaler", "opt/sc/lib/libscaler.so", "opt/sc/lib/libscaler.so-gdb.py",
                   "opt/sc/share/man/man1/scaler.1", "opt/sc/share/man/man1/scaler-record.1",
                   "opt/sc/share/man/man1/scaler-live.1", "opt/sc/share/man/man1/scaler-ctl.1",
                   "opt/sc/share/man/man1/scaler-report.1", "opt/sc/share/man/man1/scaler-diff.1",
                   "opt/sc/share/man/man1/scaler-hints.1",
                   "opt/sc/share/man/man1/scaler-walk.1",
                   "opt/sc/share/bash-completion/completions/scaler"])
    bad = []
    if files != want:
        bad.append("installed %r, want %r" % (files, want))
    inst = os.path.join(dest, "opt/sc/bin/scaler")
    _, version, _ = run([scaler, "--version"])
    rc, out, err = run([inst, "--version"])
    if (rc, out) != (0, version):
        bad.append("installed scaler --version: %d %r" % (rc, out))
    man = os.path.join(dest, "opt/sc/share/man/man1/scaler-report.1")
    if os.path.exists(man):
        with open(man) as f:
            th = [l for l in f if l.startswith(".TH")]
        if not th or '"%s"' % version.strip() not in th[0]:
            bad.append("installed man page's .TH lacks %r: %r" % (version.strip(), th))
    prof = os.path.join(tmp, "inst-prof")
    rc, out, err = run([inst, "record", "-o", prof, "--", "sh", "-c", "echo hi"],
                       env=dict(os.environ, SCALER_LIB=""))
    if rc != 0 or out != "hi\n" or not any(f.endswith(".thr") for f in os.listdir(prof)):
        bad.append("installed scaler record: exit %d %r %r" % (rc, out, err[:200]))
    rc, out, err = run(make + ["uninstall"], timeout=600)
    left = [os.path.join(r, f) for r, _, fs in os.walk(dest) for f in fs]
    if rc != 0 or left:
        bad.append("make uninstall: exit %d, left %r" % (rc, left))
    return bad


def checks(t):
    guarded("cli-install", None, lambda: check_install(t.scaler, t.tmp))
