"""report_work_wait.py - blocked time is never shown as a library's work
(issue 19): a shell pipeline whose processes mostly block (sh in waitpid,
sleep in nanosleep, cat in read) spends libc's self time blocked. The JSON
splits each component's self time into work_ns and self_wait_ns (exactly),
libc's is mostly Wait, the text's component view shows libc's Wait in its
own column, larger than its work, and the self times add up in every
process (sums.py). Check: report-work-wait."""
import os
import re

from harness import guarded, record_json, report_cmd
from sums import check_sums

MODE = "real"

UNITS = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}


def ns_of(text):
    m = re.fullmatch(r"([\d.,]+) (ns|µs|ms|s)", text.strip())
    return float(m.group(1).replace(",", "")) * UNITS[m.group(2)] if m else None


def work_wait(scaler, tmp):
    prof = os.path.join(tmp, "pipe")
    bad, d = record_json(scaler, prof, ["sh", "-c", "sleep 0.2; echo x | cat >/dev/null"])
    if bad:
        return bad
    bad += check_sums(d)
    for c in d["components"]:
        if c.get("work_ns", -1) + c.get("self_wait_ns", -1) != c["self_ns"]:
            bad.append("%s: work_ns %r + self_wait_ns %r != self_ns %d"
                       % (c["name"], c.get("work_ns"), c.get("self_wait_ns"), c["self_ns"]))
    libc = [c for c in d["components"] if c["name"] == "libc.so.6"]
    if not libc or libc[0]["self_ns"] < 150e6:
        return bad + ["libc's self time %r, want the 200 ms of sleep and more"
                      % (libc[0]["self_ns"] if libc else None)]
    if libc[0].get("self_wait_ns", 0) < 0.8 * libc[0]["self_ns"]:
        bad.append("libc: self_wait_ns %r of self %d, want most of it"
                   % (libc[0].get("self_wait_ns"), libc[0]["self_ns"]))
    rc, text, err = report_cmd(scaler, prof)
    head = [ln for ln in text.splitlines() if ln.strip().startswith("component")]
    row = [ln for ln in text.splitlines() if ln.startswith("  libc.so.6 ")]
    if rc != 0 or not head or not row:
        return bad + ["text report (exit %d): no header or libc row" % rc]
    if head[0].split()[1:6] != ["total", "%", "work", "%", "Wait"]:
        bad.append("component view columns %r" % head[0].split())
    cells = re.findall(r"[\d.,]+ (?:ns|µs|ms|s)\b|-", row[0][2 + len("libc.so.6"):])
    work, wait = (ns_of(cells[1]), ns_of(cells[2])) if len(cells) >= 3 else (None, None)
    if work is None or wait is None or not wait > work:
        bad.append("libc row %r: want its Wait over its work" % row[0])
    return bad


def checks(t):
    guarded("report-work-wait", None, lambda: work_wait(t.scaler, t.tmp))
