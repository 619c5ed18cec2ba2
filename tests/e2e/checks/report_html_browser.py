"""report_html_browser.py - the HTML reports of sc_nest, sc_imbalance and
sc_fork in headless chromium at 900, 1440 and 2560 px, light and dark,
with and without JavaScript: the layout's key facts measured in the page
(html_layout.py); screenshots in the build directory's report-html/.
Check: report-html-browser (lazy; SKIP without chromium)."""
import os

import browser
import html_layout
from harness import guarded, skip

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
        return html_layout.check_profiles(chromium, t.scaler, {
            name: t.profile(name) for name in ("nest", "imbalance", "fork")}, t.tmp, outdir)
    guarded("report-html-browser", None, one)


def checks(t):
    check_report_browser(t)
