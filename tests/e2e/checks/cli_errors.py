"""cli_errors.py - scaler's option parsing and usage errors: "did you mean"
for commands, options and values; --opt=value, --opt value, -oVALUE and
abbreviations; options after record's CMD are CMD's; every usage error is
one 'scaler:' line, exit 2, nothing on stdout, nothing recorded.
Checks: cli-did-you-mean, cli-getopt."""
import json
import os

from clitools import run, usage_error
from harness import guarded

MODE = "real"


def check_did_you_mean(scaler):
    bad = []
    cases = [
        ([scaler, "recod", "ls"], "unknown command 'recod'; did you mean 'record'?"),
        ([scaler, "reprot"], "did you mean 'report'?"),
        ([scaler, "report", "--format", "jsn"], "unknown --format 'jsn'; did you mean 'json'?"),
        ([scaler, "report", "--format=htm"], "did you mean 'html'?"),
        ([scaler, "report", "--sort", "cout"], "did you mean 'count'?"),
        ([scaler, "record", "--timing=al", "true"], "did you mean 'all'?"),
        ([scaler, "report", "--formt", "json"], "unknown option '--formt'; did you mean '--format'?"),
        ([scaler, "record", "--outptu", "x", "true"], "did you mean '--output'?"),
    ]
    for argv, want in cases:
        bad += ["%s: %s" % (" ".join(argv[1:]), b) for b in usage_error(*run(argv), want)]
    # far from every name: no guess, but the list of what there is
    rc, out, err = run([scaler, "frobnicate"])
    bad += usage_error(rc, out, err, "unknown command 'frobnicate'")
    if "did you mean" in err:
        bad.append("a guess for frobnicate: %r" % err)
    rc, out, err = run([scaler, "report", "--format", "xml"])
    bad += usage_error(rc, out, err, "(one of text, json, csv, html")
    return bad


def check_getopt(scaler, tmp):
    bad = []
    d = os.path.join(tmp, "getopt")
    os.mkdir(d)
    # --opt=value and --opt value, short with and without a space; the
    # options after CMD are CMD's
    script = 'printf "%s," "$@"'
    for i, opts in enumerate((["-o", "p0"], ["-op1"], ["--output", "p2"], ["--output=p3"],
                              ["--out=p4", "--timing", "none"], ["--timing=all", "-o", "p5", "--"])):
        rc, out, err = run([scaler, "record"] + opts + ["sh", "-c", script, "sh", "-o", "x",
                                                        "--timing=none", "--", "--help"], cwd=d)
        if rc != 0 or out != "-o,x,--timing=none,--,--help,":
            bad.append("record %s: exit %d, stdout %r, stderr %r" % (" ".join(opts), rc, out, err[:200]))
        elif not os.path.isdir(os.path.join(d, "p%d" % i)):
            bad.append("record %s: no profile p%d" % (" ".join(opts), i))
    rc, out, err = run([scaler, "report", "-i", os.path.join(d, "p4"), "--format=json"])
    if rc != 0 or json.loads(out).get("timing") != "none":
        bad.append("--out=p4 --timing none: exit %d, timing %r" % (rc, out[:100]))
    rc, out, err = run([scaler, "report", "--input", os.path.join(d, "p5"), "--format", "json"])
    if rc != 0 or json.loads(out).get("timing") != "all":
        bad.append("--timing=all: exit %d, timing %r" % (rc, out[:100]))
    errors = [
        ([scaler, "record"], "no command to run"),
        ([scaler, "record", "-o", "x"], "no command to run"),
        ([scaler, "record", "--bogus", "true"], "unknown option '--bogus'"),
        ([scaler, "record", "-z", "true"], "unknown option '-z'"),
        ([scaler, "record", "--timing"], "option '--timing' needs an argument"),
        ([scaler, "record", "-o"], "option '-o' needs an argument"),
        ([scaler, "record", "--timing", "sometimes", "true"], "unknown --timing 'sometimes'"),
        ([scaler, "report", "--threads=yes"], "option '--threads' takes no argument"),
        ([scaler, "report", "--co", "x"], "ambiguous: --component, --color"),
        ([scaler, "report", "--", "--format"], "unexpected argument '--format'"),
        ([scaler, "report", "somedir"], "unexpected argument 'somedir'"),
        ([scaler, "--bogus"], "unknown option '--bogus'"),
    ]
    for argv, want in errors:
        bad += ["%s: %s" % (" ".join(argv[1:]), b) for b in usage_error(*run(argv, cwd=d), want)]
    if os.path.exists(os.path.join(d, "x")) or os.path.exists(os.path.join(d, "scaler.data")):
        bad.append("a refused record wrote a profile")
    return bad


def checks(t):
    guarded("cli-did-you-mean", None, lambda: check_did_you_mean(t.scaler))
    guarded("cli-getopt", None, lambda: check_getopt(t.scaler, t.tmp))
