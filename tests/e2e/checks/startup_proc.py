"""startup_proc.py - naming the executable costs no look at /proc
(objects.c, main_path): the first one in a process makes its /proc/<pid>
entries, 10-30 us of every start. A profiled /bin/true started through a
symlink, the second time in a run (the first reads code, through
/proc/self/pagemap, for the run's cache: usecache.c), touches no path
under /proc (strace) and is still named as invoked (the symlink's name); a shell script is still named by its
interpreter, which the file it was started by (the script) is not.
Check: startup-proc."""
import json
import os
import re
import shutil

from harness import guarded, run, skip

MODE = "real"


def components(scaler, out):
    rc, rout, rerr = run([scaler, "report", "-i", out, "--format", "json"])
    if rc != 0:
        return None
    rep = json.loads(rout)
    return [[c["name"] for c in p["components"]] for p in rep["processes"]]


def check(t):
    if not shutil.which("strace"):
        return skip("startup-proc", "strace not installed")
    bad = []
    link = os.path.join(t.tmp, "mytrue")
    os.symlink("/bin/true", link)
    out = os.path.join(t.tmp, "a")
    log = os.path.join(t.tmp, "strace.log")
    rc, _, err = run(["strace", "-f", "-qq", "-e", "trace=%file", "-o", log,
                      t.scaler, "record", "-o", out, "--", "/bin/sh", "-c",
                      "%s; %s" % (link, link)])
    if rc != 0:
        return ["strace scaler record exited %d: %s" % (rc, err[-300:])]
    execd, proc = None, []
    with open(log) as f:
        for line in f:
            m = re.match(r"(\d+) +(\w+)\((.*)", line)
            if not m:
                continue
            if m.group(2) == "execve" and m.group(3).startswith('"%s"' % link):
                execd = m.group(1)
                proc = []
            elif execd and m.group(1) == execd and '"/proc/' in m.group(3):
                proc.append(line.strip()[:120])
    if not execd:
        bad.append("no exec of %s in the trace" % link)
    if proc:
        bad.append("the profiled program looked at /proc: %s" % proc[:3])
    names = components(t.scaler, out)
    if not names or not any(n[:1] == ["mytrue"] for n in names):
        bad.append("symlinked /bin/true's components %r, want mytrue first" % names)
    script = os.path.join(t.tmp, "s.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n:\n")
    os.chmod(script, 0o755)
    out = os.path.join(t.tmp, "b")
    rc, _, err = run([t.scaler, "record", "-o", out, "--", script])
    sh = os.path.basename(os.path.realpath("/bin/sh"))
    names = components(t.scaler, out)
    if rc != 0 or not names or names[0][:1] != [sh]:
        bad.append("script's components %r (record %d), want %s first" % (names, rc, sh))
    return bad


def checks(t):
    guarded("startup-proc", None, lambda: check(t))
