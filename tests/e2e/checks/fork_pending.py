"""fork_pending.py - a fork child that execs at once leaves its parent's
waiting GOT slots waiting (patch.c, sc_objects_after_fork): a driver
linked -z now (its GOT read-only, so its binds wait to be written in a
batch) makes a first call, sleeps 2 ms and forks a child that binds
open, dup2 and close and execs /bin/true, five times; no child may
mprotect the driver's GOT before its exec (each did, an unprotect and a
protect, when the slot its parent had waiting for 2 ms was written at the
child's first bind). strace stops only at the calls it traces
(--seccomp-bpf), so that a child reaches its binds well within the 1 ms
after which its own waiting slots are written. The
children's calls are still all counted. Check: fork-pending."""
import json
import os
import re
import shutil

from harness import guarded, run, skip

MODE = "real"

DRIVER = r"""
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static volatile long sink;
int main(void)
{
	for (int i = 0; i < 5; i++) {
		/* a first call, whose GOT write waits, 2 ms before the fork */
		switch (i) {
		case 0: sink += getuid(); break;
		case 1: sink += geteuid(); break;
		case 2: sink += getgid(); break;
		case 3: sink += getegid(); break;
		default: sink += getppid(); break;
		}
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, 0);
		pid_t pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0 && dup2(fd, 1) >= 0)
				close(fd);
			execl("/bin/true", "true", (char *)0);
			_exit(127);
		}
		int st;
		if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	}
	return 0;
}
"""


def check(t):
    for tool in ("strace", "cc"):
        if not shutil.which(tool):
            return skip("fork-pending", tool + " not installed")
    src = os.path.join(t.tmp, "driver.c")
    exe = os.path.join(t.tmp, "driver")
    with open(src, "w") as f:
        f.write(DRIVER)
    rc, _, err = run(["cc", "-O2", "-Wl,-z,now", "-Wl,-z,relro", "-o", exe, src])
    if rc != 0:
        return ["cc: %s" % err[-300:]]
    out = os.path.join(t.tmp, "p")
    log = os.path.join(t.tmp, "strace.log")
    rc, _, err = run(["strace", "-f", "-qq", "-ttt", "--seccomp-bpf", "-e",
                      "trace=mprotect,execve,fork,clone,clone3",
                      "-o", log, t.scaler, "record", "-o", out, "--", exe])
    if rc != 0:
        return ["strace scaler record exited %d: %s" % (rc, err[-300:])]
    # the driver is the pid that execs it; its children are the pids that
    # exec /bin/true; a child's mprotects of addresses below the runtime's
    # mappings (the executable's pages) before its exec, within 1 ms of
    # its fork: a child the host kept off the CPU longer than that writes
    # its own waiting slots, rightly
    driver, before, execd, children = None, {}, set(), []
    forked, clone_at = {}, {}
    with open(log) as f:
        for line in f:
            m = re.match(r"(\d+) +([0-9.]+) (?:<\.\.\. )?(\w+)(?:\(| resumed>)(.*)", line)
            if not m:
                continue
            pid, at, call, args = int(m.group(1)), float(m.group(2)), m.group(3), m.group(4)
            if call in ("clone", "clone3", "fork"):
                clone_at.setdefault(pid, at)
                r = re.search(r"= (\d+)$", line.strip())
                if r:
                    forked[int(r.group(1))] = clone_at.pop(pid)
            elif call == "execve" and args.startswith('"%s"' % exe):
                driver = pid
            elif call == "execve" and args.startswith('"/bin/true"'):
                execd.add(pid)
                children.append(pid)
            elif call == "mprotect" and pid != driver and pid not in execd:
                a = re.match(r"0x([0-9a-f]+)", args)
                if a and int(a.group(1), 16) < 0x7f0000000000 and \
                        at - forked.get(pid, at) < 0.001:
                    before[pid] = before.get(pid, 0) + 1
    bad = []
    if len(children) != 5:
        bad.append("%d children exec'd /bin/true, want 5" % len(children))
    hit = {p: n for p, n in before.items() if p in children}
    if hit:
        bad.append("children mprotected the driver's pages before their exec: %r" % hit)
    rrc, rout, rerr = run([t.scaler, "report", "-i", out, "--format", "json"])
    if rrc != 0:
        return bad + ["report exited %d: %s" % (rrc, rerr[-300:])]
    rep = json.loads(rout)
    for pr in rep["processes"]:
        if pr["pid"] not in children or pr.get("gen", 0) != 0:
            continue
        got = {c["api"]: c["count"] for c in pr.get("calls", []) if c["caller"] == "driver"}
        for api in ("open", "dup2", "close"):
            if got.get(api) != 1:
                bad.append("child %d: %s counted %r times, want 1" % (pr["pid"], api, got.get(api)))
    return bad


def checks(t):
    guarded("fork-pending", None, lambda: check(t))
