/*
 * record_cgroup.c - `scaler record --kernel`'s run cgroup: a cgroup v2
 * directory made for the run under the recorder's own cgroup, which the
 * command enters before its exec (and its fork children with it), and
 * the filter that keeps the per-CPU sampling events (record_kcpu.c) to
 * the tasks in it. The rings then hold only the run's own tasks, so a
 * process of the run may keep them after it drops to another user
 * (doc/security.md).
 *
 * The filter is a BPF program of the perf_event type, attached to each
 * per-CPU event, that keeps a sample when the running task's cgroup is
 * the run's or below it (bpf_get_current_ancestor_cgroup_id at each
 * level). Seven instructions a level, written here: no BPF toolchain. The
 * events' timers go on running whatever the CPU does, as unfiltered ones:
 * a cgroup event (PERF_FLAG_PID_CGROUP) instead stops and restarts its
 * timer at every switch between a task of the run and one outside it, the
 * trapped reprogramming per-CPU sampling exists to avoid (pipe ping-pong
 * between a run task and an outside one on one CPU: 9.5 µs a round trip
 * with cgroup events, 2.2 with the filter or none).
 *
 * Needs a cgroup2 mount (the filter reads a task's cgroup v2 membership,
 * whichever hierarchy the perf_event controller is on), the right to make
 * a directory in the recorder's cgroup and move a process into it, and
 * BPF (CAP_BPF and CAP_PERFMON, or root). Where any is missing the events
 * stay unfiltered and the caller says why in its line. A recorder killed
 * before its end leaves the empty directory behind.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record_kernel.h"

#define LEVELS 32               /* cgroup depths the filter looks at */

static char dir[4096];          /* the run cgroup's path, or "" */
static char parent_dir[4096];   /* the recorder's cgroup */
static int procs_fd = -1;       /* its cgroup.procs, for the command */
static int prog_fd = -1;        /* the filter */

/* The cgroup2 mount's path (from /proc/self/mountinfo), or -1. */
static int cgroup2_mount(char *mnt, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096];
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS... - FSTYPE SOURCE ... */
		char root[1024], point[1024];
		const char *dash = strstr(line, " - ");
		if (!dash || strncmp(dash + 3, "cgroup2 ", 8) ||
		    sscanf(line, "%*s %*s %*s %1023s %1023s", root, point) != 2 || strcmp(root, "/"))
			continue;
		if ((size_t)snprintf(mnt, len, "%s", point) < len)
			found = 0;
	}
	fclose(f);
	return found;
}

/* This process's cgroup v2 path ("0::PATH" in /proc/self/cgroup), or -1. */
static int own_cgroup(char *path, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	int found = -1;

	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		line[strcspn(line, "\n")] = 0;
		/* " (deleted)" and the like: not a path to make one under */
		if (line[3] == '/' && !strchr(line, ' ') &&
		    (size_t)snprintf(path, len, "%s", strcmp(line + 3, "/") ? line + 3 : "") < len)
			found = 0;
	}
	fclose(f);
	return found;
}

/* The cgroup's id, as bpf_get_current_cgroup_id gives it: its handle. */
static int cgroup_id(const char *path, uint64_t *id)
{
	union {
		struct file_handle h;
		char room[sizeof(struct file_handle) + 64];
	} fh;
	int mnt;

	fh.h.handle_bytes = 64;
	if (name_to_handle_at(AT_FDCWD, path, &fh.h, &mnt, 0) < 0)
		return -1;
	if (fh.h.handle_bytes < sizeof(*id)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(id, fh.h.f_handle, sizeof(*id));
	return 0;
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	struct bpf_insn i;

	memset(&i, 0, sizeof(i));
	i.code = code;
	i.dst_reg = dst & 0xf;
	i.src_reg = src & 0xf;
	i.off = off;
	i.imm = imm;
	return i;
}

/* Loads the filter keeping samples of tasks in cgroup id or below. */
static int load_filter(uint64_t id)
{
	struct bpf_insn p[LEVELS * 7 + 2];
	union bpf_attr a;
	int n = 0;

	for (int level = 1; level <= LEVELS; level++) {
		/* r0 = bpf_get_current_ancestor_cgroup_id(level);
		 * if (r0 == id) return 1; */
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, level);
		p[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_ancestor_cgroup_id);
		p[n++] = insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, 0, 0, (int32_t)(uint32_t)id);
		p[n++] = insn(0, 0, 0, 0, (int32_t)(uint32_t)(id >> 32));
		p[n++] = insn(BPF_JMP | BPF_JNE | BPF_X, BPF_REG_0, BPF_REG_1, 2, 0);
		p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1);
		p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	}
	p[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0);
	p[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_PERF_EVENT;
	a.insns = (uint64_t)(uintptr_t)p;
	a.insn_cnt = (uint32_t)n;
	a.license = (uint64_t)(uintptr_t)"MIT";
	return (int)syscall(SYS_bpf, BPF_PROG_LOAD, &a, sizeof(a));
}

int record_cgroup_make(char *why, size_t len)
{
	char mnt[1024], own[2048];
	uint64_t id;

	if (cgroup2_mount(mnt, sizeof(mnt)) < 0) {
		snprintf(why, len, "no cgroup2 mount");
		return -1;
	}
	if (own_cgroup(own, sizeof(own)) < 0) {
		snprintf(why, len, "this process has no cgroup v2 path");
		return -1;
	}
	snprintf(parent_dir, sizeof(parent_dir), "%s%s", mnt, own);
	if ((size_t)snprintf(dir, sizeof(dir), "%s/scaler-%d", parent_dir, (int)getpid()) >=
	    sizeof(dir) - 16 || mkdir(dir, 0755) < 0) {
		snprintf(why, len, "cannot make a cgroup in %s: %s", parent_dir, strerror(errno));
		dir[0] = 0;
		return -1;
	}
	char procs[4200];
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	procs_fd = open(procs, O_WRONLY | O_CLOEXEC);
	if (procs_fd < 0 || cgroup_id(dir, &id) < 0) {
		snprintf(why, len, "cgroup %s: %s", dir, strerror(errno));
		record_cgroup_remove();
		return -1;
	}
	prog_fd = load_filter(id);
	if (prog_fd < 0) {
		snprintf(why, len, "no BPF filter: %s", strerror(errno));
		record_cgroup_remove();
		return -1;
	}
	return 0;
}

int record_cgroup_filter(int event_fd)
{
	return ioctl(event_fd, PERF_EVENT_IOC_SET_BPF, prog_fd);
}

const char *record_cgroup_path(void)
{
	return dir;
}

void record_cgroup_enter(void)
{
	if (procs_fd >= 0 && write(procs_fd, "0", 1) != 1)
		fprintf(stderr, "scaler: cannot enter the run cgroup %s: %s\n", dir, strerror(errno));
}

/* Moves every process still in the run cgroup to the recorder's. */
static void move_out(void)
{
	char path[4200];
	FILE *in;
	int out;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	in = fopen(path, "re");
	snprintf(path, sizeof(path), "%s/cgroup.procs", parent_dir);
	out = open(path, O_WRONLY | O_CLOEXEC);
	if (in && out >= 0) {
		char line[32];
		while (fgets(line, sizeof(line), in))
			if (write(out, line, strcspn(line, "\n")) < 0)
				continue;       /* gone meanwhile */
	}
	if (in)
		fclose(in);
	if (out >= 0)
		close(out);
}

void record_cgroup_remove(void)
{
	if (prog_fd >= 0)
		close(prog_fd);
	if (procs_fd >= 0)
		close(procs_fd);
	prog_fd = procs_fd = -1;
	if (!dir[0])
		return;
	/* processes the command left running (a daemon) go back to ours */
	for (int i = 0; i < 4 && rmdir(dir) < 0 && errno == EBUSY; i++)
		move_out();
	dir[0] = 0;
}
