"""real_git.py - git running tests/e2e/real/git_workload.sh (several git
processes) with and without scaler. Check: git."""
import os
import shutil

from harness import HERE, compare_run, fresh_dirs, guarded, skip

MODE = "real"


def real_git(scaler, tmp):
    git = shutil.which("git")
    if not git:
        return skip("git", "git not installed")
    rows = [
        ("git", "libz.so.1", "deflate", ">0"),
        ("git", "libz.so.1", "inflate", ">0"),
        ("git", "libc.so.6", "malloc", ">0"),
    ]
    def extra(rep):
        cmds = [p.get("command") or [] for p in rep["processes"]]
        gits = [c for c in cmds if c and os.path.basename(c[0]) == "git"]
        return [] if len(gits) >= 8 else ["only %d git processes recorded" % len(gits)]
    guarded("git", None, lambda: compare_run(
        scaler, ["sh", os.path.join(HERE, "real", "git_workload.sh")], rows, tmp,
        cwd_factory=fresh_dirs(tmp, "git"), extra=extra))


def checks(t):
    real_git(t.scaler, t.tmp)
