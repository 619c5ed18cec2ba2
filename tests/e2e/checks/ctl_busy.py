"""ctl_busy.py - paused time is taken off a thread's attributed time once
(sc_ctlbusy, tests/e2e/ctl/busy.c: three threads busy on one CPU, so each
is preempted while paused too). The kernel's switches of the pause are
read at the threads' first timed return after it; their gaps off the CPU
outside timed calls went to the header's off_p (and off_untimed) on top
of the paused time (paused_p): a busy thread's attributed time came out
near 0 while its calls kept theirs, libc's attributed self 136-210 % of
the attributed total (112993 % with a reset in the pause).
ctl-busy-pause: pause in phase 1, resume after phase 2; ctl-busy-reset:
the same with a reset while paused. Each: no component's attributed self
over its attributed total or the threads' attributed time, the
components' attributed self times not over the threads' (1 %), and the
busy threads' attributed time at least their CPU time outside the pause
and after the reset (the program's own figure) over twice the CPUs (the parallel clock moves
at 1/k, k capped at the CPUs, while a thread runs).
Checks: ctl-busy-pause, ctl-busy-reset (lazy)."""
import os
import shutil
import tempfile

from harness import guarded, report_json_of, run
from running import Running

MODE = "e2e"
VARIANTS = ("lazy",)
US = 1000


def ctl(t, r, action):
    rc, _, err = run([t.scaler, "ctl", str(r.prog()), action])
    if rc != 0:
        raise RuntimeError("ctl %s exited %d: %s" % (action, rc, err[-300:]))


def attributed(rep, cpu_ns):
    bad = []
    if rep.get("wait_source") != "measured":
        return ["no perf events: off-CPU time not measured (%s)" % rep.get("wait_source")]
    for p in rep["processes"]:
        threads = sum(th["attr_ns"] for th in p["threads"])
        selfs = 0
        for c in p["components"]:
            selfs += c["attr_self_ns"]
            if c["attr_self_ns"] > min(c["attr_total_ns"], threads) + US:
                bad.append("%s: attributed self %.1f ms, total %.1f ms, threads' %.1f ms"
                           % (c["name"], c["attr_self_ns"] / 1e6, c["attr_total_ns"] / 1e6,
                              threads / 1e6))
        if selfs > 1.01 * threads + US:
            bad.append("attributed self times add up to %.1f ms, the threads' %.1f ms"
                       % (selfs / 1e6, threads / 1e6))
        busy = sum(th["attr_ns"] for th in p["threads"] if th["start_routine"] == "busy")
        ncpu = len(os.sched_getaffinity(0))
        if busy < cpu_ns / (2 * ncpu):
            bad.append("busy threads attributed %.1f ms, under their CPU time outside the "
                       "pause %.1f ms / %d" % (busy / 1e6, cpu_ns / 1e6, 2 * ncpu))
    return bad


def check(t, acts):
    tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
    d = os.path.join(tmp, "d")
    r = Running(t, d, "ctlbusy", ["--timing=all"])
    try:
        r.wait_phase(1)
        ctl(t, r, "pause")
        r.go()
        r.wait_phase(2)
        for a in acts:
            ctl(t, r, a)
        r.go()
        rc, err = r.finish()
        if rc != 0 or r.out != b"phase 1 done\nphase 2 done\ndone\n":
            return ["scaler record exited %d, output %r: %s" % (rc, r.out, err[-300:])]
        cpu = [l.split()[1:] for l in err.decode().splitlines() if l.startswith("cpu_ns ")]
        if len(cpu) != 1:
            return ["no cpu_ns line on stderr: %r" % err[-300:]]
        # before the pause, after it; a reset drops what came before
        before, after = int(cpu[0][0]), int(cpu[0][1])
        return attributed(report_json_of(t.scaler, d),
                          after if "reset" in acts else before + after)
    finally:
        r.close()
        shutil.rmtree(tmp, ignore_errors=True)


def checks(t):
    guarded("ctl-busy-pause", t.variant, lambda: check(t, ["resume"]))
    guarded("ctl-busy-reset", t.variant, lambda: check(t, ["reset", "resume"]))
