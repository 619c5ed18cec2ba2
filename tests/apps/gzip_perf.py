#!/usr/bin/env python3
"""gzip_perf.py - where gzip's time goes by function, scaler against perf
(issue 21's "Done when"): `gzip -c FILE` on SIZE MB of text (C headers
from /usr/include, in name order, repeated to the size), once under `perf
record -F 4000` and RUNS times under each of MODES of `scaler record
--functions=gzip:*`. Debian's gzip is stripped: its functions are its
.eh_frame ranges (`readelf --debug-dump=frames`), named gzip+0xSTART as
scaler names them, and perf's samples of gzip (`perf report --no-children
--sort dso,sym`, one line per address) are folded into them. Each tool's
figure of a function is its share of gzip's own code: perf's samples,
scaler's exclusive time on the CPU (self_ns less kernel.self_preempted_ns).

The check: in every run of every mode the top 3 functions by share in
perf's order, and each of them within BOUND percentage points of perf's
share; the top 5 are compared too and shown, not required (perf's own 4th
to 6th lie within half a point of each other on this input). A run that
misses is retried once. Prints one line, "OK ...", "BAD ..." or "SKIP ..."
(perf missing or unable to sample, gzip or readelf missing).

--table prints instead the shares of perf's top 7 in each run, as
doc/performance.md's tables. Options: --runs N (default 1), --size MB
(default 40), --modes adaptive,all, --pre "chrt -f 10 taskset -c 1" (a
prefix for every profiled run: perf's and scaler's alike). Environment:
SCALER (default this tree's build)."""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCALER = os.environ.get("SCALER", os.path.join(ROOT, "build", "bin", "scaler"))
BOUND = 5.0     # percentage points, for the top 3
TOP = 3         # must be in perf's order
SHOW = 5        # compared and shown


class Skip(Exception):
    pass


def make_input(path, size):
    files = []
    for d, _, names in os.walk("/usr/include"):
        files += [os.path.join(d, f) for f in names]
    files.sort()
    n = 0
    with open(path, "wb") as out:
        while n < size and files:
            for p in files:
                try:
                    with open(p, "rb") as f:
                        b = f.read()
                except OSError:
                    continue
                out.write(b[:size - n])
                n += len(b[:size - n])
                if n >= size:
                    break
    if n < size:
        raise Skip("no text to compress under /usr/include")


def ranges(gz):
    """gzip's functions: sorted (start, end) of its .eh_frame FDEs"""
    r = subprocess.run(["readelf", "--debug-dump=frames", gz], capture_output=True, text=True)
    fdes = sorted({(int(a, 16), int(b, 16)) for a, b in
                   re.findall(r"FDE cie=\w+ pc=([0-9a-f]+)\.\.([0-9a-f]+)", r.stdout)})
    if r.returncode != 0 or len(fdes) < 20:
        raise Skip("readelf found %d functions in %s" % (len(fdes), gz))
    return fdes


def fold(fdes, addr):
    lo, hi = 0, len(fdes)
    while lo < hi:
        mid = (lo + hi) // 2
        if fdes[mid][0] <= addr:
            lo = mid + 1
        else:
            hi = mid
    if lo and addr < fdes[lo - 1][1]:
        return "gzip+0x%x" % fdes[lo - 1][0]
    return None


def shares(figs):
    tot = sum(figs.values())
    return {f: 100.0 * v / tot for f, v in figs.items()} if tot > 0 else {}


def perf_shares(perf, pre, gz, src, fdes, tmp):
    data = os.path.join(tmp, "perf.data")
    with open(os.devnull, "wb") as null:
        r = subprocess.run(pre + [perf, "record", "-q", "-F", "4000", "-o", data, "--",
                                  gz, "-c", src], stdout=null, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise Skip("perf cannot sample here (exit %d): %s" %
                   (r.returncode, r.stderr.decode(errors="replace").strip()[-200:]))
    r = subprocess.run([perf, "report", "-i", data, "--no-children", "--sort", "dso,sym",
                        "-n", "--stdio"], capture_output=True, text=True)
    samples = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[\.\]\s+0x([0-9a-f]+)\s*$", line)
        if m and m.group(2) == os.path.basename(gz):
            f = fold(fdes, int(m.group(3), 16))
            if f:
                samples[f] = samples.get(f, 0) + int(m.group(1))
    if r.returncode != 0 or sum(samples.values()) < 1000:
        raise Skip("perf gave %d samples of gzip (exit %d)" %
                   (sum(samples.values()), r.returncode))
    return shares(samples)


def scaler_shares(pre, gz, src, mode, tmp, want):
    prof = os.path.join(tmp, "prof-" + mode)
    r = subprocess.run(pre + [SCALER, "record", "-o", prof, "--timing=" + mode,
                              "--functions=gzip:*", "--", gz, "-c", src],
                       capture_output=True)
    if r.returncode != 0 or r.stdout != want:
        raise RuntimeError("gzip under scaler --timing=%s: exit %d, output %s: %s" %
                           (mode, r.returncode, "same" if r.stdout == want else "differs",
                            r.stderr.decode(errors="replace")[-300:]))
    r = subprocess.run([SCALER, "report", "-i", prof, "--format", "json"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("report exited %d: %s" % (r.returncode, r.stderr[-300:]))
    ns = {}
    for c in json.loads(r.stdout)["calls"]:
        if c["kind"] == "function" and c["callee"] == "gzip":
            pre_ns = (c.get("kernel") or {}).get("self_preempted_ns") or 0
            ns[c["api"]] = ns.get(c["api"], 0) + max(0, c["self_ns"] - pre_ns)
    return shares(ns)


def top(s, n):
    return sorted(s, key=lambda f: -s[f])[:n]


def compare(p, s):
    """what is wrong with scaler's shares s against perf's p"""
    bad = []
    if top(s, TOP) != top(p, TOP):
        bad.append("top %d %s, perf's %s" % (TOP, top(s, TOP), top(p, TOP)))
    bad += ["%s %.1f %% (perf %.1f %%)" % (f, s.get(f, 0), p[f]) for f in top(p, TOP)
            if abs(s.get(f, 0) - p[f]) > BOUND]
    return bad


def show(s, names):
    return " ".join("%.1f" % s.get(f, 0) for f in names)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--size", type=int, default=40)
    ap.add_argument("--modes", default="adaptive,all")
    ap.add_argument("--pre", default="")
    ap.add_argument("--table", action="store_true")
    a = ap.parse_args()
    pre = shlex.split(a.pre)
    perf, gz = shutil.which("perf"), shutil.which("gzip")
    tmp = tempfile.mkdtemp(prefix="scaler-gzperf-")
    try:
        if not perf or not gz or not shutil.which("readelf"):
            raise Skip("perf, gzip or readelf not installed")
        gz = os.path.realpath(gz)
        src = os.path.join(tmp, "input")
        make_input(src, a.size << 20)
        fdes = ranges(gz)
        want = subprocess.run([gz, "-c", src], capture_output=True, check=True).stdout
        p = perf_shares(perf, pre, gz, src, fdes, tmp)
        names = top(p, 7 if a.table else SHOW)
        if a.table:
            print("function | perf | " + " | ".join(a.modes.split(",")))
            got = {m: [scaler_shares(pre, gz, src, m, tmp, want) for _ in range(a.runs)]
                   for m in a.modes.split(",")}
            for f in names:
                print("%s | %.1f | %s" % (f, p[f], " | ".join(
                    ", ".join("%.1f" % s.get(f, 0) for s in got[m]) for m in got)))
            return 0
        bad, seen = [], []
        for m in a.modes.split(","):
            for i in range(a.runs):
                for attempt in range(2):
                    s = scaler_shares(pre, gz, src, m, tmp, want)
                    why = compare(p, s)
                    if not why:
                        break
                seen.append("%s %s%s" % (m, show(s, names),
                                         "" if top(s, SHOW) == names else " (top %d differs)" % SHOW))
                if why:
                    bad.append("%s run %d: %s" % (m, i + 1, "; ".join(why)))
        head = "perf %s [%s]; %s" % (show(p, names), " ".join(names), "; ".join(seen))
        print(("BAD %s: %s" % ("; ".join(bad), head)) if bad else "OK top %d as perf's: %s" %
              (TOP, head))
        return 1 if bad else 0
    except Skip as e:
        print("SKIP %s" % e)
        return 0
    except (RuntimeError, subprocess.CalledProcessError) as e:
        print("BAD %s" % e)
        return 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
