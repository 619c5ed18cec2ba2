"""args_kinds.py - scaler record --args on the values that are not an
argument as passed: sc_args kinds (tests/e2e/args/main.c) under
--timing=all, every call seen once, so every figure is exact.

- args-kinds: free's size is the allocator's (malloc_usable_size, which
  the program prints: 21, 11 and 6 frees of each size, 5 of NULL as 0);
  failures by errno (malloc ENOMEM x2, pthread_mutex_trylock EBUSY x7,
  sem_trywait EAGAIN x4, read EBADF x3, none for the sleeps) in the JSON
  rows' "errors" and the text report; which lock: 3 mutexes exactly, 100
  rwlocks estimated (HyperLogLog) within 25 %; requested sleeps in ns
  (nanosleep 1 us x3 and 2 ms x1, clock_nanosleep 5 us x2) and usleep's
  usec; --functions entries called from another component
  (libsc_ac.so -> cb_twice, cb_lock) with a user spec (cb_lock's 100
  distinct arguments, arg1/distinct, and errors/num: none). The program checks errno
  around every call (the capture must not change it) and its results:
  the same output and exit as without scaler.
- args-allocator: with an allocator preloaded that defines free but not
  malloc_usable_size (libsc_bump.so), free has no size (glibc's would
  read a header that allocator never wrote); with one that defines both
  (libsc_bumpu.so) free's size is that allocator's (asked + 3). Under
  lazy binding the program's malloc must reach the preloaded allocator,
  as without scaler (scaler used to resolve malloc@GLIBC_2.2.5 to libc's).
- args-diff-errors: diff of 20,000 writes to /dev/null against the same
  with every other one to fd -1 ranks write first as more errors (the
  errno distribution significant, ~50 % of calls failing); two runs
  without failures give no significant finding.
Checks: args-kinds, args-allocator, args-diff-errors (lazy)."""
import os

from argvals import expect, values
from harness import diff_findings, guarded, report_json_of, run, significant

MODE = "e2e"
VARIANTS = ("lazy",)


def rows(rep, caller):
    return {c["api"]: c for c in rep["calls"] if c["caller"] == caller}


def check_kinds(t):
    exe = t.exe("args")
    rc0, out0, _ = run([exe, "kinds"])
    prof = os.path.join(t.tmp, "args-kinds")
    rc, out, err = run([t.scaler, "record", "-o", prof, "--timing=all",
                        "--args=default;cb_twice=arg1,ret;cb_lock=arg1/distinct,errors/num",
                        "--functions=cb_twice,cb_lock", "--",
                        exe, "kinds"])
    if rc != rc0 or out != out0 or not out.endswith(b"kinds 0\n"):
        return ["exit %d, output %r; without scaler %d, %r (%r)" % (rc, out, rc0, out0,
                                                                   err[-300:])]
    u = [int(x.split()[1]) for x in out.decode().splitlines() if x.startswith("usable ")]
    rep = report_json_of(t.scaler, prof)
    r = rows(rep, "sc_args")
    bad = []

    free = values(r.get("free")).get("size", {})
    hist = {}
    for size, n in zip([0] + u, (5, 21, 11, 6)):
        b = size.bit_length()
        lo = 0 if b == 0 else 1 << (b - 1)
        hist[lo] = hist.get(lo, 0) + n
    expect(bad, "free size hist", [(h[0], h[2]) for h in free.get("hist", [])],
           sorted(hist.items()))
    expect(bad, "free size min/max/mean/seen",
           (free.get("min"), free.get("max"), free.get("mean"), free.get("seen")),
           (0, u[2], round((21 * u[0] + 11 * u[1] + 6 * u[2]) / 43, 3), 43))
    for api, errs in (("malloc", {"ENOMEM": 2}), ("pthread_mutex_trylock", {"EBUSY": 7}),
                      ("sem_trywait", {"EAGAIN": 4}), ("read", {"EBADF": 3}),
                      ("nanosleep", {}), ("clock_nanosleep", {}), ("usleep", {}),
                      ("pthread_mutex_lock", {}), ("pthread_rwlock_wrlock", {})):
        expect(bad, api + " errors", (r.get(api) or {}).get("errors"), errs)
    expect(bad, "free errors (none captured)", "errors" in (r.get("free") or {}), False)
    for api, name, n, distinct in (("pthread_mutex_lock", "mutex", 301, 3),
                                   ("pthread_mutex_unlock", "mutex", 301, 3),
                                   ("pthread_mutex_trylock", "mutex", 7, 1),
                                   ("sem_trywait", "sem", 4, 1)):
        v = values(r.get(api)).get(name, {})
        expect(bad, api + " " + name, (v.get("seen"), v.get("distinct"), v.get("exact")),
               (n, distinct, True))
    for api in ("pthread_rwlock_wrlock", "pthread_rwlock_unlock"):
        v = values(r.get(api)).get("rwlock", {})
        if v.get("seen") != 100 or v.get("exact") is not False or \
                not 75 <= (v.get("distinct") or 0) <= 125:
            bad.append("%s: 100 rwlocks seen as %r" % (api, v))
    for api, name, lo, hi, mean, hist in (
            ("nanosleep", "req_ns", 1000, 2000000, 500750.0,
             [[512, 1024, 3], [1048576, 2097152, 1]]),
            ("clock_nanosleep", "request_ns", 5000, 5000, 5000.0, [[4096, 8192, 2]]),
            ("usleep", "usec", 50, 50, 50.0, [[32, 64, 2]])):
        v = values(r.get(api)).get(name, {})
        expect(bad, api + " " + name, (v.get("min"), v.get("max"), v.get("mean"), v.get("hist")),
               (lo, hi, mean, hist))
    cb = [c for c in rep["calls"] if c["api"] == "cb_twice"]
    cbv = values(cb[0]) if len(cb) == 1 else {}
    expect(bad, "cb_twice from libsc_ac.so",
           (cb[0]["caller"] if len(cb) == 1 else [c["caller"] for c in cb],
            cbv.get("arg1", {}).get("seen"), cbv.get("arg1", {}).get("max"),
            cbv.get("ret", {}).get("max")), ("libsc_ac.so", 50, 49, 98))

    lk = [c for c in rep["calls"] if c["api"] == "cb_lock"]
    lkv = values(lk[0]).get("arg1", {}) if len(lk) == 1 else {}
    if lk[0].get("errors") != {} or lkv.get("seen") != 100 or lkv.get("exact") is not False \
            or not 75 <= (lkv.get("distinct") or 0) <= 125:
        bad.append("cb_lock=arg1/distinct,errors/num: %r" % lk)

    rc, text, _ = run([t.scaler, "report", "-i", prof])
    for words in (b"mutex: 3 distinct", b"errors: 7 of 7 calls: EBUSY 7", b"rwlock: ~",
                  b"errors: 3 of 3 calls: EBADF 3"):
        if words not in text:
            bad.append("text report lacks %r" % words)
    rc, page, _ = run([t.scaler, "report", "-i", prof, "--format", "html"])
    if b"errors: 4 of 4 calls: EAGAIN 4" not in page:
        bad.append("HTML report lacks sem_trywait's errors (exit %d)" % rc)
    return bad


def check_allocator(t):
    exe = t.exe("args")
    bad = []
    for lib, size in (("bump", None), ("bumpu", 103)):
        env = dict(os.environ, LD_PRELOAD=os.path.join(t.bindir, "libsc_%s.so" % lib))
        prof = os.path.join(t.tmp, "args-alloc-" + lib)
        rc, out, err = run([t.scaler, "record", "-o", prof, "--timing=all", "--args", "--",
                            exe, "std"], env=env)
        if rc != 0 or out != b"std 0\n":
            bad.append("%s: exit %d, output %r (%r)" % (lib, rc, out, err[-200:]))
            continue
        r = rows(report_json_of(t.scaler, prof), "sc_args")
        free, malloc = r.get("free") or {}, r.get("malloc") or {}
        expect(bad, lib + ": malloc, free callees", (malloc.get("callee"), free.get("callee")),
               ("libsc_%s.so" % lib,) * 2)
        v = values(free).get("size")
        got = None if v is None else (v["min"], v["max"], v["seen"])
        expect(bad, lib + ": free size", got, None if size is None else (size, size, 50))
    env = dict(os.environ, LD_PRELOAD=os.path.join(t.bindir, "libsc_bumpu.so"))
    rc0, out0, _ = run([exe, "kinds"], env=env)
    rc, out, err = run([t.scaler, "record", "-o", os.path.join(t.tmp, "args-alloc-kinds"),
                        "--args", "--", exe, "kinds"], env=env)
    if (rc, out) != (rc0, out0) or not out.startswith(b"usable 102\n"):
        bad.append("kinds with libsc_bumpu.so: exit %d %r, without scaler %d %r" %
                   (rc, out[:60], rc0, out0[:60]))
    return bad


def check_diff_errors(t):
    profs = {}
    for name in ("ok", "bad", "ok2"):
        profs[name] = os.path.join(t.tmp, "args-errs-" + name)
        rc, out, err = run([t.scaler, "record", "-o", profs[name], "--args", "--",
                            t.exe("args"), name.rstrip("2")])
        if rc != 0:
            return ["record %s: exit %d (%r)" % (name, rc, err[-200:])]
    bad = []
    f = diff_findings(t.scaler, profs["ok"], profs["bad"])
    top = f[0] if f else {}
    dists = {d["name"]: d for d in top.get("distributions", [])}
    if (top.get("caller"), top.get("api"), top.get("significant")) != ("sc_args", "write", True) \
            or "more errors:" not in top.get("pattern", "") or \
            not dists.get("errors", {}).get("significant") or \
            dists["errors"].get("unit") != "errno":
        bad.append("diff ok bad: first finding %r" %
                   {k: top.get(k) for k in ("caller", "api", "pattern", "significant")})
    sig = significant(diff_findings(t.scaler, profs["ok"], profs["ok2"]))
    if sig:
        bad.append("diff ok ok: significant %r" % sig)
    return bad


def checks(t):
    guarded("args-kinds", t.variant, lambda: check_kinds(t))
    guarded("args-allocator", t.variant, lambda: check_allocator(t))
    guarded("args-diff-errors", t.variant, lambda: check_diff_errors(t))
