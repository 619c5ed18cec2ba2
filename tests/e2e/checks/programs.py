"""programs.py - every e2e program with an expect file (tests/e2e/<prog>/
expect, built by build.sh as sc_<prog>) runs with and without scaler
record in each linking variant: same exit status and stdout, the expected
rows in the report. Check names: the program's name. In the lazy variant
each also runs with every call timed (the full interceptor path: x87
results, unwinding through timed frames) and with the cost of timing
re-measured on nearly every return (its slowest part); basic also with
timing off (the counting-only path)."""
import os
import shutil
import tempfile

from harness import HERE, compare_run, guarded, parse_expect

MODE = "e2e"
SELECTS_ITSELF = True      # --only NAME runs program NAME's expect runs


def thread_records(want):
    """An `extra` check: exactly `want` thread records, unique by (pid, gen,
    seq) however the kernel reused tids."""
    def check(rep):
        keys = [(t["pid"], t.get("gen"), t.get("seq")) for t in rep.get("threads", [])]
        if len(keys) != want or len(set(keys)) != want:
            return ["%d thread records (%d unique), want %d" % (len(keys), len(set(keys)), want)]
        return []
    return check


# per-program checks of the report beyond the expect rows
EXTRA = {"thrlife": thread_records(1008)}


def programs():
    return sorted(d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, "expect")))


def checks(t):
    for prog in programs():
        if t.only and prog not in t.only and "programs" not in t.only:
            continue
        exe = t.exe(prog)
        rows = parse_expect(os.path.join(HERE, prog, "expect"))
        timings = [None]
        if t.variant == "lazy":
            timings += ["all", "all+recal"] + (["none"] if prog == "basic" else [])
        for timing in timings:
            variant = t.variant + (",timing=" + timing if timing else "")

            def one():
                if not os.access(exe, os.X_OK):
                    return ["not built: %s" % exe]
                tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
                try:
                    return compare_run(t.scaler, [exe], rows, tmp, timing=timing,
                                       extra=EXTRA.get(prog))
                finally:
                    shutil.rmtree(tmp, ignore_errors=True)
            guarded(prog, variant, one)
