"""kernel_stale.py - SCALER_KCPU naming a process other than the recorder
(sc_kstale, tests/e2e/kstale/main.c). A process that outlives `scaler
record --kernel` (a daemon's fork child) reads the recorder's pid there,
which by then may be another process's: the runtime took that process's
descriptors with pidfd_getfd and mapped them as rings unchecked, and a
regular file whose first page looked like a ring's header ended the
program with SIGBUS at its first read. Now the recorder's start time
goes with its pid and is checked after pidfd_open, each descriptor must
be a perf event's, and a ring's data area must lie inside its mapping.

kernel-stale-pid: the pid is the process itself, the start time the
  recorder's (a reused pid);
kernel-stale-notperf: the process itself with its own start time (a live
  process whose descriptor is a regular file);
kernel-stale-dead: a process that has exited. In each, the image runs to
  its end and its fork child finds errno as the program left it before
  fork (the runtime's failed pidfd_open left ESRCH there).
"""
import os
import re

from harness import guarded, run, skip

MODE = "e2e"
VARIANTS = ("lazy",)
PER_CPU = re.compile(r"^scaler: kernel stacks sampled per CPU", re.M)


def stale(t, name, mode):
    prof = os.path.join(t.tmp, name)
    rc, out, err = run([t.scaler, "record", "--kernel", "-o", prof, "--", t.exe("kstale"), mode])
    if not PER_CPU.search(err.decode(errors="replace")):
        return skip(name, "per-CPU events not allowed here")
    if rc != 0 or out != b"signal 0 exit 0\n":
        return ["record exited %d, output %r (want \"signal 0 exit 0\": the run image not "
                "killed, errno kept in its fork child): %r" % (rc, out, err[-300:])]
    return []


def checks(t):
    for name, mode in (("kernel-stale-pid", "stale"), ("kernel-stale-notperf", "notperf"),
                       ("kernel-stale-dead", "dead")):
        guarded(name, None, lambda: stale(t, name, mode))
