"""report_untrusted.py - scaler report on a profile directory that others
could write into (issue 20, item 7): files it cannot trust or use are
skipped and named (stderr and the JSON's "skipped_files"), the rest is
reported, and nothing planted makes it hang, read without end or abort.
Checks: report-skip-fifo, report-skip-link, report-sparse-thr,
report-skip-foreign (SKIP when not root), report-skip-unreadable."""
import json
import os
import resource
import shutil
import struct
import subprocess
import time

from harness import guarded, run, skip

MODE = "real"
LIMIT_S = 20                # a planted file must not make the report slower
LIMIT_AS = 2 << 30          # nor make it read without end


def report_limited(scaler, prof, uid=None):
    """scaler report -i prof --format json under a time and memory limit,
    as uid if given: (rc, report or None, stderr text, seconds)."""
    def pre():
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))
        if uid is not None:
            os.setgid(uid)
            os.setuid(uid)
    t0 = time.monotonic()
    p = subprocess.Popen([scaler, "report", "-i", prof, "--format", "json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, preexec_fn=pre, start_new_session=True)
    try:
        out, err = p.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, 9)
        p.communicate()
        return None, None, "", LIMIT_S
    rep = None
    if p.returncode == 0:
        try:
            rep = json.loads(out)
        except ValueError:
            pass
    return p.returncode, rep, err.decode(errors="replace"), time.monotonic() - t0


def base_profile(scaler, tmp):
    """A profile of /bin/true and the name of its root .meta file."""
    prof = os.path.join(tmp, "base")
    rc, _, err = run([scaler, "record", "-o", prof, "--", "/bin/true"])
    if rc != 0:
        raise RuntimeError("record /bin/true: %d %s" % (rc, err[-200:]))
    metas = sorted(f for f in os.listdir(prof) if f.endswith(".meta"))
    return prof, metas[0]


def copy_of(base, tmp, name):
    d = os.path.join(tmp, name)
    shutil.copytree(base, d, symlinks=True)
    return d


def expect_skip(scaler, prof, fname, root_meta, uid=None, more=None):
    """The report of prof finishes in time with status 0, names fname as
    skipped on stderr and in "skipped_files", and still has the recorded
    process (root_meta's pid)."""
    rc, rep, err, secs = report_limited(scaler, prof, uid)
    if rc is None:
        return ["report did not finish in %d s" % LIMIT_S]
    if rc != 0 or rep is None:
        return ["report exited %d: %s" % (rc, err.strip()[-300:])]
    bad = []
    line = "scaler: skipped %s: " % os.path.join(prof, fname)
    if line not in err:
        bad.append("stderr lacks %r: %r" % (line, err[-300:]))
    sk = [s for s in rep.get("skipped_files", []) if s.get("file") == fname]
    if len(sk) != 1 or not sk[0].get("reason"):
        bad.append("skipped_files %r lacks %s" % (rep.get("skipped_files"), fname))
    pid = int(root_meta[1:].split("-")[0])
    if pid not in [p["pid"] for p in rep.get("processes", [])]:
        bad.append("the recorded process %d is missing" % pid)
    if more:
        bad += more(rep)
    return bad


def fifo(scaler, tmp, base, meta):
    d = copy_of(base, tmp, "fifo")
    os.mkfifo(os.path.join(d, "p1-0.meta"))
    bad = expect_skip(scaler, d, "p1-0.meta", meta)
    # scaler record --interval's file: a damaged one is an error of its
    # own (series-ring), but a fifo there must not hang the report
    d2 = copy_of(base, tmp, "fifo-series")
    os.mkfifo(os.path.join(d2, "series"))
    rc, _, err, _ = report_limited(scaler, d2)
    if rc is None:
        bad.append("a fifo named series: report did not finish in %d s" % LIMIT_S)
    elif rc != 1 or "series: not a regular file" not in err:
        bad.append("a fifo named series: exit %d, stderr %r" % (rc, err[-200:]))
    return bad


def link(scaler, tmp, base, meta):
    d = copy_of(base, tmp, "link")
    os.symlink("/dev/zero", os.path.join(d, "p2-0.meta"))
    os.symlink("/dev/zero", os.path.join(d, "p2-0-t0.thr"))
    bad = expect_skip(scaler, d, "p2-0.meta", meta)
    return bad


def rec(t, plen):
    return struct.pack("<II", t, plen)


def pad8(b):
    return b + b"\0" * (-len(b) % 8)


def sparse_thr(scaler, tmp, base, meta):
    """An import bound to counter slot 2^32 - 2, and a thread file of 1 TiB
    (sparse) whose last record is that slot's: read at once, counted."""
    d = copy_of(base, tmp, "sparse")
    pid, gen = meta[1:-len(".meta")].split("-")
    name = b"sc_planted_api\0"
    slot = (1 << 32) - 2
    with open(os.path.join(d, meta), "ab") as f:
        f.write(rec(3, 16 + len(name)) + pad8(struct.pack("<IIII", 0xfffffff0, 0, 0, 1) + name))
        f.write(rec(8, 16) + struct.pack("<IIII", 0xfffffff0, slot, 1, 0))
    thr = sorted(x for x in os.listdir(d) if x.startswith("p%s-%s-t" % (pid, gen)))
    with open(os.path.join(d, thr[0]), "rb") as f:
        hdr = f.read(256)
    big = os.path.join(d, "p%s-%s-t999.thr" % (pid, gen))
    with open(big, "wb") as f:
        f.write(hdr)
        f.truncate(1 << 40)
        f.seek(256 + slot * 256)
        f.write(struct.pack("<Q", 7))
    rc, rep, err, secs = report_limited(scaler, d)
    try:
        os.unlink(big)
    except OSError:
        pass
    if rc is None:
        return ["report did not finish in %d s" % LIMIT_S]
    if rc != 0 or rep is None:
        return ["report exited %d: %s" % (rc, err.strip()[-300:])]
    got = sum(c["count"] for c in rep["calls"] if c["api"] == "sc_planted_api")
    return [] if got == 7 else ["sc_planted_api counted %d times, want 7" % got]


def foreign(scaler, tmp, base, meta):
    """Another user's process copied in (the directory is root's): not a
    process of the run."""
    if os.geteuid() != 0:
        return skip("report-skip-foreign", "not root (needs another user's file)")
    d = copy_of(base, tmp, "foreign")
    for f in os.listdir(d):
        if f.startswith(meta[:-len(".meta")]) and f.endswith((".meta", ".thr")):
            new = "p4242" + f[f.index("-"):]
            shutil.copy(os.path.join(d, f), os.path.join(d, new))
            os.chown(os.path.join(d, new), 65534, 65534)

    def absent(rep):
        if 4242 in [p["pid"] for p in rep.get("processes", [])]:
            return ["another user's process 4242 is reported"]
        return []
    return expect_skip(scaler, d, "p4242-0.meta", meta, more=absent)


def unreadable(scaler, tmp, base, meta):
    """A directory where a .meta should be, and (reading as a user, to whom
    permissions apply) a file that user cannot read."""
    d = copy_of(base, tmp, "unreadable")
    os.mkdir(os.path.join(d, "p3-0.meta"))
    bad = expect_skip(scaler, d, "p3-0.meta", meta)
    uid = 65534 if os.geteuid() == 0 else None
    d2 = copy_of(base, tmp, "noperm")
    shutil.copy(os.path.join(d2, meta), os.path.join(d2, "p5-0.meta"))
    for root, dirs, files in os.walk(d2):
        for x in dirs + files + ["."]:
            if uid is not None:
                os.chown(os.path.join(root, x), uid, uid)
    os.chmod(os.path.join(d2, "p5-0.meta"), 0)
    if uid is not None:
        os.chmod(tmp, 0o755)
        os.chmod(os.path.dirname(tmp), 0o755)
    bad += expect_skip(scaler, d2, "p5-0.meta", meta, uid=uid)
    return bad


def checks(t):
    try:
        base, meta = base_profile(t.scaler, t.tmp)
    except RuntimeError as e:
        for n in ("fifo", "link", "sparse-thr", "foreign", "unreadable"):
            guarded("report-skip-" + n, None, lambda: [str(e)])
        return
    guarded("report-skip-fifo", None, lambda: fifo(t.scaler, t.tmp, base, meta))
    guarded("report-skip-link", None, lambda: link(t.scaler, t.tmp, base, meta))
    guarded("report-sparse-thr", None, lambda: sparse_thr(t.scaler, t.tmp, base, meta))
    guarded("report-skip-foreign", None, lambda: foreign(t.scaler, t.tmp, base, meta))
    guarded("report-skip-unreadable", None, lambda: unreadable(t.scaler, t.tmp, base, meta))
