"""report_text.py - the text report of sc_imbalance's profile: --threads and
its imbalance sentence, width, colour (--color, NO_COLOR, a terminal), -o.
Check: report-text (lazy)."""
import os
import pty
import subprocess

from harness import TIMEOUT, guarded, report_cmd, report_json_of

MODE = "e2e"
VARIANTS = ("lazy",)


def check_report_text(scaler, prof, tmp):
    """--threads, colour, -o, 120 columns."""
    full = report_json_of(scaler, prof)
    groups = sorted((g["effective_ns"] / g["threads"], g["start_routine"])
                    for g in full["thread_groups"] if g["start_routine"] != "main")
    routine_fast, routine_slow = groups[0][1], groups[-1][1]
    bad = []
    rc, text, err = report_cmd(scaler, prof, "--threads")
    if rc != 0:
        return ["--threads exited %d: %s" % (rc, err[:200])]
    flat = " ".join(text.split())
    for want in ("THREADS (effective", "THREAD GROUPS", "threads of %s finish their work in half "
                 "the time of %s's" % (routine_fast, routine_slow), "rebalance the stages"):
        if want not in flat:
            bad.append("--threads text lacks %r" % want)
    wide = [ln for ln in text.splitlines() if len(ln) > 130]
    if wide:
        bad.append("%d lines over 130 columns, e.g. %r" % (len(wide), wide[0]))
    if "\x1b[" in text:
        bad.append("colour escapes in output to a pipe")
    env = dict(os.environ, NO_COLOR="1")
    if "\x1b[" not in report_cmd(scaler, prof, "--color=always", env=env)[1]:
        bad.append("--color=always has no colour")
    if "\x1b[" in report_cmd(scaler, prof, "--color=never")[1]:
        bad.append("--color=never has colour")
    # auto: colour on a terminal, unless NO_COLOR is set
    for no_color, want in ((None, True), ("1", False)):
        e = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
        if no_color:
            e["NO_COLOR"] = no_color
        master, slave = pty.openpty()
        p = subprocess.Popen([scaler, "report", "-i", prof], stdout=slave,
                             stderr=subprocess.DEVNULL, env=e)
        os.close(slave)
        chunks = []
        while True:
            try:
                b = os.read(master, 65536)
            except OSError:
                break
            if not b:
                break
            chunks.append(b)
        p.wait(timeout=TIMEOUT)
        os.close(master)
        got = b"\x1b[" in b"".join(chunks)
        if got != want:
            bad.append("on a terminal with NO_COLOR=%r: colour %s" % (no_color, got))
    # -o FILE: the same bytes, nothing on stdout
    out = os.path.join(tmp, "out.txt")
    rc, sout, _ = report_cmd(scaler, prof, "--threads", "-o", out)
    if rc != 0 or sout or open(out, encoding="utf-8").read() != text:
        bad.append("-o FILE: exit %d, stdout %r, file differs" % (rc, sout[:80]))
    return bad


def checks(t):
    guarded("report-text", t.variant, lambda: check_report_text(
        t.scaler, t.profile("imbalance"), t.tmp))
