"""kernel_cpu.py - where `scaler record --kernel` samples kernel stacks from
(issue 23, item 5): per CPU, from events the recorder opened once (root,
CAP_PERFMON or perf_event_paranoid <= 0), else per thread, else not at
all; one line says which. sc_kcpu's getrandom of 8 MB buffers spends
nearly all its time on the CPU in the kernel, so its kernel on-CPU time
must be most of that time and its top kernel functions the getrandom /
chacha path, whichever way it was sampled.

kernel-cpu-random: per CPU, in the recorded process itself.
kernel-cpu-drop: per CPU, filtered to the run's cgroup, in a fork child
  that drops to nobody between starting one thread and a second, beside
  a process outside the run kept busy in the kernel on the same CPU: the
  child keeps every CPU's ring after the drop, both threads' calls have
  their kernel time, and the outsider's pid is in no record the child can
  read, before the drop or after (the rings hold the run's tasks only).
kernel-cpu-drop-all: the same with SCALER_KCPU_ALL=1 (rings of every
  task's samples, as where no run cgroup can be made): the child read the
  outsider's samples before the drop (what the filter keeps out), maps no
  ring after it, and its threads, without the right to sample themselves
  per thread, have no kernel time.
kernel-cpu-fork: per CPU, every task's samples (SCALER_KCPU_ALL=1), in a
  fork child that drops to nobody before its first call, its parent
  having written over its environment (nginx's master and workers): the
  child maps every CPU's ring at the fork (it counts them in
  /proc/self/maps), none any more once it is nobody (they show every
  task's kernel stacks), and its getrandom's kernel time is still
  sampled, by an event of its own opened before the change; the parent's
  read, blocked meanwhile, gets none of the child's samples (the rings
  hold every task's: each thread takes only its own).
kernel-cpu-tick: per CPU at the default period (4 ms), each CPU's timer
  started on CLOCK_MONOTONIC's multiples of it, where the kernel's tick
  fires, so that both expire in one interrupt (record_kcpu.c): of the
  samples a kernel-bound loop finds of its own in the rings, nine in ten
  at least were taken less than 500 us after a multiple (one in eight
  would be, by chance, from a timer started anywhere).
kernel-period-env: SCALER_KERNEL_PERIOD_NS written "+1000000" or
  " 1000000" is 1 ms for the per-CPU timers and for the runtime alike,
  as "1000000" is: the thread's kernel samples times the period its .kst
  header gives come to getrandom's time on the CPU (the runtime read 4 ms
  while the timers fired every 1 ms: 4x the kernel time). A value not a
  whole number of ns from 10000 to 1000000000 ("1e6", "abc", "5",
  "1000000x") is refused: one line, status 2, no profile.
kernel-thread-fallback: SCALER_KCPU_OFF=1 (per-CPU events refused, as a
  test): per-thread events, the same figures.
kernel-cpu-perfmon: scaler record --kernel run as nobody with CAP_PERFMON
  (ambient, by setpriv): per-CPU events of every task's samples (no run
  cgroup for nobody), taken by the command through the gate by which the
  recorder declares the command's pid its ptracer (Yama) before letting
  it exec: the command runs (it would wait forever behind a gate never
  opened), and its getrandom's kernel time is sampled per CPU. Root only.
kernel-unprivileged: scaler record --kernel run as nobody: per-CPU events
  refused; with paranoid 2 no kernel samples at all (said, calls still
  counted exactly), with paranoid 1 per thread. Root only (else skipped).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile

from harness import guarded, report_json_of, run, skip

MODE = "e2e"
VARIANTS = ("lazy",)
NOBODY = 65534
PER_CPU = re.compile(r"^scaler: kernel stacks sampled per CPU \((\d+) CPUs?\), (the run's tasks "
                     r"only \(cgroup /.*/scaler-\d+\)|every task's: .*)$", re.M)
RUN_ONLY = "the run's tasks only"
RING_LEN = 65 * os.sysconf("SC_PAGE_SIZE")      # record_kcpu.c's: 64 data pages
PER_THREAD = "scaler: kernel stacks sampled per thread, which costs each context switch"


def paranoid():
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        return int(f.read())


def online_cpus():
    n = 0
    with open("/sys/devices/system/cpu/online") as f:
        for part in f.read().strip().split(","):
            lo, _, hi = part.partition("-")
            n += int(hi or lo) - int(lo) + 1
    return n


def record(t, name, args, env=None, preexec_fn=None, outdir=None):
    """Records sc_kcpu ARGS with --kernel: (program's stdout, stderr, JSON)."""
    prof = os.path.join(outdir or t.tmp, name)
    cmd = [t.scaler, "record", "--kernel", "-o", prof, "--", t.exe("kcpu")] + args
    if preexec_fn:
        p = subprocess.run(cmd, env=dict(os.environ, **(env or {})), capture_output=True,
                           preexec_fn=preexec_fn, timeout=120)
        rc, out, err = p.returncode, p.stdout, p.stderr
    else:
        rc, out, err = run(cmd, env=dict(os.environ, **env) if env else None)
    if rc != 0:
        raise RuntimeError("record %s exited %d: %r" % (name, rc, err[-300:]))
    return out.decode(), err.decode(errors="replace"), report_json_of(t.scaler, prof)


def getrandom_rows(d, api="getrandom"):
    """The getrandom (or api) row of each process, by pid."""
    rows = {}
    for p in d["processes"]:
        for c in p["calls"]:
            if c["api"] == api and c["caller"] == "sc_kcpu":
                rows[p["pid"]] = c
    return rows


def in_kernel(c, what):
    """Problems with getrandom row c: 16 calls, most of its on-CPU time
    sampled in the kernel, under a getrandom / chacha path."""
    bad = []
    k = c.get("kernel") or {}
    if c["count"] != 16:
        bad.append("%s: getrandom count %d, want 16" % (what, c["count"]))
    on = c["total_ns"] - (k.get("preempted_ns") or 0) - c["wait_ns"]
    if not (k.get("on_cpu_ns") or 0) >= 0.7 * on:
        bad.append("%s: getrandom kernel on-CPU %r of %d ns on the CPU, want >= 70 %%" %
                   (what, k.get("on_cpu_ns"), on))
    top = [f["name"] for f in k.get("functions", [])[:6]]
    if not any("chacha" in n or "random" in n for n in top):
        bad.append("%s: getrandom's top kernel functions %r: no getrandom/chacha path" %
                   (what, top))
    return bad


def per_cpu_said(err):
    """Problems with the line saying per-CPU sampling, or None to skip."""
    m = PER_CPU.search(err)
    if not m:
        return None
    if int(m.group(1)) != online_cpus():
        return ["sampled on %s CPUs, %d online" % (m.group(1), online_cpus())]
    return []


def cpu_random(t):
    out, err, d = record(t, "kc-random", ["random"])
    said = per_cpu_said(err)
    if said is None:
        return skip("kernel-cpu-random", "per-CPU events not allowed here: %r" %
                    err.strip()[-200:])
    rows = getrandom_rows(d)
    if len(rows) != 1:
        return said + ["%d processes with getrandom, want 1" % len(rows)]
    return said + in_kernel(list(rows.values())[0], "random")


def cpu_tick(t):
    bad = []
    for attempt in range(2):       # the alignment gives up on a loaded machine
        out, err, d = record(t, "kc-tick", ["tick", str(RING_LEN), "4000000"],
                             env={"SCALER_KERNEL_PERIOD_NS": "4000000"})
        said = per_cpu_said(err)
        if said is None:
            return skip("kernel-cpu-tick", "per-CPU events not allowed here: %r" %
                        err.strip()[-200:])
        m = re.search(r"^tick (\d+) (\d+)$", out, re.M)
        if not m:
            return said + ["no tick line in %r" % out]
        n, near = int(m.group(1)), int(m.group(2))
        bad = said[:]
        if n < 20:
            bad.append("%d samples of its own in 0.4 s of kernel time, want >= 20" % n)
        if near < 0.9 * n:
            bad.append("%d of %d samples within 500 us after a multiple of 4 ms, want 90 %%" %
                       (near, n))
        if not bad:
            return []
    return bad


def cpu_fork(t):
    if os.geteuid() != 0:
        return skip("kernel-cpu-fork", "not root: the child cannot drop to nobody")
    # record_kcpu.c's mapping: 64 data pages and the header page
    out, err, d = record(t, "kc-fork", ["fork", str(NOBODY), str(RING_LEN)],
                         env={"SCALER_KCPU_ALL": "1"})
    said = per_cpu_said(err)
    if said is None:
        return skip("kernel-cpu-fork", "per-CPU events not allowed here")
    before, after = int(out.split()[2]), int(out.split()[3])
    if before != online_cpus():
        said.append("the child mapped %d per-CPU rings, want %d" % (before, online_cpus()))
    if after:
        said.append("the child, now nobody, still maps %d per-CPU rings holding every "
                    "task's kernel stacks, want 0" % after)
    rows = getrandom_rows(d)
    parent = [p["pid"] for p in d["processes"] if p.get("ppid") not in
              [q["pid"] for q in d["processes"]]]
    child = [pid for pid in rows if pid not in parent]
    if len(child) != 1 or len(parent) != 1:
        return said + ["getrandom rows in pids %r, want one child's" % list(rows)]
    reads = [c for p in d["processes"] if p["pid"] == parent[0] for c in p["calls"]
             if c["api"] == "read" and c["caller"] == "sc_kcpu"]
    if len(reads) != 1 or reads[0]["count"] != 1:
        said.append("the parent's read rows %r, want one of one call" % reads)
    elif (reads[0].get("kernel") or {}).get("on_cpu_ns", 0) > 0.05 * reads[0]["total_ns"]:
        said.append("the parent's blocked read has %r ns of kernel samples of %d ns" %
                    (reads[0]["kernel"]["on_cpu_ns"], reads[0]["total_ns"]))
    return said + in_kernel(rows[child[0]], "nobody's fork child")


def drop(t, every):
    """kernel-cpu-drop (every False) or kernel-cpu-drop-all."""
    name = "kernel-cpu-drop-all" if every else "kernel-cpu-drop"
    if os.geteuid() != 0:
        return skip(name, "not root: the child cannot drop to nobody")
    cpu = min(os.sched_getaffinity(0))
    pin = lambda: os.sched_setaffinity(0, {cpu})        # noqa: E731
    outside = subprocess.Popen([t.exe("kcpu"), "busy", "30"], preexec_fn=pin)
    try:
        out, err, d = record(t, name.replace("kernel-cpu", "kc"), ["drop", str(NOBODY), str(RING_LEN), str(outside.pid)],
                             env={"SCALER_KCPU_ALL": "1"} if every else None, preexec_fn=pin)
    finally:
        outside.kill()
        outside.wait()
    said = per_cpu_said(err)
    if said is None:
        return skip(name, "per-CPU events not allowed here")
    if not every and RUN_ONLY not in err:
        return skip(name, "no run cgroup here: %r" % err.strip()[-200:])
    rings, before, after, own = [int(x) for x in out.split()[1:5]]
    rows = [getrandom_rows(d, api) for api in ("getrandom", "syscall")]
    if [len(r) for r in rows] != [1, 1]:
        return said + ["getrandom / syscall rows in pids %r, want one each" %
                       [list(r) for r in rows]]
    first, second = [list(r.values())[0] for r in rows]
    if every:
        if before <= 0:
            said.append("the child read no sample of the outsider (pid %d) before the "
                        "drop: the check below could not see one" % outside.pid)
        if rings:
            said.append("the child, now nobody, still maps %d rings of every task's "
                        "samples" % rings)
        if paranoid() >= 2 and any((c.get("kernel") or {}).get("on_cpu_ns") for c in
                                   (first, second)):
            said.append("kernel samples after the drop without rings or the right to "
                        "sample per thread")
        return said
    if rings != online_cpus():
        said.append("the child maps %d rings after the drop, want %d" % (rings, online_cpus()))
    if before or after:
        said.append("the child read %d samples of the outsider (pid %d) before the drop, "
                    "%d after, want none" % (before, outside.pid, after))
    if own <= 0:
        said.append("the child read none of its own samples in its rings")
    return said + in_kernel(first, "thread started before the drop") + \
        in_kernel(second, "thread started after the drop")


def kst_samples_ns(prof, pid):
    """The pid's kernel samples times the period its .kst headers give
    (format.h, struct sc_kst_header), in ns; and the periods."""
    ns, periods = 0, set()
    for name in os.listdir(prof):
        if name.startswith("p%d-" % pid) and name.endswith(".kst"):
            with open(os.path.join(prof, name), "rb") as f:
                period, samples = struct.unpack("<QQ", f.read(64)[24:40])
            ns += period * samples
            periods.add(period)
    return ns, sorted(periods)


def period_env(t):
    bad = []
    for i, v in enumerate(("1000000", "+1000000", " 1000000")):
        name = "kc-period-%d" % i
        out, err, d = record(t, name, ["random"], env={"SCALER_KERNEL_PERIOD_NS": v})
        if per_cpu_said(err) is None:
            return skip("kernel-period-env", "per-CPU events not allowed here: %r" %
                        err.strip()[-200:])
        rows = getrandom_rows(d)
        if len(rows) != 1:
            return bad + ["%r: %d processes with getrandom, want 1" % (v, len(rows))]
        pid, c = list(rows.items())[0]
        on = c["total_ns"] - ((c.get("kernel") or {}).get("preempted_ns") or 0)
        ns, periods = kst_samples_ns(os.path.join(t.tmp, name), pid)
        if periods != [1000000]:
            bad.append("%r: .kst periods %r ns, want 1000000" % (v, periods))
        if not 0.6 * on <= ns <= 1.5 * on:
            bad.append("%r: kernel samples make %d ns, getrandom was %d ns on the CPU, want "
                       "0.6 to 1.5 times" % (v, ns, on))
    for v in ("1e6", "abc", "5", "1000000x"):
        prof = os.path.join(t.tmp, "kc-period-bad")
        rc, out, err = run([t.scaler, "record", "--kernel", "-o", prof, "--", t.exe("kcpu"),
                            "random"], env=dict(os.environ, SCALER_KERNEL_PERIOD_NS=v))
        lines = err.decode(errors="replace").splitlines()
        if rc != 2 or len(lines) != 1 or "SCALER_KERNEL_PERIOD_NS" not in lines[0] or out:
            bad.append("%r: status %d, stdout %r, stderr %r: want it refused in one line"
                       % (v, rc, out[:80], lines[:3]))
        if os.path.exists(prof):
            bad.append("%r: refused, but made %s" % (v, prof))
            shutil.rmtree(prof)
    return bad


def thread_fallback(t):
    out, err, d = record(t, "kc-thread", ["random"], env={"SCALER_KCPU_OFF": "1"})
    if "scaler: --kernel:" in err:
        return skip("kernel-thread-fallback", err.strip().splitlines()[-1])
    bad = []
    if PER_THREAD not in err or PER_CPU.search(err):
        bad.append("stderr %r: want the per-thread line" % err.strip()[-300:])
    rows = getrandom_rows(d)
    if len(rows) != 1:
        return bad + ["%d processes with getrandom" % len(rows)]
    return bad + in_kernel(list(rows.values())[0], "per thread")


def nobody():
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def unprivileged(t):
    if os.geteuid() != 0:
        return skip("kernel-unprivileged", "not root: no user to become")
    outdir = tempfile.mkdtemp(prefix="scaler-kcpu-")
    try:
        os.chown(outdir, NOBODY, NOBODY)
        try:
            out, err, d = record(t, "kc-nobody", ["random"], preexec_fn=nobody, outdir=outdir)
        except PermissionError:
            return skip("kernel-unprivileged", "scaler or sc_kcpu not executable by nobody")
    finally:
        shutil.rmtree(outdir, ignore_errors=True)
    bad = []
    if PER_CPU.search(err):
        bad.append("nobody sampled per CPU: %r" % err)
    rows = getrandom_rows(d)
    if len(rows) != 1 or list(rows.values())[0]["count"] != 16:
        return bad + ["getrandom rows %r, want one of 16 calls" %
                      [c["count"] for c in rows.values()]]
    c = list(rows.values())[0]
    if paranoid() >= 2:
        if "kernel stacks not sampled" not in err:
            bad.append("stderr %r: want the line saying kernel stacks are not sampled" % err)
        if (c.get("kernel") or {}).get("on_cpu_ns"):
            bad.append("kernel samples %r without the right to take them" % c["kernel"])
    else:
        if PER_THREAD not in err:
            bad.append("stderr %r: want the per-thread line" % err)
        bad += in_kernel(c, "nobody, per thread")
    return bad


def perfmon(t):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        return skip("kernel-cpu-perfmon", "not root or no setpriv: no user to become")
    outdir = tempfile.mkdtemp(prefix="scaler-kcpu-")
    try:
        os.chown(outdir, NOBODY, NOBODY)
        prof = os.path.join(outdir, "kc-perfmon")
        cmd = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups",
               "--inh-caps=+perfmon", "--ambient-caps=+perfmon", "--",
               t.scaler, "record", "--kernel", "-o", prof, "--", t.exe("kcpu"), "random"]
        p = subprocess.run(cmd, capture_output=True, timeout=120, cwd=outdir)
        err = p.stderr.decode(errors="replace")
        if p.returncode != 0 and ("perfmon" in err or "setpriv" in err):
            return skip("kernel-cpu-perfmon", "CAP_PERFMON not grantable: %r" % err[-200:])
        if p.returncode != 0:
            return ["record as nobody with CAP_PERFMON exited %d: %r" % (p.returncode, err[-300:])]
        said = per_cpu_said(err)
        if said is None:
            return ["stderr %r: want the per-CPU line (CAP_PERFMON)" % err.strip()[-300:]]
        d = report_json_of(t.scaler, prof)
    finally:
        shutil.rmtree(outdir, ignore_errors=True)
    rows = getrandom_rows(d)
    if len(rows) != 1:
        return said + ["%d processes with getrandom, want 1" % len(rows)]
    c = list(rows.values())[0]
    k = c.get("kernel") or {}
    on = c["total_ns"] - (k.get("preempted_ns") or 0) - c["wait_ns"]
    if c["count"] != 16:
        said.append("getrandom count %d, want 16" % c["count"])
    if not (k.get("on_cpu_ns") or 0) >= 0.7 * on:
        said.append("getrandom kernel on-CPU %r of %d ns on the CPU, want >= 70 %%" %
                    (k.get("on_cpu_ns"), on))
    return said


def checks(t):
    guarded("kernel-cpu-random", None, lambda: cpu_random(t))
    guarded("kernel-cpu-tick", None, lambda: cpu_tick(t))
    guarded("kernel-cpu-fork", None, lambda: cpu_fork(t))
    guarded("kernel-cpu-drop", None, lambda: drop(t, False))
    guarded("kernel-cpu-drop-all", None, lambda: drop(t, True))
    guarded("kernel-period-env", None, lambda: period_env(t))
    guarded("kernel-thread-fallback", None, lambda: thread_fallback(t))
    guarded("kernel-cpu-perfmon", None, lambda: perfmon(t))
    guarded("kernel-unprivileged", None, lambda: unprivileged(t))
