"""args.py - scaler record --args on sc_args (tests/e2e/args) and sc_abi.

- args-exact: with --timing all every call's values are seen once: the
  histograms of write's count and return value, malloc's size and the
  libsc_ac.so APIs' arguments are exact bucket by bucket (write(64)
  x1000 = 1,000 calls in [64, 128)), the failed write is one negative
  return and one EBADF in the row's errors, min and max are the values passed; the program, which checks
  its own arguments and return values (rax:rdx, xmm0, a variadic list),
  prints the same and exits 0 as without scaler; the text and HTML
  reports show the values.
- args-adaptive: adaptive timing sees a sample: the estimated calls of the
  histogram add up to the exact count (rounding aside), and the [64, 128)
  bucket of write's count, 1,000 of 1,011 calls, comes out within 10 %.
- args-abi: every ABI corner of sc_abi (x87, complex, variadic with AL,
  stack arguments, structs in registers and memory, hidden return
  pointer) goes through the capture on every call: the same output.
- args-off: without --args no .args file is made and rows have no values.
- args-again: a second record into the same DIR keeps the first as
  DIR.old (.args files are profile files).
- args-exec: images exec'd with an environment of their own (sc_exec)
  keep values too (the exec wrappers put SCALER_ARGS back).
- args-spec: a bad spec is refused before the command runs.
- args-diff: diff of 4 MB written in 4096-byte pieces against the same in
  64-byte ones ranks write first as smaller pieces (tiny I/O); two runs
  of the 64-byte pieces give no significant finding.
Checks: args-exact, args-adaptive, args-abi, args-off, args-again,
args-exec, args-spec, args-diff (lazy)."""
import json
import os

from argvals import expect, row, values
from harness import diff_findings, guarded, report_json_of, run, significant

MODE = "e2e"
VARIANTS = ("lazy",)

SPEC = "default;ac_six=arg1,arg6,ret;ac_dbl=arg1;ac_var=arg1"


def record(t, name, argv, *opts):
    out = os.path.join(t.tmp, "args-" + name)
    rc, stdout, err = run([t.scaler, "record", "-o", out] + list(opts) + ["--"] + argv)
    return out, rc, stdout, err


def check_exact(t):
    bad = []
    exe = t.exe("args")
    rc0, out0, _ = run([exe, "std"])
    prof, rc, out, err = record(t, "exact", [exe, "std"], "--timing=all", "--args=" + SPEC)
    if rc != rc0 or out != out0 or out != b"std 0\n":
        return ["exit %d, output %r; without scaler %d, %r (%r)" % (rc, out, rc0, out0,
                                                                   err[-200:])]
    rep = report_json_of(t.scaler, prof)
    w = values(row(rep, "sc_args", "write"))
    if set(w) != {"count", "ret"}:
        return ["write values %r" % sorted(w)]
    expect(bad, "write count hist", w["count"]["hist"],
           [[8, 16, 1], [64, 128, 1000], [4096, 8192, 10]])
    expect(bad, "write count min/max/negative",
           (w["count"]["min"], w["count"]["max"], w["count"]["negative"]), (8, 4096, 0))
    expect(bad, "write ret hist", w["ret"]["hist"], [[64, 128, 1000], [4096, 8192, 10]])
    expect(bad, "write ret min/max/negative",
           (w["ret"]["min"], w["ret"]["max"], w["ret"]["negative"]), (-1, 4096, 1))
    expect(bad, "write count mean", w["count"]["mean"], round((64000 + 40960 + 8) / 1011, 3))
    expect(bad, "write errors", row(rep, "sc_args", "write").get("errors"), {"EBADF": 1})
    m = values(row(rep, "sc_args", "malloc"))
    expect(bad, "malloc size", m.get("size", {}).get("hist"), [[64, 128, 50]])
    six = values(row(rep, "sc_args", "ac_six"))
    expect(bad, "ac_six arg1", six.get("arg1", {}).get("hist"), [[1, 2, 100]])
    expect(bad, "ac_six arg6", (six.get("arg6", {}).get("min"), six.get("arg6", {}).get("hist")),
           (0x123456789abcdef0, [[1 << 60, 1 << 61, 100]]))
    expect(bad, "ac_six ret (rax)", six.get("ret", {}).get("hist"), [[8, 16, 100]])
    dbl = values(row(rep, "sc_args", "ac_dbl"))
    expect(bad, "ac_dbl arg1 (0..99)", dbl.get("arg1", {}).get("hist"),
           [[0, 1, 1], [1, 2, 1], [2, 4, 2], [4, 8, 4], [8, 16, 8], [16, 32, 16],
            [32, 64, 32], [64, 128, 36]])
    var = values(row(rep, "sc_args", "ac_var"))
    expect(bad, "ac_var arg1", var.get("arg1", {}).get("hist"), [[2, 4, 100]])
    rc, text, _ = run([t.scaler, "report", "-i", prof])
    if b"1,000 calls (98.9%) of 64..127" not in text or b"1 negative (errors)" not in text:
        bad.append("text report lacks write's values: %r" % text[-600:])
    rc, page, _ = run([t.scaler, "report", "-i", prof, "--format", "html"])
    if b'id="value-table"' not in page or b"1,000 calls (98.9%) of 64..127" not in page:
        bad.append("HTML report lacks the values table (exit %d)" % rc)
    return bad


def check_adaptive(t):
    bad = []
    prof, rc, out, err = record(t, "adaptive", [t.exe("args"), "std"], "--args")
    if rc != 0 or out != b"std 0\n":
        return ["exit %d, output %r (%r)" % (rc, out, err[-200:])]
    c = row(report_json_of(t.scaler, prof), "sc_args", "write")
    v = values(c).get("count")
    if not v:
        return ["no values of write: %r" % (c,)]
    total = sum(h[2] for h in v["hist"])
    if abs(total - c["count"]) > 3:
        bad.append("estimated calls %d, exact count %d" % (total, c["count"]))
    b64 = sum(h[2] for h in v["hist"] if h[0] == 64)
    if not 900 <= b64 <= 1011:
        bad.append("write of 64..127 bytes: %d calls estimated, 1,000 made" % b64)
    return bad


def check_abi(t):
    exe = t.exe("abi")
    spec = ("f_scale=arg1,ret;d_poly=arg1;ld_mul=arg1,ret;cld_rot=arg1;cd_mul=arg1;"
            "cf_conj=arg1;vsum=arg1,ret;vmix=arg1;vlist=arg1,arg2;fmt_lib=arg1,arg2,ret;"
            "many=arg1,arg6,ret;big_make=arg1,arg2,ret;small_make=arg1,arg2,ret;"
            "dd_make=ret;mixed_make=arg1,ret;u128_shift=arg1,arg2,arg3,ret")
    rc0, out0, _ = run([exe])
    prof, rc, out, err = record(t, "abi", [exe], "--timing=all", "--args=" + spec)
    if rc != rc0 or out != out0:
        return ["exit %d, output differs from the plain run's (%d): %r vs %r (%r)"
                % (rc, rc0, out[-200:], out0[-200:], err[-200:])]
    rep = report_json_of(t.scaler, prof)
    got = sorted(c["api"] for c in rep["calls"] if c["args"] and c["caller"] == "sc_abi")
    if len(got) < 8:
        return ["values kept of only %r" % got]
    return []


def check_off(t):
    prof, rc, out, err = record(t, "off", [t.exe("args"), "std"], "--timing=all")
    if rc != 0:
        return ["exit %d (%r)" % (rc, err[-200:])]
    files = [f for f in os.listdir(prof) if f.endswith(".args")]
    rows = [c["api"] for c in report_json_of(t.scaler, prof)["calls"] if c["args"]]
    return ["without --args: files %r, values in %r" % (files, rows)] if files or rows else []


def check_again(t):
    """A profile with .args files is one scaler record may move aside."""
    prof = os.path.join(t.tmp, "args-again")
    for i in range(2):
        rc, _, err = run([t.scaler, "record", "-o", prof, "--args", "--", t.exe("args"), "small"])
        if rc != 0:
            return ["record %d into the same DIR: exit %d %r" % (i + 1, rc, err[-200:])]
    if not any(f.endswith(".args") for f in os.listdir(prof + ".old")):
        return ["the first profile's .args files are not in DIR.old"]
    return []


def check_exec(t):
    """Images exec'd with an environment of their own (sc_exec) and fork
    children (sc_fork) keep values too: the exec wrappers put SCALER_ARGS
    back, a child gets files of its own."""
    bad = []
    for prog in ("exec", "fork"):
        exe = t.exe(prog)
        rc0, out0, _ = run([exe])
        prof, rc, out, err = record(t, prog, [exe], "--args=b_mul=arg1,ret")
        if rc != rc0 or out != out0:
            bad.append("%s: exit %d, output differs (%r)" % (prog, rc, err[-200:]))
            continue
        thr = {f[:-4] for f in os.listdir(prof) if f.endswith(".thr")}
        args = {f[:-5] for f in os.listdir(prof) if f.endswith(".args")}
        if thr != args or len({f.split("-t")[0] for f in thr}) < 2:
            bad.append("%s: threads %r, .args files %r" % (prog, sorted(thr), sorted(args)))
        rows = [c for c in report_json_of(t.scaler, prof)["calls"] if c["api"] == "b_mul"]
        seen = sum(a["seen"] for c in rows for a in c["args"] if a["name"] == "arg1")
        count = sum(c["count"] for c in rows)
        if not rows or seen == 0 or (prog == "exec" and count != 1023):
            bad.append("%s: b_mul: %d calls, %d values seen" % (prog, count, seen))
    return bad


def check_spec(t):
    bad = []
    for spec, words in (("nosuchapi", b"no built-in prototype"),
                        ("write=arg9", b"not argN[/FMT], ret[/FMT] or errors[/HOW]"),
                        ("write=errors/0", b"not argN[/FMT], ret[/FMT] or errors[/HOW]"),
                        ("write=ret/distinct", b"not argN[/FMT], ret[/FMT] or errors[/HOW]"),
                        ("write=arg1,arg2,arg3,arg4,ret", b"more than 4 values")):
        out = os.path.join(t.tmp, "args-spec")
        rc, stdout, err = run([t.scaler, "record", "-o", out, "--args=" + spec, "--",
                               t.exe("args"), "std"])
        if rc != 2 or stdout or words not in err or os.path.exists(out):
            bad.append("--args=%s: exit %d %r %r" % (spec, rc, stdout, err[:200]))
    return bad


def check_diff(t):
    exe = t.exe("args")
    profs = {}
    for name in ("big", "small", "small2"):
        profs[name], rc, out, err = record(t, "diff-" + name, [exe, name.rstrip("2")], "--args")
        if rc != 0:
            return ["record %s: exit %d (%r)" % (name, rc, err[-200:])]
    bad = []
    rc, out, err = run([t.scaler, "diff", profs["big"], profs["small"], "--format", "json"])
    if rc != 0:
        return ["diff: exit %d (%r)" % (rc, err[-200:])]
    f = json.loads(out)["findings"]
    top = f[0] if f else {}
    if (top.get("caller"), top.get("api"), top.get("significant")) != ("sc_args", "write", True) \
            or "smaller pieces (tiny I/O): write count 64 per call, was 4,096" \
            not in top.get("pattern", ""):
        bad.append("diff big small: first finding %r" % {k: top.get(k) for k in
                                                           ("caller", "api", "pattern")})
    dists = {d["name"]: d for d in top.get("distributions", [])}
    if not dists.get("count", {}).get("significant"):
        bad.append("write's count distribution not a significant change: %r" % dists.get("count"))
    sig = significant(diff_findings(t.scaler, profs["small"], profs["small2"]))
    if sig:
        bad.append("diff small small: significant %r" % sig)
    return bad


def checks(t):
    guarded("args-exact", t.variant, lambda: check_exact(t))
    guarded("args-adaptive", t.variant, lambda: check_adaptive(t))
    guarded("args-abi", t.variant, lambda: check_abi(t))
    guarded("args-off", t.variant, lambda: check_off(t))
    guarded("args-again", t.variant, lambda: check_again(t))
    guarded("args-exec", t.variant, lambda: check_exec(t))
    guarded("args-spec", t.variant, lambda: check_spec(t))
    guarded("args-diff", t.variant, lambda: check_diff(t))
