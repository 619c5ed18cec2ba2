"""record_status.py - exit statuses: scaler record exits with its command's
status (its own, by a signal, forwarded SIGTERM), and the report holds
every recorded process's status. Checks: record-exit-status,
report-child-exit-status, report-signal-status, record-sigterm,
record-forwards-sigterm."""
import json
import os
import signal
import subprocess
import sys

from harness import guarded, record_json, run

MODE = "real"


def exit3(scaler, tmp):
    rc, _, err = run([scaler, "record", "-o", os.path.join(tmp, "e3"), "--",
                      "sh", "-c", "exit 3"])
    return [] if rc == 3 else ["scaler record exited %d, want 3 (%s)" % (rc, err[-200:])]


def statuses(scaler, tmp, name, script, want):
    # the exit status of every process recorded under `sh -c script`
    bad, d = record_json(scaler, os.path.join(tmp, name), ["sh", "-c", script])
    if bad:
        return bad
    got = sorted(p["exit_status"] for p in d["processes"])
    # a set: these must be among them (python3 may run through shims)
    ok = want <= set(got) if isinstance(want, set) else got == want
    return [] if ok else ["exit statuses %r, want %r" % (got, want)]


def sigterm(scaler, tmp):
    rc, _, err = run([scaler, "record", "-o", os.path.join(tmp, "st"), "--",
                      "sh", "-c", "kill -TERM $$; sleep 5"])
    return [] if rc == 143 else ["scaler record exited %d, want 143 (%s)" % (rc, err[-200:])]


def forward(scaler, tmp):
    # a signal sent to `scaler record` reaches the command (servers are
    # stopped that way), whose own handler decides the exit status
    out = os.path.join(tmp, "fw")
    prog = ("import signal, sys, time\n"
            "signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))\n"
            "print('ready', flush=True)\n"
            "time.sleep(30)\n")
    p = subprocess.Popen([scaler, "record", "-o", out, "--", sys.executable, "-c", prog],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True)
    try:
        line = p.stdout.readline()
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        return ["scaler record did not end within 15 s of SIGTERM"]
    finally:
        try:        # whatever is left of the group (the command, if
            os.killpg(p.pid, signal.SIGKILL)   # the signal was lost)
        except OSError:
            pass
    bad = [] if line == b"ready\n" else ["program printed %r" % line]
    if rc != 7:
        bad.append("scaler record exited %d, want the program's 7" % rc)
    rc2, rep, _ = run([scaler, "report", "-i", out, "--format", "json"])
    st = [q["exit_status"] for q in json.loads(rep)["processes"]] if rc2 == 0 else None
    if not st or st[0] != 7:
        bad.append("report exit statuses %r, want 7 first" % st)
    return bad


def checks(t):
    guarded("record-exit-status", None, lambda: exit3(t.scaler, t.tmp))
    # a grandchild's exit() status and an _exit() status reach the report
    guarded("report-child-exit-status", None, lambda: statuses(
        t.scaler, t.tmp, "cs",
        "sh -c 'exit 5'; python3 -c 'import os; os._exit(7)'; exit 0", {0, 5, 7}))
    # children ended by SIGTERM / SIGSEGV: the runtime records the end (its
    # handler then lets the default action happen unchanged)
    guarded("report-signal-status", None, lambda: statuses(
        t.scaler, t.tmp, "ss",
        "perl -e 'kill q(TERM), $$; sleep 2'; perl -e 'kill q(SEGV), $$; sleep 2'; exit 0",
        [0, 128 + 11, 128 + 15]))
    guarded("record-sigterm", None, lambda: sigterm(t.scaler, t.tmp))
    guarded("record-forwards-sigterm", None, lambda: forward(t.scaler, t.tmp))
