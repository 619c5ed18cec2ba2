"""report_html_escaping.py - a component whose name has markup characters,
in the HTML, CSV and JSON reports and --component. Check:
report-html-escaping (lazy)."""
import csv
import io
import os

from harness import guarded, record_json, report_cmd, run
from htmlpage import parse_html

MODE = "e2e"
VARIANTS = ("lazy",)


def check_report_escaping(scaler, tmp):
    """A component whose name has markup characters: escaped in HTML,
    quoted in CSV, listed by name in JSON."""
    d = os.path.join(tmp, "esc")
    os.mkdir(d)
    name = 'lib<b>&"q,x.so'
    with open(os.path.join(d, "l.c"), "w") as f:
        f.write("int esc_fn(int x) { return x + 1; }\n")
    with open(os.path.join(d, "m.c"), "w") as f:
        f.write("int esc_fn(int);\nint main(void) { int s = 0;"
                " for (int i = 0; i < 100; i++) s = esc_fn(s); return s == 100 ? 0 : 1; }\n")
    cc = os.environ.get("CC", "gcc")
    lib = os.path.join(d, name)
    for argv in ([cc, "-shared", "-fPIC", "-o", lib, os.path.join(d, "l.c"),
                  "-Xlinker", "-soname", "-Xlinker", name],
                 [cc, "-o", os.path.join(d, "m"), os.path.join(d, "m.c"), lib,
                  "-Wl,-rpath," + d]):
        rc, _, err = run(argv)
        if rc != 0:
            return ["%s: %s" % (" ".join(argv[:2]), err.decode(errors="replace")[-200:])]
    prof = os.path.join(d, "prof")
    bad, rep = record_json(scaler, prof, [os.path.join(d, "m")])
    if bad:
        return bad
    if name not in [c["name"] for c in rep["components"]]:
        return ["no component %r in %r" % (name, [c["name"] for c in rep["components"]])]
    rc, page, _ = report_cmd(scaler, prof, "--format", "html")
    h = parse_html(page)
    if h.errors or name not in h.alltext or "<b>" in page:
        bad.append("html: errors %r, name shown %s, raw '<b>' %s" % (h.errors[:3], name in h.alltext, "<b>" in page))
    rc, out, _ = report_cmd(scaler, prof, "--format", "csv")
    rows = [r for r in csv.DictReader(io.StringIO(out, newline="")) if r["api"] == "esc_fn"]
    if len(rows) != 1 or rows[0]["callee"] != name or rows[0]["count"] != "100":
        bad.append("csv rows for esc_fn: %r" % rows)
    rc, _, err = report_cmd(scaler, prof, "--component", name)
    if rc != 0:
        bad.append("--component %r exited %d: %s" % (name, rc, err))
    return bad


def checks(t):
    guarded("report-html-escaping", t.variant, lambda: check_report_escaping(t.scaler, t.tmp))
