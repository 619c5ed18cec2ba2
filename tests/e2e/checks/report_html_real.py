"""report_html_real.py - the HTML reports of two real programs, sqlite3
(tests/e2e/real/sqlite_workload.sql) and python3 (py_workload.py), in
headless chromium at 900, 1440 and 2560 px, light and dark, with and
without JavaScript: the same layout facts as report_html_browser.py
(html_layout.py) on real names (libsqlite3.so.0, long mangled APIs) and
many rows, which the small e2e programs do not have. Screenshots in the
build directory's report-html-real/. Check: report-html-real (SKIP without
chromium, sqlite3 or python3)."""
import os
import shutil

import browser
import html_layout
from harness import HERE, guarded, run, skip

MODE = "real"


def check_report_real(t):
    chromium, sq, py = browser.find_chromium(), shutil.which("sqlite3"), shutil.which("python3")
    if not chromium or not sq or not py:
        return skip("report-html-real", "needs chromium, sqlite3 and python3")
    outdir = os.path.join(os.path.dirname(os.path.dirname(t.scaler)), "report-html-real")

    def one():
        workloads = {
            "sqlite3": ([sq, ":memory:"], os.path.join(HERE, "real", "sqlite_workload.sql")),
            "python3": ([py, os.path.join(HERE, "real", "py_workload.py")], None),
        }
        profiles, bad = {}, []
        for name, (argv, stdin) in workloads.items():
            prof = os.path.join(t.tmp, name + ".data")
            rc, _, err = run([t.scaler, "record", "-o", prof, "--"] + argv, cwd=t.tmp, stdin=stdin)
            if rc != 0:
                bad.append("%s under scaler exited %d: %s" % (name, rc, err[-200:]))
            profiles[name] = prof
        return bad or html_layout.check_profiles(chromium, t.scaler, profiles, t.tmp, outdir)
    guarded("report-html-real", None, one)


def checks(t):
    check_report_real(t)
