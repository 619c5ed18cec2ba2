/*
 * cmd_ctl.c - `scaler ctl PID pause|resume|reset|snapshot [-o DIR]`:
 * control of a process that runs under scaler record (doc/ctl.md).
 *
 * Requests go to the runtime inside the process by its control signal
 * (src/runtime/control.c), sent with sigqueue and a value naming the
 * request and its number: the kernel lets only the process's user or
 * root send it, and this command refuses anyone else first, in one line.
 * The signal is the one the image wrote in its metadata at start-up
 * (SC_M_CONTROL), read only from files of the process's user or root, so
 * a file another user planted in a shared directory cannot make us send
 * any other signal. Pause and resume are acknowledged in the metadata
 * (SC_M_CONTROL with the request's number); a reset goes to each thread
 * that has a counter file and is acknowledged in that file's header
 * (ctl_seq), asked again every few milliseconds (a thread that was inside
 * the runtime when the signal came answers the next time). A snapshot
 * needs no request: the counters are file pages, copied as they are into
 * a new profile directory (the thread files first, then the metadata,
 * which then names every entry a counter belongs to).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "arch.h"
#include "cli.h"
#include "format.h"
#include "procdir.h"
#include "profdir.h"
#include "xalloc.h"

/* the request's value, as control.c reads it */
#define CTL_MAGIC 0x5ca1ull
#define CTL_SEQ_MASK ((1ull << 40) - 1)
#define WAIT_MS 10000           /* for an answer */
#define ASK_AGAIN_MS 5          /* a thread that has not reset yet */

enum action { A_PAUSE, A_RESUME, A_RESET, A_SNAPSHOT, A_N };
/* what a request carries (control.c: CTL_*) */
static const unsigned what_of[A_N] = { 1, 2, 3, 0 };

static const struct cli_choice actions[] = {
	[A_PAUSE] = { "pause", "stop counting and timing: calls jump straight on" },
	[A_RESUME] = { "resume", "count and time again" },
	[A_RESET] = { "reset", "zero every counter: counts start again from now" },
	[A_SNAPSHOT] = { "snapshot", "write the profile as it is now into -o DIR" },
};
#define NACTIONS (sizeof(actions) / sizeof(actions[0]))

static const char *action_choice(size_t i, const char **help)
{
	return cli_choice_at(actions, NACTIONS, i, help);
}

static const struct cli_opt ctl_opts[] = {
	{ 'o', "output", required_argument, "DIR", CLI_DIR, NULL, "scaler.snapshot",
	  "snapshot: the directory to write (a profile already there is kept as DIR.old)" },
	{ 0, NULL, 0, NULL, 0, NULL, NULL, NULL },
};

static const struct cli_cmd ctl_cmd = {
	.name = "ctl",
	.synopsis = "PID pause|resume|reset|snapshot [-o DIR]",
	.about = "Controls a process running under scaler record (PID: the process, or "
		 "scaler record itself for its command), while it runs: pause stops counting "
		 "and timing, resume starts again, reset zeroes every counter (the calls "
		 "after it are counted exactly), snapshot writes its profile as it is now "
		 "into a directory that scaler report -i reads. Only the process's user or "
		 "root may control it. Each waits until the process has done it.\n"
		 "actions: pause, resume, reset, snapshot.",
	.operands = CLI_WORD,
	.opts = ctl_opts,
};

/* The image being controlled. */
struct target {
	char dir[PATH_MAX];
	uint32_t pid, gen;
	uid_t owner;            /* of the process: its files are trusted */
	int sig;                /* its control signal, 0 if none recorded */
	uint64_t max_seq;       /* the largest request number it has seen */
	uint32_t timing;        /* its timing mode (format.h) */
	bool paused;            /* its last pause was not resumed, */
	uint64_t pause_tsc;     /* ... since then */
};

/* one "scaler: ctl: ..." line on stderr; returns the exit status 1 */
#define fail(...) cli_fail(1, "ctl", __VA_ARGS__)

/* fd's file is one this command may believe: a regular file of one link,
 * the process's user's or root's (no one else can make such a file, even
 * in a directory anyone may add to). */
static bool trusted(int fd, const struct target *t)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	       (st.st_uid == 0 || st.st_uid == t->owner);
}

static int open_trusted(const struct target *t, const char *name)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0 && !trusted(fd, t)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- the image's metadata ------------------------------------------------ */

/*
 * The SC_M_CONTROL records of one metadata file: its signal (from the
 * image's first file only: it is written first thing, before a program
 * could drop privileges), the largest request number, and whether
 * request seq was answered.
 */
static bool scan_meta(struct target *t, const char *name, bool first, uint64_t seq)
{
	int fd = open_trusted(t, name);
	struct sc_meta_header h;
	bool answered = false;
	size_t len;
	unsigned char *buf;
	off_t size;

	if (fd < 0)
		return false;
	size = lseek(fd, 0, SEEK_END);
	if (size < (off_t)sizeof(h) || size > (off_t)1 << 30) {
		close(fd);
		return false;
	}
	len = (size_t)size;
	buf = sc_xrealloc(NULL, len);
	if (pread(fd, buf, len, 0) != (ssize_t)len) {
		free(buf);
		close(fd);
		return false;
	}
	close(fd);
	memcpy(&h, buf, sizeof(h));
	if (first)
		t->timing = h.timing_mode;
	for (size_t off = h.header_size; off + sizeof(struct sc_meta_rec) <= len;) {
		struct sc_meta_rec r;
		struct sc_m_control c;

		memcpy(&r, buf + off, sizeof(r));
		if (r.len > len - off - sizeof(r))
			break;                  /* torn tail: being written */
		if (r.type == SC_M_CONTROL && r.len >= sizeof(c)) {
			memcpy(&c, buf + off + sizeof(r), sizeof(c));
			if (c.what == SC_CTL_LISTEN && first)
				t->sig = (int)c.sig;
			if (c.seq > t->max_seq)
				t->max_seq = c.seq;
			if (c.what == SC_CTL_PAUSE || c.what == SC_CTL_RESUME) {
				t->paused = c.what == SC_CTL_PAUSE;
				t->pause_tsc = c.tsc;
			}
			answered |= seq && c.seq == seq && c.what != SC_CTL_LISTEN;
		}
		off += sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
	}
	free(buf);
	return answered;
}

/* The image's metadata files (the first and its continuations): true if
 * request seq was answered in one. */
static bool read_meta(struct target *t, uint64_t seq)
{
	char first[64];
	bool answered;
	DIR *d;
	struct dirent *e;

	snprintf(first, sizeof(first), "p%u-%u.meta", t->pid, t->gen);
	answered = scan_meta(t, first, true, seq);
	if (!(d = opendir(t->dir)))
		return answered;
	while ((e = readdir(d))) {
		unsigned p, g, k;
		int end = 0;

		if (sscanf(e->d_name, "p%u-%u-c%u.meta%n", &p, &g, &k, &end) == 3 &&
		    !e->d_name[end] && p == t->pid && g == t->gen)
			answered |= scan_meta(t, e->d_name, false, seq);
	}
	closedir(d);
	return answered;
}

/* ---- its threads ------------------------------------------------------------- */

struct thr {
	char name[256];
	uint32_t tid;
	bool done;
	bool left;              /* asleep: the request was left in its file */
	int running;            /* rounds seen running, not signalled */
};

/* System calls that a signal handler cuts short whatever SA_RESTART
 * says (signal(7): sleeps, waits for events, System V IPC). */
static const long no_restart[] = {
	SYS_nanosleep, SYS_clock_nanosleep, SYS_poll, SYS_ppoll, SYS_select, SYS_pselect6,
	SYS_epoll_wait, SYS_epoll_pwait, SYS_pause, SYS_rt_sigsuspend, SYS_rt_sigtimedwait,
	SYS_io_getevents, SYS_msgrcv, SYS_msgsnd, SYS_semop, SYS_semtimedop,
#ifdef SYS_epoll_pwait2
	SYS_epoll_pwait2,
#endif
};

/*
 * What thread tid of pid is doing now, from /proc/PID/task/TID/syscall
 * (the call's number while it is in one, "running" while it runs):
 * asleep in one of them (a signal would cut it short), blocked in
 * another call (a signal's handler runs and the call goes on: SA_RESTART),
 * or running. A running thread is the risky one to signal: it may be
 * about to enter a sleep, which the pending signal would then cut short.
 */
enum tstate { T_GONE, T_RUNNING, T_ASLEEP, T_BLOCKED };

static enum tstate thread_state(uint32_t pid, uint32_t tid)
{
	char path[64];
	long nr;
	FILE *f;
	enum tstate st = T_RUNNING;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/syscall", pid, tid);
	if (!(f = fopen(path, "re")))
		return T_GONE;
	if (fscanf(f, "%ld", &nr) == 1 && nr >= 0) {
		st = T_BLOCKED;
		for (size_t i = 0; i < sizeof(no_restart) / sizeof(no_restart[0]); i++)
			if (nr == no_restart[i])
				st = T_ASLEEP;
	}
	fclose(f);
	return st;
}

/* How long a running thread is watched for a moment in a system call
 * before it is signalled while it runs. */
#define RUNNING_MS 200

/* Leaves reset request seq in a sleeping thread's header (format.h:
 * ctl_want): it carries it out when it wakes. */
static bool leave_reset(const struct target *t, const char *name, uint64_t seq)
{
	char path[PATH_MAX + 300];
	struct sc_thr_header h;
	int fd;
	bool ok;

	snprintf(path, sizeof(path), "%s/%s", t->dir, name);
	if ((fd = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return false;
	h.ctl_want = seq;
	h.ctl_want_tsc = sc_arch_ticks();
	/* the time first: a reader that sees the request sees when */
	ok = trusted(fd, t) &&
	     pwrite(fd, &h.ctl_want_tsc, 8, offsetof(struct sc_thr_header, ctl_want_tsc)) == 8 &&
	     pwrite(fd, &h.ctl_want, 8, offsetof(struct sc_thr_header, ctl_want)) == 8;
	close(fd);
	return ok;
}

/* The image's thread files that are still running (no end in their
 * header), and the largest ctl_seq among all into t->max_seq. */
static size_t threads(struct target *t, struct thr **out)
{
	struct thr *v = NULL;
	size_t n = 0, cap = 0;
	DIR *d = opendir(t->dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		unsigned p, g, s;
		int end = 0, fd;
		struct sc_thr_header h;

		if (sscanf(e->d_name, "p%u-%u-t%u.thr%n", &p, &g, &s, &end) != 3 || e->d_name[end] ||
		    p != t->pid || g != t->gen || (fd = open_trusted(t, e->d_name)) < 0)
			continue;
		if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
		    !memcmp(h.magic, SC_THR_MAGIC, 8)) {
			if (h.ctl_seq > t->max_seq)
				t->max_seq = h.ctl_seq;
			if (!h.end_tsc) {
				v = sc_grow(v, &cap, n + 1, sizeof(*v));
				snprintf(v[n].name, sizeof(v[n].name), "%s", e->d_name);
				v[n].tid = h.tid;
				v[n].left = false;
				v[n++].done = false;
			}
		}
		close(fd);
	}
	if (d)
		closedir(d);
	*out = v;
	return n;
}

/* Whether thread file name has carried out request seq, or has ended. */
static bool thread_done(const struct target *t, const char *name, uint64_t seq)
{
	int fd = open_trusted(t, name);
	struct sc_thr_header h;
	bool done = true;       /* gone: nothing of it to reset */

	if (fd < 0)
		return true;
	if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h))
		done = h.ctl_seq >= seq || h.end_tsc;
	close(fd);
	return done;
}

/* ---- requests ------------------------------------------------------------------ */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void nap_ms(long ms)
{
	nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000 }, NULL);
}

static void *request(unsigned what, uint64_t seq)
{
	return (void *)(uintptr_t)(CTL_MAGIC << 48 | (uint64_t)what << 40 | (seq & CTL_SEQ_MASK));
}

/* sigqueue to one thread (rt_tgsigqueueinfo: sigqueue has no thread
 * form); 0, or -1 with errno */
static int queue_to_thread(const struct target *t, uint32_t tid, void *value)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	si.si_signo = t->sig;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_ptr = value;
	return (int)syscall(SYS_rt_tgsigqueueinfo, (pid_t)t->pid, (pid_t)tid, t->sig, &si);
}

static int refused(const struct target *t, int err)
{
	if (err == EPERM) {
		proc_not_yours("ctl", t->pid, t->owner);
		return 1;
	}
	return fail("cannot signal process %u: %s", t->pid, strerror(err));
}

/* A thread of t blocked in a call that a signal does not cut short (the
 * safe one to signal), else (if running_ok) one that runs; 0 if none. */
static uint32_t awake_thread(const struct target *t, bool running_ok)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	uint32_t tid = 0, running = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", t->pid);
	if (!(d = opendir(path)))
		return 0;
	while (!tid && (e = readdir(d))) {
		unsigned long x = strtoul(e->d_name, NULL, 10);
		enum tstate st = x ? thread_state(t->pid, (uint32_t)x) : T_GONE;

		if (st == T_BLOCKED)
			tid = (uint32_t)x;
		else if (st == T_RUNNING && !running)
			running = (uint32_t)x;
	}
	closedir(d);
	return tid ? tid : running_ok ? running : 0;
}

static int pause_resume(struct target *t, enum action a, uint64_t seq)
{
	void *value = request(what_of[a], seq);
	union sigval v = { .sival_ptr = value };
	uint64_t until = now_ms() + WAIT_MS;
	uint32_t tid = 0;

	/* to a thread blocked in a call a handler does not cut short, else
	 * (looked for over RUNNING_MS) to one that runs, else (over a second)
	 * to the process (the kernel picks one, maybe cutting its sleep
	 * short) */
	for (int tries = 0; tries < 1000 && !(tid = awake_thread(t, tries >= RUNNING_MS)); tries++)
		nap_ms(1);
	if (tid ? queue_to_thread(t, tid, value) != 0 : sigqueue((pid_t)t->pid, t->sig, v) != 0)
		return refused(t, errno);
	while (!read_meta(t, seq)) {
		if (kill((pid_t)t->pid, 0) != 0 && errno == ESRCH)
			return fail("process %u ended before it answered", t->pid);
		if (now_ms() > until)
			return fail("process %u did not answer in %d s (does it block signal %d, "
				    "or handle it itself?)", t->pid, WAIT_MS / 1000, t->sig);
		nap_ms(1);
	}
	printf("process %u: %s\n", t->pid, a == A_PAUSE ? "paused" : "resumed");
	return 0;
}

/*
 * A thread asleep in a call a signal would cut short is left the request
 * instead (leave_reset) and carries it out when it wakes, at its next
 * timed return (never with --timing none: there it is signalled); the
 * handler of any other thread makes sure that return does it at once
 * (control.c: poke_sleepers), so at least one thread that is awake is
 * signalled, and a sleeper seen awake later is signalled too. Every other
 * thread is signalled until it has reset.
 */
static int reset(struct target *t, uint64_t seq)
{
	struct thr *v;
	size_t n = threads(t, &v), left, sleeping;
	uint64_t until = now_ms() + WAIT_MS;
	bool poked = false;
	void *value;

	if (t->max_seq >= seq)
		seq = t->max_seq + 1;
	value = request(what_of[A_RESET], seq);
	for (;;) {
		left = sleeping = 0;
		for (size_t i = 0; i < n; i++) {
			if (v[i].done)
				continue;
			if (thread_done(t, v[i].name, seq)) {
				v[i].done = true;
				continue;
			}
			enum tstate st = thread_state(t->pid, v[i].tid);
			bool now_asleep = st == T_ASLEEP;

			/* a running thread is signalled only once it has been
			 * seen in no system call for RUNNING_MS (busy) */
			if (st == T_RUNNING && v[i].running++ < RUNNING_MS / ASK_AGAIN_MS) {
				left++;
				continue;
			}
			if (!v[i].left && now_asleep && t->timing != SC_TIMING_NONE)
				v[i].left = leave_reset(t, v[i].name, seq);
			if (v[i].left && now_asleep) {
				sleeping++;
				continue;
			}
			if (queue_to_thread(t, v[i].tid, value) == 0) {
				poked = true;
				left++;
			} else if (errno != ESRCH) {
				int e = errno;

				free(v);
				return refused(t, e);
			} else {
				v[i].done = true;       /* the thread ended */
			}
		}
		if (!left && (!sleeping || poked))
			break;
		if (now_ms() > until) {
			for (size_t i = 0; i < n; i++)
				if (!v[i].done && !v[i].left)
					fprintf(stderr, "scaler: ctl: thread %u of process %u did not "
						"reset in %d s (does it block signal %d?)\n", v[i].tid,
						t->pid, WAIT_MS / 1000, t->sig);
			if (left) {
				free(v);
				return 1;
			}
			break;          /* all asleep, none to wake them: when they wake */
		}
		nap_ms(left ? ASK_AGAIN_MS : 1);
	}
	free(v);
	if (sleeping)
		printf("process %u: counters reset (%zu thread%s asleep: %s when %s)\n", t->pid,
		       sleeping, sleeping == 1 ? "" : "s", sleeping == 1 ? "its" : "theirs",
		       sleeping == 1 ? "it wakes" : "they wake");
	else
		printf("process %u: counters reset\n", t->pid);
	return 0;
}

/* ---- snapshot -------------------------------------------------------------------- */

/*
 * A thread's file copied: its latest moment is the snapshot's (tsc), so
 * that the report of the copy ends the threads still running there, as
 * it would a process that was killed then: also one whose timed call
 * returned after tsc, before its file was copied (the reader ends every
 * running thread at the latest of them, and their paused time below at
 * tsc: a later end would add to the time of all of them); and the part of its life in a
 * pause still in force is paused time, as the runtime would add at a
 * resume (control.c; the parallel clock's part is not known here: the
 * reader works a running thread's attributed time out from its wall).
 */
static int stamp_end(const struct target *t, int out, uint64_t tsc)
{
	struct sc_thr_header h;

	if (pread(out, &h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return -1;
	if (!h.end_tsc)
		h.last_tsc = tsc;
	if (t->paused) {
		uint64_t s = h.start_tsc > t->pause_tsc ? h.start_tsc : t->pause_tsc;
		uint64_t e = h.end_tsc ? h.end_tsc : tsc;

		if (e > s)
			h.paused_ticks += e - s;
	}
	return pwrite(out, &h, sizeof(h), 0) == (ssize_t)sizeof(h) ? 0 : -1;
}

static int copy_file(const struct target *t, const char *name, int dfd, uint64_t tsc)
{
	int in = open_trusted(t, name), out;
	char buf[1 << 16];
	ssize_t r = 0;

	if (in < 0)
		return 0;               /* gone, or not the process's: not copied */
	out = openat(dfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((r = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)r) != r) {
			r = -1;
			break;
		}
	close(in);
	if (r == 0 && strstr(name, ".thr"))
		r = stamp_end(t, out, tsc);
	if (close(out) != 0)
		r = -1;
	return r < 0 ? -1 : 0;
}

/* The files of process t->pid (each image of it), thread files first. */
static int snapshot(const struct target *t, const char *out)
{
	int dfd, r = profdir_prepare(out, false);
	uint64_t tsc = sc_arch_ticks();

	if (r)
		return r;
	if ((dfd = open(out, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return fail("cannot open %s: %s", out, strerror(errno));
	for (int pass = 0; pass < 2; pass++) {
		DIR *d = opendir(t->dir);
		struct dirent *e;

		if (!d) {
			close(dfd);
			return fail("cannot read %s: %s", t->dir, strerror(errno));
		}
		while ((e = readdir(d))) {
			unsigned p;
			size_t len = strlen(e->d_name);
			bool thr = len > 4 && !strcmp(e->d_name + len - 4, ".thr");

			if (sscanf(e->d_name, "p%u-", &p) != 1 || p != t->pid ||
			    !profdir_name(e->d_name) || thr != (pass == 0))
				continue;
			if (copy_file(t, e->d_name, dfd, tsc) != 0) {
				fail("cannot write %s/%s: %s", out, e->d_name, strerror(errno));
				closedir(d);
				close(dfd);
				return 1;
			}
		}
		closedir(d);
	}
	close(dfd);
	printf("process %u: snapshot in %s\n", t->pid, out);
	return 0;
}

/* ---- the command ----------------------------------------------------------------- */

int cmd_ctl(int argc, char **argv)
{
	const char *out = "scaler.snapshot";
	struct target t;
	struct stat st;
	char path[64];
	int c, a;

	optind = 0;
	while ((c = cli_getopt(&ctl_cmd, argc, argv)) != CLI_END) {
		if (c == 'o')
			out = optarg;
		else
			return c == CLI_EXIT ? 0 : 2;
	}
	if (argc - optind != 2)
		return cli_usage_error(&ctl_cmd, "wants a process and an action (%d operand%s given)",
				       argc - optind, argc - optind == 1 ? "" : "s");
	for (a = 0; a < A_N && strcmp(argv[optind + 1], actions[a].name); a++)
		;
	if (a == A_N) {
		const char *near = cli_suggest(argv[optind + 1], action_choice);

		return cli_usage_error(&ctl_cmd, "no action '%s'%s%s%s: pause, resume, reset or snapshot",
				       argv[optind + 1], near ? " (did you mean " : "",
				       near ? near : "", near ? "?)" : "");
	}
	memset(&t, 0, sizeof(t));
	if (proc_resolve("ctl", argv[optind], t.dir, sizeof(t.dir), &t.pid) < 0)
		return 1;
	snprintf(path, sizeof(path), "/proc/%u", t.pid);
	if (stat(path, &st) != 0)
		return fail("no process %u", t.pid);
	t.owner = st.st_uid;
	if (proc_maps_dir(t.pid, t.dir, sizeof(t.dir), &t.gen) != 0)
		return fail("process %u has no counters yet (it has not started under scaler)", t.pid);
	read_meta(&t, 0);
	if (a == A_SNAPSHOT)
		return snapshot(&t, out);
	if (!t.sig)
		return fail("process %u takes no control requests (its program replaced scaler's "
			    "handler of the control signal, or an older scaler runs it)", t.pid);
	uint64_t seq = now_ms() & CTL_SEQ_MASK;
	if (seq <= t.max_seq)
		seq = t.max_seq + 1;
	return a == A_RESET ? reset(&t, seq) : pause_resume(&t, (enum action)a, seq);
}
