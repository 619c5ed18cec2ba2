"""cli_man.py - the man pages (doc/*.1): no warnings from groff -ww or
man -l --warnings, every command in scaler.1, and in scaler-CMD.1 an item
for every option --list-opts names (with its short form) and every value
it takes. Check: cli-man-pages."""
import os
import re
import shutil

from clitools import list_cmds, list_opts, run
from harness import ROOT, guarded, skip

MODE = "real"


def check_man(scaler):
    groff = shutil.which("groff")
    if not groff:
        return skip("cli-man-pages", "groff not installed (Debian: groff-base)")
    bad = []
    pages = {"scaler": "doc/scaler.1", "record": "doc/scaler-record.1", "report": "doc/scaler-report.1",
             "live": "doc/scaler-live.1", "ctl": "doc/scaler-ctl.1",
             "diff": "doc/scaler-diff.1", "hints": "doc/scaler-hints.1",
             "walk": "doc/scaler-walk.1"}
    for cmd, page in pages.items():
        path = os.path.join(ROOT, page)
        rc, out, err = run([groff, "-ww", "-man", "-z", path])
        if rc != 0 or err:
            bad.append("%s: groff -ww: exit %d %r" % (page, rc, err[:300]))
        env = dict(os.environ, MANWIDTH="80")
        if shutil.which("man"):
            rc, out, err = run(["man", "-l", "--warnings", path], env=env)
            if rc != 0 or err or "SYNOPSIS" not in out:
                bad.append("%s: man -l --warnings: exit %d %r" % (page, rc, err[:300]))
        with open(path) as f:
            src = f.read()
        if cmd == "scaler":
            for c in list_cmds(scaler):
                if not re.search(r"^\.(B|BR) %s\b" % c, src, re.M):
                    bad.append("%s lacks the command %s" % (page, c))
            continue
        opts, _ = list_opts(scaler, cmd)
        # each option is an item of its own: the tag line after a .TP
        lines = src.splitlines()
        tags = "\n".join(lines[i + 1] for i, l in enumerate(lines[:-1]) if l == ".TP")
        for name, (short, _, _, choices) in opts.items():
            if name == "--colour":  # the alias, told in --color's item
                continue
            roff = name.replace("-", r"\-")
            sroff = short.replace("-", r"\-") + ' ", " ' if short != "-" else ""
            if not re.search(r"^\.B[RI]? %s%s\b" % (re.escape(sroff), re.escape(roff)), tags, re.M):
                bad.append("%s has no item for %s%s" % (page, short + " " if sroff else "", name))
            for v in choices:
                if not re.search(r"\.B[R]? %s\b" % re.escape(v), src):
                    bad.append("%s lacks the value %s of %s" % (page, v, name))
    return bad


def checks(t):
    guarded("cli-man-pages", None, lambda: check_man(t.scaler))
