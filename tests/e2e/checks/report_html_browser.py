"""report_html_browser.py - the HTML report of sc_imbalance's profile in
headless chromium: its script sorts a table, the screenshot has the
chart's colours. Check: report-html-browser (lazy; SKIP without chromium)."""
import os
import re
import shutil
import tempfile

from harness import guarded, report_cmd, run, skip
from htmlpage import parse_html, png_pixels

MODE = "e2e"
VARIANTS = ("lazy",)


def check_report_browser(scaler, profile, tmp):
    """Renders the page in headless chromium: the script ran (dump-dom) and
    the screenshot has the chart's colours."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return skip("report-html-browser", "chromium not installed")

    def one():
        html_path = os.path.join(tmp, "report.html")
        rc, _, err = report_cmd(scaler, profile("imbalance"), "--format", "html", "-o", html_path)
        if rc != 0:
            return ["html exited %d: %s" % (rc, err[:200])]
        h = parse_html(open(html_path, encoding="utf-8").read())
        base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--window-size=1280,2000"]
        url = "file://" + html_path
        # a copy of the page that clicks the thread table's "wall" header:
        # the rows must come back sorted by wall time, longest first
        clicked = os.path.join(tmp, "clicked.html")
        page = open(html_path, encoding="utf-8").read()
        with open(clicked, "w", encoding="utf-8") as f:
            f.write(page.replace("</body>", "<script>document.querySelector("
                                 "'#thread-table thead th:nth-child(5)').click();</script></body>"))
        rc, dom, err = run(base + ["--user-data-dir=" + tempfile.mkdtemp(dir=tmp),
                                   "--dump-dom", "file://" + clicked], timeout=120)
        bad = []
        dom = dom.decode(errors="replace")
        if rc != 0 or 'data-sortable="ready"' not in dom:
            bad.append("dump-dom: exit %d, no data-sortable marker (%s)" % (rc, err[-200:]))
        table = re.search(r'<table[^>]*id="thread-table".*?</table>', dom, re.S)
        walls = [float(re.findall(r'data-v="([^"]*)"', row)[2])
                 for row in re.findall(r"<tr>(.*?)</tr>", table.group(0) if table else "", re.S)
                 if row.count("data-v") >= 3]
        if len(walls) < 2 or walls != sorted(walls, reverse=True) or \
                'aria-sort="descending"' not in dom:
            bad.append("clicking 'wall' did not sort the threads: %r" % walls)
        png = os.path.join(tmp, "report.png")
        rc, _, err = run(base + ["--user-data-dir=" + tempfile.mkdtemp(dir=tmp),
                                 "--screenshot=" + png, url], timeout=120)
        if rc != 0 or not os.path.exists(png):
            return bad + ["screenshot: exit %d: %s" % (rc, err[-200:])]
        w, hh, ch, px = png_pixels(png)
        counts = {}
        for i in range(0, len(px), ch * 2):   # every other pixel is plenty
            k = px[i:i + 3]
            counts[k] = counts.get(k, 0) + 1
        for fill in sorted(set(h.rect_fills)):
            rgb = bytes.fromhex(fill.lstrip("#"))
            if counts.get(rgb, 0) < 20:
                bad.append("chart colour %s: %d pixels in the %dx%d screenshot" %
                           (fill, counts.get(rgb, 0), w, hh))
        white = counts.get(b"\xff\xff\xff", 0) * 2
        if white > 0.995 * w * hh:
            bad.append("screenshot is blank")
        return bad
    guarded("report-html-browser", None, one)


def checks(t):
    check_report_browser(t.scaler, t.profile, t.tmp)
