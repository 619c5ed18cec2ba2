"""cli_completion.py - the bash completion (scripts/scaler.bash), sourced
in bash and called with COMP_WORDS/COMP_CWORD set: commands, options per
command, --format/--sort/--timing/--color values in every spelling, the
profile's components for --component (of its -i DIR),
directories and files where an argument is a path, and record's command
and its arguments. Check: cli-completion."""
import os

from clitools import list_cmds, list_opts, run
from harness import ROOT, guarded

MODE = "real"


def complete(scaler, words, cwd):
    """COMPREPLY of the completion for words (the last one being completed)."""
    script = os.path.join(ROOT, "scripts", "scaler.bash")
    prog = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _scaler; '
            'printf "%s\\n" "${COMPREPLY[@]}"')
    env = dict(os.environ, PATH=os.path.dirname(scaler) + ":" + os.environ.get("PATH", ""))
    rc, out, err = run(["bash", "-c", prog, "bash", script] + words, cwd=cwd, env=env)
    if rc != 0 or err:
        raise ValueError("completion of %r: exit %d %r" % (words, rc, err[:200]))
    return sorted(x for x in out.split("\n") if x)


def check_completion(scaler, tmp):
    d = os.path.join(tmp, "comp")
    os.makedirs(os.path.join(d, "profdir"))
    open(os.path.join(d, "prof.txt"), "w").close()
    prof = os.path.join(d, "run1")
    rc, _, err = run([scaler, "record", "-o", prof, "--", "sh", "-c", "true"])
    if rc != 0:
        return ["record exited %d: %s" % (rc, err[:200])]
    rc, out, err = run([scaler, "report", "-i", prof, "--list-components"])
    comps = out.split()
    if rc != 0 or "libc.so.6" not in comps:
        return ["report --list-components: exit %d %r %r" % (rc, out[:200], err[:200])]
    libs = sorted(c for c in comps if c.startswith("lib"))
    formats = sorted(list_opts(scaler, "report")[0]["--format"][3])
    cases = [
        (["scaler", ""], sorted(list_cmds(scaler))),
        (["scaler", "rep"], ["report"]),
        (["scaler", "help", "re"], ["record", "report"]),
        (["scaler", "--v"], ["--version"]),
        (["scaler", "report", "--f"], ["--format"]),
        (["scaler", "report", "--format", ""], formats),
        (["scaler", "report", "--format", "c"], ["chrome", "csv"]),
        (["scaler", "report", "--weight", "c"], ["count"]),
        (["scaler", "report", "--format=j"], ["json"]),
        (["scaler", "report", "--format", "=", "h"], ["html"]),
        (["scaler", "report", "--sort", "c"], ["count"]),
        (["scaler", "report", "--color=a"], ["always", "auto"]),
        (["scaler", "report", "-i", "prof"], ["profdir"]),
        (["scaler", "report", "--input", "prof"], ["profdir"]),
        (["scaler", "report", "-o", "prof"], ["prof.txt", "profdir"]),
        (["scaler", "report", "--format", "json", "--t"], ["--threads"]),
        (["scaler", "report", "-i", "run1", "--component", "lib"], libs),
        (["scaler", "report", "--input=run1", "--component=libc"], ["libc.so.6"]),
        (["scaler", "report", "--component", "libc"], []),    # no scaler.data here
        (["scaler", "report", "--list"], []),                 # hidden
        (["scaler", "record", "-"], None),
        (["scaler", "record", "--timing", ""], ["adaptive", "all", "none"]),
        (["scaler", "record", "-o", "prof"], ["profdir"]),
        (["scaler", "record", "-o", "x", "--timing=all", "bas"], None),
        (["scaler", "record", "--", "bas"], None),
        (["scaler", "record", "true", "prof"], ["prof.txt", "profdir"]),
        (["scaler", "record", "true", "--t"], []),
    ]
    bad = []
    for words, want in cases:
        got = complete(scaler, words, d)
        if words[-1] == "bas":
            # the command to run: names from PATH
            if "bash" not in got:
                bad.append("%s: %r lacks bash" % (" ".join(words), got[:10]))
            continue
        if words == ["scaler", "record", "-"]:
            if not {"--output", "--timing", "--help"} <= set(got):
                bad.append("record -: %r" % got)
            continue
        if got != want:
            bad.append("%r: %r, want %r" % (" ".join(words), got, want))
    return bad


def checks(t):
    guarded("cli-completion", None, lambda: check_completion(t.scaler, t.tmp))
