"""report_kernel.py - the kernel split of the API view (issue 23, item 4):
sc_offcpu's 200,000 tiny writes recorded with --kernel spend most of
their time in the kernel, so the text view has, right under the write row
and under no row that spends less than 5 % of its time there, a line
splitting its time into user, kernel, blocked and preempted (the JSON's
figures) and naming its top kernel functions; the HTML page has a kernel
section with one stacked bar for it, its segments adding up to the whole
bar and to the JSON's figures, and a table row with the same functions.
Without --kernel and with perf events refused there is no such line or
section. Checks: report-kernel-text, report-kernel-html (lazy; skipped
where kernel samples are not allowed)."""
import json
import os
import re

from harness import guarded, run, skip

MODE = "e2e"
VARIANTS = ("lazy",)


def profile(t, name, kernel=True, env=None):
    prof = os.path.join(t.tmp, name)
    argv = [t.scaler, "record", "-o", prof] + (["--kernel"] if kernel else []) + \
        ["--", t.exe("offcpu"), "tiny", os.path.join(t.tmp, name + ".out")]
    rc, _, err = run(argv, env=dict(os.environ, **env) if env else None)
    err = err.decode(errors="replace")
    if rc:
        raise RuntimeError("record: exit %d %r" % (rc, err[-200:]))
    if kernel and "kernel stacks" in err and "not" in err:
        return None, err.strip().splitlines()[-1]
    rc, js, err = run([t.scaler, "report", "-i", prof, "--format", "json"])
    if rc:
        raise RuntimeError("report: exit %d %r" % (rc, err[-200:]))
    return prof, json.loads(js)


def write_row(d):
    rows = [c for c in d["calls"] if c["api"] == "write" and c["caller"] == "sc_offcpu"]
    if len(rows) != 1:
        raise RuntimeError("write rows %r" % rows)
    return rows[0]


def pct(part, whole):
    return "%.1f%%" % (100.0 * part / whole) if whole else "-"


def split(c):
    """user, kernel, blocked, preempted of a JSON call row, as the views
    compute them (each at most what is left of the call)."""
    k = c["kernel"]
    rest = c["total_ns"]
    blocked = min(k["off_cpu_ns"], rest)
    rest -= blocked
    pre = min(k["preempted_ns"], rest)
    rest -= pre
    kern = min(k["on_cpu_ns"] or 0, rest)
    return rest - kern, kern, blocked, pre


GLUE = re.compile(r"^(entry_SYSCALL|asm_|sysvec_|ret_from_|do_syscall_64$|x64_sys_call$|"
                  r"__x64_sys_call$|syscall_exit_to_user_mode$|exit_to_user_mode_|"
                  r"__irq_exit_rcu$|irq_exit_rcu$|handle_softirqs$|__do_softirq$|do_softirq$|"
                  r"common_interrupt$|rcu_core|__sysvec_apic_timer_interrupt$|hrtimer_interrupt$|"
                  r"__hrtimer_run_queues$)")
SYSCALL = re.compile(r"^(__x64_sys_|__ia32_sys_|__do_sys_|__se_sys_|ksys_)")


def kernel_functions(c, n):
    names = [f["name"] for f in c["kernel"]["functions"] if not GLUE.match(f["name"])]
    return names[:n]


def text_chain(c, n):
    """The kernel functions the text shows under call row c: the system
    call's (named after the API), then the JSON's order of those holding no
    more time, less the entry and other system call names. Samples can tie
    (each holds every function of its stack), so the system call's comes
    first by rule, not by the JSON's order."""
    sysname = re.compile(r"^(__x64_sys_|__do_sys_|ksys_|do_)%s$" % re.escape(c["api"]))
    fs = [f for f in c["kernel"]["functions"] if not GLUE.match(f["name"])]
    head = [f for f in fs if sysname.match(f["name"])][:1]
    if not head:
        return kernel_functions(c, n)
    rest = [f["name"] for f in fs if f is not head[0] and f["ns"] <= head[0]["ns"] and
            not SYSCALL.match(f["name"])]
    return ([head[0]["name"]] + rest)[:n]


def check_text(t):
    prof, d = profile(t, "rk-tiny")
    if prof is None:
        return skip("report-kernel-text", d)
    w = write_row(d)
    rc, text, err = run([t.scaler, "report", "-i", prof, "--color=never"])
    text = text.decode()
    lines = text.splitlines()
    at = [i for i, l in enumerate(lines) if re.match(r"^    write +200,000 ", l)]
    if rc or len(at) != 1:
        return ["report: exit %d, write rows at %r" % (rc, at)]
    u, k, b, p = split(w)
    want = "      \u21b3 user %s, kernel %s, blocked %s, preempted %s; " % (
        pct(u, w["total_ns"]), pct(k, w["total_ns"]), pct(b, w["total_ns"]), pct(p, w["total_ns"]))
    bad = []
    line = lines[at[0] + 1]
    if not line.startswith(want):
        bad.append("under write: %r, want it to start %r" % (line, want))
    top = text_chain(w, 3)
    got = re.findall(r"[;,] (\S+) [0-9.]+%", ";" + line.split(";", 1)[-1])
    if got != top:
        bad.append("kernel functions %r, want %r (write's system call, then the JSON's "
                   "below it, less the entry)" % (got, top))
    # vfs_write holds at least what the functions it calls hold: shown,
    # or tied with the last one shown (each sample holds its whole stack)
    ns = {f["name"]: f["ns"] for f in w["kernel"]["functions"]}
    if "vfs_write" not in got and not (got and ns.get("vfs_write", -1) >= ns.get(got[-1], 0)):
        bad.append("no vfs_write under write: %r" % line)
    # only rows that spend 5 % of their time in the kernel get a line
    shown = sum(1 for l in lines if l.startswith("      \u21b3 user "))
    want_n = sum(1 for c in d["calls"] if "kernel" in c and c["total_ns"] > 0 and
                 sum(split(c)[1:]) * 100 >= c["total_ns"] * 5)
    if shown != want_n:
        bad.append("%d kernel lines, %d rows spend 5 %% in the kernel" % (shown, want_n))
    # perf events refused: no kernel figures, no line
    _, d2 = profile(t, "rk-names", kernel=False, env={"SCALER_PERF": "off"})
    rc, text2, _ = run([t.scaler, "report", "-i", os.path.join(t.tmp, "rk-names")])
    if "\u21b3 user " in text2.decode():
        bad.append("a kernel line without kernel figures")
    return bad


def check_html(t):
    prof = os.path.join(t.tmp, "rk-tiny")
    if not os.path.isdir(prof):
        prof, d = profile(t, "rk-tiny")
        if prof is None:
            return skip("report-kernel-html", d)
    rc, js, _ = run([t.scaler, "report", "-i", prof, "--format", "json"])
    d = json.loads(js)
    if not any("kernel" in c and c["kernel"]["on_cpu_ns"] for c in d["calls"]):
        return skip("report-kernel-html", "no kernel samples in this profile")
    w = write_row(d)
    rc, page, err = run([t.scaler, "report", "-i", prof, "--format", "html"])
    page = page.decode()
    m = re.search(r'<section id="kernel">(.*?)</section>', page, re.S)
    if rc or not m:
        return ["no kernel section: exit %d %r" % (rc, err[-200:])]
    sec = m.group(1)
    bad = []
    bars = re.findall(r'<div class="lbl">([^<]*)</div><div class="track" data-share="([0-9.]+)">'
                      r'(.*?)</div>', sec)
    mine = [b for b in bars if b[0].startswith("write \u2190 sc_offcpu")]
    if len(mine) != 1:
        return ["bars %r" % [b[0] for b in bars]]
    segs = re.findall(r'width:([0-9.]+)%;background:[^"]*" title="(\w+): write: ', mine[0][2])
    widths = {what: float(wd) for wd, what in segs}
    if abs(sum(widths.values()) - 100) > 0.01 or float(mine[0][1]) != 1:
        bad.append("segments %r do not fill the bar" % widths)
    for what, ns in zip(("user", "kernel", "blocked", "preempted"), split(w)):
        if abs(widths.get(what, 0) - 100.0 * ns / w["total_ns"]) > 0.01:
            bad.append("%s segment %r%%, JSON %d of %d ns" % (what, widths.get(what), ns,
                                                               w["total_ns"]))
    row = re.search(r"<tr><td>write</td>.*?</tr>", sec)
    if not row or any(f not in row.group(0) for f in text_chain(w, 5)):
        bad.append("kernel table row %r lacks %r" % (row and row.group(0), text_chain(w, 5)))
    rc, page2, _ = run([t.scaler, "report", "-i", os.path.join(t.tmp, "rk-names"),
                        "--format", "html"])
    if os.path.isdir(os.path.join(t.tmp, "rk-names")) and 'id="kernel"' in page2.decode():
        bad.append("a kernel section without kernel figures")
    return bad


def checks(t):
    guarded("report-kernel-text", t.variant, lambda: check_text(t))
    guarded("report-kernel-html", t.variant, lambda: check_html(t))
