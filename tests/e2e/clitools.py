"""clitools.py - what the command-line checks (checks/cli_*.py) share: the
commands and options scaler lists for its completion, and what a usage
error must look like. Only the standard library."""
import harness


def run(argv, cwd=None, env=None, timeout=harness.TIMEOUT):
    """harness.run with stdout and stderr as text (newlines untranslated)."""
    rc, out, err = harness.run(argv, cwd=cwd, env=env, timeout=timeout)
    return rc, out.decode(errors="replace"), err.decode(errors="replace")


def list_cmds(scaler):
    rc, out, _ = run([scaler, "--list-cmds"])
    return out.split() if rc == 0 else []


def list_opts(scaler, cmd):
    """{long name: (short, arg, kind, choices)} from CMD --list-opts, and
    the operands' kind."""
    rc, out, err = run([scaler, cmd, "--list-opts"])
    if rc != 0:
        raise ValueError("%s --list-opts exited %d: %s" % (cmd, rc, err[:200]))
    opts, operands = {}, None
    for line in out.splitlines():
        f = line.split()
        if f[0] == "--":
            operands = f[1]
        else:
            opts[f[0]] = (f[1], f[2], f[3], f[4:])
    return opts, operands


def usage_error(rc, out, err, want):
    """The problems with a usage error: exit 2, nothing on stdout, one
    'scaler:' line on stderr holding want."""
    bad = []
    lines = err.splitlines()
    if rc != 2:
        bad.append("exit %d" % rc)
    if out:
        bad.append("stdout %r" % out[:80])
    if len(lines) != 1 or not lines[0].startswith("scaler:") or want not in lines[0]:
        bad.append("stderr %r (want one 'scaler:' line with %r)" % (err[:300], want))
    return bad
