"""functions.py - `scaler record --functions` on sc_functions, whose
functions count their own calls and print the counts: every patched one
must have exactly that count in the report (kind "function", its own
component calling; fn_cmp, called only by qsort, with libc.so.6 calling,
and timed like an import, as its caller keeps nothing the ABI does not
promise; fnl_inner and fndl_step in a linked and a dlopen'd library), the
exported fnl_add, called through the PLT, counted once by its import, the
ones that cannot be patched safely must be listed
with their reason, and the program's output must be unchanged. The same
on the stripped copy, whose functions are named sc_functions_stripped+0xOFF
from .eh_frame (its .cold parts not among them; fn_tail_b, entered only by
a jump, refused as one may be), and under --timing=all (functions are counted, never
timed, except calls from other components); and sc_exec's every image,
whatever environment it was given, patched. Checks: functions,
functions-stripped, functions-timing-all (lazy), functions-errors (lazy),
functions-exec (lazy), functions-cxx (lazy: demangled, clones grouped),
functions-debugdata (lazy: the same counts and names on a stripped copy
with .gnu_debugdata, Fedora's xz-compressed mini debuginfo)."""
import json
import os
import re

from harness import guarded, run

MODE = "e2e"

REFUSED = {
    "fn_loophead": "a branch into the overwritten bytes",
    "fn_tiny4": "shorter than the jump",
}


def own_counts(out):
    """{function: calls} from the program's "calls ..." lines."""
    words = b" ".join(re.findall(rb"^calls (.*)$", out, re.M)).decode().split()
    return {words[i]: int(words[i + 1]) for i in range(0, len(words) - 1, 2)}


# the libraries' functions: where they are; fnl_add, exported and called
# through the PLT, counted once, by its import
SPEC = "fn_*,libsc_fnlib.so:fnl_*,libsc_fndl.so:fndl_*"
LIB = {"fnl_inner": "libsc_fnlib.so", "fndl_step": "libsc_fndl.so"}


def record_functions(t, exe, spec, name, timing=None):
    """Runs exe without and with scaler; (problems, report, stdout, stderr)."""
    rc, want, _ = run([exe])
    prof = os.path.join(t.tmp, name)
    cmd = [t.scaler, "record", "-o", prof, "--functions=" + spec]
    if timing:
        cmd.append("--timing=" + timing)
    rc2, got, err = run(cmd + ["--", exe])
    if rc != 0 or rc2 != 0 or got != want:
        return ["output %r (exit %d) with scaler, %r (exit %d) without: %s"
                % (got[-200:], rc2, want[-200:], rc, err[-300:])], None, want, err
    rc, rep, err2 = run([t.scaler, "report", "-i", prof, "--format", "json"])
    if rc != 0:
        return ["report exited %d: %s" % (rc, err2[-300:])], None, want, err
    return [], json.loads(rep), want, err


# under --timing=all, the calls that are counted but not timed: the ones
# left by longjmp (odd i) or an exception (i % 3 == 0), and fn_tail_b's,
# reached by a tail call from a timed call, whose time is that call's
UNTIMED = {"fn_jumper": 20, "fn_thrower": 10, "fn_through": 10, "fn_tail_b": 300}

# the caller of each function's calls, when not its own component
CALLER = {"fn_cmp": "libc.so.6"}


def function_rows(rep, comp, name_of):
    """{api: row} of the function rows with the expected component and
    caller (comp unless LIB, CALLER say otherwise); a row with another
    makes the function's entry None."""
    callers = {name_of(fn): c for fn, c in CALLER.items()}
    rows = {}
    for c in rep["calls"]:
        if c["kind"] == "function":
            where = LIB.get(c["api"], comp)
            ok = c["callee"] == where and c["caller"] == callers.get(c["api"], where)
            rows[c["api"]] = c if ok and c["api"] not in rows else None
    return rows


def check_counts(rows, want, name_of):
    bad = []
    for fn, n in sorted(want.items()):
        row = rows.get(name_of(fn))
        if not row or row["count"] != n:
            bad.append("%s: %s calls in the report, %d by its own count"
                       % (name_of(fn), row["count"] if row else "no row", n))
    return bad


def check_summary(err, rep):
    m = re.search(rb"scaler: (\d+) functions patched, (\d+) skipped", err)
    if not m:
        return ["no 'N functions patched, M skipped' line: %r" % err[-200:]]
    if int(m.group(2)) != len(rep["skipped_functions"]):
        return ["summary says %s skipped, the report lists %d"
                % (m.group(2).decode(), len(rep["skipped_functions"]))]
    return []


def functions(t, timing=None, prog="functions"):
    bad, rep, out, err = record_functions(t, t.exe(prog), SPEC, "f", timing)
    if bad:
        return bad
    want = own_counts(out)
    if len(want) != 12:
        return ["the program's counts: %r" % want]
    comp = "sc_" + prog
    rows = function_rows(rep, comp, lambda fn: fn)
    bad = check_counts(rows, want, lambda fn: fn)
    for r in rows.values():
        if not r or timing != "all":
            continue
        want_timed = r["count"] - UNTIMED.get(r["api"], 0)
        if r["timed"] != want_timed:
            bad.append("%s timed %d calls, want %d" % (r["api"], r["timed"], want_timed))
    skipped = {s["function"]: s for s in rep["skipped_functions"]}
    for fn, why in REFUSED.items():
        s = skipped.get(fn)
        if not s or s["reason"] != why or s["component"] != comp:
            bad.append("%s: skipped as %r, want %r" % (fn, s, why))
        if fn in rows:
            bad.append("%s was patched" % fn)
    for fn, s in skipped.items():
        if fn not in REFUSED and not fn.endswith(".cold") and not fn.startswith("fn_thrower."):
            bad.append("%s skipped: %s" % (fn, s["reason"]))
    for api, n in (("qsort", 1), ("fnl_add", 123), ("fndl_run", 2)):
        imports = [c for c in rep["calls"] if c["api"] == api]
        if len(imports) != 1 or imports[0]["count"] != n or imports[0]["kind"] != "import":
            bad.append("%s rows: %r (want one import, %d calls)" % (api, imports, n))
    return bad + check_summary(err, rep)


def functions_stripped(t):
    exe = t.exe("functions_stripped")
    rc, nm, _ = run(["nm", t.exe("functions")])
    if rc != 0:
        return ["nm %s failed" % t.exe("functions")]
    addr = {}
    for line in nm.decode().splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tT":
            addr[f[2]] = int(f[0], 16)
    bad, rep, out, err = record_functions(t, exe, "*", "s")
    if bad:
        return bad
    # fn_tail_b, reached only by a tail call (jmp), looks like a .cold
    # part once the names are gone
    want = {fn: n for fn, n in own_counts(out).items()
            if fn.startswith("fn_") and fn != "fn_tail_b"}
    name_of = lambda fn: "sc_functions_stripped+0x%x" % addr.get(fn, 0)
    rows = function_rows(rep, "sc_functions_stripped", name_of)
    bad = check_counts(rows, want, name_of) + check_summary(err, rep)
    skipped = {s["function"]: s["reason"] for s in rep["skipped_functions"]}
    why = skipped.get(name_of("fn_tail_b"), "")
    if not why.startswith("entered only by jumps"):
        bad.append("fn_tail_b skipped as %r" % why)
    # a .cold part, known by its FDE only, is no function of its own
    colds = [name_of(fn) for fn in addr if fn.endswith(".cold")]
    patched = {c["api"] for c in rep["calls"] if c["kind"] == "function"}
    if not colds or patched & set(colds):
        bad.append("cold parts %r, patched: %r" % (colds, sorted(patched & set(colds))))
    return bad


def functions_cxx(t):
    """sc::scale, a C++ function GCC clones as .constprop.0: its row keeps
    the linked symbol in symbol, its demangled function (clone suffix off)
    in JSON and CSV, the text view's function view lists it with its clone
    under it and its calls from its own component are no API-view row."""
    exe = t.exe("functions")
    bad, rep, out, err = record_functions(t, exe, "_ZN2sc*,fn_cmp", "c")
    if bad:
        return bad
    m = re.search(rb"^cxx \d+ sc::scale (\d+)$", out, re.M)
    want = int(m.group(1)) if m else -1
    rows = [c for c in rep["calls"] if c["kind"] == "function" and c["symbol"].startswith("_ZN2sc")]
    if (len(rows) != 1 or rows[0]["count"] != want or rows[0]["caller"] != "sc_functions"
            or rows[0].get("function") != "sc::scale(long, int, long)"):
        return ["sc::scale rows %r, %d calls by its own count" % (rows, want)]
    api = rows[0]["symbol"]
    clone = api[api.index("."):] if "." in api else ""
    prof = os.path.join(t.tmp, "c")
    rc, csv, _ = run([t.scaler, "report", "-i", prof, "--format", "csv"])
    if rc != 0 or (",function,%d," % want).encode() not in csv \
            or ("," + api + ',"sc::scale(long, int, long)"\r\n').encode() not in csv:
        bad.append("csv rows of %s: %r" % (api, csv[-400:]))
    rc, text, _ = run([t.scaler, "report", "-i", prof])
    text = text.decode()
    fv = text[text.find("FUNCTION VIEW"):]
    line = re.search(r"^    sc::scale\(long, int, long\) +(\S+) .* sc_functions \(itself\)$", fv, re.M)
    if text.find("FUNCTION VIEW") < 0 or not line or line.group(1) != str(want):
        bad.append("function view: %r" % fv[:600])
    elif clone and not re.search(r"^      %s +%d " % (re.escape(clone), want), fv, re.M):
        bad.append("function view: no %s row under sc::scale: %r" % (clone, fv[:600]))
    if "sc::scale" in text[:text.find("FUNCTION VIEW")]:
        bad.append("sc::scale, called from its own component, in the API view")
    if not re.search(r"^    fn_cmp +1,286 .* libc\.so\.6$", fv, re.M):
        bad.append("function view: fn_cmp from libc.so.6 missing")
    rc, page, _ = run([t.scaler, "report", "-i", prof, "--format", "html"])
    page = page.decode()
    table = re.search(r'id="function-table".*?<tbody>(.*?)</tbody>', page, re.S)
    calls = re.search(r'id="call-table".*?<tbody>(.*?)</tbody>', page, re.S)
    rows = re.findall(r'<tr[^>]*><td class="api" title="([^"]*)">([^<]*)</td>.*?'
                      r'data-v="(\d+)"', table.group(1) if table else "")
    want_rows = [("sc::scale(long, int, long)", "sc::scale(long, int, long)", str(want))]
    if clone:
        want_rows.append((api, "\u21b3 sc::scale(long, int, long) [clone %s]" % clone, str(want)))
    if not table or [r for r in rows if "sc::scale" in r[1]] != want_rows:
        bad.append("html function table: %r" % rows)
    if not calls or "sc::scale" in calls.group(1) or "fn_cmp" not in calls.group(1):
        bad.append("html call table: sc::scale listed or fn_cmp missing")
    return bad


def functions_errors(t):
    bad = []
    for spec in ("", "a:", ":b", "a,,b"):
        rc, out, err = run([t.scaler, "record", "-o", os.path.join(t.tmp, "e"),
                            "--functions=" + spec, "--", "true"])
        lines = err.decode(errors="replace").strip().splitlines()
        if rc == 0 or len(lines) != 1 or not lines[0].startswith("scaler: "):
            bad.append("--functions=%r: exit %d, stderr %r" % (spec, rc, err[-200:]))
    return bad


def functions_exec(t):
    """Every image of sc_exec, whatever environment it was started with
    (env -i, execle, posix_spawn with envp), gets --functions: each lists
    main (refused or patched) once."""
    exe = t.exe("exec")
    rc, want, _ = run([exe])
    prof = os.path.join(t.tmp, "x")
    rc2, got, err = run([t.scaler, "record", "-o", prof, "--functions=main", "--", exe])
    if rc != 0 or rc2 != 0 or got != want:
        return ["output differs (exit %d/%d): %s" % (rc2, rc, err[-300:])]
    rc, rep, _ = run([t.scaler, "report", "-i", prof, "--format", "json"])
    rep = json.loads(rep)
    images = sum(1 for p in rep["processes"] if os.path.basename(p["command"][0]) == "sc_exec")
    seen = sum(1 for s in rep["skipped_functions"]
               if s["component"] == "sc_exec" and s["function"] == "main")
    seen += sum(c["count"] for c in rep["calls"]
                if c["kind"] == "function" and c["api"] == "main")
    if images < 11 or seen != images:
        return ["main seen in %d of %d images of sc_exec" % (seen, images)]
    return []


def checks(t):
    guarded("functions", t.variant, lambda: functions(t))
    guarded("functions-stripped", t.variant, lambda: functions_stripped(t))
    if t.variant == "lazy":
        guarded("functions-timing-all", t.variant, lambda: functions(t, "all"))
        guarded("functions-errors", t.variant, lambda: functions_errors(t))
        guarded("functions-cxx", t.variant, lambda: functions_cxx(t))
        guarded("functions-debugdata", t.variant, lambda: functions(t, prog="functions_minidata"))
        guarded("functions-exec", t.variant, lambda: functions_exec(t))
