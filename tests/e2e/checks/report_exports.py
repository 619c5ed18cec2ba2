"""report_exports.py - `scaler report --format folded|speedscope|chrome|
pprof` on the profile of sc_basic (known calls): each export is fed to the
real tool it is for and what the tool makes of it is held against
`--format json`; and sc_nest's C++ names demangled in each. Checks:
report-folded, report-speedscope, report-chrome, report-pprof,
report-exports-demangled (lazy).

    speedscope's importers   npm speedscope, its browser bundle run in node
                             (tools/speedscope_import.mjs): folded, speedscope
                             JSON and trace events
    pprof-format             npm decoder of profile.proto (tools/pprof_decode.mjs)
    pprof -top               Google's pprof, built from Debian's sources

tools/setup.sh installs them under BUILD; a tool that is missing is a SKIP
line and the checks go on without it.
"""
import glob
import gzip
import html
import json
import os
import re
import shutil
import subprocess
from collections import defaultdict

from harness import HERE, guarded, report_json_of, skip

MODE = "e2e"
VARIANTS = ("lazy",)
TIMEOUT = 120


class Tools:
    """The tools under BUILD (None for each one missing)."""

    def __init__(self, build):
        subprocess.run(["sh", os.path.join(HERE, "tools", "setup.sh"), build],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
        node = shutil.which("node")
        modules = os.path.join(build, "npm", "node_modules")
        bundle = glob.glob(os.path.join(modules, "speedscope", "dist", "release",
                                        "speedscope-*.js"))
        self.speedscope = [node, os.path.join(HERE, "tools", "speedscope_import.mjs"),
                           bundle[0]] if node and bundle else None
        self.pprof_format = [node, os.path.join(HERE, "tools", "pprof_decode.mjs"), modules] \
            if node and os.path.isdir(os.path.join(modules, "pprof-format")) else None
        pprof = os.path.join(build, "tools", "pprof")
        self.pprof = pprof if os.access(pprof, os.X_OK) else None


def tool_json(argv, path):
    p = subprocess.run(argv + [path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=TIMEOUT)
    if p.returncode != 0:
        raise ValueError("%s exited %d: %s" % (os.path.basename(argv[1]), p.returncode,
                                               p.stderr.decode(errors="replace")[-300:]))
    return json.loads(p.stdout)


def export(scaler, prof, path, fmt, *args):
    """scaler report --format fmt into path; returns its bytes."""
    p = subprocess.run([scaler, "report", "-i", prof, "--format", fmt, "-o", path] + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=TIMEOUT)
    if p.returncode != 0 or p.stdout:
        raise ValueError("report --format %s %s: exit %d, stdout %r, stderr %r" % (
            fmt, " ".join(args), p.returncode, p.stdout[:80], p.stderr[-200:]))
    with open(path, "rb") as f:
        return f.read()


def api_counts(rep):
    """Calls between components per frame name "callee:api"."""
    n = defaultdict(int)
    for c in rep["calls"]:
        if c["caller"] != c["callee"]:
            n[c["callee"] + ":" + c["api"]] += c["count"]
    return n


def threads_ns(rep, pid):
    return sum(t["wall_ns"] for t in rep["threads"] if t["pid"] == pid)


FOLDED_LINE = re.compile(r"^([^;\n]+(?:;[^;\n]+)*) (\d+)$")


def parse_folded(text):
    """[(frames, n)], or raises on a line that is not `a;b;c N`."""
    out = []
    for line in text.splitlines():
        m = FOLDED_LINE.match(line)
        if not m or any(not f.strip() for f in m.group(1).split(";")):
            raise ValueError("not a folded line: %r" % line[:200])
        out.append((m.group(1).split(";"), int(m.group(2))))
    return out


def check_folded(scaler, prof, rep, tmp, tools):
    bad = []
    pid = rep["processes"][0]["pid"]
    counts = api_counts(rep)
    lines = parse_folded(export(scaler, prof, os.path.join(tmp, "c.folded"), "folded",
                                "--weight=count").decode())
    by_leaf, positions = defaultdict(int), defaultdict(int)
    for frames, n in lines:
        by_leaf[frames[-1]] += n
        positions[frames[-1]] += 1
        if frames[0] != "sc_basic[%d]" % pid or frames[1] != "sc_basic":
            bad.append("stack not from process and its component: %r" % frames)
    # a_add is called from the program's thread only: exact; an API
    # called by a library is split over the places of the library's
    # calls, each rounded
    if by_leaf["libsc_a.so:a_add"] != counts["libsc_a.so:a_add"] or \
            counts["libsc_a.so:a_add"] != 1000003:
        bad.append("a_add: folded %d calls, json %d" % (by_leaf["libsc_a.so:a_add"],
                                                      counts["libsc_a.so:a_add"]))
    for api, n in counts.items():
        if abs(by_leaf[api] - n) > positions[api]:
            bad.append("%s: folded %d calls, json %d" % (api, by_leaf[api], n))
    # by time: the lines add up to the process's threads' time, exactly
    t = parse_folded(export(scaler, prof, os.path.join(tmp, "t.folded"), "folded").decode())
    if sum(n for _, n in t) != threads_ns(rep, pid):
        bad.append("folded time %d ns, threads %d ns" % (sum(n for _, n in t),
                                                          threads_ns(rep, pid)))
    # the row options leave an export whole, as the help and man page say
    sel = export(scaler, prof, os.path.join(tmp, "s.folded"), "folded", "--weight=count",
                 "--component", "libsc_a", "--sort", "name", "--min-percent", "50")
    if parse_folded(sel.decode()) != lines:
        bad.append("--component/--sort/--min-percent changed the folded export")
    if tools.speedscope:
        ss = tool_json(tools.speedscope, os.path.join(tmp, "c.folded"))
        prof0 = ss["profiles"][0] if ss["profiles"] else {}
        if not any("collapsed stack" in l for l in ss["log"]) or \
                prof0.get("total") != sum(n for _, n in lines) or \
                prof0["frames"].get("libsc_a.so:a_add", {}).get("total") != 1000003:
            bad.append("speedscope's folded import: %r" % (json.dumps(ss)[:300],))
    return bad


def check_speedscope(scaler, prof, rep, tmp, tools):
    bad = []
    pid = rep["processes"][0]["pid"]
    for weight, unit, want in (("time", "nanoseconds", None), ("count", "none", 1000003)):
        path = os.path.join(tmp, "p-%s.speedscope.json" % weight)
        doc = json.loads(export(scaler, prof, path, "speedscope", "--weight=" + weight))
        frames = doc["shared"]["frames"]
        for p in doc["profiles"]:
            if p["type"] != "sampled" or len(p["samples"]) != len(p["weights"]) or \
                    any(not 0 <= i < len(frames) for s in p["samples"] for i in s) or \
                    p["endValue"] != sum(p["weights"]):
                bad.append("%s: malformed profile %s" % (weight, json.dumps(p)[:200]))
        if not tools.speedscope:
            continue
        ss = tool_json(tools.speedscope, path)
        if not any("speedscope json" in l for l in ss["log"]) or len(ss["profiles"]) != 1:
            bad.append("%s: speedscope's import: %r" % (weight, json.dumps(ss)[:300]))
            continue
        p = ss["profiles"][0]
        total = threads_ns(rep, pid) if weight == "time" else sum(api_counts(rep).values())
        a_add = p["frames"].get("libsc_a.so:a_add", {}).get("total")
        if p["name"] != "sc_basic[%d]" % pid or p["unit"] != unit or \
                abs(p["total"] - total) > (0 if weight == "time" else len(p["frames"])) or \
                (want is not None and a_add != want):
            bad.append("%s: speedscope read %s (%s), total %s (want %d), a_add %s" % (
                weight, p["name"], p["unit"], p["total"], total, a_add))
    return bad


def check_chrome(scaler, prof, rep, tmp, tools):
    bad = []
    path = os.path.join(tmp, "trace.json")
    doc = json.loads(export(scaler, prof, path, "chrome"))
    ev = doc["traceEvents"]
    pid = rep["processes"][0]["pid"]
    for e in ev:
        if e.get("ph") not in ("M", "X") or not isinstance(e.get("name"), str) or \
                not isinstance(e.get("pid"), int) or not isinstance(e.get("tid"), int):
            return ["malformed event %r" % e]
        if e["ph"] == "X" and not (isinstance(e.get("ts"), (int, float)) and
                                   isinstance(e.get("dur"), (int, float)) and e["dur"] > 0):
            return ["malformed slice %r" % e]
        if e["ph"] == "M" and not isinstance(e.get("args", {}).get("name"), str):
            return ["malformed metadata %r" % e]
    names = {(e["name"], e["tid"]) for e in ev if e["ph"] == "M"}
    threads = [e for e in ev if e["ph"] == "X" and e.get("cat") == "thread"]
    calls = [e for e in ev if e["ph"] == "X" and e.get("cat") in ("call", "wait")]
    if ("process_name", pid) not in names or \
            any(("thread_name", t["tid"]) not in names for t in rep["threads"]):
        bad.append("process or thread names missing: %r" % sorted(names))
    for t in rep["threads"]:
        s = [e for e in threads if e["tid"] == t["tid"]]
        if len(s) != 1 or abs(s[0]["dur"] * 1000 - t["wall_ns"]) > 1:
            bad.append("thread %d: slices %r, wall %d ns" % (t["tid"], s, t["wall_ns"]))
    # the longest call of each API, inside its thread's life, as long as
    # the report's max (1 ns of rounding, 2 more where nesting clipped it)
    maxes = {(c["caller"], c["callee"] + ":" + c["api"]): c["max_ns"] for c in rep["calls"]}
    a_add = [e for e in calls if e["name"] == "libsc_a.so:a_add"]
    if len(a_add) != 1 or abs(a_add[0]["dur"] * 1000 -
                              maxes[("sc_basic", "libsc_a.so:a_add")]) > 3:
        bad.append("a_add's longest call %r, report max %d ns" % (
            a_add, maxes[("sc_basic", "libsc_a.so:a_add")]))
    # a track's slices nest: each one inside or wholly after the one
    # open before it (a library's destructors run after the thread's end)
    ns = lambda v: round(v * 1000)
    track = sorted(threads + calls, key=lambda e: (e["pid"], e["tid"], ns(e["ts"]), -ns(e["dur"])))
    stack = []
    for e in track:
        while stack and (stack[-1]["tid"] != e["tid"] or
                         ns(stack[-1]["ts"]) + ns(stack[-1]["dur"]) <= ns(e["ts"])):
            stack.pop()
        if stack and ns(e["ts"]) + ns(e["dur"]) > ns(stack[-1]["ts"]) + ns(stack[-1]["dur"]):
            bad.append("slice %r overlaps %r" % (e, stack[-1]))
        stack.append(e)
    if calls and not any(s["ts"] <= e["ts"] and e["ts"] + e["dur"] <= s["ts"] + s["dur"]
                         for e in calls for s in threads):
        bad.append("no call slice inside a thread's")
    if not calls or len(calls) > doc["otherData"]["call_slices_max"]:
        bad.append("%d call slices" % len(calls))
    if tools.speedscope:
        ss = tool_json(tools.speedscope, path)
        warn = [l for l in ss["log"] if l.startswith("warn:") or "Tried" in l or "open" in l]
        if not any("Trace Event" in l for l in ss["log"]) or warn or not ss["profiles"]:
            bad.append("speedscope's trace import: %r" % (ss["log"][:5],))
        elif not any("libsc_a.so:a_add" in f for p in ss["profiles"] for f in p["frames"]):
            bad.append("speedscope's trace import has no a_add slice")
    return bad


def pprof_top(pprof, path, index):
    """pprof -top: ({name: flat}, total) for sample index `index`."""
    p = subprocess.run([pprof, "-top", "-nodecount=1000", "-sample_index=" + index, path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=TIMEOUT,
                       env=dict(os.environ, PPROF_TMPDIR=os.path.dirname(path), HOME=os.path.dirname(path)))
    text = p.stdout.decode(errors="replace")
    m = re.search(r"of ([\d.]+)(\w*) total", text)
    if p.returncode != 0 or not m:
        raise ValueError("pprof -top exited %d: %s" % (p.returncode, text[-300:]))
    rows = []
    for line in text.splitlines():
        f = line.split()
        if len(f) == 6 and f[1].endswith("%") and f[4].endswith("%"):
            rows.append((f[5], f[0]))
    return rows, m.group(1) + m.group(2), text


def check_pprof(scaler, prof, rep, tmp, tools):
    bad = []
    pid = rep["processes"][0]["pid"]
    path = os.path.join(tmp, "p.pb.gz")
    raw = export(scaler, prof, path, "pprof")
    try:
        gzip.decompress(raw)
    except OSError as e:
        return ["not gzip: %s" % e]
    counts = api_counts(rep)
    self_ns = defaultdict(int)
    for c in rep["calls"]:
        if c["caller"] != c["callee"]:
            self_ns[c["callee"] + ":" + c["api"]] += c["self_ns"]
    top_api = max(counts, key=lambda k: counts[k])
    if tools.pprof_format:
        d = tool_json(tools.pprof_format, path)
        f = d["functions"]
        if d["sampleType"] != [["calls", "count"], ["time", "nanoseconds"]] or \
                d["defaultSampleType"] != "time":
            bad.append("sample types %r, default %r" % (d["sampleType"], d["defaultSampleType"]))
        a = f.get("libsc_a.so:a_add")
        if not a or a["flat"][0] != 1000003 or a["file"] != "libsc_a.so":
            bad.append("a_add: %r" % (a,))
        calls = sum(v["flat"][0] for v in f.values())
        ns = sum(v["flat"][1] for v in f.values())
        if ns != threads_ns(rep, pid) or abs(calls - sum(counts.values())) > len(f):
            bad.append("decoded totals %d calls, %d ns; json %d calls, threads %d ns" % (
                calls, ns, sum(counts.values()), threads_ns(rep, pid)))
    if tools.pprof:
        rows, total, text = pprof_top(tools.pprof, path, "calls")
        apis = [name for name, _ in rows if ":" in name]
        if not apis or apis[0] != top_api or rows[0][1] != "1000003":
            bad.append("pprof -top (calls): top %r, json's top %s" % (rows[:3], top_api))
        if int(total) != sum(counts.values()) and abs(int(total) - sum(counts.values())) > len(rows):
            bad.append("pprof -top total %s calls, json %d" % (total, sum(counts.values())))
        rows, total, text = pprof_top(tools.pprof, path, "time")
        apis = [name for name, _ in rows if ":" in name]
        want = max(self_ns, key=lambda k: self_ns[k])
        if not apis or apis[0] != want:
            bad.append("pprof -top (time): top API %r, json's top self time %s" % (
                apis[:3], want))
    return bad


def check_demangled(scaler, prof, rep, tmp, tools):
    """sc_nest's C++ APIs (_ZNSolsEi...) appear in every export demangled
    as the HTML view shows them; pprof keeps the linked symbol as
    system_name."""
    page = export(scaler, prof, os.path.join(tmp, "n.html"), "html").decode()
    shown = {html.unescape(m): html.unescape(d) for m, d in
             re.findall(r'<td class="api" title="([^"]*)">([^<]*)', page)}
    want = {(c["callee"], c["symbol"]): shown.get(c["symbol"]) for c in rep["calls"]
            if c["symbol"].startswith("_Z")}
    named = {(c["callee"], c["symbol"]): c["api"] for c in rep["calls"]}
    if not want or None in want.values() or any(k[1] == v for k, v in want.items()) or \
            any(named[k] != v for k, v in want.items()):    # the JSON's api as the HTML
        return ["sc_nest's C++ calls not demangled in the HTML: %r" % (want,)]
    bad = []
    folded = {f for frames, _ in parse_folded(export(scaler, prof, os.path.join(tmp, "n.folded"),
                                                     "folded").decode()) for f in frames}
    ss = json.loads(export(scaler, prof, os.path.join(tmp, "n.speedscope"), "speedscope"))
    ss_names = {f["name"] for f in ss["shared"]["frames"]}
    chrome = json.loads(export(scaler, prof, os.path.join(tmp, "n.chrome"), "chrome"))
    slices = {e["name"] for e in chrome["traceEvents"] if e.get("cat") == "call"}
    export(scaler, prof, os.path.join(tmp, "n.pb.gz"), "pprof")
    funcs = tool_json(tools.pprof_format, os.path.join(tmp, "n.pb.gz"))["functions"] \
        if tools.pprof_format else None
    for (callee, api), dem in sorted(want.items()):
        frame, raw = "%s:%s" % (callee, dem), "%s:%s" % (callee, api)
        for what, names in (("folded", folded), ("speedscope", ss_names)):
            if frame not in names or raw in names:
                bad.append("%s: %r %s, %r %s" % (what, frame, "present" if frame in names
                                                 else "missing", raw, "present" if raw in names
                                                 else "absent"))
        if raw in slices:
            bad.append("chrome: slice named %r" % raw)
        if funcs is not None and (funcs.get(frame) or {}).get("system") != api:
            bad.append("pprof: function %r: %r" % (frame, funcs.get(frame)))
    return bad


def checks(t):
    tools = Tools(os.path.dirname(os.path.dirname(t.scaler)))
    for name, have in (("speedscope", tools.speedscope), ("pprof-format", tools.pprof_format),
                       ("pprof", tools.pprof)):
        if not have:
            skip("report-exports-" + name, "not installed (tests/e2e/tools/setup.sh)")
    for name, fn in (("report-folded", check_folded), ("report-speedscope", check_speedscope),
                     ("report-chrome", check_chrome), ("report-pprof", check_pprof)):
        def one(fn=fn):
            prof = t.profile("basic")
            return fn(t.scaler, prof, report_json_of(t.scaler, prof), t.tmp, tools)
        guarded(name, t.variant, one)
    guarded("report-exports-demangled", t.variant, lambda: check_demangled(
        t.scaler, t.profile("nest"), report_json_of(t.scaler, t.profile("nest")), t.tmp, tools))
