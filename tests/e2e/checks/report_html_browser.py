"""report_html_browser.py - the HTML reports of sc_nest, sc_imbalance and
sc_fork in headless chromium at 900, 1440 and 2560 px, light and dark,
with and without JavaScript: the layout's key facts measured in the page
(html_layout.py); screenshots in the build directory's report-html/.
Check: report-html-browser (lazy; SKIP without chromium)."""
import os

import browser
import html_layout
from harness import guarded, report_cmd, report_json_of, skip

MODE = "e2e"
VARIANTS = ("lazy",)


def check_report_browser(t):
    chromium = browser.find_chromium()
    if not chromium:
        return skip("report-html-browser", "chromium not installed")
    outdir = os.path.join(os.path.dirname(os.path.dirname(t.scaler)), "report-html")

    def one():
        # sc_nest's nesting first (every width and mode, the zoom), then
        # two other programs for the colours
        pages, reports, bad = {}, {}, []
        for name in ("nest", "imbalance", "fork"):
            prof = t.profile(name)
            out = os.path.join(t.tmp, name + ".html")
            rc, _, err = report_cmd(t.scaler, prof, "--format", "html", "-o", out)
            if rc != 0:
                bad.append("html of sc_%s exited %d: %s" % (name, rc, err[:200]))
            pages[name], reports[name] = out, report_json_of(t.scaler, prof)
        if bad:
            return bad
        try:
            return html_layout.check(chromium, pages, outdir, reports)
        except (KeyError, TypeError, IndexError, AttributeError) as e:
            return ["the page lacks what the check measures: %r" % e]
    guarded("report-html-browser", None, one)


def checks(t):
    check_report_browser(t)
