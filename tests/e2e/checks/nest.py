"""nest.py - exclusive and nested time of sc_nest's libstdc++ calls. Check:
nest-figures (lazy; adaptive, all and all+recal timing)."""

from harness import guarded

MODE = "e2e"
VARIANTS = ("lazy",)


def check_nest(t, timing):
    """libstdc++-heavy loop: the program's calls into libstdc++ lose from
    their exclusive time exactly what libstdc++ spends calling out (within
    10 %), and _M_insert<double>, the only caller of vsnprintf, has at
    least vsnprintf's time nested in it (80 %: vsnprintf is its bulk; 70 %
    under adaptive timing, where the two are separate estimates from ~400
    sampled calls each, and a sample that meets a preemption of this
    shared machine stands for up to 31 calls: a run came out at 79 %).
    The APIs' self times add up to libstdc++'s (a long call out booked
    while the call into libstdc++ around it went untimed, e.g. one
    preempted for 4 ms, is more than the caller's estimate holds: the
    model gives it to the other APIs seen calling out; it once lost it,
    and nested came out at 12.0 ms against 14.0 ms out). When even all
    the APIs' totals cannot hold it (out 23.3 ms against 17.8 ms in once,
    at load 6), libstdc++'s self time is 0 or nearly and both figures may fall
    short by up to what the kernel measured its calls out preempted:
    that is the time the untimed callers' estimates missed (0 on an idle
    machine, where the bounds are as above); likewise vsnprintf's time
    against _M_insert<double>'s nested time (14.9 ms of it against 10.4
    once at load 9)."""
    bad, d, _ = t.record_program("nest", timing)
    if bad:
        return bad
    std = [c for c in d["calls"] if c["callee"].startswith("libstdc++")
           and c["caller"] == "sc_nest"]
    out = sum(c["total_ns"] for c in d["calls"] if c["caller"].startswith("libstdc++"))
    nested = sum(c["total_ns"] - c["self_ns"] for c in std)
    bad = []
    if any(c["self_ns"] > c["total_ns"] or c["self_ns"] < 0 for c in d["calls"]):
        bad.append("a call with exclusive time outside [0, inclusive]")
    # the preemptions of libstdc++'s calls out, as the kernel measured them
    pre = sum((c.get("kernel") or {}).get("preempted_ns") or 0 for c in d["calls"]
              if c["caller"].startswith("libstdc++"))
    if not out or abs(nested - out) > 0.10 * out + pre:
        bad.append("nested in libstdc++ calls %.1f ms, libstdc++ calls out %.1f ms" %
                   (nested / 1e6, out / 1e6))
    lib = std[0]["callee"] if std else None
    comp = [k for k in d["components"] if k["name"] == lib]
    apis = sum(c["self_ns"] for c in d["calls"] if c["callee"] == lib and c["caller"] != lib)
    # the totals (nearly) full: its self time under 5 % of its total
    full = comp and comp[0]["self_ns"] < 0.05 * comp[0]["total_ns"]
    if not comp or abs(apis - comp[0]["self_ns"]) > 1000 + (pre if full else 0):
        bad.append("libstdc++'s APIs' self times add up to %d ns, its self time %r "
                   "(calls out preempted %d ns)" % (apis, comp[0]["self_ns"] if comp else None, pre))
    ins = [c for c in std if c["symbol"] == "_ZNSo9_M_insertIdEERSoT_"]
    vs = [c for c in d["calls"] if c["api"] == "vsnprintf"
          and c["caller"].startswith("libstdc++")]
    least = 0.7 if timing in (None, "adaptive") else 0.8
    # vsnprintf's own preemptions, booked while _M_insert went untimed,
    # are no part of what _M_insert's estimate can hold (see above)
    vs_pre = ((vs[0].get("kernel") or {}).get("preempted_ns") or 0) if vs else 0
    if not ins or not vs or \
            ins[0]["total_ns"] - ins[0]["self_ns"] < least * (vs[0]["total_ns"] - vs_pre):
        bad.append("_M_insert<double> %r vs vsnprintf %r" % (ins[:1], vs[:1]))
    return bad


def checks(t):
    for timing in ("adaptive", "all", "all+recal"):
        guarded("nest-figures", t.variant + ",timing=" + timing,
                lambda: check_nest(t, timing))
