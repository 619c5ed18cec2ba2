"""signals_kept.py - the runtime's handlers for fatal signals (signals.c)
leave a signal the program was started with ignored exactly as it was:
installing ours and putting back what was there is one sigaction and one
system call, not a query first. Checks: record-ignored-signals-kept (the
kernel's SigIgn/SigCgt masks of a profiled process started with SIGHUP and
SIGQUIT ignored, as nohup and shells leave them, are those of the same
process unprofiled but for the signals scaler handles), record-ignored-
signal-ignored (such a process that sends itself SIGHUP lives on, exit
status 0)."""
import os

from harness import guarded, run

MODE = "real"

# what the runtime installs a handler for when the program has left the
# default action (signals.c: fatal[]): bits of the /proc masks
HANDLED = ("TERM", "INT", "HUP", "QUIT", "SEGV", "BUS", "FPE", "ILL", "ABRT")
SIGNUM = {"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "ABRT": 6, "BUS": 7, "FPE": 8,
          "SEGV": 11, "TERM": 15}


def masks(argv):
    # SigIgn and SigCgt of the last process of argv, which prints its
    # /proc/self/status
    rc, out, err = run(argv)
    if rc != 0:
        raise RuntimeError("exit %d: %s" % (rc, err.decode(errors="replace")[-200:]))
    got = {}
    for line in out.decode().splitlines():
        k, _, v = line.partition(":")
        if k in ("SigIgn", "SigCgt"):
            got[k] = int(v.strip(), 16)
    return got


def kept(scaler, tmp):
    script = "trap '' HUP QUIT; exec cat /proc/self/status"
    bare = masks(["sh", "-c", script])
    prof = masks([scaler, "record", "-o", os.path.join(tmp, "sk"), "--", "sh", "-c", script])
    # and a real-time signal for `scaler ctl` (control.c)
    ours = sum(1 << (SIGNUM[s] - 1) for s in HANDLED) | (0xffffffff << 32)
    bad = []
    if prof.get("SigIgn") != bare.get("SigIgn"):
        bad.append("ignored %#x profiled, %#x not" % (prof.get("SigIgn", -1),
                                                       bare.get("SigIgn", -1)))
    hup_quit = (1 << (SIGNUM["HUP"] - 1)) | (1 << (SIGNUM["QUIT"] - 1))
    want = bare.get("SigIgn", 0) & hup_quit
    if want != hup_quit:
        bad.append("the shell did not ignore HUP and QUIT (%#x): nothing tested" % bare["SigIgn"])
    # handled: ours where the default was left, never where ignored
    extra = prof.get("SigCgt", 0) & ~bare.get("SigCgt", 0)
    if extra & ~ours:
        bad.append("handlers for %#x besides scaler's" % (extra & ~ours))
    if extra & want:
        bad.append("an ignored signal got a handler (%#x)" % (extra & want))
    if not extra & (1 << (SIGNUM["TERM"] - 1)):
        bad.append("no handler for SIGTERM (caught %#x): the check sees nothing" % prof["SigCgt"])
    return bad


def survives(scaler, tmp):
    rc, out, err = run([scaler, "record", "-o", os.path.join(tmp, "sh"), "--", "sh", "-c",
                        "trap '' HUP; exec perl -e 'kill q(HUP), $$; print qq(alive\\n)'"])
    if rc != 0 or out != b"alive\n":
        return ["exit %d, printed %r (%s)" % (rc, out, err.decode(errors="replace")[-200:])]
    return []


def checks(t):
    guarded("record-ignored-signals-kept", None, lambda: kept(t.scaler, t.tmp))
    guarded("record-ignored-signal-ignored", None, lambda: survives(t.scaler, t.tmp))
