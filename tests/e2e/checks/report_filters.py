"""report_filters.py - --component, --min-percent, --sort and --pid on the
profiles of sc_imbalance and sc_fork (several processes). Check:
report-filters (lazy)."""
from harness import call_key, guarded, report_cmd, report_json_of

MODE = "e2e"
VARIANTS = ("lazy",)


def check_report_filters(scaler, prof, mp_prof):
    bad = []
    full = report_json_of(scaler, prof)
    # --component: its rows only, in both directions
    comp = "libc.so.6"
    d = report_json_of(scaler, prof, "--component", comp)
    want = sorted(call_key(c) for c in full["calls"] if comp in (c["caller"], c["callee"]))
    got = sorted(call_key(c) for c in d["calls"])
    if got != want or [c["name"] for c in d["components"]] != [comp]:
        bad.append("--component %s: calls %r, components %r" % (comp, got[:5], d["components"]))
    rc, text, _ = report_cmd(scaler, prof, "--component", comp)
    if rc != 0 or ("CALLS FROM %s" % comp) not in text or "\n  %s:" % comp not in text:
        bad.append("--component text: %r" % text[-400:])
    others = [c["name"] for c in full["components"] if c["name"] != comp]
    if any("\n  %s:" % o in text for o in others):
        bad.append("--component text shows other components' API views")
    # --min-percent: rows under P % of the base they are shown against
    # go: an API's, its component's calls in (the API view's %in); a
    # component's and a call within one, all threads' time
    total = sum(t["wall_ns"] for t in full["threads"])
    into = {}
    for c in full["calls"]:
        if c["caller"] != c["callee"]:
            into[c["callee"]] = into.get(c["callee"], 0) + c["total_ns"]
    for p in ("10", "60"):
        d = report_json_of(scaler, prof, "--min-percent", p)
        want = sorted(call_key(c) for c in full["calls"]
                      if c["total_ns"] * 100 >= int(p) *
                      (into[c["callee"]] if c["caller"] != c["callee"] else total))
        got = sorted(call_key(c) for c in d["calls"])
        if got != want or not got:
            bad.append("--min-percent %s: %r, want %r" % (p, got, want))
        want = [c["name"] for c in full["components"] if c["total_ns"] * 100 >= int(p) * total]
        if [c["name"] for c in d["components"]] != want:
            bad.append("--min-percent %s: components %r, want %r" %
                       (p, [c["name"] for c in d["components"]], want))
    # --sort
    for key, order in (("count", lambda c: -c["count"]), ("name", lambda c: c["api"]),
                       ("self", lambda c: -c["self_ns"])):
        d = report_json_of(scaler, prof, "--sort", key)
        vals = [order(c) for c in d["calls"]]
        if vals != sorted(vals) or len(d["calls"]) != len(full["calls"]):
            bad.append("--sort %s: not in order: %r" % (key, vals[:8]))
    # --pid: one process's numbers
    mp = report_json_of(scaler, mp_prof)
    if len(mp["processes"]) < 2:
        bad.append("want several processes, got %d" % len(mp["processes"]))
    for p in mp["processes"]:
        sel = "%d.%d" % (p["pid"], p["gen"]) if p["gen"] else str(p["pid"])
        d = report_json_of(scaler, mp_prof, "--pid", sel)
        if [q["pid"] for q in d["processes"]] != [p["pid"]] or \
                sorted((call_key(c), c["count"]) for c in d["calls"]) != \
                sorted((call_key(c), c["count"]) for c in p["calls"]) or \
                any(t["pid"] != p["pid"] for t in d["threads"]):
            bad.append("--pid %s: processes %r" % (sel, [q["pid"] for q in d["processes"]]))
    rc, text, _ = report_cmd(scaler, mp_prof)
    for p in mp["processes"]:
        line = [ln for ln in text.splitlines() if ln.split()[:2] == [str(p["pid"]), str(p["ppid"])]]
        if not line:
            bad.append("process list has no line for pid %d ppid %d" % (p["pid"], p["ppid"]))
    return bad


def checks(t):
    guarded("report-filters", t.variant, lambda: check_report_filters(
        t.scaler, t.profile("imbalance"), t.profile("fork")))
