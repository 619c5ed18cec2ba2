"""parclock.py - the parallel clock counts a thread as running only while it
is on a CPU (issue 19, item 3; doc/design.md, "Wait and the parallel
clock"). sc_par (tests/e2e/par) runs one thread busy for 300 ms next to
threads that block nearly all that time inside calls of libsc_par: two in
nanosleep (a Wait by name) inside par_sleeps, one in a read of a pipe
(blocked, measured by perf events) inside par_read.

parclock-sums: every call's attributed time is at most its time on the
CPU (total less Wait less preempted, + 1 ms), no component's attributed total
or self time is over the critical time, and the components' attributed self times add
up to it (1 %). Before, par_sleeps was attributed the busy thread's 300 ms
(the clock's share of the nanosleeps inside it) and par_read half of it:
libsc_par's attributed total was 3.2 times the critical time (the symptom
of memcached's event_base_loop, 971 ms of 448).
parclock-blocked: par_sleeps and par_read, blocked nearly all their time,
are attributed at most 2 % of it.
parclock-oncpu: sc_paroncpu (par/oncpu.c) under taskset on one CPU: hog
(nice 0) and meek (nice 19) busy in par_work, both runnable all along;
each thread's attributed time is its CPU time by its own clock (10 % +
2 ms), and the sums above hold. Before, a preempted thread counted as
running: meek, 5.5 ms on the CPU, was attributed 200 ms, hog 206 ms of
300 ms on the CPU.
"""
import os
import shutil

from harness import guarded, report_json_of, run, skip

MODE = "e2e"
VARIANTS = ("lazy",)

MS = 1000000


def record(t):
    prof = os.path.join(t.tmp, "par")
    rc, out, err = run([t.scaler, "record", "-o", prof, "--", t.exe("par")], timeout=60)
    if rc != 0:
        raise RuntimeError("record exited %d: %r" % (rc, err[-300:]))
    return report_json_of(t.scaler, prof)


def sums(d):
    bad = []
    crit = d["critical_ns"]
    for c in d["calls"]:
        on = c["total_ns"] - c["wait_ns"] - (c["kernel"]["preempted_ns"] or 0)
        if c["attr_ns"] > on + MS:
            bad.append("%s attributed %.1f ms, on the CPU %.1f ms" %
                       (c["api"], c["attr_ns"] / MS, on / MS))
    selfs = 0
    for c in d["components"]:
        selfs += c["attr_self_ns"]
        for k in ("attr_total_ns", "attr_self_ns"):
            if c[k] > 1.01 * crit + MS:
                bad.append("%s %s %.1f ms, over the critical time %.1f ms" %
                           (c["name"], k, c[k] / MS, crit / MS))
    if abs(selfs - crit) > 0.01 * crit + MS:
        bad.append("attributed self times add up to %.1f ms, critical time %.1f ms" %
                   (selfs / MS, crit / MS))
    return bad


def blocked(d):
    bad = []
    for api in ("par_sleeps", "par_read"):
        rows = [c for c in d["calls"] if c["api"] == api]
        if len(rows) != 1:
            return ["%d rows for %s" % (len(rows), api)]
        c = rows[0]
        if c["total_ns"] < 250 * MS:
            bad.append("%s took %.1f ms, want >= 250" % (api, c["total_ns"] / MS))
        if c["attr_ns"] > 0.02 * c["total_ns"]:
            bad.append("%s attributed %.1f ms of %.1f ms, blocked nearly all of it" %
                       (api, c["attr_ns"] / MS, c["total_ns"] / MS))
    return bad


def oncpu(t):
    taskset = shutil.which("taskset")
    if not taskset:
        return skip("parclock-oncpu", "no taskset")
    cpu = min(os.sched_getaffinity(0))
    prof = os.path.join(t.tmp, "paroncpu")
    rc, out, err = run([taskset, "-c", str(cpu), t.scaler, "record", "-o", prof, "--",
                        t.exe("paroncpu")], timeout=60)
    if rc != 0:
        raise RuntimeError("record exited %d: %r" % (rc, err[-300:]))
    cpu_ns = dict((k, int(v)) for k, v in
                  (line.split() for line in out.decode().splitlines()))
    d = report_json_of(t.scaler, prof)
    if d.get("wait_source") != "measured":
        return skip("parclock-oncpu", "no perf events (perf_event_paranoid)")
    bad = sums(d)
    for name in ("hog", "meek"):
        rows = [th for th in d["threads"] if th["start_routine"] == name]
        if len(rows) != 1:
            return bad + ["%d threads %s" % (len(rows), name)]
        want, got = cpu_ns[name + "_cpu_ns"], rows[0]["attr_ns"]
        if abs(got - want) > 0.1 * want + 2 * MS:
            bad.append("%s attributed %.1f ms, on the CPU %.1f ms" %
                       (name, got / MS, want / MS))
    return bad


def checks(t):
    d = {}

    def get():
        if not d:
            d.update(record(t))
        return d
    guarded("parclock-sums", t.variant, lambda: sums(get()))
    guarded("parclock-blocked", t.variant, lambda: blocked(get()))
    guarded("parclock-oncpu", t.variant, lambda: oncpu(t))
