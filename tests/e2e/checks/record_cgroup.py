"""record_cgroup.py - `scaler record --kernel`'s run cgroup
(src/cli/record_cgroup.c) is removed on every way out of the run, not
only when the command ran and was waited for: a directory left behind
stays, empty, under the recorder's cgroup for good.

record-cgroup-nofork: the recorder cannot fork the command (run as nobody
with RLIMIT_NPROC 1, keeping the rights a run cgroup and its filter need:
CAP_DAC_OVERRIDE, CAP_BPF, CAP_PERFMON; root's own processes are never
held to RLIMIT_NPROC): it says "cannot fork", exits non-zero, and the
cgroup its line named is gone. Root only; skipped where no run cgroup
can be made.
record-sigchld-ignored: scaler record --kernel started with SIGCHLD
ignored (which an exec keeps, and which makes the kernel reap children
unasked): its waitpid failed with ECHILD, so it said "waitpid: No child
processes", exited 2 instead of the command's status and kept neither
its exit record nor (then) the run cgroup. Now it exits with the
command's status 3, its report has that status, the command still
inherits SIGCHLD ignored (SigIgn in its /proc/self/status), and no run
cgroup it named is left.
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile

from harness import guarded, report_json_of, skip

MODE = "real"
NOBODY = 65534
RUN_CGROUP = re.compile(r"the run's tasks only \(cgroup (/\S*/scaler-\d+)\)")


def left_behind(path):
    """A problem if the run cgroup at path is still there (then removed,
    not to be left by the test either)."""
    if not os.path.exists(path):
        return []
    try:
        os.rmdir(path)
    except OSError:
        pass
    return ["the run cgroup %s is left behind" % path]


def nofork(t):
    name = "record-cgroup-nofork"
    if os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("prlimit"):
        return skip(name, "not root, or no setpriv or prlimit: no user to hold to "
                    "RLIMIT_NPROC")
    outdir = tempfile.mkdtemp(prefix="scaler-cgroup-")
    try:
        os.chown(outdir, NOBODY, NOBODY)
        caps = "+dac_override,+bpf,+perfmon"
        cmd = ["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups",
               "--inh-caps=" + caps, "--ambient-caps=" + caps, "--",
               "prlimit", "--nproc=1", "--",
               t.scaler, "record", "--kernel", "-o", os.path.join(outdir, "p"), "--", "true"]
        p = subprocess.run(cmd, capture_output=True, timeout=120, cwd=outdir)
    finally:
        shutil.rmtree(outdir, ignore_errors=True)
    err = p.stderr.decode(errors="replace")
    m = RUN_CGROUP.search(err)
    if not m:
        return skip(name, "no run cgroup here: %r" % err.strip()[-200:])
    bad = []
    if p.returncode == 0 or "scaler: cannot fork: " not in err:
        bad.append("exit %d, stderr %r: want 'cannot fork' and a non-zero exit"
                   % (p.returncode, err[-300:]))
    return bad + left_behind(m.group(1))


def sigchld_ignored(t):
    prof = os.path.join(t.tmp, "sigchld")
    p = subprocess.run([t.scaler, "record", "--kernel", "-o", prof, "--", "awk",
                        "/^SigIgn:/ { print; exit 3 }", "/proc/self/status"],
                       capture_output=True, timeout=120,
                       preexec_fn=lambda: signal.signal(signal.SIGCHLD, signal.SIG_IGN))
    err = p.stderr.decode(errors="replace")
    m = RUN_CGROUP.search(err)
    bad = left_behind(m.group(1)) if m else []
    if p.returncode != 3:
        return bad + ["exit %d, stderr %r: want the command's 3" % (p.returncode, err[-300:])]
    ign = p.stdout.decode().split()
    if len(ign) != 2 or not int(ign[1], 16) & (1 << (signal.SIGCHLD - 1)):
        bad.append("the command's %r: want SIGCHLD ignored, as scaler record was" % ign)
    st = [q.get("exit_status") for q in report_json_of(t.scaler, prof)["processes"]]
    if st != [3]:
        bad.append("the report's exit statuses %r, want [3]" % st)
    return bad


def checks(t):
    guarded("record-cgroup-nofork", None, lambda: nofork(t))
    guarded("record-sigchld-ignored", None, lambda: sigchld_ignored(t))
