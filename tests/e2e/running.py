"""running.py - a test program under scaler record that stops between
phases of known calls until told to go on (checks/live.py, checks/ctl.py).
Only the standard library."""
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from harness import TIMEOUT, run


class Running:
    """Test program prog (live, ctl) under scaler record (with options
    opts), which ends each phase with "phase N ..." and waits for a line."""

    def __init__(self, t, out, prog, opts=()):
        self.t, self.name = t, prog
        self.p = subprocess.Popen([t.scaler, "record", "-o", out] + list(opts) +
                                  ["--", t.exe(prog)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, start_new_session=True)
        self.dog = threading.Timer(TIMEOUT, lambda: os.killpg(self.p.pid, signal.SIGKILL))
        self.dog.start()
        self.out = b""

    def wait_phase(self, k):
        """Until the program has said "phase k" and sits in read(2): its
        line is out before fflush returns, and a snapshot taken then
        would race with fflush's end and fgets's start."""
        line = self.p.stdout.readline()
        self.out += line
        if not line.startswith(b"phase %d " % k):
            raise RuntimeError("phase %d: program said %r" % (k, line))
        prog = self.prog()
        end = time.time() + TIMEOUT
        while time.time() < end:
            with open("/proc/%d/syscall" % prog) as f:
                if f.read().split()[0] == "0":      # read, on x86-64
                    return
            time.sleep(0.01)
        raise RuntimeError("phase %d: the program never blocked in read" % k)

    def prog(self):
        """The program's pid (scaler record's child)."""
        with open("/proc/%d/task/%d/children" % (self.p.pid, self.p.pid)) as f:
            return int(f.read().split()[0])

    def go(self):
        self.p.stdin.write(b"go\n")
        self.p.stdin.flush()

    def finish(self):
        out, err = self.p.communicate(timeout=TIMEOUT)
        self.out += out
        return self.p.returncode, err

    def end(self, tmp, phases):
        """Lets the program finish (after phase `phases`); the problems:
        scaler record's status, an output other than a native run's."""
        bad = []
        self.go()
        rc, err = self.finish()
        if rc != 0:
            bad.append("scaler record exited %d: %s" % (rc, err[-200:]))
        feed = os.path.join(tmp, "feed")
        with open(feed, "w") as f:
            f.write("go\n" * phases)
        nrc, nout, _ = run([self.t.exe(self.name)], stdin=feed)
        if nout != self.out or nrc != 0:
            bad.append("output under scaler %r, without %r" % (self.out, nout))
        return bad

    def close(self):
        self.dog.cancel()
        if self.p.poll() is None:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()


class Unprofiled(Running):
    """Test program prog with args, started without scaler (its own
    session, stdin ours), for scaler record -p (checks/attach.py,
    checks/attachfn.py), and a temporary directory of its own (tmp:
    searchable by all) that close() removes."""

    def __init__(self, t, prog, args, prefix=(), **kw):
        self.t, self.name = t, prog
        self.tmp = tempfile.mkdtemp(prefix="scaler-e2e-")
        os.chmod(self.tmp, 0o755)
        try:
            self.p = subprocess.Popen(list(prefix) + [t.exe(prog)] + list(args),
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, start_new_session=True, **kw)
        except OSError:
            shutil.rmtree(self.tmp, ignore_errors=True)
            raise
        self.dog = threading.Timer(TIMEOUT, lambda: os.killpg(self.p.pid, signal.SIGKILL))
        self.dog.start()
        self.out = b""
        self.pid = self.p.pid

    def prog(self):
        return self.p.pid

    def close(self):
        super().close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def as_nobody(argv):
    """argv run as the user nobody (uid and gid 65534): the CompletedProcess;
    PermissionError if nobody cannot execute it."""
    def drop():
        os.setgid(65534)
        os.setuid(65534)
    return subprocess.run(argv, preexec_fn=drop, capture_output=True, timeout=TIMEOUT)
