"""cli_component.py - report's --component by whole name, start of a name
and glob, with an error listing the components when nothing matches; and
-o - and -o FILE writing what standard output gets, in every format.
Checks: cli-component-match, cli-output-dash."""
import json
import os
import re

from clitools import run, usage_error
from harness import guarded

MODE = "real"


def record_profile(scaler, tmp):
    """A profile of sh running ls: components sh or dash, libc.so.6, ...
    (and ls's own libraries)."""
    prof = os.path.join(tmp, "prof")
    rc, _, err = run([scaler, "record", "-o", prof, "--", "sh", "-c", "ls / >/dev/null; ls >/dev/null"])
    if rc != 0:
        raise ValueError("record exited %d: %s" % (rc, err[:200]))
    return prof


def comp_names(scaler, prof, *args):
    rc, out, err = run([scaler, "report", "-i", prof, "--format", "json"] + list(args))
    if rc != 0:
        raise ValueError("report %s exited %d: %s" % (" ".join(args), rc, err[:200]))
    d = json.loads(out)
    return sorted(c["name"] for c in d["components"]), d["calls"]


def html_selection(scaler, prof, pattern, want):
    """The HTML page's heading names every component pattern selects, and
    its calls table holds the JSON's calls: those into and out of them."""
    rc, page, err = run([scaler, "report", "-i", prof, "--format", "html", "--component", pattern])
    if rc != 0:
        return ["html --component %s: exit %d: %s" % (pattern, rc, err[:200])]
    m = re.search(r"; components? (.*?) only</p>", page)
    named = sorted(m.group(1).split(", ")) if m else None
    _, calls = comp_names(scaler, prof, "--component", pattern)
    table = re.search(r'id="call-table".*?<tbody>(.*?)</tbody>', page, re.S)
    rows = table.group(1).count("<tr") if table else -1
    if named != want or rows != len(calls):
        return ["html --component %s: heading names %r, want %r; %d call rows, JSON has %d"
                % (pattern, named, want, rows, len(calls))]
    return []


def check_component(scaler, prof):
    bad = []
    every, _ = comp_names(scaler, prof)
    libs = sorted(n for n in every if n.startswith("lib"))
    if "libc.so.6" not in every or len(every) < 2:
        return ["components %r" % every]
    exact, calls = comp_names(scaler, prof, "--component", "libc.so.6")
    for pattern in ("libc", "libc.", "libc.so"):
        got, got_calls = comp_names(scaler, prof, "--component", pattern)
        if got != exact or got_calls != calls:
            bad.append("--component %s: %r, want %r as libc.so.6" % (pattern, got, exact))
    if exact != ["libc.so.6"] or not calls or \
            any("libc.so.6" not in (c["caller"], c["callee"]) for c in calls):
        bad.append("--component libc.so.6: %r, calls %r" % (exact, calls[:2]))
    got, _ = comp_names(scaler, prof, "--component", "lib*")
    if got != libs:
        bad.append("--component 'lib*': %r, want %r" % (got, libs))
    got, _ = comp_names(scaler, prof, "--component", "*.so.6")
    if got != sorted(n for n in every if n.endswith(".so.6")):
        bad.append("--component '*.so.6': %r" % got)
    # text and html say which components they show
    rc, out, err = run([scaler, "report", "-i", prof, "--component", "libc"])
    if rc != 0 or "component libc.so.6 only" not in out or "CALLS FROM libc.so.6" not in out:
        bad.append("text --component libc: exit %d, %r" % (rc, out[:300]))
    bad += html_selection(scaler, prof, "lib*", libs)
    bad += html_selection(scaler, prof, "libc", ["libc.so.6"])
    # no match: an error that lists the components, not an empty report
    for pattern in ("nosuch", "zz*"):
        rc, out, err = run([scaler, "report", "-i", prof, "--component", pattern])
        bad += ["--component %s: %s" % (pattern, b)
                for b in usage_error(rc, out, err, "no component matches '%s'" % pattern)]
        if "libc.so.6" not in err:
            bad.append("--component %s: the error does not list the components: %r" % (pattern, err))
    return bad


def check_output_dash(scaler, prof, tmp):
    bad = []
    for fmt in ("text", "json", "csv", "html"):
        _, plain, _ = run([scaler, "report", "-i", prof, "--format", fmt])
        # (run() decodes without translating newlines: CSV keeps its \r\n)
        rc, dash, err = run([scaler, "report", "-i", prof, "--format", fmt, "-o", "-"], cwd=tmp)
        path = os.path.join(tmp, "out." + fmt)
        rc2, none, err2 = run([scaler, "report", "-i", prof, "--format=" + fmt, "--output=" + path])
        with open(path, newline="") as f:
            written = f.read()
        if rc or rc2 or err or err2 or none or not plain or dash != plain or written != plain:
            bad.append("%s: -o - / -o FILE differ from stdout (exit %d %d, %r)" % (fmt, rc, rc2, err + err2))
    if os.path.exists(os.path.join(tmp, "-")):
        bad.append("-o - wrote a file called '-'")
    return bad


def checks(t):
    prof = []

    def profile():
        if not prof:
            prof.append(record_profile(t.scaler, t.tmp))
        return prof[0]
    guarded("cli-component-match", None, lambda: check_component(t.scaler, profile()))
    guarded("cli-output-dash", None, lambda: check_output_dash(t.scaler, profile(), t.tmp))
