"""attach.py - `scaler record -p PID` on programs started without scaler
(sc_attach: phases of known b_mul calls, with a pause for a line on stdin
after each; or every thread calling b_mul without a pause).

attach-counts-1 / attach-counts-5: attached after phase 1, detached (^C
to scaler) after phase 2, with the main thread alone and with 4 workers
that exist before the attach: the profile has exactly phase 2's b_mul
calls (2000 + 500 per worker), none of phase 1's or 3's, its process
"detached"; the calls in flight at the detach (fgets, the workers'
barrier waits, timed) return; the child it forks while attached is not
profiled (no file of its pid); `scaler live -p` sees phase 2's calls
while attached; the program's output is a native run's;
run as root, the profile is root's alone after the detach.
attach-root-to-user: the same, root attaching to a program run as
nobody: while attached the directory is nobody's, 0700; then root's.
attach-busy: attached for --duration 0.3 s while 4 threads call b_mul
nonstop, three times in a row on one process (the runtime is loaded
once: the second and third are refused, and leave it running): the
program's checksum is a native run's and the profile has b_mul calls.
attach-regs: attached for 0.1 s while the program's only thread runs a
loop that checks xmm0-15, the general registers and the red zone keep
what it put there: the thread the runtime was loaded from gets them all
back ("regs kept", as natively).
attach-scaler-killed: scaler killed with SIGKILL while attached: the
runtime detaches by itself (its FIFO's writer is gone), phase 3 is not
counted, the program finishes as natively.
attach-refused: one line and exit 2, the program unharmed, for: no such
process; a non-owner (scaler as nobody on a root process); a process
traced already (strace); kernel.yama.ptrace_scope 3 (when settable,
restored after).
attach-no-start: root attaching to nobody's process with DIR where nobody
cannot reach it: the runtime does not start, said in one line; the
program runs on as natively, DIR is root's.
attachfn-counts-0 / attachfn-counts-3: sc_attachfn (its own top says
what it does) attached with --functions after phase 1, detached after
phase 2: exactly phase 2's calls of fn_sq (direct) and fn_cube (through a
pointer); fn_block refused (a thread's next instruction in its first
bytes), fn_pause refused (a signal handler's interrupted context on a
thread's stack), their bytes untouched; fn_sq's and fn_cube's entries
changed while attached and as before after the detach; a second attach
refused; the output a native run's.
attachfn-busy: the same for 0.3 s while 4 threads call both nonstop: the
two counts at most one call a thread apart; attached again: refused.
attachfn-nested-signal: sc_attachfn nest: the context interrupted in
fn_pause is on the thread's stack while the thread runs a handler on its
signal stack: fn_pause refused ("on a thread's stack"), the other three
patched; the handler returns into fn_pause while attached and the program
ends as natively, with fn_sq's calls counted.
attachfn-vfork-detach: sc_attachfn vfork: detached (^C) while a thread
waits for its vfork child (which waits for a line): that thread cannot
stop, so scaler gives up on it after 1 s, says in one line that the
entries stay (their calls going straight on), detaches within 10 s; the
program, let go on, ends as natively. On main scaler waited for the
thread without limit.
attachfn-vfork-attach: sc_attachfn vfork, attached while the thread
waits for its vfork child: refused in one line after 1 s (the thread
cannot stop), exit 2; the program, let go on, ends as natively. On main
scaler waited without limit.
attachfn-exec: sc_attachfn exec: the program runs exec (sh) while
attached with --functions: at ^C scaler says in one line that the
entries are not put back as the runtime is gone (an exec), writes
nothing into the new program, detaches; sh ends as natively.
attachfn-dlclose: sc_attachfn dl: attached with --functions naming
libsc_dl.so's dl_func too, the program loads it, calls dl_func 100 times,
unloads it, loads it again (the same address, as a rule) and calls it
100 times: 200 calls counted; at the detach the 5 entries in place
(sc_attachfn's 4, the second copy's) are put back, none stays (on main
the first copy's entry was taken for one whose bytes changed).
attachfn-scaler-killed: scaler killed while attached with --functions:
the entries stay, paused, phase 3 uncounted, the program as natively.
Checks run in the lazy and now variants."""
import json
import os
import shutil
import signal
import subprocess
import time

from harness import TIMEOUT, guarded, run, skip
from running import Unprofiled

MODE = "e2e"
VARIANTS = ("lazy", "now")
MAIN = (1000, 2000, 3000)
WORK = (1000, 500, 700)


def Program(t, args, prefix=(), **kw):
    """sc_attach ARGS, started without scaler (running.Unprofiled)."""
    return Unprofiled(t, "attach", args, prefix, **kw)


def as_native(t, prog, args, tmp):
    """The program's end: exit 0, nothing on stderr, the output of a run
    without scaler."""
    rc, perr = prog.finish()
    feed = os.path.join(tmp, "feed")
    with open(feed, "w") as f:
        f.write("go\n" * 2)
    nrc, nout, _ = run([t.exe(prog.name)] + list(args), stdin=feed)
    if rc != 0 or prog.out != nout or perr:
        return ["program: exit %d, output %r (native %r), stderr %r"
                % (rc, prog.out, nout, perr[-200:])]
    return []


def attach(t, pid, out, *more, **kw):
    """scaler record -p pid, started; returns it once it says "attached"."""
    rec = subprocess.Popen([t.scaler, "record", "-p", str(pid), "-o", out] + list(more),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
    line = rec.stderr.readline()
    if b"attached to %d" % pid not in line:
        rec.kill()
        _, err = rec.communicate()
        raise RuntimeError("scaler record -p: %r" % (line + err))
    return rec


def attached_phase_2(t, prog, d):
    """scaler record -p started after phase 1, the program through phase 2."""
    prog.wait_phase(1)
    rec = attach(t, prog.pid, d)
    prog.go()
    prog.wait_phase(2)
    return rec


def calls(t, d):
    rc, out, err = run([t.scaler, "report", "-i", d, "--format", "json"])
    if rc != 0:
        raise RuntimeError("report exited %d: %s" % (rc, err[-300:]))
    return json.loads(out)


def b_mul(rep):
    return sum(c["count"] for c in rep["calls"] if c["api"] == "b_mul")


def nobody():
    os.setgid(65534)
    os.setuid(65534)


def check_counts(t, workers, user=False):
    args = [str(workers)]
    if user and os.geteuid() != 0:
        return skip("attach-root-to-user", "not root")
    try:
        prog = Program(t, args, preexec_fn=nobody if user else None)
    except PermissionError:
        return skip("attach-root-to-user", "the test program is not executable by nobody")
    tmp = prog.tmp
    d = os.path.join(tmp, "d")      # reached by the process's user
    bad = []
    try:
        rec = attached_phase_2(t, prog, d)
        want = MAIN[1] + workers * WORK[1]
        rc, out, err = run([t.scaler, "live", "--once", "--format", "json", "-p",
                            str(prog.pid)])
        if rc != 0 or b_mul(json.loads(out)) != want:
            bad.append("live -p while attached: exit %d, %r" % (rc, (out + err)[-300:]))
        st = os.stat(d)
        if user and (st.st_uid != 65534 or st.st_mode & 0o777 != 0o700):
            bad.append("while attached, %s is uid %d's, mode %o: want nobody's, 0700"
                       % (d, st.st_uid, st.st_mode & 0o777))
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=TIMEOUT)
        if rec.returncode != 0 or b"detached from %d" % prog.pid not in err:
            bad.append("scaler exited %d: %r" % (rec.returncode, err[-300:]))
        prog.go()
        bad += as_native(t, prog, args, tmp)
        rep = calls(t, d)
        if b_mul(rep) != want:
            bad.append("%d b_mul calls while attached, want %d" % (b_mul(rep), want))
        owners = {os.stat(os.path.join(d, f)).st_uid for f in os.listdir(d) + ["."]}
        if os.geteuid() == 0 and owners != {0}:
            bad.append("after the detach, files of uids %r: want root's alone" % owners)
        rc, out, err = run([t.scaler, "report", "-i", d])
        head = out.decode().splitlines()[:1]
        if rc != 0 or not head or "(1 process, detached, " not in head[0]:
            bad.append("report's first line %r, want the process detached" % head)
        others = [f for f in os.listdir(d) if f.startswith("p") and
                  not f.startswith("p%d-" % prog.pid)]
        if others:
            bad.append("files of another process: %r" % others)
        fgets = [c["count"] for c in rep["calls"] if c["api"] == "fgets"]
        if fgets != [1]:
            bad.append("fgets calls %r: want the one in flight at the detach" % fgets)
        return bad
    finally:
        prog.close()


def check_busy(t):
    args = ["busy", "4", "150000000"]
    prog = Program(t, args)
    tmp = prog.tmp
    bad = []
    try:
        time.sleep(0.1)
        for k in range(3):
            d = os.path.join(tmp, "d%d" % k)
            rc, out, err = run([t.scaler, "record", "-p", str(prog.pid), "--duration", "0.3",
                                "-o", d])
            if prog.p.poll() is not None:
                return ["the program ended before attach %d: %r" % (k + 1, err)]
            lines = err.decode().splitlines()
            if k == 0 and (rc != 0 or "detached from" not in lines[-1]):
                bad.append("scaler exited %d: %r" % (rc, err[-300:]))
            elif k == 0 and b_mul(calls(t, d)) <= 0:
                bad.append("no b_mul calls while attached")
            elif k > 0 and (rc != 2 or len(lines) != 1 or "loaded in it already" not in lines[0]):
                bad.append("attach %d: exit %d, %r" % (k + 1, rc, err))
        bad += as_native(t, prog, args, tmp)
        return bad
    finally:
        prog.close()


def check_regs(t):
    args = ["regs", "150000000"]
    prog = Program(t, args)
    try:
        time.sleep(0.1)
        rc, out, err = run([t.scaler, "record", "-p", str(prog.pid), "--duration", "0.1",
                            "-o", os.path.join(prog.tmp, "d")])
        if prog.p.poll() is not None:
            return ["the loop ended before the attach: make it longer"]
        bad = [] if rc == 0 else ["scaler exited %d: %r" % (rc, err[-300:])]
        rc, perr = prog.finish()
        if rc != 0 or prog.out != b"regs kept\n":
            bad.append("program: exit %d, %r %r" % (rc, prog.out, perr[-200:]))
        return bad
    finally:
        prog.close()


def thread_names(pid):
    """The names of pid's threads (one that ends meanwhile is left out)."""
    names = []
    for x in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/comm" % (pid, x)) as f:
                names.append(f.read().strip())
        except OSError:
            pass
    return names


def check_killed(t):
    prog = Program(t, ["2"])
    tmp = prog.tmp
    d = os.path.join(tmp, "d")
    bad = []
    try:
        rec = attached_phase_2(t, prog, d)
        rec.kill()
        rec.communicate()
        # the runtime's thread ends once it has put the slots back
        end = time.time() + TIMEOUT
        while time.time() < end and "scaler-attach" in thread_names(prog.pid):
            time.sleep(0.01)
        prog.go()
        bad += as_native(t, prog, ["2"], tmp)
        want = MAIN[1] + 2 * WORK[1]
        if b_mul(calls(t, d)) != want:
            bad.append("%d b_mul calls, want %d" % (b_mul(calls(t, d)), want))
        return bad
    finally:
        prog.close()


def refused(t, pid, d, want, **kw):
    """scaler record -p pid: exit 2, one line holding want."""
    p = subprocess.run([t.scaler, "record", "-p", str(pid), "-o", d], capture_output=True,
                       timeout=TIMEOUT, **kw)
    err = p.stderr.decode()
    if p.returncode != 2 or len(err.splitlines()) != 1 or want not in err:
        return ["-p %d (%s): exit %d, %r" % (pid, want, p.returncode, err)]
    return []


def check_refused(t):
    prog = Program(t, ["1"])
    tmp = prog.tmp
    d = os.path.join(tmp, "d")
    bad = []
    traced = None
    try:
        prog.wait_phase(1)
        dead = subprocess.Popen(["true"])
        dead.wait()
        bad += refused(t, dead.pid, d, "no such process")
        if os.geteuid() == 0:
            try:
                bad += refused(t, prog.pid, "/tmp/scaler-e2e-nobody", "only its owner or root",
                               preexec_fn=nobody)
            except PermissionError:
                skip("attach-refused-owner", "scaler is not executable by nobody")
        yama = "/proc/sys/kernel/yama/ptrace_scope"
        try:
            with open(yama) as f:
                scope = f.read().strip()
            with open(yama, "w") as f:
                f.write("3")
        except OSError:
            scope = None
            skip("attach-refused-yama", "kernel.yama.ptrace_scope cannot be set here")
        if scope is not None:
            try:
                bad += refused(t, prog.pid, d, "ptrace_scope is 3")
            finally:
                try:
                    with open(yama, "w") as f:
                        f.write(scope)
                except OSError as e:
                    bad.append("cannot restore %s to %s: %s" % (yama, scope, e))
        if shutil.which("strace"):
            traced = Program(t, ["1"], prefix=["strace", "-f", "-o", "/dev/null"])
            traced.p.stdout.readline()
            kids = open("/proc/%d/task/%d/children" % (traced.pid, traced.pid)).read().split()
            bad += refused(t, int(kids[0]), d, "being traced already")
            traced.go()
            traced.go()
            rc, _ = traced.finish()
            if rc != 0:
                bad.append("the traced program exited %d" % rc)
        else:
            skip("attach-refused-traced", "no strace")
        if os.path.exists(d):
            bad.append("a refused attach made %s" % d)
        prog.go()
        prog.go()
        bad += as_native(t, prog, ["1"], tmp)
        return bad
    finally:
        prog.close()
        if traced:
            traced.close()


def check_no_start(t):
    """Root attaching to nobody's process with DIR where nobody cannot
    reach it: the runtime cannot start (one line), the program runs on
    unharmed, DIR is root's."""
    if os.geteuid() != 0:
        return skip("attach-no-start", "not root")
    try:
        prog = Program(t, ["1"], preexec_fn=nobody)
    except PermissionError:
        return skip("attach-no-start", "the test program is not executable by nobody")
    try:
        prog.wait_phase(1)
        private = os.path.join(prog.tmp, "private")
        os.mkdir(private, 0o700)
        d = os.path.join(private, "d")
        bad = refused(t, prog.pid, d, "the runtime did not start: cannot open %s" % d)
        if os.stat(d).st_uid != 0 or sorted(os.listdir(d)) != [".scaler-profile"]:
            bad.append("%s after the failure: uid %d, %r" % (d, os.stat(d).st_uid,
                                                            os.listdir(d)))
        prog.go()
        prog.go()
        return bad + as_native(t, prog, ["1"], prog.tmp)
    finally:
        prog.close()


FN_SQ, FN_CUBE = (1000, 2000, 3000), (300, 700, 900)
FNS = "sc_attachfn:fn_*"


def ptrace_blocked():
    """Why this scaler may not attach to a program it did not start, or
    None: kernel.yama.ptrace_scope."""
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as f:
            scope = int(f.read())
    except (OSError, ValueError):
        return None
    if scope >= 3 or (scope >= 1 and os.geteuid() != 0):
        return "kernel.yama.ptrace_scope is %d" % scope
    return None


def fn_count(rep, name):
    return sum(c["count"] for c in rep["calls"] if c["api"] == name)


def entry_bytes(t, pid, names):
    """The bytes (up to 16) of sc_attachfn's functions names in process
    pid, from its memory."""
    exe = t.exe("attachfn")
    out = subprocess.run(["nm", "-S", exe], capture_output=True, text=True).stdout
    syms = {w[3]: (int(w[0], 16), min(int(w[1], 16), 16))
            for w in (x.split() for x in out.splitlines()) if len(w) == 4}
    with open(exe, "rb") as f:
        pie = f.read(18)[16] == 3               # ET_DYN
    base = 0
    with open("/proc/%d/maps" % pid) as f:
        for w in (x.split() for x in f):
            if pie and len(w) >= 6 and w[5] == os.path.realpath(exe) and int(w[2], 16) == 0:
                base = int(w[0].split("-")[0], 16)
                break
    got = {}
    with open("/proc/%d/mem" % pid, "rb") as m:
        for n in names:
            m.seek(base + syms[n][0])
            got[n] = m.read(syms[n][1])
    return got


def fn_want(workers, k):
    return (FN_SQ[k] + workers * (FN_SQ[k] // 10), FN_CUBE[k] + workers * (FN_CUBE[k] // 10))


def check_fn_counts(t, workers):
    """attachfn-counts-N: sc_attachfn phases N, attached with --functions
    after phase 1, detached after phase 2 (see the top)."""
    args = ["phases", str(workers)]
    prog = Unprofiled(t, "attachfn", args)
    d = os.path.join(prog.tmp, "d")
    names = ("fn_sq", "fn_cube", "fn_block", "fn_pause")
    bad = []
    try:
        prog.wait_phase(1)
        before = entry_bytes(t, prog.pid, names)
        rec = attach(t, prog.pid, d, "--functions", FNS)
        line = rec.stderr.readline()
        if b"2 function entries patched; 2 refused as a thread was in them" not in line:
            bad.append("second line %r" % line)
        during = entry_bytes(t, prog.pid, names)
        if (during["fn_sq"] == before["fn_sq"] or during["fn_cube"] == before["fn_cube"] or
                during["fn_block"] != before["fn_block"] or
                during["fn_pause"] != before["fn_pause"]):
            bad.append("entries while attached %r, before %r" % (during, before))
        prog.go()
        prog.wait_phase(2)
        rec.send_signal(signal.SIGINT)
        _, err = rec.communicate(timeout=TIMEOUT)
        if (rec.returncode != 0 or b"detached from %d" % prog.pid not in err or
                b"2 function entries put back, 0 stay" not in err):
            bad.append("scaler exited %d: %r" % (rec.returncode, err[-300:]))
        after = entry_bytes(t, prog.pid, names)
        if after != before:
            bad.append("entries after the detach %r, before %r" % (after, before))
        # attached again: the runtime starts once; refused, harmless
        bad += refused(t, prog.pid, os.path.join(prog.tmp, "d2"), "loaded in it already")
        prog.go()
        bad += as_native(t, prog, args, prog.tmp)
        rep = calls(t, d)
        got = (fn_count(rep, "fn_sq"), fn_count(rep, "fn_cube"))
        if got != fn_want(workers, 1):
            bad.append("fn_sq, fn_cube calls %r while attached, want %r" % (got, fn_want(workers, 1)))
        skipped = {s["function"]: s["reason"] for s in rep.get("skipped_functions", [])}
        if ("executing its first bytes" not in skipped.get("fn_block", "") or
                "on a thread's stack" not in skipped.get("fn_pause", "") or
                "fn_sq" in skipped or "fn_cube" in skipped):
            bad.append("skipped functions %r: want fn_block's thread inside it, fn_pause's "
                       "interrupted context" % skipped)
        return bad
    finally:
        prog.close()


def check_fn_busy(t):
    """attachfn-busy: attached with --functions for 0.3 s while 4 threads
    call fn_sq and fn_cube nonstop, then again (refused): both counted
    alike, to a call a thread (the entries change with every thread
    stopped), the checksum a native run's; libc, named too, is said not
    patched."""
    args = ["busy", "3", "100000000"]
    prog = Unprofiled(t, "attachfn", args)
    bad = []
    try:
        time.sleep(0.1)
        for k in range(2):
            d = os.path.join(prog.tmp, "d%d" % k)
            rc, out, err = run([t.scaler, "record", "-p", str(prog.pid), "--duration", "0.3",
                                "--functions", FNS + ",libc.so.6:*", "-o", d])
            if prog.p.poll() is not None:
                return ["the program ended before attach %d: %r" % (k + 1, err)]
            lines = err.decode().splitlines()
            if k == 0 and (rc != 0 or "detached from" not in lines[-1] or
                           "4 function entries patched; 0 refused" not in err.decode() or
                           "libc is not patched" not in err.decode()):
                bad.append("scaler exited %d: %r" % (rc, err[-300:]))
            elif k == 0:
                sq, cube = fn_count(calls(t, d), "fn_sq"), fn_count(calls(t, d), "fn_cube")
                if sq <= 0 or abs(sq - cube) > 4:
                    bad.append("fn_sq %d calls, fn_cube %d: want some, at most 4 apart"
                               % (sq, cube))
            elif rc != 2 or len(lines) != 1 or "loaded in it already" not in lines[0]:
                bad.append("attach %d: exit %d, %r" % (k + 1, rc, err))
        bad += as_native(t, prog, args, prog.tmp)
        return bad
    finally:
        prog.close()


def fn_attached(t, prog, more=""):
    """sc_attachfn (prog) at phase 1 attached with --functions FNS (and
    more) into prog.tmp/d: scaler, and its line on the entries patched."""
    prog.wait_phase(1)
    rec = attach(t, prog.pid, os.path.join(prog.tmp, "d"), "--functions", FNS + more)
    return rec, rec.stderr.readline()


def detach(rec, pid, want=b"", timeout=TIMEOUT):
    """^C to scaler attached to pid: (the problems: its exit, no
    "detached", no want in what it says; what it says)."""
    rec.send_signal(signal.SIGINT)
    try:
        _, err = rec.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        rec.kill()
        rec.wait()
        return ["scaler still detaching %d s after ^C" % timeout], b""
    if rec.returncode != 0 or b"detached from %d" % pid not in err or want not in err:
        return ["scaler exited %d: %r" % (rec.returncode, err[-400:])], err
    return [], err


def child_waiting(prog):
    """sc_attachfn vfork let go after phase 1: until its vfork child
    waits (the problems)."""
    prog.go()
    line = prog.p.stdout.readline()
    prog.out += line
    return [] if line == b"child waiting\n" else ["the program said %r" % line]


def close_all(prog, rec):
    """Ends scaler (rec: None, or ended already) and the program."""
    if rec and rec.poll() is None:
        rec.kill()
        rec.wait()
    prog.close()


def check_fn_nested(t):
    """attachfn-nested-signal (see the top)."""
    args = ["nest", "0"]
    prog = Unprofiled(t, "attachfn", args)
    bad = []
    try:
        before = entry_bytes(t, prog.pid, ("fn_pause",))
        rec, line = fn_attached(t, prog)
        if b"3 function entries patched; 1 refused as a thread was in them" not in line:
            bad.append("second line %r" % line)
        if entry_bytes(t, prog.pid, ("fn_pause",)) != before:
            bad.append("fn_pause's entry changed while a context inside it was saved")
        prog.go()
        prog.wait_phase(2)
        bad += detach(rec, prog.pid)[0]
        prog.go()
        bad += as_native(t, prog, args, prog.tmp)
        got = fn_count(calls(t, os.path.join(prog.tmp, "d")), "fn_sq")
        if got != FN_SQ[1]:
            bad.append("fn_sq calls %d, want %d" % (got, FN_SQ[1]))
        return bad
    finally:
        prog.close()


def check_fn_vfork(t):
    """attachfn-vfork-detach (see the top)."""
    args = ["vfork", "0"]
    prog = Unprofiled(t, "attachfn", args)
    rec = None
    try:
        before = entry_bytes(t, prog.pid, ("fn_sq",))
        rec, line = fn_attached(t, prog)
        bad = [] if b"4 function entries patched; 0 refused" in line else \
            ["second line %r" % line]
        bad += child_waiting(prog)
        if bad:
            return bad
        bad += detach(rec, prog.pid, b"function entries not put back: a thread did not stop "
                      b"within 1 s (waiting for its vfork child", timeout=10)[0]
        if entry_bytes(t, prog.pid, ("fn_sq",)) == before:
            bad.append("fn_sq's entry put back, a thread not stopped?")
        prog.go()
        return bad + as_native(t, prog, args, prog.tmp)
    finally:
        close_all(prog, rec)


def check_fn_vfork_attach(t):
    """attachfn-vfork-attach (see the top)."""
    args = ["vfork", "0"]
    prog = Unprofiled(t, "attachfn", args)
    try:
        prog.wait_phase(1)
        bad = child_waiting(prog)
        if bad:
            return bad
        try:
            bad = refused(t, prog.pid, os.path.join(prog.tmp, "d"),
                          "a thread did not stop within 1 s (waiting for its vfork child")
        except subprocess.TimeoutExpired:
            bad = ["scaler still attaching after %d s, a thread in vfork" % TIMEOUT]
        prog.go()
        return bad + as_native(t, prog, args, prog.tmp)
    finally:
        prog.close()


def check_fn_exec(t):
    """attachfn-exec (see the top)."""
    args = ["exec", "0"]
    prog = Unprofiled(t, "attachfn", args)
    rec = None
    try:
        rec, _ = fn_attached(t, prog)
        prog.go()
        end = time.time() + TIMEOUT
        while time.time() < end and os.readlink("/proc/%d/exe" % prog.pid) != \
                os.path.realpath("/bin/sh"):
            time.sleep(0.01)
        bad, err = detach(rec, prog.pid, b"function entries not put back: the runtime is no "
                          b"longer in %d" % prog.pid)
        if not bad and err.count(b"\n") != 2:
            bad.append("scaler said %r" % err)
        prog.go()
        return bad + as_native(t, prog, args, prog.tmp)
    finally:
        close_all(prog, rec)


def check_fn_dlclose(t):
    """attachfn-dlclose (see the top)."""
    args = ["dl", "0"]
    prog = Unprofiled(t, "attachfn", args)
    try:
        rec, _ = fn_attached(t, prog, ",libsc_dl.so:dl_func")
        prog.go()
        prog.wait_phase(2)
        bad = detach(rec, prog.pid, b"5 function entries put back, 0 stay")[0]
        prog.go()
        bad += as_native(t, prog, args, prog.tmp)
        got = fn_count(calls(t, os.path.join(prog.tmp, "d")), "dl_func")
        if got != 200:
            bad.append("dl_func calls %d, want 200" % got)
        return bad
    finally:
        prog.close()


def check_fn_killed(t):
    """attachfn-scaler-killed: scaler killed while attached with
    --functions: the entries stay, paused by the runtime's detaching:
    phase 3 is not counted, and the program finishes as natively."""
    args = ["phases", "1"]
    prog = Unprofiled(t, "attachfn", args)
    d = os.path.join(prog.tmp, "d")
    try:
        prog.wait_phase(1)
        before = entry_bytes(t, prog.pid, ("fn_sq",))
        rec = attach(t, prog.pid, d, "--functions", FNS)
        prog.go()
        prog.wait_phase(2)
        rec.kill()
        rec.communicate()
        end = time.time() + TIMEOUT
        while time.time() < end and "scaler-attach" in thread_names(prog.pid):
            time.sleep(0.01)
        bad = []
        if entry_bytes(t, prog.pid, ("fn_sq",)) == before:
            bad.append("fn_sq's entry put back with no scaler to do it?")
        prog.go()
        bad += as_native(t, prog, args, prog.tmp)
        got = (fn_count(calls(t, d), "fn_sq"), fn_count(calls(t, d), "fn_cube"))
        if got != fn_want(1, 1):
            bad.append("fn_sq, fn_cube calls %r, want %r" % (got, fn_want(1, 1)))
        return bad
    finally:
        prog.close()


def checks_fn(t):
    why = ptrace_blocked()
    names = ("attachfn-counts-0", "attachfn-counts-3", "attachfn-busy", "attachfn-scaler-killed",
             "attachfn-nested-signal", "attachfn-vfork-detach", "attachfn-exec",
             "attachfn-dlclose", "attachfn-vfork-attach")
    if why:
        for n in names:
            skip(n, why)
        return
    guarded(names[0], t.variant, lambda: check_fn_counts(t, 0))
    guarded(names[1], t.variant, lambda: check_fn_counts(t, 3))
    guarded(names[2], t.variant, lambda: check_fn_busy(t))
    guarded(names[3], t.variant, lambda: check_fn_killed(t))
    guarded(names[4], t.variant, lambda: check_fn_nested(t))
    guarded(names[5], t.variant, lambda: check_fn_vfork(t))
    guarded(names[6], t.variant, lambda: check_fn_exec(t))
    guarded(names[7], t.variant, lambda: check_fn_dlclose(t))
    guarded(names[8], t.variant, lambda: check_fn_vfork_attach(t))


def checks(t):
    guarded("attach-counts-1", t.variant, lambda: check_counts(t, 0))
    guarded("attach-counts-5", t.variant, lambda: check_counts(t, 4))
    guarded("attach-root-to-user", t.variant, lambda: check_counts(t, 2, user=True))
    guarded("attach-busy", t.variant, lambda: check_busy(t))
    guarded("attach-regs", t.variant, lambda: check_regs(t))
    guarded("attach-scaler-killed", t.variant, lambda: check_killed(t))
    guarded("attach-refused", t.variant, lambda: check_refused(t))
    guarded("attach-no-start", t.variant, lambda: check_no_start(t))
    checks_fn(t)
