"""live.py - `scaler live` on a running program (sc_live, which waits for a
line on stdin between phases of known calls).

live-once: at each pause, `live --once --format json` has exactly the
b_mul calls made so far (1000, 3500 with a thread, 7200 with a child
process) and no count smaller than at the previous pause; at the last
pause its calls equal `scaler report --format json`'s, `-p` with the
program's pid or scaler record's finds the same profile, and the text
snapshot has the b_mul row; the program's output is that of a native run.
live-pid-owner: -p on another user's process is refused in one line.
live-screen: the full-screen view under tmux: rows appear, a sort key
reorders them, c shows component pairs, p picks each process and back to
all, a resize redraws at the new width, q exits 0 and the
terminal is back in its normal mode. Checks: live-once, live-pid-owner,
live-screen (lazy)."""
import json
import os
import shutil
import tempfile
import time

from harness import guarded, run, skip
from running import Running, as_nobody

MODE = "e2e"
VARIANTS = ("lazy",)
PHASES = {1: 1000, 2: 3500, 3: 7200}


def live_json(t, *args):
    rc, out, err = run([t.scaler, "live", "--once", "--format", "json"] + list(args))
    if rc != 0:
        raise RuntimeError("live %s exited %d: %s" % (" ".join(args), rc, err[-300:]))
    return json.loads(out)


def counts(calls):
    return {(c["caller"], c["callee"], c["api"]): c["count"] for c in calls}


def check_once(t):
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "live")
    bad, before = [], {}
    try:
        for k, want in sorted(PHASES.items()):
            r.wait_phase(k)
            snap = live_json(t, "-i", d)
            now = counts(snap["calls"])
            got = sum(n for key, n in now.items() if key[2] == "b_mul")
            if got != want:
                bad.append("phase %d: %d b_mul calls, want %d" % (k, got, want))
            less = [key for key, n in before.items() if now.get(key, 0) < n]
            if less:
                bad.append("phase %d: counts went down: %r" % (k, less[:3]))
            before = now
            if k == 3:
                bad += same_state(t, d, snap, r.p.pid)
            if k < 3:
                r.go()
        return bad + r.end(tmp, 3)
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def same_state(t, d, snap, record_pid):
    """At the last pause: the report's calls, -p and the text agree."""
    bad = []
    rc, out, err = run([t.scaler, "report", "-i", d, "--format", "json"])
    rep = json.loads(out)
    if snap["calls"] != rep["calls"]:
        bad.append("live --once calls differ from the report's: %r vs %r"
                   % (snap["calls"][:2], rep["calls"][:2]))
    if [p["running"] for p in snap["processes"]] != [True, False]:
        bad.append("processes %r: want the program running, its child ended" % snap["processes"])
    root = [p["pid"] for p in snap["processes"] if p["running"]][0]
    for pid in (root, record_pid):
        viap = live_json(t, "-p", str(pid))
        if counts(viap["calls"]) != counts(rep["calls"]):
            bad.append("live -p %d: calls differ from the report's" % pid)
    rc, out, err = run([t.scaler, "live", "--once", "-i", d])
    rows = [l for l in out.decode().splitlines() if "libsc_b.so  b_mul" in l]
    if rc != 0 or len(rows) != 1 or "7,200" not in rows[0].split():
        bad.append("text snapshot (exit %d): b_mul rows %r" % (rc, rows))
    return bad


def check_owner(t):
    if os.geteuid() != 0:
        return skip("live-pid-owner", "not root")
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "live")
    try:
        r.wait_phase(1)

        try:
            p = as_nobody([t.scaler, "live", "--once", "-p", str(r.p.pid)])
        except PermissionError:
            return skip("live-pid-owner", "scaler is not executable by nobody")
        err = p.stderr.decode()
        if p.returncode != 1 or "belongs to user root" not in err or len(err.splitlines()) != 1:
            return ["as nobody: exit %d, %r" % (p.returncode, err)]
        return []
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


class Tmux:
    """A tmux server of our own (-L) with one window of cols x rows."""

    def __init__(self, tmp, cmd, cols, rows):
        self.sock = "scaler-live-%d" % os.getpid()
        self.base = ["tmux", "-L", self.sock, "-f", "/dev/null"]
        self.tmux("new-session", "-d", "-x", str(cols), "-y", str(rows), cmd)

    def tmux(self, *args):
        rc, out, err = run(self.base + list(args), timeout=20)
        if rc != 0:
            raise RuntimeError("tmux %s: %s" % (args[0], err.decode(errors="replace")))
        return out.decode(errors="replace")

    def pane(self):
        return self.tmux("capture-pane", "-p").splitlines()

    def wait_for(self, pred, what, limit=15):
        """The pane once pred holds and it is the same 0.1 s later (a frame
        may be caught half drawn)."""
        end, last = time.time() + limit, None
        while time.time() < end:
            lines = self.pane()
            if pred(lines) and lines == last:
                return lines
            last = lines
            time.sleep(0.1)
        raise RuntimeError("tmux: %s never showed; pane: %r" % (what, self.pane()[:8]))

    def close(self):
        run(self.base + ["kill-server"], timeout=20)


UNITS = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}


def table(lines):
    """The table rows under the column titles: (api, total ns) each; the
    total is the fourth number column (11 characters each)."""
    rows = []
    for i, l in enumerate(lines):
        if l.lstrip().startswith("calls/s") and "time/s" in l:
            for row in lines[i + 1:]:
                if not row.strip():
                    break
                num, unit = row[33:44].split()
                rows.append((row.split()[-1], float(num) * UNITS[unit]))
    return rows


def check_screen(t):
    if not shutil.which("tmux"):
        return skip("live-screen", "tmux not installed (Debian: tmux)")
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "live")
    tm = None
    try:
        for k in (1, 2, 3):
            r.wait_phase(k)
            if k < 3:
                r.go()
        cmd = ("%s live -i %s --interval 0.2 --sort calls; echo exit=$?; stty -a; sleep 60"
               % (t.scaler, d))
        tm = Tmux(tmp, cmd, 140, 30)
        lines = tm.wait_for(lambda ls: any("b_mul" in l for l in ls), "the b_mul row")
        bad = []
        by_calls = table(lines)
        if not by_calls or by_calls[0][0] != "b_mul":
            bad.append("sorted by calls, rows %r, want b_mul first" % by_calls[:3])
        tm.tmux("send-keys", "t")
        lines = tm.wait_for(lambda ls: any("sort total" in l for l in ls), "sort total")
        by_total = table(lines)
        totals = [ns for _, ns in by_total]
        if totals != sorted(totals, reverse=True) or by_total[0][0] == "b_mul":
            bad.append("sorted by total, rows %r" % by_total[:4])
        if sorted(by_total) != sorted(by_calls):
            bad.append("the rows changed with the order: %r vs %r" % (by_total, by_calls))
        keys = [l for l in lines if l.startswith("keys:")]
        if not keys or keys[0].endswith("…"):
            bad.append("at 140 columns the keys line is cut: %r" % keys)
        tm.tmux("send-keys", "c")
        lines = tm.wait_for(lambda ls: any("view component" in l for l in ls), "view component")
        pairs = [l.split("  ")[-1].strip() for l in lines[5:] if "→" in l]
        if sorted(pairs) != ["libc.so.6 → ld-linux-x86-64.so.2", "sc_live → libc.so.6",
                             "sc_live → libsc_b.so"]:
            bad.append("component view rows %r" % pairs)
        tm.tmux("send-keys", "a", "p")
        lines = tm.wait_for(lambda ls: any("process " in l and "sc_live" in l for l in ls),
                            "the first process picked")
        # processes are picked in pid order: the child (ended) comes
        # first where its pid wrapped around below its parent's
        child_first = any("processes 1 (0 running)" in l for l in lines)
        if not child_first:
            tm.tmux("send-keys", "p")
            lines = tm.wait_for(lambda ls: any("processes 1 (0 running)" in l for l in ls),
                                "the second process (the child, ended) picked")
        b_mul = [l for l in lines if l.endswith("b_mul")]
        if len(b_mul) != 1 or "700" not in b_mul[0].split():
            bad.append("the child's b_mul row %r, want 700 calls" % b_mul)
        if child_first:
            tm.tmux("send-keys", "p")
            tm.wait_for(lambda ls: any("processes 1 (1 running)" in l for l in ls),
                        "the parent picked after the child")
        tm.tmux("send-keys", "p")
        tm.wait_for(lambda ls: any("process all" in l for l in ls), "back to all processes")
        tm.tmux("resize-window", "-x", "60", "-y", "20")
        lines = tm.wait_for(lambda ls: any(l.startswith("keys:") and l.endswith("…")
                                           for l in ls), "the keys line cut at 60 columns")
        if any(len(l) > 60 for l in lines):
            bad.append("a line wider than 60 columns after the resize")
        tm.tmux("send-keys", "q")
        lines = tm.wait_for(lambda ls: any("icanon" in l for l in ls), "the exit and stty")
        text = " ".join(lines)
        if "exit=0" not in text:
            bad.append("live exited: %r" % [l for l in lines if l.startswith("exit=")])
        if " icanon" not in text or " echo" not in text or "b_mul" in text:
            bad.append("terminal not restored (icanon, echo, main screen): %r" % lines[:6])
        r.go()
        r.finish()
        return bad
    finally:
        if tm:
            tm.close()
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def checks(t):
    guarded("live-once", t.variant, lambda: check_once(t))
    guarded("live-pid-owner", t.variant, lambda: check_owner(t))
    guarded("live-screen", t.variant, lambda: check_screen(t))
