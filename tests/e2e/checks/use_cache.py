"""use_cache.py - the GOT-use cache (src/runtime/usecache.c): images of a
-fno-plt program after the first read what the first found in its code,
and count the same. A cache that says no slot is a call is used when it
is ours (which makes the rest a test) and not when another user owns it,
it is a link or it is cut short. A profile holding caches is still one
that `scaler record` replaces. Checks: use-cache, use-cache-rotate
(noplt)."""
import json
import os

from harness import guarded, run

MODE = "e2e"
VARIANTS = ("noplt",)           # its calls go through GLOB_DAT slots: the code is read
WANT = 1000003                  # sc_basic -> libsc_a.so a_add (tests/e2e/basic/expect)


def a_adds(t, d, runs, extra=None):
    """Runs sc_basic `runs` times with the runtime preloaded by hand into
    directory d; the a_add calls of sc_basic its report counts."""
    lib = os.path.join(os.path.dirname(os.path.dirname(t.scaler)), "lib", "libscaler.so")
    env = dict(os.environ, LD_PRELOAD=lib, SCALER_DIR=d, **(extra or {}))
    for _ in range(runs):
        rc, _, err = run([t.exe("basic")], env=env)
        if rc != 0:
            raise RuntimeError("sc_basic exited %d: %s" % (rc, err[-200:]))
    rc, rep, err = run([t.scaler, "report", "-i", d, "--format", "json"])
    if rc != 0:
        raise RuntimeError("report %d: %s" % (rc, err[-200:]))
    return sum(c["count"] for c in json.loads(rep)["calls"]
               if c["caller"] == "sc_basic" and c["api"] == "a_add")


def fresh(t, name):
    d = os.path.join(t.tmp, name)
    os.mkdir(d, 0o700)
    return d


def plant(t, name, src, caches, how):
    """A new directory holding each of src's caches with every slot marked
    not a call (the header unchanged), put there as `how` says: own,
    link, short or other (owned by nobody)."""
    p = fresh(t, name)
    for f in caches:
        b = bytearray(open(os.path.join(src, f), "rb").read())
        for i in range(24, len(b), 8):          # past the 24-byte header
            b[i] &= 0xf8                        # each word's flag bits
        if how == "short":
            b = b[:-8]
        target = os.path.join(p, f)
        if how == "link":
            target = os.path.join(t.tmp, name + "-" + f)
            os.symlink(target, os.path.join(p, f))
        with open(target, "wb") as o:
            o.write(b)
        os.chmod(target, 0o600)
        if how == "other":
            os.chown(target, 65534, 65534)
    return p


def use_cache(t):
    bad = []
    d = fresh(t, "uc")
    n = a_adds(t, d, 3)
    if n != 3 * WANT:
        bad.append("three images counted %d a_add calls, want %d" % (n, 3 * WANT))
    caches = sorted(f for f in os.listdir(d) if f.startswith("g") and f.endswith(".use"))
    if not caches:
        return bad + ["no g*.use cache was written"]
    n = a_adds(t, fresh(t, "uc0"), 2, {"SCALER_USE_CACHE": "0"})
    if n != 2 * WANT:
        bad.append("without the cache: %d a_add calls, want %d" % (n, 2 * WANT))
    if a_adds(t, plant(t, "ucown", d, caches, "own"), 1) == WANT:
        bad.append("a cache of our own that marks no slot a call was not used")
    for how in ["link", "short"] + (["other"] if os.geteuid() == 0 else []):
        n = a_adds(t, plant(t, "uc" + how, d, caches, how), 1)
        if n != WANT:
            bad.append("a planted cache (%s) was trusted: %d a_add calls, want %d" % (how, n, WANT))
    return bad


def rotate(t):
    """Two records into one directory: the first, with its caches, is
    kept as DIR.old, not refused as someone else's directory."""
    out = os.path.join(t.tmp, "rot")
    for i in range(2):
        rc, _, err = run([t.scaler, "record", "-o", out, "--", t.exe("basic")])
        if rc != 0:
            return ["record %d exited %d: %s" % (i + 1, rc, err[-200:])]
    old = os.listdir(out + ".old") if os.path.isdir(out + ".old") else []
    if not any(f.endswith(".use") for f in old):
        return ["%s.old holds no cache: %r" % (out, sorted(old))]
    return []


def checks(t):
    guarded("use-cache", t.variant, lambda: use_cache(t))
    guarded("use-cache-rotate", t.variant, lambda: rotate(t))
