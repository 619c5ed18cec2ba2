/*
 * cmd_record.c - `scaler record`: run a command with the runtime preloaded
 * and collect its profile directory.
 *
 * Everything that can be checked is checked before the command runs (the
 * command exists and is executable, the directory can be created, the
 * runtime is where it should be), so a mistake costs nothing. The exit
 * status is the command's own (128+N when killed by signal N), and the
 * root process's status and wall time are appended to its meta file.
 *
 * The directory is made here, with a marker file (SC_PROFILE_MARKER): only
 * a directory holding it and nothing but profile files is ever replaced.
 * It is the user's alone (0700); run as root it is open to all like /tmp
 * (1777) while the command runs, for a server that drops privileges, and
 * root's alone once it has ended (record_finish_dir). What another user can and
 * cannot do meanwhile: doc/security.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdbool.h>

#include "argspec.h"
#include "cli.h"
#include "format.h"
#include "profile.h"
#include "record.h"
#include "record_functions.h"
#include "profdir.h"
#include "record_kernel.h"
#include "record_target.h"
#include "series.h"

/* one "scaler: ..." line on stderr; returns the exit status 2 */
#define fail(...) cli_fail(2, NULL, __VA_ARGS__)

/* The runtime sits at ../lib/libscaler.so from the scaler binary, both in
 * the build tree (build/bin, build/lib) and after `make install`. */
int record_find_runtime(char *out, size_t n)
{
	char self[PATH_MAX];
	const char *env = getenv("SCALER_LIB");
	if (env && env[0]) {
		if (!realpath(env, out))
			return -1;
		return 0;
	}
	ssize_t k = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (k <= 0)
		return -1;
	self[k] = 0;
	char *slash = strrchr(self, '/');
	if (!slash)
		return -1;
	*slash = 0;
	if (snprintf(out, n, "%s/../lib/libscaler.so", self) >= (int)n)
		return -1;
	char real[PATH_MAX];
	if (!realpath(out, real) || access(real, R_OK) != 0)
		return -1;
	snprintf(out, n, "%s", real);
	return 0;
}

/* Like execvp's search: the path of CMD, or -1 with errno. */
static int find_command(const char *cmd, char *out, size_t n)
{
	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK) != 0)
			return -1;
		struct stat st;
		if (stat(cmd, &st) == 0 && S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		snprintf(out, n, "%s", cmd);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *dup = strdup(path);
	for (char *save = NULL, *d = strtok_r(dup, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, n, "%s/%s", *d ? d : ".", cmd);
		struct stat st;
		if (access(out, X_OK) == 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
			free(dup);
			return 0;
		}
	}
	free(dup);
	errno = ENOENT;
	return -1;
}

/* Root, or a user that a process of the run declared it became. */
static bool run_uid(uid_t u, const uint32_t *uids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (uids[i] == (uint32_t)u)
			return true;
	return u == 0;
}

/*
 * Run as root, once the command has ended: the directory and every file
 * of the profile become root's alone (files made by a server after it
 * dropped privileges were its new user's), and what others planted that
 * is not a regular file of one link (symbolic or hard links to files
 * elsewhere, fifos) is removed. Only files owned by root or by a user
 * that root's own metadata declared the run became (SC_M_UID) are the
 * run's: a regular file of anyone else was planted in the directory open
 * to all, and stays theirs, so that the report skips it and names it.
 * Files are changed through descriptors opened without following links,
 * so nothing planted redirects a chown or chmod. Processes the command
 * left running keep their mappings; files they start now, as another
 * user than root, are refused.
 */
void record_finish_dir(const char *dir, uid_t also)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	uint32_t *uids;
	size_t nuids = sc_profile_run_uids(dfd, 0, &uids);
	DIR *d = fdopendir(dup(dfd));
	struct dirent *e;
	if (d)
		rewinddir(d);   /* the offset is dfd's */
	while (d && (e = readdir(d))) {
		if (!profdir_name(e->d_name))
			continue;
		int fd = openat(dfd, e->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1) {
			if (!run_uid(st.st_uid, uids, nuids) && st.st_uid != also)
				;       /* planted: stays its owner's, unread */
			else if (fchown(fd, 0, 0) != 0 || fchmod(fd, 0600) != 0)
				fprintf(stderr, "scaler: cannot make %s/%s root's: %s\n", dir,
					e->d_name, strerror(errno));
		} else
			unlinkat(dfd, e->d_name, 0);
		if (fd >= 0)
			close(fd);
	}
	if (d)
		closedir(d);
	free(uids);
	if (fchown(dfd, 0, 0) != 0 || fchmod(dfd, 0700) != 0)
		fprintf(stderr, "scaler: cannot set the mode of %s: %s\n", dir, strerror(errno));
	close(dfd);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The newest image of pid whose meta file is its own: a regular file
 * with one link and the image's header, opened without following links
 * (another user may have planted any name here while the command ran).
 * Returns the descriptor, or -1.
 */
static int open_last_meta(int dfd, pid_t pid, char *name, size_t n)
{
	DIR *d = fdopendir(dup(dfd));
	if (!d)
		return -1;
	int best = -1;
	unsigned best_gen = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		unsigned p, gen;
		char tail[8];
		int end = 0;
		if (sscanf(e->d_name, "p%u-%u.met%1[a]%n", &p, &gen, tail, &end) != 3 || !end ||
		    e->d_name[end] || p != (unsigned)pid || (best >= 0 && gen <= best_gen))
			continue;
		int fd = openat(dfd, e->d_name, O_RDWR | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		struct stat st;
		struct sc_meta_header h;
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
		    pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
		    !memcmp(h.magic, SC_META_MAGIC, 8) && h.pid == (uint32_t)pid && h.gen == gen) {
			if (best >= 0)
				close(best);
			best = fd;
			best_gen = gen;
			snprintf(name, n, "%s", e->d_name);
		} else if (fd >= 0)
			close(fd);
	}
	closedir(d);
	return best;
}

/* Appends the root's exit record to the newest image of that pid. */
static void write_exit(const char *dir, pid_t pid, int status, uint64_t wall)
{
	char name[256];
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int fd = dfd >= 0 ? open_last_meta(dfd, pid, name, sizeof(name)) : -1;
	if (dfd >= 0)
		close(dfd);
	if (fd < 0)
		return;
	struct {
		struct sc_meta_rec r;
		struct sc_m_exit e;
	} rec = {{SC_M_EXIT, sizeof(struct sc_m_exit)}, {0, 0, wall}};
	if (WIFEXITED(status))
		rec.e.exit_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status)) {
		rec.e.signal = (uint32_t)WTERMSIG(status);
		rec.e.exit_status = 128 + WTERMSIG(status);
	}
	/* a full disk: the runtime has said so, on its own last write */
	if (write(fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec) && errno != ENOSPC &&
	    errno != EDQUOT)
		fprintf(stderr, "scaler: cannot append to %s/%s\n", dir, name);
	close(fd);
}

/* The signals `scaler record` passes on to the command it runs. */
static const int forwarded[] = {SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2,
				SIGWINCH, SIGALRM};
static volatile sig_atomic_t child_pid;

static void forward_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	/* from the terminal: the command, in our process group, has it too */
	if (si && si->si_code == SI_KERNEL)
		return;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/*
 * Runs the command, the signals sent to us passed on to it, and waits for
 * it (sampling its series with interval): 0 with its wait status and the
 * wall time, or fail()'s code.
 */
static int run_command(const char *exe, char **cmd, const char *absdir, unsigned interval,
		       unsigned slots, int *status, uint64_t *wall)
{
	/* Signals sent to us are the command's: servers are stopped by
	 * signalling the process that was started (SIGTERM, SIGINT, SIGQUIT,
	 * SIGHUP to reload, ...), and without passing them on we would die and
	 * leave the command running with no exit record. A terminal's ^C and
	 * ^\ already go to the whole process group, so the command has those
	 * (si_code SI_KERNEL) and they are not sent twice. The signals are
	 * blocked until the child's pid is known, and the child gets back the
	 * dispositions and mask we inherited, ignored or not. */
	sigset_t fwd, oldmask;
	struct sigaction old[sizeof(forwarded) / sizeof(forwarded[0])];
	sigemptyset(&fwd);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(&fwd, forwarded[i]);
	sigprocmask(SIG_BLOCK, &fwd, &oldmask);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = forward_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaction(forwarded[i], &sa, &old[i]);
	/* SIGCHLD ignored (inherited across exec) reaps the child unasked,
	 * and waitpid fails with ECHILD: ours is the default while we wait,
	 * the command's what we inherited */
	struct sigaction dfl, old_chld;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(SIGCHLD, &dfl, &old_chld);
	uint64_t t0 = mono_ns();
	pid_t pid = fork();
	if (pid < 0)
		return fail("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
			sigaction(forwarded[i], &old[i], NULL);
		sigaction(SIGCHLD, &old_chld, NULL);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		record_cgroup_enter();  /* --kernel's run cgroup, if made */
		record_kcpu_wait();
		execv(exe, cmd);
		fprintf(stderr, "scaler: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	record_kcpu_release(pid);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	if (interval) {
		if (series_wait(absdir, pid, interval, slots, t0, status) < 0)
			return fail("waitpid: %s", strerror(errno));
	} else {
		while (waitpid(pid, status, 0) < 0) {
			if (errno != EINTR)
				return fail("waitpid: %s", strerror(errno));
		}
	}
	*wall = mono_ns() - t0;
	return 0;
}

static const struct cli_choice timing_modes[] = {
	{ "adaptive", "every call counted; each (thread, API) timed on every call until "
	  "its calls prove cheap, then on a sampled one in up to 127" },
	{ "all", "every call counted and timed" },
	{ "none", "counts only" },
};

static const char *timing_choice(size_t i, const char **help)
{
	return cli_choice_at(timing_modes, sizeof(timing_modes) / sizeof(timing_modes[0]), i, help);
}

enum { OPT_TIMING = 256, OPT_FUNCTIONS, OPT_INTERVAL, OPT_INTERVAL_SLOTS, OPT_PAUSED,
       OPT_CONTROL_SIGNAL, OPT_ARGS, OPT_DURATION, OPT_KERNEL, OPT_OFF_CPU };

static const struct cli_opt record_opts[] = {
	{ 'o', "output", required_argument, "DIR", CLI_DIR, NULL, "scaler.data",
	  "the profile directory; a profile already there is kept as DIR.old "
	  "(anything else there is left alone and the record refused)" },
	{ OPT_TIMING, "timing", required_argument, "MODE", CLI_CHOICE, timing_choice, "adaptive",
	  "which calls are timed:" },
	{ OPT_FUNCTIONS, "functions", required_argument, "PATTERN,...", CLI_WORD, NULL, NULL,
	  "also count the functions matched by PATTERN = [COMPONENT:]GLOB (no COMPONENT: "
	  "the executable), exported or not, patched at their entries" },
	{ OPT_ARGS, "args", optional_argument, "SPEC", CLI_WORD, NULL, NULL,
	  "also keep the values of arguments and return values of timed calls as "
	  "histograms per caller and API: without SPEC the built-in prototypes (sizes "
	  "of malloc, memcpy, read, write, fread, mmap..., poll timeouts); SPEC = "
	  "[LIB:]API=argN[/d],ret;... or API:argN,API:retval,default (doc/record.md)" },
	{ OPT_INTERVAL, "interval", required_argument, "MS", CLI_WORD, NULL, NULL,
	  "also keep calls and time over the run: every MS milliseconds (10 to "
	  "60000) a sample of each caller, callee and API, in a ring of "
	  "--interval-slots samples (the report's series)" },
	{ OPT_INTERVAL_SLOTS, "interval-slots", required_argument, "N", CLI_WORD, NULL, "512",
	  "samples the ring keeps (2 to 65536); older ones are overwritten" },
	{ OPT_PAUSED, "paused", no_argument, NULL, CLI_NONE, NULL, NULL,
	  "start with counting and timing off, in every process: scaler ctl PID resume "
	  "(or the control signal) turns them on" },
	{ OPT_CONTROL_SIGNAL, "control-signal", required_argument, "SIG", CLI_WORD, NULL, NULL,
	  "each SIG a process receives (USR2, SIGUSR2, 12, RTMIN+3) pauses or resumes its "
	  "counting, in turn; scaler ctl sends its requests on SIG too (else on RTMAX-1)" },
	{ OPT_KERNEL, "kernel", no_argument, NULL, CLI_NONE, NULL, NULL,
	  "also sample each thread's time in the kernel (250 Hz of CPU time, kernel "
	  "stacks, named from /proc/kallsyms at the end): each API's kernel time and "
	  "functions; needs perf_event_paranoid 1 or less, CAP_PERFMON or root (said "
	  "at the start when not allowed)" },
	{ OPT_OFF_CPU, "off-cpu", no_argument, NULL, CLI_NONE, NULL, NULL,
	  "with --kernel (implied): also sample the kernel stack of each switch of a "
	  "thread off the CPU (the sched_switch tracepoint): where each API's blocked "
	  "time was spent in the kernel; about 1 us of CPU per context switch; needs the "
	  "tracepoint's id from tracefs (root, as a rule; said at the start when not "
	  "allowed)" },
	{ 'p', "pid", required_argument, "PID", CLI_WORD, NULL, NULL,
	  "instead of running CMD, attach to the running process PID (ptrace: its owner or "
	  "root), profile it and detach, leaving it running (doc/record.md)" },
	{ OPT_DURATION, "duration", required_argument, "S", CLI_WORD, NULL, NULL,
	  "with -p: detach after S seconds (default: at ^C, SIGTERM or the process's end)" },
	{ 0, NULL, 0, NULL, 0, NULL, NULL, NULL },
};

static const struct cli_cmd record_cmd = {
	.name = "record",
	.synopsis = "[-o DIR] [--timing MODE] [--interval MS] [--] CMD [ARG...]\n"
		    "       scaler record -p PID [--duration S] [-o DIR] [--timing MODE]",
	.about = "Runs CMD with the runtime (libscaler.so) preloaded: every call between the "
		 "executable and its shared libraries is counted, and timed as --timing says, "
		 "into DIR. Child processes (fork, exec) are profiled into the same DIR. "
		 "Options end at CMD. The exit status is CMD's (128+N when killed by signal "
		 "N). TERM, INT, QUIT, HUP, USR1, USR2, WINCH and ALRM sent to scaler are "
		 "passed on to CMD. SCALER_LIB names the runtime to preload (default: "
		 "../lib/libscaler.so from the scaler binary).\n"
		 "With -p, the runtime is loaded into the running process PID instead (with "
		 "ptrace, at a safe point) and its GOT slots patched while it runs, and the "
		 "entries of --functions with all its threads stopped; at the end they are put "
		 "back and the process runs on unprofiled.",
	.stop_at_operand = 1,
	.operands = CLI_COMMAND,
	.opts = record_opts,
};

/* A decimal number from lo to hi into *v; 0, or -1 if s is not one. */
static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || x < lo || x > hi)
		return -1;
	*v = (unsigned)x;
	return 0;
}

/* A signal by number or name (SIGUSR2, USR2, RTMIN+3, RTMAX-1) that a
 * handler can catch and no fault raises; 0 if s is none. */
static int parse_signal(const char *s)
{
	static const int refused[] = {SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
				      SIGABRT, SIGSYS};
	unsigned n = 0, k = 0;

	if (!strncmp(s, "SIG", 3))
		s += 3;
	if (parse_uint(s, 1, (unsigned)SIGRTMAX, &n) == 0)
		;
	else if (!strncmp(s, "RTMIN", 5) && (!s[5] || (s[5] == '+' && !parse_uint(s + 6, 0, 64, &k))))
		n = (unsigned)SIGRTMIN + (s[5] ? k : 0);
	else if (!strncmp(s, "RTMAX", 5) && (!s[5] || (s[5] == '-' && !parse_uint(s + 6, 0, 64, &k))))
		n = (unsigned)SIGRTMAX - (s[5] ? k : 0);
	else
		for (int i = 1; i < SIGRTMIN && !n; i++)
			if (sigabbrev_np(i) && !strcmp(sigabbrev_np(i), s))
				n = (unsigned)i;
	if (n < 1 || n > (unsigned)SIGRTMAX || (n >= 32 && n < (unsigned)SIGRTMIN))
		return 0;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if ((int)n == refused[i])
			return 0;
	return (int)n;
}

int cmd_record(int argc, char **argv)
{
	const char *dir = "scaler.data";
	const char *timing = "adaptive";
	const char *functions = NULL, *args = NULL;
	unsigned interval = 0, slots = SERIES_SLOTS_DEFAULT, attach = 0, duration_ms = 0;
	int c, paused = 0, ctl_sig = 0, kernel = 0, offcpu = 0;

	optind = 0;     /* getopt starts afresh (and reads the "+" again) */
	while ((c = cli_getopt(&record_cmd, argc, argv)) != CLI_END) {
		switch (c) {
		case 'o': dir = optarg; break;
		case OPT_TIMING:
			if (cli_choice(&record_cmd, c, optarg) < 0)
				return 2;
			timing = optarg;
			break;
		case OPT_FUNCTIONS: functions = optarg; break;
		case OPT_ARGS: args = optarg ? optarg : "default"; break;
		case OPT_KERNEL: kernel = 1; break;
		case OPT_OFF_CPU: kernel = offcpu = 1; break;
		case OPT_INTERVAL:
			if (parse_uint(optarg, 10, 60000, &interval))
				return cli_usage_error(&record_cmd, "--interval wants milliseconds "
						       "from 10 to 60000, not '%s'", optarg);
			break;
		case OPT_INTERVAL_SLOTS:
			if (parse_uint(optarg, 2, 65536, &slots))
				return cli_usage_error(&record_cmd, "--interval-slots wants a number "
						       "from 2 to 65536, not '%s'", optarg);
			break;
		case OPT_PAUSED: paused = 1; break;
		case OPT_CONTROL_SIGNAL:
			if (!(ctl_sig = parse_signal(optarg)))
				return cli_usage_error(&record_cmd, "--control-signal wants a signal a "
						       "program can catch (USR2, SIGUSR2, 12, RTMIN+3), not "
						       "'%s'", optarg);
			break;
		case 'p':
			if (parse_uint(optarg, 1, INT32_MAX, &attach))
				return cli_usage_error(&record_cmd, "-p wants a process id, not '%s'",
						       optarg);
			break;
		case OPT_DURATION: {
			char *end;
			double s = strtod(optarg, &end);
			if (end == optarg || *end || !(s >= 0.001 && s <= 1e6))
				return cli_usage_error(&record_cmd, "--duration wants seconds (0.001 "
						       "to 1e6), not '%s'", optarg);
			duration_ms = (unsigned)(s * 1000 + 0.5);
			break;
		}
		case CLI_EXIT: return 0;
		default: return 2;
		}
	}
	if (attach) {
		if (optind < argc)
			return cli_usage_error(&record_cmd, "-p attaches to a running process: no "
					       "command to run with it");
		char ferr[256];
		if (functions && record_functions_check(functions, ferr, sizeof(ferr)) != 0)
			return cli_usage_error(&record_cmd, "%s", ferr);
		if (functions && strlen(functions) >= 4096)
			return cli_usage_error(&record_cmd, "--functions with -p: at most 4095 "
					       "characters of patterns");
		if (interval || paused || ctl_sig || args || kernel)
			return cli_usage_error(&record_cmd, "--interval, --paused, "
					       "--control-signal, --args, --kernel and --off-cpu "
					       "are not available with -p");
		return record_attach((pid_t)attach, dir, timing, duration_ms, functions);
	}
	if (duration_ms)
		return cli_usage_error(&record_cmd, "--duration goes with -p");
	char ferr[256];
	if (functions && record_functions_check(functions, ferr, sizeof(ferr)) != 0)
		return cli_usage_error(&record_cmd, "%s", ferr);
	struct sc_argspec spec;
	if (args && sc_argspec_parse(args, &spec, ferr, sizeof(ferr)) != 0)
		return cli_usage_error(&record_cmd, "%s", ferr);
	/* --kernel's period: the per-CPU timers' (record_kcpu.c) and, written
	 * back as a plain number, the runtime's (perf.c), which gives it in
	 * each .kst header as the CPU time of a sample */
	unsigned kperiod = RECORD_KERNEL_PERIOD_NS;
	const char *kp = getenv("SCALER_KERNEL_PERIOD_NS");
	if (kernel && kp && *kp &&
	    parse_uint(kp, RECORD_KERNEL_PERIOD_MIN, RECORD_KERNEL_PERIOD_MAX, &kperiod))
		return fail("record: SCALER_KERNEL_PERIOD_NS wants nanoseconds from %u to %u, "
			    "not '%s'", RECORD_KERNEL_PERIOD_MIN, RECORD_KERNEL_PERIOD_MAX, kp);
	if (optind >= argc)
		return cli_usage_error(&record_cmd, "no command to run (scaler record [options] "
				       "[--] CMD [ARG...])");
	char **cmd = argv + optind;
	char exe[PATH_MAX], lib[PATH_MAX], absdir[PATH_MAX];
	if (find_command(cmd[0], exe, sizeof(exe)) != 0)
		return fail("cannot run %s: %s", cmd[0], strerror(errno));
	char why[128];
	if (record_target_unprofiled(exe, why, sizeof(why)))
		fprintf(stderr, "scaler: not profiled: %s (%s); running it anyway\n", cmd[0], why);
	if (record_find_runtime(lib, sizeof(lib)) != 0)
		return fail("cannot find the runtime libscaler.so next to this scaler (set SCALER_LIB)");
	int r = profdir_prepare(dir, geteuid() == 0);
	if (r)
		return r;
	if (!realpath(dir, absdir))
		return fail("cannot resolve %s: %s", dir, strerror(errno));

	/* our runtime first, the user's own preloads after it */
	const char *pre = getenv("LD_PRELOAD");
	size_t n = strlen(lib) + (pre ? strlen(pre) : 0) + 2;
	char *preload = malloc(n);
	snprintf(preload, n, "%s%s%s", lib, pre && *pre ? ":" : "", pre && *pre ? pre : "");
	setenv("LD_PRELOAD", preload, 1);
	setenv("SCALER_DIR", absdir, 1);
	setenv("SCALER_TIMING", timing, 1);
	if (functions)
		setenv("SCALER_FUNCTIONS", functions, 1);
	else
		unsetenv("SCALER_FUNCTIONS");
	if (paused)
		setenv("SCALER_PAUSED", "1", 1);
	else
		unsetenv("SCALER_PAUSED");
	char signo[16];
	snprintf(signo, sizeof(signo), "%d", ctl_sig);
	if (ctl_sig)
		setenv("SCALER_CONTROL_SIGNAL", signo, 1);
	else
		unsetenv("SCALER_CONTROL_SIGNAL");
	if (args)
		setenv("SCALER_ARGS", args, 1);
	else
		unsetenv("SCALER_ARGS");
	if (kernel) {
		char period[16];
		snprintf(period, sizeof(period), "%u", kperiod);
		setenv("SCALER_KERNEL_PERIOD_NS", period, 1);
		setenv("SCALER_KERNEL", "1", 1);
		record_kernel_say();
		record_kcpu_start(kperiod);
		record_kernel_offcpu(offcpu);
	} else {
		unsetenv("SCALER_KERNEL");
		unsetenv("SCALER_KCPU");
		record_kernel_offcpu(0);
	}
	free(preload);

	int status = 0;
	uint64_t wall = 0;
	r = run_command(exe, cmd, absdir, interval, slots, &status, &wall);
	/* the one way out of the run, failed or not: --kernel's cgroup,
	 * if made, is removed (it would stay behind, empty, for good) */
	record_cgroup_remove();
	if (r)
		return r;
	write_exit(absdir, (pid_t)child_pid, status, wall);
	if (functions)
		record_functions_summary(absdir);
	if (kernel)
		record_kernel_symbols(absdir);
	if (geteuid() == 0)
		record_finish_dir(absdir, 0);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
