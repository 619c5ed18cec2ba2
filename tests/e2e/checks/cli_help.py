"""cli_help.py - scaler's help and version: the same text from `scaler help
CMD`, `CMD --help` and `CMD -h`, naming every option, its values and
defaults in 79 columns; --version, `version` and -V print src/cli/version.h's
version. Checks: cli-help, cli-version."""
import os
import re

from clitools import list_cmds, list_opts, run, usage_error
from harness import ROOT, guarded

MODE = "real"


def check_help(scaler):
    bad = []
    cmds = list_cmds(scaler)
    if not {"record", "report", "help", "version"} <= set(cmds):
        return ["--list-cmds: %r" % cmds]
    rc, top, _ = run([scaler, "--help"])
    rc2, top2, _ = run([scaler, "help"])
    rc3, out3, top3 = run([scaler])
    if rc or rc2 or top != top2 or rc3 != 2 or out3 or top3 != top:
        bad.append("scaler --help / help / (nothing) differ or exit %d %d %d" % (rc, rc2, rc3))
    for c in cmds:
        if not re.search(r"^  %s +\S" % re.escape(c), top, re.M):
            bad.append("top-level usage lacks %s with its summary" % c)
    for c in ("record", "report", "diff", "hints", "walk"):
        texts = [run(a) for a in ([scaler, "help", c], [scaler, c, "--help"], [scaler, c, "-h"])]
        if any(t[0] != 0 or t[2] or t[1] != texts[0][1] for t in texts):
            bad.append("help %s, %s --help and %s -h differ or fail" % (c, c, c))
        text = texts[0][1]
        if not text.startswith("usage: scaler %s " % c):
            bad.append("%s help does not start with its usage line" % c)
        opts, _ = list_opts(scaler, c)
        for name, (short, arg, kind, choices) in opts.items():
            if name == "--colour" or name.startswith("--list-"):
                continue    # the alias of --color; lists for the completion (man pages)
            head = ("  %s, %s" % (short, name)) if short != "-" else ("      " + name)
            if head not in text:
                bad.append("%s help lacks %r" % (c, head))
            for v in choices:
                if not re.search(r"^ {26}%s\b" % re.escape(v), text, re.M):
                    bad.append("%s help lacks the value %s of %s" % (c, v, name))
        for line in text.splitlines():
            if len(line) > 79:
                bad.append("%s help line over 79 columns: %r" % (c, line))
    # the values come from the tables: every format, sort key and timing mode
    _, report_help, _ = run([scaler, "report", "--help"])
    formats = list_opts(scaler, "report")[0]["--format"][3]
    for f in ("text", "json", "csv", "html", "folded", "speedscope", "chrome", "pprof"):
        if not re.search(r"^ +%s +\S" % f, report_help, re.M):
            bad.append("report help lacks the format %s" % f)
    # and the top-level usage names each of them (it once listed text|json)
    for f in formats:
        if not re.search(r"\b%s\b" % f, top):
            bad.append("top-level usage lacks the format %s" % f)
    if "(default: scaler.data)" not in report_help or "(default: text)" not in report_help:
        bad.append("report help lacks the defaults")
    bad += usage_error(*run([scaler, "help", "recrod"]), "did you mean 'record'")
    return bad


def check_version(scaler):
    want = None
    with open(os.path.join(ROOT, "src", "cli", "version.h")) as f:
        m = re.search(r'#define SCALER_VERSION "([^"]+)"', f.read())
        want = "scaler %s\n" % m.group(1)
    got = [run([scaler, a]) for a in ("--version", "version", "-V")]
    bad = ["%s: %r" % (a, g) for a, g in zip(("--version", "version", "-V"), got)
           if g != (0, want, "")]
    if not re.match(r"^scaler \d+\.\d+\.\d+\n$", want):
        bad.append("version %r is not N.N.N" % want)
    return bad


def checks(t):
    guarded("cli-help", None, lambda: check_help(t.scaler))
    guarded("cli-version", None, lambda: check_version(t.scaler))
