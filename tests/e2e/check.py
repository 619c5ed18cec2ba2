#!/usr/bin/env python3
"""check.py - runs scaler's end-to-end checks: every module in
tests/e2e/checks/ (found there, not listed) whose MODE is the one asked.

    check.py e2e  --scaler BIN --bin DIR --variant V [--only NAME...]
                  the test programs of one linking variant (built by
                  build.sh into DIR/V)
    check.py real --scaler BIN [--only NAME...]
                  real programs (python3, sqlite3, git) and the CLI's
                  exit-status / error behaviour

--only runs the modules named (checks/NAME.py, or every checks/NAME_*.py)
and, in e2e, the expect runs of the programs named. Prints one line per
check: "PASS name [variant]", "FAIL name [variant]: reason" or
"SKIP name: reason" (tests/run.sh counts them). Exits 1 if any check
failed. A check module has MODE ("e2e" or "real"), optionally VARIANTS
(the e2e linking variants it runs in; default all) and checks(t), t being a
harness.Run; see tests/README.md. Only the standard library.
"""
import argparse
import importlib.util
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True      # no __pycache__ in the source tree
import harness                      # noqa: E402 (after the line above)

CHECKS = os.path.join(harness.HERE, "checks")


def modules():
    """The check modules, by file name. Code that several of them use lives
    beside harness.py (htmlpage.py), not in checks/."""
    for f in sorted(os.listdir(CHECKS)):
        if f.endswith(".py"):
            name = f[:-3]
            spec = importlib.util.spec_from_file_location("checks." + name, os.path.join(CHECKS, f))
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            yield name, mod


def wanted(name, mod, t):
    if mod.MODE != t.mode:
        return False
    if t.mode == "e2e" and t.variant not in getattr(mod, "VARIANTS", (t.variant,)):
        return False
    # a module that selects within itself (the programs' expect runs)
    # sees every --only
    return not t.only or getattr(mod, "SELECTS_ITSELF", False) or \
        name in t.only or name.split("_")[0] in t.only


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    e = sub.add_parser("e2e")
    e.add_argument("--scaler", required=True)
    e.add_argument("--bin", required=True)
    e.add_argument("--variant", required=True)
    e.add_argument("--only", nargs="*")
    r = sub.add_parser("real")
    r.add_argument("--scaler", required=True)
    r.add_argument("--only", nargs="*")
    a = ap.parse_args()
    # --kernel's default rate (250 Hz) is for runs of seconds; the test
    # programs' kernel work lasts tens of ms (200,000 tiny writes: ~50 ms
    # on the CPU), and a sample counts only inside a timed call: 4 kHz
    # gives their checks of where it went enough samples to be stable
    os.environ.setdefault("SCALER_KERNEL_PERIOD_NS", "250000")
    top = tempfile.mkdtemp(prefix="scaler-%s-" % a.mode)
    try:
        t = harness.Run(a.mode, os.path.abspath(a.scaler), top, only=a.only,
                        bindir=os.path.join(a.bin, a.variant) if a.mode == "e2e" else None,
                        variant=getattr(a, "variant", None))
        for name, mod in modules():
            if wanted(name, mod, t):
                t.tmp = tempfile.mkdtemp(prefix=name + "-", dir=top)
                mod.checks(t)
    finally:
        shutil.rmtree(top, ignore_errors=True)
    sys.exit(1 if harness.failures else 0)


if __name__ == "__main__":
    main()
