"""series.py - `scaler record --interval MS`: calls over time, sampled by
scaler record while sc_live pauses 250 ms between its phases.

series-phases: the running sum of b_mul's calls per interval passes
through exactly 1000, 3500 and 7200 (every pause is seen, the last
sample has every call), no interval is negative, the samples' times
grow, and the program's output is that of a native run; the chrome
export's counter tracks (calls/s, time ms/s) add up to the same calls;
the HTML report's "Over time" charts have a line per busy API.
series-ring: with --interval-slots 4 the file has the size fixed at the
start (256 keys by 4 slots), older samples are dropped and the 3 newest
intervals listed; a profile directory holding a series is still one
that the next record moves aside; a series cut short is refused by the
report in one line. Checks: series-phases, series-ring
(lazy)."""
import json
import re
import os
import shutil
import signal
import struct
import subprocess
import tempfile
import time

from harness import TIMEOUT, guarded, run
from htmlpage import parse_html

MODE = "e2e"
VARIANTS = ("lazy",)


def record_paced(t, out, *opts):
    """sc_live under record --interval, a line every 250 ms on its stdin."""
    with tempfile.TemporaryFile() as o, tempfile.TemporaryFile() as e:
        p = subprocess.Popen([t.scaler, "record", "-o", out] + list(opts) +
                             ["--", t.exe("live")], stdin=subprocess.PIPE, stdout=o,
                             stderr=e, start_new_session=True)
        try:
            for _ in range(3):
                time.sleep(0.25)
                p.stdin.write(b"go\n")
                p.stdin.flush()
            p.stdin.close()
            p.wait(timeout=TIMEOUT)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        o.seek(0)
        e.seek(0)
        return p.returncode, o.read(), e.read()


def series_of(t, d):
    rc, out, err = run([t.scaler, "report", "-i", d, "--format", "json"])
    if rc != 0:
        raise RuntimeError("report exited %d: %s" % (rc, err[-200:]))
    return json.loads(out).get("series")


def check_phases(t):
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    try:
        d = os.path.join(tmp, "d")
        rc, out, err = record_paced(t, d, "--interval", "20")
        bad = [] if rc == 0 else ["record exited %d: %s" % (rc, err[-200:])]
        feed = os.path.join(tmp, "feed")
        with open(feed, "w") as f:
            f.write("go\n" * 3)
        nrc, nout, _ = run([t.exe("live")], stdin=feed)
        if nout != out:
            bad.append("output under scaler %r, without %r" % (out, nout))
        s = series_of(t, d)
        if not s:
            return bad + ["no series in the report"]
        if s["interval_ns"] != 20000000 or s["dropped"] != 0:
            bad.append("interval_ns %r, dropped %r" % (s["interval_ns"], s["dropped"]))
        k = [i for i, key in enumerate(s["keys"]) if key == ["sc_live", "libsc_b.so", "b_mul"]]
        if len(k) != 1:
            return bad + ["keys %r" % s["keys"]]
        sums, total = [], 0
        for row in s["calls"]:
            total += row[k[0]]
            sums.append(total)
        for want in (1000, 3500, 7200):
            if want not in sums:
                bad.append("b_mul's running sum never %d: %r" % (want, sorted(set(sums))))
        if sums[-1] != 7200:
            bad.append("b_mul's calls in all intervals %d, want 7200" % sums[-1])
        if any(x < 0 for row in s["calls"] + s["ns"] for x in row):
            bad.append("a negative interval")
        if any(b <= a for a, b in zip(s["t_ns"], s["t_ns"][1:])) or len(s["t_ns"]) < 10:
            bad.append("sample times %r" % s["t_ns"][:12])
        return bad + check_chrome(t, d, s) + check_html(t, d, s, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_chrome(t, d, s):
    """--format chrome: a "calls/s" and a "time ms/s" counter per sample,
    on the root process, in time order; b_mul's rates times the
    intervals make its 7200 calls (rates have three decimals)."""
    rc, out, err = run([t.scaler, "report", "-i", d, "--format", "chrome"])
    if rc != 0:
        return ["chrome export exited %d: %s" % (rc, err[-200:])]
    ev = [e for e in json.loads(out)["traceEvents"] if e["ph"] == "C"]
    rates = [e for e in ev if e["name"] == "calls/s"]
    times = [e for e in ev if e["name"] == "time ms/s"]
    if len(rates) != len(s["t_ns"]) or len(times) != len(rates):
        return ["%d calls/s and %d time counters for %d samples" %
                (len(rates), len(times), len(s["t_ns"]))]
    bad = []
    ts = [e["ts"] for e in rates]
    if ts != sorted(ts) or ts[0] < 0 or len({e["pid"] for e in ev}) != 1:
        bad.append("counter times or pids: %r" % [(e["ts"], e["pid"]) for e in rates[:4]])
    key = "sc_live -> libsc_b.so:b_mul"
    ends = s["t_ns"]
    total = sum(e["args"][key] * (b - a) / 1e9
                for e, a, b in zip(rates, [0] + ends[:-1], ends))
    if abs(total - 7200) > 1:
        bad.append("b_mul's rates make %.3f calls, want 7200" % total)
    return bad


def check_html(t, d, s, tmp):
    """--format html: an "Over time" section, well-formed, with a line per
    busy API in each of its two charts; b_mul's has a point per sample
    and, busiest of all, reaches the top of the calls chart."""
    out = os.path.join(tmp, "r.html")
    rc, _, err = run([t.scaler, "report", "-i", d, "--format", "html", "-o", out])
    if rc != 0:
        return ["html exited %d: %s" % (rc, err[-200:])]
    page = open(out, encoding="utf-8").read()
    h = parse_html(page)
    bad = list(h.errors[:3])
    if not {"series", "series-calls", "series-time"} <= set(h.ids):
        return bad + ["no series section or charts"]
    busy = sum(1 for k in range(len(s["keys"])) if any(row[k] for row in s["calls"]))
    charts = re.findall(r'<svg class="series" id="series-(\w+)".*?</svg>', page, re.S)
    lines = re.findall(r'<polyline[^>]*points="([^"]*)"><title>([^<]*)</title>', page)
    if len(charts) != 2 or len(lines) != 2 * min(8, busy):
        bad.append("%d charts, %d lines for %d busy APIs" % (len(charts), len(lines), busy))
    b_mul = [pts.split() for pts, api in lines if api == "b_mul"]
    if len(b_mul) != 2 or len(b_mul[0]) != len(s["t_ns"]) or \
            min(float(p.split(",")[1]) for p in b_mul[0]) != 4.0:
        bad.append("b_mul's line %r" % (b_mul[:1],))
    return bad


def check_ring(t):
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    try:
        d = os.path.join(tmp, "d")
        rc, _, err = record_paced(t, d, "--interval", "10", "--interval-slots", "4")
        bad = [] if rc == 0 else ["record exited %d: %s" % (rc, err[-200:])]
        path = os.path.join(d, "series")
        # header 64, 256 keys of 256 bytes, 4 slots of 16 + 256 cells of 16
        want = 64 + 256 * 256 + 4 * (16 + 256 * 16)
        if os.path.getsize(path) != want:
            bad.append("series is %d bytes, want %d" % (os.path.getsize(path), want))
        with open(path, "rb") as f:
            nsamples = struct.unpack_from("<Q", f.read(64), 32)[0]
        s = series_of(t, d)
        if len(s["t_ns"]) != 3 or s["dropped"] != nsamples - 3 or nsamples < 20:
            bad.append("%d samples listed, %d dropped, %d written" %
                       (len(s["t_ns"]), s["dropped"], nsamples))
        rc, _, err = run([t.scaler, "record", "-o", d, "--", "true"])
        if rc != 0 or not os.path.exists(os.path.join(d + ".old", "series")):
            bad.append("a second record into the directory: exit %d, %s" % (rc, err[-200:]))
        old = os.path.join(d + ".old", "series")
        os.truncate(old, 1000)          # the keys cut short
        rc, _, err = run([t.scaler, "report", "-i", d + ".old", "--format", "json"])
        if rc != 1 or err.decode().count("\n") != 1 or old.encode() not in err:
            bad.append("a cut series: report exit %d, %r" % (rc, err))
        return bad
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def checks(t):
    guarded("series-phases", t.variant, lambda: check_phases(t))
    guarded("series-ring", t.variant, lambda: check_ring(t))
