"""report_json_doc.py - doc/report.md's JSON schema against the JSON
report of real profiles (sc_fork: processes; sc_imbalance: threads and
groups; sc_basic recorded with --interval: the series; sc_functions
recorded with --functions: a function's row; sc_args kinds recorded with
--args: the values, locks and errors): every key the report writes is in the schema's tables (an
object's members named in its row's meaning), and every key of the tables
is written. Check: report-json-doc (lazy)."""
import os
import re

from harness import ROOT, guarded, report_json_of, run

MODE = "e2e"
VARIANTS = ("lazy",)


def schema_keys():
    with open(os.path.join(ROOT, "doc", "report.md")) as f:
        text = f.read().split("\n## JSON", 1)[1]
    keys = set()
    for line in text.splitlines():
        m = re.match(r"\| ((?:`[a-z_0-9]+`(?:, )?)+) \| ([^|]*) \| (.*) \|$", line)
        if m:
            keys |= set(re.findall(r"`([a-z_0-9]+)`", m.group(1)))
            if "object" in m.group(2):      # its members are named in the meaning
                keys |= set(re.findall(r"`([a-z_0-9]+)`", m.group(3))) - {"null"}
    return keys


def report_keys(o, keys):
    if isinstance(o, dict):
        for k, v in o.items():
            keys.add(k)
            if k != "errors":       # its keys are errno names
                report_keys(v, keys)
    elif isinstance(o, list):
        for v in o:
            report_keys(v, keys)
    return keys


def check_json_doc(t):
    documented, written = schema_keys(), set()
    for prog in ("fork", "imbalance"):
        report_keys(report_json_of(t.scaler, t.profile(prog)), written)
    series = os.path.join(t.top, "profile-json-doc-series")
    rc, _, err = run([t.scaler, "record", "--interval", "20", "-o", series, "--",
                      t.exe("basic")])
    if rc != 0:
        return ["record --interval exited %d: %s" % (rc, err[-200:])]
    report_keys(report_json_of(t.scaler, series), written)
    funcs = os.path.join(t.top, "profile-json-doc-functions")
    rc, _, err = run([t.scaler, "record", "--functions=_ZN2sc*", "-o", funcs, "--",
                      t.exe("functions")])
    if rc != 0:
        return ["record --functions exited %d: %s" % (rc, err[-200:])]
    report_keys(report_json_of(t.scaler, funcs), written)
    args = os.path.join(t.top, "profile-json-doc-args")
    rc, _, err = run([t.scaler, "record", "--args", "-o", args, "--", t.exe("args"), "kinds"])
    if rc != 0:
        return ["record --args exited %d: %s" % (rc, err[-200:])]
    report_keys(report_json_of(t.scaler, args), written)
    bad = ["the report writes %r, doc/report.md's schema lacks it" % k
           for k in sorted(written - documented)]
    bad += ["doc/report.md's schema has %r, the report never writes it" % k
            for k in sorted(documented - written)]
    return bad


def checks(t):
    guarded("report-json-doc", t.variant, lambda: check_json_doc(t))
