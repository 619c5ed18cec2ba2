"""report_html.py - the HTML report of sc_imbalance's profile: well-formed,
offline (nothing it could fetch), every component and API of the JSON in
it, the flame graph and the tables. Check: report-html
(lazy)."""
import os
import re

from harness import guarded, report_cmd, report_json_of
from htmlpage import parse_html

MODE = "e2e"
VARIANTS = ("lazy",)


def check_report_html(scaler, prof, tmp):
    """Well-formed, offline, every component and API of the JSON in it."""
    out = os.path.join(tmp, "report.html")
    rc, sout, err = report_cmd(scaler, prof, "--format", "html", "-o", out)
    if rc != 0:
        return ["html exited %d: %s" % (rc, err[:200])]
    page = open(out, encoding="utf-8").read()
    h = parse_html(page)
    bad = list(h.errors[:5])
    d = report_json_of(scaler, prof)
    for c in d["components"]:
        if c["name"] not in h.alltext:
            bad.append("component %r not in the page" % c["name"])
    for c in d["calls"]:
        if c["api"] not in h.titles:
            bad.append("api %r not in the page" % c["api"])
    for i in ("flame-graph", "component-chart", "component-table", "call-table", "group-chart",
              "thread-table", "process-table"):
        if i not in h.ids:
            bad.append("no #%s" % i)
    for fetch in ("url(", "@import", "fetch(", "XMLHttpRequest", "import(", "<link", "<iframe"):
        if fetch in page:
            bad.append("the page may fetch: %r" % fetch)
    if re.search(r"https?://(?!www\.w3\.org/2000/svg\")", page):
        bad.append("a URL in the page: %r" % re.search(r"https?://\S*", page).group(0))
    if h.scripts != 1 or not page.lstrip().startswith("<!DOCTYPE html>"):
        bad.append("%d scripts / no doctype" % h.scripts)
    if not h.rect_fills:
        bad.append("component chart has no bars")
    if h.frames < 1 + len(d["components"]) // 2:
        bad.append("flame graph has %d frames" % h.frames)
    if "rebalance the stages" not in h.alltext:
        bad.append("no imbalance explanation")
    return bad


def checks(t):
    guarded("report-html", t.variant,
            lambda: check_report_html(t.scaler, t.profile("imbalance"), t.tmp))
