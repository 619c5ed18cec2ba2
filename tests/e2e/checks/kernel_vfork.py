"""kernel_vfork.py - a vfork child's change of user under `scaler record
--kernel` (sc_kvfork, tests/e2e/kvfork/main.c). The child runs in its
parent's memory and thread until it execs, so its setuid wrapper must not
withdraw the parent's per-CPU rings nor give the parent's thread an event
of its own (uids.c): it did, and the parent's waitpid was shown doing the
child's dd's kernel work (47-96 % kernel instead of blocked), and the
parent's own getrandom lost its kernel samples.

kernel-vfork-setuid: the parent's waitpid has no kernel samples (under
5 % of its time: it is blocked), and its getrandom calls after it are
mostly kernel time (half at least, under load), sampled, under the getrandom / chacha path.
"""
import os
import re

from harness import guarded, report_json_of, run, skip

MODE = "e2e"
VARIANTS = ("lazy",)
NOBODY = 65534
PER_CPU = re.compile(r"^scaler: kernel stacks sampled per CPU", re.M)


def vfork_setuid(t):
    if os.geteuid() != 0:
        return skip("kernel-vfork-setuid", "not root: the child cannot drop to nobody")
    prof = os.path.join(t.tmp, "kvfork")
    # SCALER_KCPU_ALL: rings holding every task's samples, the ones a
    # change of user withdraws
    rc, out, err = run([t.scaler, "record", "--kernel", "-o", prof, "--", t.exe("kvfork"),
                        str(NOBODY)], env=dict(os.environ, SCALER_KCPU_ALL="1"))
    if rc != 0 or out != b"done 0\n":
        return ["record exited %d, output %r: %r" % (rc, out, err[-300:])]
    if not PER_CPU.search(err.decode(errors="replace")):
        return skip("kernel-vfork-setuid", "per-CPU events not allowed here")
    d = report_json_of(t.scaler, prof)
    rows = {c["api"]: c for p in d["processes"] for c in p["calls"]
            if c["caller"] == "sc_kvfork" and c["api"] in ("waitpid", "getrandom")}
    if set(rows) != {"waitpid", "getrandom"}:
        return ["the parent's rows %r, want waitpid and getrandom" % sorted(rows)]
    bad = []
    w, g = rows["waitpid"], rows["getrandom"]
    kw = (w.get("kernel") or {}).get("on_cpu_ns") or 0
    if kw > 0.05 * w["total_ns"]:
        bad.append("the parent's waitpid: %.1f ms of kernel samples of %.1f ms blocked "
                   "(its vfork child's)" % (kw / 1e6, w["total_ns"] / 1e6))
    k = g.get("kernel") or {}
    on = g["total_ns"] - (k.get("preempted_ns") or 0) - g["wait_ns"]
    if g["count"] != 16 or not (k.get("on_cpu_ns") or 0) >= 0.5 * on:
        bad.append("the parent's getrandom: %d calls, kernel on-CPU %r of %d ns on the CPU, "
                   "want 16 and >= 50 %%" % (g["count"], k.get("on_cpu_ns"), on))
    top = [f["name"] for f in k.get("functions", [])[:6]]
    if not any("chacha" in n or "random" in n for n in top):
        bad.append("the parent's getrandom's top kernel functions %r" % top)
    return bad


def checks(t):
    guarded("kernel-vfork-setuid", None, lambda: vfork_setuid(t))
