"""names.py - names a person recognises (issue 19, item 5).

names-symlink: a program started through a symlink (as redis-server is to
redis-check-rdb) is named as invoked, here by a relative path.
names-routines: static start routines (sc_imbalance's slow_stage and
fast_stage have no dynamic symbol) are named from .symtab; in a stripped
copy, from its debug file (.gnu_debuglink beside it); in a stripped copy
without one, as object+0xoffset.
names-demangled: a C++ API (sc_cpp's sc::check(int)) has the same demangled
name in every format; the JSON and CSV keep the linked symbol beside it.
names-columns: the text API view fits the width ($COLUMNS 100, 120, 200)
and never cuts two of sc_names' pthread_mutexattr_* APIs to the same
text (setprotocol and setprioceiling share 23 characters)."""
import csv
import gzip
import io
import json
import os
import shutil

from harness import check_rows, guarded, report_cmd, report_json_of, run

MODE = "e2e"
VARIANTS = ("lazy", "nopie")


def symlinked(t):
    link = os.path.join(t.tmp, "sc_alias")
    os.symlink(os.path.abspath(t.exe("vdso")), link)
    out = os.path.join(t.tmp, "alias.prof")
    rc, _, err = run([t.scaler, "record", "-o", out, "--", "./sc_alias"], cwd=t.tmp)
    if rc != 0:
        return ["record exited %d: %r" % (rc, err[-200:])]
    d = report_json_of(t.scaler, out)
    names = [c["name"] for c in d["components"]]
    bad = [] if "sc_vdso" not in names else ["named sc_vdso, as its symlink's target"]
    return bad + check_rows(d, [("sc_alias", "libc.so.6", "time", "1000")])


def routines(t, exe, prof):
    rc, _, err = run([t.scaler, "record", "-o", prof, "--", exe])
    if rc != 0:
        raise RuntimeError("record exited %d: %r" % (rc, err[-200:]))
    rc, rep, err = run([t.scaler, "report", "-i", prof, "--format", "json"])
    if rc != 0:
        raise RuntimeError("report exited %d: %r" % (rc, err[-200:]))
    return sorted(th["start_routine"] for th in json.loads(rep)["threads"])


def start_routines(t):
    want = ["fast_stage", "fast_stage", "main", "slow_stage", "slow_stage"]
    got = sorted(th["start_routine"] for th in report_json_of(t.scaler, t.profile("imbalance"))["threads"])
    bad = [] if got == want else ["from .symtab: %s, want %s" % (got, want)]
    # stripped copies beside the library they need ($ORIGIN)
    imb = os.path.abspath(t.exe("imbalance"))
    shutil.copy(os.path.join(t.bindir, "libsc_lj.so"), t.tmp)
    dbg, bare = os.path.join(t.tmp, "sc_imb_dbg"), os.path.join(t.tmp, "sc_imb_bare")
    for argv in (["objcopy", "--only-keep-debug", imb, dbg + ".debug"],
                 ["strip", "-o", dbg, imb],
                 ["objcopy", "--add-gnu-debuglink=" + dbg + ".debug", dbg],
                 ["strip", "-o", bare, imb]):
        rc, _, err = run(argv, cwd=t.tmp)
        if rc != 0:
            raise RuntimeError("%s: %r" % (" ".join(argv), err[-200:]))
    got = routines(t, dbg, os.path.join(t.tmp, "dbg.prof"))
    if got != want:
        bad.append("from the debug file: %s, want %s" % (got, want))
    got = routines(t, bare, os.path.join(t.tmp, "bare.prof"))
    anon = [r for r in got if r != "main"]
    if len(anon) != 4 or len(set(anon)) != 2 or \
            not all(r.startswith("sc_imb_bare+0x") for r in anon):
        bad.append("stripped, no debug file: %s, want 2 x 2 sc_imb_bare+0x..." % got)
    return bad


MANGLED, PRETTY = "_ZN2sc5checkEi", "sc::check(int)"


def demangled(t):
    prof = t.profile("cpp")
    bad = []
    calls = [c for c in report_json_of(t.scaler, prof)["calls"] if c.get("symbol") == MANGLED]
    if len(calls) != 1 or calls[0]["api"] != PRETTY:
        bad.append("json: calls of %s: %r" % (MANGLED, calls))
    rc, out, err = report_cmd(t.scaler, prof, "--format", "csv")
    rows = [r for r in csv.DictReader(io.StringIO(out, newline="")) if r.get("symbol") == MANGLED]
    if rc != 0 or len(rows) != 1 or rows[0]["api"] != PRETTY:
        bad.append("csv: rows of %s: %r" % (MANGLED, rows))
    for fmt in ("text", "html", "folded", "speedscope", "chrome", "pprof"):
        out = os.path.join(t.tmp, "out." + fmt)
        rc, _, err = report_cmd(t.scaler, prof, "--format", fmt, "-o", out)
        with open(out, "rb") as f:
            data = f.read()
        if fmt == "pprof":
            data = gzip.decompress(data)
        # the HTML keeps the symbol as the API cell's tooltip, pprof as the
        # function's system_name
        mangled = data.count(MANGLED.encode()) - (fmt in ("html", "pprof"))
        if rc != 0 or PRETTY.encode() not in data or mangled > 0:
            bad.append("%s: %s %d times, %s %d times" % (fmt, PRETTY, data.count(PRETTY.encode()),
                                                       MANGLED, mangled))
    return bad


def api_rows(text, component):
    """The API view's rows of the calls into component."""
    rows, inside = [], False
    for line in text.splitlines():
        if line.startswith("  %s:" % component):
            inside = True
        elif inside and not line.strip():
            break
        elif inside and not line.lstrip().startswith("api "):
            rows.append(line)
    return rows


def columns(t):
    prof = t.profile("names")
    want = sorted(c["api"] for c in report_json_of(t.scaler, prof)["calls"]
                  if c["callee"] == "libc.so.6")
    bad = []
    for width in (100, 120, 200):
        env = dict(os.environ, COLUMNS=str(width))
        rc, out, err = report_cmd(t.scaler, prof, env=env)
        rows = api_rows(out, "libc.so.6")
        cells = [r.split()[0] for r in rows]
        if rc != 0 or len(rows) != len(want) or len(set(cells)) != len(cells):
            bad.append("%d columns: API cells %s for %s" % (width, cells, want))
        wide = [r for r in rows if len(r) > width]
        if wide:
            bad.append("%d columns: %d rows wider, as %r" % (width, len(wide), wide[0]))
        if width == 200 and sorted(cells) != want:
            bad.append("200 columns: names cut: %s" % cells)
    return bad


def checks(t):
    guarded("names-symlink", t.variant, lambda: symlinked(t))
    guarded("names-routines", t.variant, lambda: start_routines(t))
    guarded("names-demangled", t.variant, lambda: demangled(t))
    guarded("names-columns", t.variant, lambda: columns(t))
