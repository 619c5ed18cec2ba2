"""report_errors.py - scaler report's bad options, on sc_imbalance's profile.
Check: report-options-errors (lazy)."""
from harness import guarded, report_cmd

MODE = "e2e"
VARIANTS = ("lazy",)


def check_report_errors(scaler, prof):
    """Bad options: one 'scaler:' line on stderr, nothing on stdout, exit 2."""
    bad = []
    cases = [
        (["--format", "xml"], "unknown --format"),
        (["--sort", "bogus"], "sort"),
        (["--sort"], "needs an argument"),
        (["--min-percent", "abc"], "min-percent"),
        (["--min-percent", "101"], "min-percent"),
        (["--color=sometimes"], "color"),
        (["--pid", "4294967295"], "no process"),
        (["--pid", "12x"], "process id"),
        (["--component", "no-such.so"], "components:"),
        (["--bogus"], "unknown option"),
        (["extra-arg"], "unexpected argument"),
    ]
    for args, want in cases:
        rc, out, err = report_cmd(scaler, prof, *args)
        lines = err.splitlines()
        if rc != 2 or out or len(lines) != 1 or not lines[0].startswith("scaler:") \
                or want not in lines[0]:
            bad.append("%s: exit %d, stdout %r, stderr %r" % (" ".join(args), rc, out[:80], err[:200]))
    # the component error lists the components there are
    rc, _, err = report_cmd(scaler, prof, "--component", "no-such.so")
    if "libc.so.6" not in err:
        bad.append("--component error does not list the components: %r" % err[:200])
    return bad


def checks(t):
    guarded("report-options-errors", t.variant,
            lambda: check_report_errors(t.scaler, t.profile("imbalance")))
