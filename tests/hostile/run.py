#!/usr/bin/env python3
"""run.py - scaler against a local attacker and a hostile environment
(issue 20): planted links and files in the profile directory, a user
truncating a file a root program has mapped, a full disk, a program that
starts thousands of threads, drops privileges and closes every descriptor,
a fork child that drops them with no room left for its files, one
forked inside a call in flight with no room left,
a directory scaler did not make, world-readable command lines and a
command line over 8 KB.

    run.py --scaler BIN [--only NAME...]

The attacker tests need root (they run the attacker as `nobody` with
setpriv) and are skipped with a SKIP line otherwise; the full-disk test
mounts a small tmpfs. Prints "PASS name" / "FAIL name: reason" /
"SKIP name: reason" lines; exits 1 if any failed. Only stdlib.
"""
import argparse
import json
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT = 120
failures = 0
ROOT = os.geteuid() == 0
NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


def line(ok, name, reason=""):
    global failures
    if ok:
        print("PASS %s" % name, flush=True)
    else:
        failures += 1
        print("FAIL %s: %s" % (name, " ".join(reason.split())[:600]), flush=True)


def skip(name, reason):
    print("SKIP %s: %s" % (name, reason), flush=True)


def run(argv, **kw):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=TIMEOUT, **kw)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def report(scaler, prof):
    """The profile as JSON, or raises with the report's error."""
    rc, out, err = run([scaler, "report", "-i", prof, "--format", "json"])
    if rc != 0:
        raise RuntimeError("report exited %d: %s" % (rc, err[-300:]))
    return json.loads(out)


def getppid_calls(rep):
    return sum(c["count"] for c in rep["calls"] if c["api"] == "getppid")


def as_nobody(script):
    """Runs a shell script as the attacker; returns its stderr."""
    rc, _, err = run(NOBODY + ["sh", "-c", script])
    return "" if rc == 0 else "attacker script exited %d: %s" % (rc, err)


def guarded(name, fn, need_root=False):
    if need_root and not ROOT:
        return skip(name, "needs root (%s)" % need_root)
    if need_root and not shutil.which("setpriv"):
        return skip(name, "setpriv not installed")
    try:
        bad = fn()
    except Exception as e:          # a test that breaks is a failure
        bad = ["%s: %s" % (type(e).__name__, e)]
    if bad is None:
        return
    line(not bad, name, "; ".join(bad))


def test_planted(a, tmp):
    """Items 1 and 2: as root, every name a thread or the recorder might
    write is planted beforehand by another user: links to root's files
    and files of the attacker's own that it truncates while the program
    runs. Root's files stay unchanged, the program runs to its end, and
    every thread and call is in the profile."""
    os.chmod(tmp, 0o755)
    prof = os.path.join(tmp, "planted")
    secret = os.path.join(tmp, "secret")
    with open(secret, "w") as f:
        f.write("root's own data\n" * 8)
    os.chmod(secret, 0o600)
    before = open(secret, "rb").read()
    att = os.path.join(tmp, "attacker")
    os.mkdir(att)
    os.chown(att, 65534, 65534)
    theirs = os.path.join(att, "own")
    err = as_nobody("echo mine > %s && chmod 644 %s" % (theirs, theirs))
    if err:
        return [err]
    p = subprocess.Popen([a.scaler, "record", "-o", prof, "--", a.victim, "attack", "4"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    bad = []
    try:
        first = p.stdout.readline().split()
        pid = int(first[1])
        plant = ["cd %s" % prof]
        for seq in (1, 2):
            plant.append("ln -s %s p%d-0-t%d.thr" % (secret, pid, seq))
        plant.append("ln -s %s p%d-1.meta" % (secret, pid))
        # a hard link to a file of the attacker's elsewhere: never chown'd
        plant.append("ln %s p%d-0-t7.thr" % (theirs, pid))
        plant.append("umask 0")
        for seq in (3, 4, 5, 6):
            plant.append(": > p%d-0-t%d.thr" % (pid, seq))
        err = as_nobody("; ".join(plant))
        if err:
            bad.append(err)
        p.stdin.write("go\n")
        p.stdin.flush()
        out = [first]
        for i in range(1, 5):
            got = p.stdout.readline()
            out.append(got.split())
            if got != "T%d\n" % i:
                break
            # the attacker takes back the room of every file it owns
            as_nobody("cd %s && for f in p%d-0-t*.thr; do [ -O \"$f\" ] && "
                      "truncate -s 0 \"$f\"; done; true" % (prof, pid))
            p.stdin.write("next\n")
            p.stdin.flush()
        rest, errs = p.communicate(timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 0:
        bad.append("program exited %d (stderr %r)" % (p.returncode, errs[-300:]))
    want = [["T%d" % i] for i in range(1, 5)]
    if out[1:] != want or rest != "ok\n":
        bad.append("program output %r %r, want T1..T4 and ok" % (out[1:], rest))
    if open(secret, "rb").read() != before:
        bad.append("root's file was written through a planted link")
    st = os.stat(theirs)
    if (st.st_uid, stat.S_IMODE(st.st_mode)) != (65534, 0o644):
        bad.append("the attacker's own file was changed through a hard link: uid %d mode %o"
                   % (st.st_uid, st.st_mode))
    if errs.strip():
        bad.append("stderr %r" % errs[-300:])
    if bad:
        return bad
    rep = report(a.scaler, prof)
    proc = [q for q in rep["processes"] if q["pid"] == pid]
    if not proc or len(proc[0]["threads"]) != 5:
        bad.append("threads %r, want 5" % ([len(q["threads"]) for q in proc],))
    if getppid_calls(rep) != 800:
        bad.append("getppid calls %d, want 800" % getppid_calls(rep))
    if not proc or proc[0]["exit_status"] != 0:
        bad.append("exit status %r" % [q["exit_status"] for q in proc])
    return bad


def test_fds(a, tmp):
    """Item 4: 2000 threads created and joined one at a time under
    ulimit -n 1024 leave the program its own descriptors (a bounded few
    more) and every thread is profiled."""
    cmd = ["sh", "-c", 'ulimit -n 1024 && exec "$0" threads 2000', a.victim]
    rc0, bare, _ = run(cmd)
    prof = os.path.join(tmp, "fds")
    rc1, out, err = run([a.scaler, "record", "-o", prof, "--"] + cmd)
    bad = []
    if rc0 != 0 or rc1 != 0:
        return ["exit status %d bare, %d profiled: %s" % (rc0, rc1, err[-300:])]
    n0, n1 = int(bare.split()[1]), int(out.split()[1])
    if not out.endswith("open ok\n") or n1 > n0 + 3:
        bad.append("profiled: %r, bare: %r (want at most 3 more descriptors)" % (out, bare))
    # and a forked child (which inherits the parent's descriptors)
    rc0, bare, _ = run([a.victim, "forkfds"])
    rc1, out, err = run([a.scaler, "record", "-o", prof + "-fork", "--", a.victim, "forkfds"])
    b, o = [int(l.split()[1]) for l in bare.splitlines()], [int(l.split()[1]) for l in out.splitlines()]
    if rc0 or rc1 or len(b) != 2 or len(o) != 2 or any(y > x + 3 for x, y in zip(b, o)):
        bad.append("fork: profiled child and parent hold %r descriptors, bare %r (%s)"
                   % (o, b, err[-200:]))
    # a program that uses up its descriptors itself: its threads are not
    # profiled, said once, and it runs as it would
    cmd = ["sh", "-c", 'ulimit -n 64 && exec "$0" exhaust 50', a.victim]
    rc1, out, err = run([a.scaler, "record", "-o", prof + "-out", "--"] + cmd)
    if rc1 != 0 or out != "done\n" or len(err.splitlines()) != 1:
        bad.append("out of descriptors: exit %d output %r stderr %d lines %r"
                   % (rc1, out, len(err.splitlines()), err[:200]))
    rep = report(a.scaler, prof)
    # the image of victim (sh execs it): its threads and their calls
    proc = [q for q in rep["processes"] if q["command"][:1] == [a.victim]]
    nthr = sum(len(q["threads"]) for q in proc)
    calls = sum(c["count"] for q in proc for c in q["calls"] if c["api"] == "getppid")
    if nthr != 2001 or calls != 2000:
        bad.append("%d threads and %d getppid calls, want 2001 and 2000" % (nthr, calls))
    return bad


def test_full_disk(a, tmp):
    """Item 3: the profile directory is on a file system that fills up
    during the run: the program runs to its end with its own output and
    status, and scaler says so once on stderr."""
    mnt = os.path.join(tmp, "small")
    os.mkdir(mnt)
    rc, _, err = run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", mnt])
    if rc != 0:
        return skip("hostile-full-disk", "cannot mount a tmpfs: %s" % err.strip())
    try:
        cmd = [a.victim, "fill", "200"]
        rc0, bare, _ = run(cmd)
        prof = os.path.join(mnt, "prof")
        rc1, out, err = run([a.scaler, "record", "-o", prof, "--"] + cmd)
        bad = []
        if (rc0, bare) != (rc1, out) or rc1 != 3:
            bad.append("profiled: status %d output %r; bare: %d %r" % (rc1, out, rc0, bare))
        lines = err.splitlines()
        if len(lines) != 1 or not lines[0].startswith("scaler:"):
            bad.append("stderr is not one scaler: line: %r" % lines[:4])
        if not bad:
            rep = report(a.scaler, prof)
            if not rep["processes"]:
                bad.append("no process in the profile")
        return bad
    finally:
        run(["umount", mnt])


def test_full_fork_drop(a, tmp):
    """A fork child that cannot make its metadata file (no inode left)
    is still the image's own process: with --kernel's rings of every
    task's samples (SCALER_KCPU_ALL=1), it withdraws them before it drops
    to nobody. It kept them: sc_meta_reopen_child left the parent's pid
    in the header when the file could not be made, and uids.c withdraws
    the rings only in the image's own process."""
    mnt = os.path.join(tmp, "small")
    os.mkdir(mnt)
    rc, _, err = run(["mount", "-t", "tmpfs", "-o", "size=16m,nr_inodes=64", "tmpfs", mnt])
    if rc != 0:
        return skip("hostile-full-fork-drop", "cannot mount a tmpfs: %s" % err.strip())
    try:
        prof = os.path.join(mnt, "prof")
        rc, out, err = run([a.scaler, "record", "--kernel", "-o", prof, "--", a.victim,
                            "forkfull"], env=dict(os.environ, SCALER_KCPU_ALL="1"))
    finally:
        run(["umount", mnt])
    if "every task's" not in err:
        return skip("hostile-full-fork-drop", "no per-CPU rings here: %r" % err[-200:])
    bad = []
    if "No space left on device" not in err:
        bad.append("the child made its files: %r" % err[-300:])
    if rc != 0 or out != "child rings 0\n":
        bad.append("status %d, output %r: want the child, nobody now, to map no ring of "
                   "every task's samples" % (rc, out))
    return bad


def test_full_fork_in_call(a, tmp):
    """A fork child that cannot make its files (no inode left; or one
    left, for its metadata and none for its thread's), forked inside a
    call still in flight (qsort's comparator forks, with fork() and with
    a raw syscall(SYS_fork)), returns through that call and runs on: its
    own output and status, one scaler: line on stderr, the profile
    readable. It died of SIGSEGV: its thread state was dropped for the
    idle thread's, which has no shadow frames, and the timed return of
    the call in flight read below a NULL stack."""
    name = "hostile-full-fork-in-call"
    mnt = os.path.join(tmp, "small")
    os.mkdir(mnt)
    rc, _, err = run(["mount", "-t", "tmpfs", "-o", "size=16m,nr_inodes=64", "tmpfs", mnt])
    if rc != 0:
        return skip(name, "cannot mount a tmpfs: %s" % err.strip())
    bad = []
    try:
        for how, room, timing in [(h, r, t) for h in ("fork", "raw") for r in (0, 1)
                                  for t in ("adaptive", "all")]:
            prof = os.path.join(mnt, "%s-%d-%s" % (how, room, timing))
            rc, out, err = run([a.scaler, "record", "--timing", timing, "-o", prof, "--",
                                a.victim, "forkcall", how, str(room)])
            what = "%s, %d inode left, --timing %s" % (how, room, timing)
            if rc != 0 or out != "child back\nchild status 42\n":
                bad.append("%s: status %d, output %r, stderr %r; want the child back with "
                           "status 42" % (what, rc, out, err[-300:]))
                continue
            lines = err.splitlines()
            if (len(lines) != 1 or not lines[0].startswith("scaler:")
                    or "No space left on device" not in lines[0]):
                bad.append("%s: stderr %r, want one scaler: line about the full disk"
                           % (what, lines[:4]))
            # the parent's one thread; with room for its metadata, the
            # child's process, with none
            want = [1, 0][:1 + room]
            got = sorted((len(p["threads"]) for p in report(a.scaler, prof)["processes"]),
                         reverse=True)
            if got != want:
                bad.append("%s: threads of each process %r, want %r" % (what, got, want))
            shutil.rmtree(prof)
    finally:
        if run(["umount", mnt])[0] != 0:
            run(["umount", "-l", mnt])
    return bad


def test_drop(a, tmp):
    """Item 5: a root program drops to nobody and closes every descriptor,
    then calls, starts a thread and exits: all of it is in the profile.
    Item 8: the finished profile is root's alone."""
    os.chmod(tmp, 0o755)
    prof = os.path.join(tmp, "drop")
    rc, out, err = run([a.scaler, "record", "-o", prof, "--", a.victim, "drop"])
    bad = []
    if rc != 4 or out != "dropped\n":
        return ["exit %d output %r stderr %r" % (rc, out, err[-300:])]
    rep = report(a.scaler, prof)
    proc = rep["processes"]
    if len(proc) != 1 or len(proc[0]["threads"]) != 2:
        bad.append("threads %r, want 2" % [len(q["threads"]) for q in proc])
    if getppid_calls(rep) != 57:
        bad.append("getppid calls %d, want 57" % getppid_calls(rep))
    ended = [t for t in proc[0]["threads"] if t["wall_ns"] > 0] if proc else []
    if len(ended) != 2:
        bad.append("threads without an end: %r" % proc[0]["threads"] if proc else [])
    # a continuation is this image's only with its very header: one
    # planted with another start time adds nothing; the same with the
    # right one (which only the program's own user could read) is merged
    pid = proc[0]["pid"] if proc else 0
    cont = [n for n in os.listdir(prof) if n.startswith("p%d-0-c" % pid)]
    if len(cont) != 1:
        bad.append("continuation files %r, want one" % cont)
    else:
        hdr = open(os.path.join(prof, cont[0]), "rb").read()[:104]
        cmd = b"forged\0\0"
        rec = struct.pack("<II", 1, len(cmd)) + cmd.ljust(16, b"\0")
        for flip, want in ((1, [a.victim, "drop"]), (0, ["forged"])):
            forged = hdr[:32] + bytes([hdr[32] ^ flip]) + hdr[33:] + rec
            with open(os.path.join(prof, "p%d-0-c9.meta" % pid), "wb") as f:
                f.write(forged)
            # the reader stops at the first number missing: fill up to 9
            for k in range(2, 9):
                open(os.path.join(prof, "p%d-0-c%d.meta" % (pid, k)), "wb").close()
            got = report(a.scaler, prof)["processes"][0]["command"]
            if got[:len(want)] != want or (flip and len(got) != 2):
                bad.append("with a continuation of %s header: command %r, want %r"
                           % ("another" if flip else "the same", got, want))
        for k in range(2, 10):
            os.unlink(os.path.join(prof, "p%d-0-c%d.meta" % (pid, k)))
    st = os.lstat(prof)
    if st.st_uid != 0 or stat.S_IMODE(st.st_mode) != 0o700:
        bad.append("%s: uid %d mode %o, want root 0700" % (prof, st.st_uid, st.st_mode))
    for name in os.listdir(prof):
        st = os.lstat(os.path.join(prof, name))
        if st.st_uid != 0 or stat.S_IMODE(st.st_mode) & 0o077:
            bad.append("%s: uid %d mode %o, want root's alone" % (name, st.st_uid, st.st_mode))
    return bad


def test_planted_after_drop(a, tmp):
    """A root program drops to another user (daemon) and execs itself; the
    attacker (nobody) plants a well-formed .meta of their own in the 1777
    directory meanwhile. The program's files after the drop are the run's
    (root's metadata declared the uid before the change): the report
    reads them while the command runs and after it ends. The planted file
    is not: it is skipped and named, never taken back as root's."""
    os.chmod(tmp, 0o755)
    prof = os.path.join(tmp, "plant")
    p = subprocess.Popen([a.scaler, "record", "-o", prof, "--", a.victim, "dropwait", "1"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    bad = []
    try:
        first = p.stdout.readline().decode()
        if first != "dropped\n":
            return ["victim said %r" % first]
        metas = sorted(n for n in os.listdir(prof) if n.endswith("-0.meta"))
        if not metas:
            return ["no .meta in %s" % os.listdir(prof)]
        real = open(os.path.join(prof, metas[0]), "rb").read()
        hlen = struct.unpack_from("<I", real, 12)[0]
        fake_pid = 4000000
        hdr = bytearray(real[:hlen])
        struct.pack_into("<I", hdr, 16, fake_pid)
        cmd = b"forged\0\0"
        forged = bytes(hdr) + struct.pack("<II", 1, len(cmd)) + cmd
        src = os.path.join(tmp, "forged.meta")
        with open(src, "wb") as f:
            f.write(forged)
        os.chmod(src, 0o644)
        err = as_nobody("cat %s > %s/p%d-0.meta" % (src, prof, fake_pid))
        if err:
            return [err]
        p.stdin.write(b"go\n")
        p.stdin.flush()
        out, err = p.communicate(timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 0 or out:
        return ["exit %d output %r stderr %r" % (p.returncode, out, err[-300:])]
    rep = report(a.scaler, prof)
    cmds = [q["command"][-1:] for q in rep["processes"]]
    if any(q["pid"] == fake_pid for q in rep["processes"]):
        bad.append("the planted image is in the report: %r" % cmds)
    if sorted(cmds) != [["1"], ["quiet"]]:
        bad.append("images %r, want the program and its exec as daemon" % cmds)
    skipped = [s["file"] for s in rep.get("skipped_files", [])]
    if "p%d-0.meta" % fake_pid not in skipped:
        bad.append("the planted file is not named as skipped: %r" % skipped)
    st = os.lstat(os.path.join(prof, "p%d-0.meta" % fake_pid))
    if st.st_uid == 0:
        bad.append("the planted file was made root's")
    if getppid_calls(rep) != 53:
        bad.append("getppid calls %d, want 53" % getppid_calls(rep))
    # as read while the command runs: the exec'd image's .meta is still
    # daemon's then, and is read because root's .meta declared uid 1
    quiet = [q for q in rep["processes"] if q["command"][-1:] == ["quiet"]]
    if quiet:
        name = "p%d-1.meta" % quiet[0]["pid"]
        os.chown(os.path.join(prof, name), 1, 1)
        again = report(a.scaler, prof)
        if not any(q["command"][-1:] == ["quiet"] for q in again["processes"]):
            bad.append("%s owned by the declared uid 1 is not read: skipped %r"
                       % (name, again.get("skipped_files")))
    return bad


def kernel_text_symbol(part):
    """The address of a kernel function whose name holds part, or None
    (kallsyms hides addresses from us)."""
    with open("/proc/kallsyms") as f:
        for line in f:
            addr, kind, name = line.split()[:3]
            if kind in "tT" and part in name and int(addr, 16):
                return int(addr, 16)
    return None


def test_planted_kst(a, tmp):
    """With --kernel, scaler record (root) names the kernel addresses of
    the run's .kst/.kso files from /proc/kallsyms when the command ends.
    The attacker (nobody) plants a .kst of their own in the 1777 directory
    meanwhile (it could claim a million slots of 30 addresses each): it is
    not read, as the reader would not read it, so no address of its is
    named in the profile's kallsyms file, while those the command's reads
    of /dev/urandom were sampled at are."""
    addr = kernel_text_symbol("reboot")
    if addr is None:
        return skip("hostile-planted-kst", "kernel addresses hidden in /proc/kallsyms")
    addr += 1                           # an address no sample holds
    os.chmod(tmp, 0o755)
    prof = os.path.join(tmp, "kst")
    src = os.path.join(tmp, "planted.kst")
    slot = struct.pack("<IIQ", 1, 1, 1) + struct.pack("<Q", addr) + bytes(8 * 29)
    with open(src, "wb") as f:
        f.write(b"SCALERK1" + struct.pack("<IIII", 1, 1, len(slot), 0) + bytes(40) + slot)
    os.chmod(src, 0o644)
    p = subprocess.Popen([a.scaler, "record", "--kernel", "-o", prof, "--", "sh", "-c",
                          "head -c 50000000 /dev/urandom > /dev/null; read x"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for _ in range(1000):
            if os.path.isdir(prof) and any(n.endswith(".meta") for n in os.listdir(prof)):
                break
            time.sleep(0.01)
        err = as_nobody("cat %s > %s/p4000001-0-t0.kst" % (src, prof))
        if err:
            return [err]
        out, err = p.communicate(b"\n", timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    if p.returncode != 0:
        return ["exit %d stderr %r" % (p.returncode, err[-300:])]
    named = os.path.join(prof, "kallsyms")
    lines = open(named).read().splitlines() if os.path.exists(named) else []
    if any(l.startswith("%016x " % addr) for l in lines):
        return ["the planted .kst's address %x is named in %s" % (addr, named)]
    if b"sampled per CPU" in err and not lines:
        return ["no kernel address of the run's named: %r" % os.listdir(prof)]
    return []


def test_grow_after_drop(a, tmp):
    """A program started as root drops privileges and then calls more new
    APIs on its main thread than that thread's file had room for: the
    file still grows (its descriptor was kept) and every call counts."""
    os.chmod(tmp, 0o755)
    src = os.path.join(tmp, "many.c")
    with open(src, "w") as f:
        f.write("".join("int f%d(void) { return %d; }\n" % (i, i) for i in range(600)))
    lib = os.path.join(tmp, "libmany.so")
    rc, _, err = run(["gcc", "-shared", "-fPIC", "-o", lib, src])
    if rc != 0:
        return ["cannot build libmany.so: %s" % err]
    prof = os.path.join(tmp, "grow")
    rc, out, err = run([a.scaler, "record", "-o", prof, "--", a.victim, "grow", lib])
    if rc != 0 or out != "sum %d\n" % sum(range(600)) or err:
        return ["exit %d output %r stderr %r" % (rc, out, err[-300:])]
    rep = report(a.scaler, prof)
    got = sorted(c["api"] for c in rep["calls"] if c["callee"] == "libmany.so" and c["count"] == 1)
    if got != sorted("f%d" % i for i in range(600)):
        return ["%d of the 600 calls into libmany.so counted once" % len(got)]
    return []


def test_private(a, tmp):
    """Item 8: while a root program runs, another user cannot read its
    command line (--db-password=...) in the profile; a user's own profile
    is the user's alone."""
    os.chmod(tmp, 0o755)
    prof = os.path.join(tmp, "private")
    p = subprocess.Popen([a.scaler, "record", "-o", prof, "--", a.victim, "wait",
                          "--db-password=hunter2"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    bad = []
    try:
        pid = int(p.stdout.readline().split()[1])
        rc, out, _ = run(NOBODY + ["sh", "-c", "cat %s/p%d-0.meta %s/*.thr" % (prof, pid, prof)])
        if "hunter2" in out or rc == 0:
            bad.append("another user read the profile while it was written")
        p.communicate("go\n", timeout=TIMEOUT)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    user = os.path.join(tmp, "user")
    os.mkdir(user)
    os.chown(user, 65534, 65534)
    rc, _, err = run(NOBODY + [a.scaler, "record", "-o", os.path.join(user, "prof"), "--",
                               "/bin/true"])
    if rc != 0:
        return bad + ["record as nobody: exit %d %s" % (rc, err)]
    for path in [os.path.join(user, "prof")] + [
            os.path.join(user, "prof", n) for n in os.listdir(os.path.join(user, "prof"))]:
        st = os.lstat(path)
        if stat.S_IMODE(st.st_mode) & 0o077 or st.st_uid != 65534:
            bad.append("%s: uid %d mode %o, want the user's alone" % (path, st.st_uid, st.st_mode))
    return bad


def test_by_hand(a, tmp):
    """The runtime preloaded by hand (no scaler record): a directory that
    another user owns, or that others may write without the sticky bit,
    is refused with one line and the program runs unprofiled; a /tmp-like
    one (root's, 1777) is used, its files the program's alone."""
    os.chmod(tmp, 0o755)
    lib = os.path.join(os.path.dirname(a.scaler), "..", "lib", "libscaler.so")
    cmd = [a.victim, "fill", "3"]
    rc0, bare, _ = run(cmd)
    bad = []
    for name, uid, mode, ok in (("theirs", 65534, 0o755, False), ("open", 0, 0o777, False),
                                ("tmp", 0, 0o1777, True)):
        d = os.path.join(tmp, name)
        os.mkdir(d)
        os.chown(d, uid, uid)
        os.chmod(d, mode)
        env = dict(os.environ, LD_PRELOAD=lib, SCALER_DIR=d)
        rc, out, err = run(cmd, env=env)
        if (rc, out) != (rc0, bare):
            bad.append("%s: status %d output %r, bare %d %r" % (name, rc, out, rc0, bare))
        if ok:
            files = os.listdir(d)
            modes = [stat.S_IMODE(os.lstat(os.path.join(d, f)).st_mode) for f in files]
            images = [f for f in files if f.startswith("p")]    # (and g*.use caches)
            if err or len(images) != 5 or any(m != 0o600 for m in modes):
                bad.append("%s: stderr %r, files %r modes %r" % (name, err, files, modes))
            elif getppid_calls(report(a.scaler, d)) != 30:
                bad.append("%s: getppid calls %d, want 30" % (name, getppid_calls(report(a.scaler, d))))
        elif len(err.splitlines()) != 1 or not err.startswith("scaler:") or os.listdir(d):
            bad.append("%s: stderr %r, wrote %r; want one scaler: line and nothing written"
                       % (name, err, os.listdir(d)))
    return bad


def test_not_ours(a, tmp):
    """Item 6: an empty directory scaler did not make is never moved aside
    or removed; one it made is kept as DIR.old."""
    bad = []
    empty = os.path.join(tmp, "media")
    os.mkdir(empty)
    for _ in range(2):
        rc, _, err = run([a.scaler, "record", "-o", empty, "--", "/bin/true"])
        if rc == 0 or len(err.splitlines()) != 1 or not err.startswith("scaler:"):
            bad.append("record into an empty directory: exit %d %r" % (rc, err))
    if not os.path.isdir(empty) or os.listdir(empty) or os.path.exists(empty + ".old"):
        bad.append("the empty directory was touched")
    ours = os.path.join(tmp, "ours")
    for _ in range(2):
        rc, _, err = run([a.scaler, "record", "-o", ours, "--", "/bin/true"])
        if rc != 0:
            bad.append("record into its own profile: exit %d %r" % (rc, err))
    if not os.path.isdir(ours + ".old"):
        bad.append("the first profile was not kept as .old")
    return bad


def test_long_cmdline(a, tmp):
    """Item 9: a command line over 8 KB is kept whole or cut with a mark,
    never the process's record lost."""
    args = ["arg%04d-%s" % (i, "x" * 10) for i in range(1500)]     # 24 KB
    prof = os.path.join(tmp, "long")
    rc, _, err = run([a.scaler, "record", "-o", prof, "--", "/bin/true"] + args)
    if rc != 0:
        return ["record exited %d: %s" % (rc, err)]
    rep = report(a.scaler, prof)
    if len(rep["processes"]) != 1:
        return ["%d processes" % len(rep["processes"])]
    got = rep["processes"][0]["command"]
    whole = ["/bin/true"] + args
    if got == whole:
        return []
    n = len(got) - 1
    if n < 100 or got[:n] != whole[:n] or "cut" not in got[-1]:
        return ["command line %r...%r (%d words), want it whole or cut with a mark"
                % (got[:2], got[-2:], len(got))]
    return []


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scaler", required=True)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    a.scaler = os.path.abspath(a.scaler)
    tmp = tempfile.mkdtemp(prefix="scaler-hostile-")
    try:
        a.victim = os.path.join(tmp, "victim")
        rc, _, err = run(["gcc", "-O1", "-pthread", "-o", a.victim,
                          os.path.join(HERE, "victim.c")])
        if rc != 0:
            line(False, "hostile-build", err)
            sys.exit(1)
        os.chmod(tmp, 0o755)
        tests = [("hostile-planted-links", test_planted, "to run the attacker as nobody"),
                 ("hostile-fd-per-thread", test_fds, False),
                 ("hostile-full-disk", test_full_disk, "to mount a small tmpfs"),
                 ("hostile-full-fork-drop", test_full_fork_drop,
                  "to mount a small tmpfs and drop to nobody"),
                 ("hostile-full-fork-in-call", test_full_fork_in_call,
                  "to mount a small tmpfs"),
                 ("hostile-drop-closeall", test_drop, "for a program that drops privileges"),
                 ("hostile-planted-after-drop", test_planted_after_drop,
                  "for a program that drops privileges"),
                 ("hostile-planted-kst", test_planted_kst, "to run the attacker as nobody"),
                 ("hostile-grow-after-drop", test_grow_after_drop,
                  "for a program that drops privileges"),
                 ("hostile-private-files", test_private, "to run the attacker as nobody"),
                 ("hostile-by-hand", test_by_hand, "to make directories of other users"),
                 ("hostile-not-our-dir", test_not_ours, False),
                 ("hostile-long-cmdline", test_long_cmdline, False)]
        for name, fn, root in tests:
            if not a.only or name in a.only:
                d = os.path.join(tmp, name)
                os.mkdir(d)
                guarded(name, lambda: fn(a, d), root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
