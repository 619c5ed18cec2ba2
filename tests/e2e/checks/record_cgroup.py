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
"""
import os
import re
import shutil
import subprocess
import tempfile

from harness import guarded, skip

MODE = "real"
NOBODY = 65534
RUN_CGROUP = re.compile(r"the run's tasks only \(cgroup (/\S*/scaler-\d+)\)")


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
    if os.path.exists(m.group(1)):
        bad.append("the run cgroup %s is left behind" % m.group(1))
        try:
            os.rmdir(m.group(1))
        except OSError:
            pass
    return bad


def checks(t):
    guarded("record-cgroup-nofork", None, lambda: nofork(t))
