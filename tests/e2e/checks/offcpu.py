"""offcpu.py - Wait is time blocked, measured per call (issue 19, item 3), and
where a call's time goes in the kernel (issue 23, item 1). sc_offcpu prints
the time of its measured part by its own clock; each check compares the
report's figures with it.

offcpu-read: reads of a cached file, 1 MB at a time, are on-CPU copying:
little of their time is Wait (guessed from the name, all of it was).
offcpu-pipe: one write into a full pipe whose reader sleeps 100 ms is Wait,
within 10 % of the write's own time, and the JSON's kernel.off_cpu_ns is it.
offcpu-fdatasync: fdatasync of 4 MB written to a file waits for the disk:
most of its time is Wait (by name it was work).
offcpu-sleep: nanosleep of 100 ms is Wait, within 10 % of its own time.
offcpu-preempt: two threads pinned to one CPU, each memset-ing: their
memset calls were runnable but not running about half the time: shown as
preempted, not as Wait.
offcpu-names: with perf events refused (SCALER_PERF=off, as at
perf_event_paranoid 3 or under a seccomp filter) the report says Wait was
guessed from API names, in the text header and the JSON, and has no kernel
figures; the cached reads are then all Wait again.
offcpu-kernel-tiny, offcpu-kernel-random (record --kernel, where kernel
samples are allowed): 200000 writes of 16 bytes to a file spend most of
their time on-CPU in the kernel, under a vfs_write path; getrandom of 8 MB
buffers spends nearly all of it in the kernel, its top kernel functions a
getrandom/chacha path.
offcpu-kernel-pipe, offcpu-kernel-sleep (record --off-cpu, where the
sched_switch tracepoint is allowed): where the blocked time was spent
in the kernel. The write into a full pipe blocked in pipe_write (below
vfs_write), the sleep in do_nanosleep, each function holding nearly all
of the call's off_cpu_ns; the text view's "blocked in" line names them,
the HTML's kernel table too, and the --wall walk ends at them.
offcpu-kernel-stuck (record --off-cpu): a read of an empty pipe still
blocked when the process exits 200 ms later is booked at the end with its
blocked time, and where it blocked (pipe_read) holds it too.
"""
import json
import os

from harness import guarded, report_cmd, report_json_of, run, skip

MODE = "e2e"
VARIANTS = ("lazy",)


def record_mode(t, name, args, env=None, kernel=False):
    """Records sc_offcpu ARGS (with --kernel, or the option KERNEL names);
    returns (the program's own ns, JSON report, profile, stderr)."""
    prof = os.path.join(t.tmp, name)
    cmd = [t.scaler, "record", "-o", prof] + (
        [kernel if isinstance(kernel, str) else "--kernel"] if kernel else [])
    rc, out, err = run(cmd + ["--", t.exe("offcpu")] + args,
                       env=dict(os.environ, **env) if env else None)
    if rc != 0:
        raise RuntimeError("record %s exited %d: %r" % (name, rc, err[-300:]))
    mode, ns = out.decode().split()
    return int(ns), report_json_of(t.scaler, prof), prof, err.decode(errors="replace")


def call(d, api):
    rows = [c for c in d["calls"] if c["api"] == api and c["caller"] == "sc_offcpu"]
    if len(rows) != 1:
        raise RuntimeError("%d rows for %s: %r" % (len(rows), api,
                                                  [c["api"] for c in d["calls"]][:20]))
    return rows[0]


def cached_read(t):
    path = os.path.join(t.tmp, "data")
    with open(path, "wb") as f:
        f.write(os.urandom(16 << 20))
    own, d, _, _ = record_mode(t, "read", ["read", path])
    r = call(d, "read")
    bad = []
    if d["wait_source"] != "measured":
        bad.append("wait_source %r" % d["wait_source"])
    # 9 passes (the first warms the cache) of 16 reads of 1 MB and one at
    # the end of the file
    if r["count"] != 153:
        bad.append("read count %d, want 153" % r["count"])
    if not r["wait_ns"] <= 0.2 * r["total_ns"]:
        bad.append("read: Wait %d of %d ns, want under 20 %%" % (r["wait_ns"], r["total_ns"]))
    if not 0.5 * own <= r["total_ns"]:
        bad.append("read total %d ns, the program's loop took %d" % (r["total_ns"], own))
    return bad


def pipe_write(t):
    own, d, _, _ = record_mode(t, "pipe", ["pipe"])
    w = call(d, "write")
    bad = []
    if own < 95e6:
        bad.append("the write took %d ns by the program's clock, want >= 95 ms" % own)
    if not 0.9 * own <= w["wait_ns"] <= 1.1 * own:
        bad.append("write: Wait %d ns, its own time %d: want within 10 %%" % (w["wait_ns"], own))
    k = w.get("kernel")
    if not k or k["off_cpu_ns"] != w["wait_ns"] or k["on_cpu_ns"] is not None:
        bad.append("write's kernel figures %r (want off_cpu_ns = wait_ns, on_cpu_ns null)" % k)
    return bad


def fdatasync(t):
    own, d, _, _ = record_mode(t, "sync", ["fdatasync", os.path.join(t.tmp, "synced")])
    s = call(d, "fdatasync")
    if own < 1e6:
        return skip("offcpu-fdatasync", "fdatasync took %d ns here: nothing to wait for" % own)
    if not s["wait_ns"] >= 0.5 * s["total_ns"]:
        return ["fdatasync: Wait %d of %d ns (own clock %d), want most" %
                (s["wait_ns"], s["total_ns"], own)]
    return []


def sleep(t):
    own, d, _, _ = record_mode(t, "sleep", ["sleep"])
    s = call(d, "nanosleep")
    if not 0.9 * own <= s["wait_ns"] <= 1.1 * own:
        return ["nanosleep: Wait %d ns, its own time %d" % (s["wait_ns"], own)]
    return []


def preempt(t):
    if os.cpu_count() is None:
        return skip("offcpu-preempt", "no CPU count")
    own, d, _, _ = record_mode(t, "preempt", ["preempt"])
    m = call(d, "memset")
    k = m.get("kernel") or {}
    bad = []
    pre = k.get("preempted_ns", 0)
    if not pre >= 0.25 * m["total_ns"]:
        bad.append("memset preempted %d of %d ns, want >= 25 %%" % (pre, m["total_ns"]))
    if not m["wait_ns"] <= 0.1 * m["total_ns"]:
        bad.append("memset Wait %d of %d ns: preempted time is not Wait" %
                   (m["wait_ns"], m["total_ns"]))
    return bad


def names_fallback(t):
    path = os.path.join(t.tmp, "data2")
    with open(path, "wb") as f:
        f.write(os.urandom(16 << 20))
    own, d, prof, _ = record_mode(t, "names", ["read", path], env={"SCALER_PERF": "off"})
    bad = []
    if d["wait_source"] != "names" or d["processes"][0]["wait_source"] != "names":
        bad.append("wait_source %r, want names" % d["wait_source"])
    if any("kernel" in c for c in d["calls"]):
        bad.append("kernel figures without perf events")
    r = call(d, "read")
    if r["wait_ns"] < 0.9 * r["total_ns"]:
        bad.append("by name, read is Wait: %d of %d" % (r["wait_ns"], r["total_ns"]))
    rc, out, _ = report_cmd(t.scaler, prof)
    if "Wait guessed from API names" not in out:
        bad.append("the text report does not say Wait was guessed: %r" % out[:400])
    return bad


def kernel_denied(err):
    """record --kernel's line saying kernel stacks were not sampled, or not
    named, here; None when they were."""
    for line in err.splitlines():
        if "kernel stacks not sampled" in line or "kernel symbols hidden" in line:
            return line.strip()
    return None


def blocked_in(t, mode, args, fn, want_text):
    """sc_offcpu ARGS recorded with --kernel: the blocked call's off-CPU
    kernel functions hold its blocked time in a function whose name has
    fn, and the text, HTML and --wall walk show it."""
    name = "offcpu-kernel-" + mode
    own, d, prof, err = record_mode(t, "ko" + mode, args, kernel="--off-cpu")
    if kernel_denied(err):
        return skip(name, kernel_denied(err))
    for line in err.splitlines():
        if "off-CPU stacks not sampled" in line:
            return skip(name, line.strip())
    c = call(d, "write" if mode == "pipe" else "nanosleep")
    k = c.get("kernel") or {}
    off = k.get("off_cpu_ns") or 0
    fns = {f["name"]: f["ns"] for f in k.get("off_cpu_functions", [])}
    bad = []
    if off < 0.9 * own:
        bad.append("off_cpu_ns %d, the program's clock %d" % (off, own))
    hit = [n for n in fns if fn in n]
    if not hit or fns[hit[0]] < 0.9 * off:
        bad.append("no off-CPU function %r holding 90 %% of %d ns: %r" %
                   (fn, off, sorted(fns.items(), key=lambda x: -x[1])[:10]))
    if "vfs_write" not in fns and mode == "pipe":
        bad.append("pipe: no vfs_write among %r" % list(fns))
    rc, out, _ = report_cmd(t.scaler, prof)
    if not any(l.strip().startswith("blocked in") and want_text in l for l in out.splitlines()):
        bad.append("the text view has no 'blocked in ...%s' line: %r" % (want_text, out[-800:]))
    rc, html, _ = report_cmd(t.scaler, prof, "--format", "html")
    if ">blocked in<" not in html or fn not in html:
        bad.append("the HTML kernel table has no blocked-in column naming %r" % fn)
    rc, out, _ = run([t.scaler, "walk", "-i", prof, "--wall", "--format", "json"])
    steps = json.loads(out)["path"] if rc == 0 else []
    if not steps or steps[-1]["level"] != "kernel" or \
            not any(fn in n for n in steps[-1]["name"].split(" / ")):
        bad.append("--wall walk ends at %r, not at %r" %
                   ([(s["level"], s["name"]) for s in steps[-3:]], fn))
    # recorded again into the same directory: .kso files are a profile's
    # own, so the old profile is replaced (it was refused: "not a scaler
    # profile (it holds p...kso)" (record_mode raises on a non-zero exit)
    _, d2, _, _ = record_mode(t, "ko" + mode, args, kernel="--off-cpu")
    if not (call(d2, c["api"]).get("kernel") or {}).get("off_cpu_functions"):
        bad.append("recorded again into its directory: no off-CPU functions")
    # --kernel alone samples no off-CPU stacks
    _, d3, _, _ = record_mode(t, "kk" + mode, args, kernel=True)
    if any((c.get("kernel") or {}).get("off_cpu_functions") for c in d3["calls"]):
        bad.append("--kernel alone has off-CPU functions")
    return bad


def blocked_at_end(t):
    name = "offcpu-kernel-stuck"
    own, d, prof, err = record_mode(t, "kostuck", ["stuck"], kernel="--off-cpu")
    if kernel_denied(err):
        return skip(name, kernel_denied(err))
    for line in err.splitlines():
        if "off-CPU stacks not sampled" in line:
            return skip(name, line.strip())
    c = call(d, "read")
    k = c.get("kernel") or {}
    off = k.get("off_cpu_ns") or 0
    fns = {f["name"]: f["ns"] for f in k.get("off_cpu_functions", [])}
    bad = []
    if c["count"] != 1 or off < 0.9 * own:
        bad.append("read: %d calls, off_cpu_ns %d, the main thread slept %d" %
                   (c["count"], off, own))
    hit = [n for n in fns if "pipe_read" in n]
    if not hit or fns[hit[0]] < 0.9 * off:
        bad.append("no off-CPU function pipe_read holding 90 %% of %d ns: %r" %
                   (off, sorted(fns.items(), key=lambda x: -x[1])[:8]))
    return bad


def kernel_top(k):
    return [f["name"] for f in k.get("functions", [])[:12]]


def kernel_tiny(t):
    own, d, prof, err = record_mode(t, "ktiny", ["tiny", os.path.join(t.tmp, "tiny")],
                                    kernel=True)
    if kernel_denied(err):
        return skip("offcpu-kernel-tiny", kernel_denied(err))
    w = call(d, "write")
    k = w.get("kernel") or {}
    bad = []
    if w["count"] != 200000:
        bad.append("write count %d" % w["count"])
    # of its time on the CPU (not preempted, not blocked)
    on = w["total_ns"] - k.get("preempted_ns", 0) - w["wait_ns"]
    if not (k.get("on_cpu_ns") or 0) >= 0.4 * on:
        bad.append("write: kernel on-CPU %r of %d ns on the CPU, want >= 40 %%" %
                   (k.get("on_cpu_ns"), on))
    if not any("vfs_write" in n for n in kernel_top(k)):
        bad.append("no vfs_write among write's kernel functions %r" % kernel_top(k))
    return bad


def kernel_random(t):
    own, d, prof, err = record_mode(t, "krandom", ["random"], kernel=True)
    if kernel_denied(err):
        return skip("offcpu-kernel-random", kernel_denied(err))
    g = call(d, "getrandom")
    k = g.get("kernel") or {}
    bad = []
    on = g["total_ns"] - k.get("preempted_ns", 0) - g["wait_ns"]
    if not (k.get("on_cpu_ns") or 0) >= 0.7 * on:
        bad.append("getrandom: kernel on-CPU %r of %d ns on the CPU, want >= 70 %%" %
                   (k.get("on_cpu_ns"), on))
    top = kernel_top(k)
    if not any("chacha" in n or "random" in n for n in top[:6]):
        bad.append("getrandom's top kernel functions %r: no getrandom/chacha path" % top)
    return bad + kernel_sums(d)


def kernel_sums(d):
    """Each component's and each process's kernel object is the sum of
    its calls' (into it; of the process), functions summed by name."""
    bad = []
    keys = ("on_cpu_ns", "off_cpu_ns", "preempted_ns")

    def summed(rows):
        s = {k: sum(c["kernel"][k] or 0 for c in rows) for k in keys}
        fn = {}
        for c in rows:
            for f in c["kernel"]["functions"]:
                fn[f["name"]] = fn.get(f["name"], 0) + f["ns"]
        return s, fn

    for where, kern, rows in \
            [("component " + c["name"], c.get("kernel"),
              [r for r in d["calls"] if r["callee"] == c["name"] and "kernel" in r])
             for c in d["components"]] + \
            [("process %d" % p["pid"], p.get("kernel"), [r for r in p["calls"] if "kernel" in r])
             for p in d["processes"]]:
        if not rows:
            if kern is not None:
                bad.append("%s: kernel %r without measured calls" % (where, kern))
            continue
        s, fn = summed(rows)
        if kern is None or any((kern[k] or 0) != s[k] for k in keys):
            bad.append("%s: kernel %r, its calls' sum %r" % (where, kern and
                                                             {k: kern[k] for k in keys}, s))
            continue
        for f in kern["functions"]:
            if fn.get(f["name"]) != f["ns"]:
                bad.append("%s: kernel function %r, its calls' sum %r" % (where, f, fn.get(f["name"])))
        want = sorted(fn.values(), reverse=True)[:32]
        if [f["ns"] for f in kern["functions"]] != want:
            bad.append("%s: functions not the 32 largest sums, largest first" % where)
    if not any(p.get("kernel") for p in d["processes"]):
        bad.append("no process has kernel sums")
    return bad[:4]


def checks(t):
    guarded("offcpu-read", None, lambda: cached_read(t))
    guarded("offcpu-pipe", None, lambda: pipe_write(t))
    guarded("offcpu-fdatasync", None, lambda: fdatasync(t))
    guarded("offcpu-sleep", None, lambda: sleep(t))
    guarded("offcpu-preempt", None, lambda: preempt(t))
    guarded("offcpu-names", None, lambda: names_fallback(t))
    guarded("offcpu-kernel-tiny", None, lambda: kernel_tiny(t))
    guarded("offcpu-kernel-random", None, lambda: kernel_random(t))
    guarded("offcpu-kernel-pipe", None,
            lambda: blocked_in(t, "pipe", ["pipe"], "pipe_write", "pipe_write"))
    guarded("offcpu-kernel-sleep", None,
            lambda: blocked_in(t, "sleep", ["sleep"], "nanosleep", "nanosleep"))
    guarded("offcpu-kernel-stuck", None, lambda: blocked_at_end(t))
