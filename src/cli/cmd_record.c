/*
 * cmd_record.c - `scaler record`: run a command with the runtime preloaded
 * and collect its profile directory.
 *
 * Everything that can be checked is checked before the command runs (the
 * command exists and is executable, the directory can be created, the
 * runtime is where it should be), so a mistake costs nothing. The exit
 * status is the command's own (128+N when killed by signal N), and the
 * root process's status and wall time are appended to its meta file.
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

#include "cli.h"
#include "format.h"
#include "record_functions.h"
#include "series.h"

/* one "scaler: ..." line on stderr; returns the exit status 2 */
__attribute__((format(printf, 1, 2)))
static int fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "scaler: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 2;
}

/* The runtime sits at ../lib/libscaler.so from the scaler binary, both in
 * the build tree (build/bin, build/lib) and after `make install`. */
static int find_runtime(char *out, size_t n)
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

/* "g<hex>.use": the runtime's cache of what it read of an object */
static int is_use_cache(const char *name)
{
	if (name[0] != 'g')
		return 0;
	size_t n = strspn(name + 1, "0123456789abcdef");
	return n >= 16 && !strcmp(name + 1 + n, ".use");
}

/*
 * A profile directory holds nothing but p<pid>-<gen>.meta,
 * p<pid>-<gen>-t<seq>.thr and g<build-id>.use files and its series
 * (format.h). Only such a directory (or an empty one) is ever moved aside
 * or removed: `-o src` given by mistake must not cost anyone their
 * sources. Returns 1 if dir is one, 0 if not (*what names the first thing
 * that is not), -1 if it cannot be read.
 */
static int is_profile_dir(const char *dir, char *what, size_t n)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	int ok = 1;
	while (ok && (e = readdir(d))) {
		unsigned pid, gen, seq;
		char tail[8];
		int end = 0;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, SC_SERIES_FILE))
			continue;
		if (sscanf(e->d_name, "p%u-%u.met%1[a]%n", &pid, &gen, tail, &end) == 3 &&
		    end && !e->d_name[end])
			continue;
		end = 0;
		if (sscanf(e->d_name, "p%u-%u-t%u.th%1[r]%n", &pid, &gen, &seq, tail, &end) == 4 &&
		    end && !e->d_name[end])
			continue;
		if (is_use_cache(e->d_name))
			continue;
		snprintf(what, n, "%s", e->d_name);
		ok = 0;
	}
	closedir(d);
	return ok;
}

/* Removes a profile directory (is_profile_dir said so): files, then it. */
static int remove_profile(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	}
	closedir(d);
	return rmdir(dir);
}

/* dir may be replaced: absent, or a profile directory; else says why not */
static int replaceable(const char *dir)
{
	struct stat st;
	char what[256];
	if (lstat(dir, &st) != 0)
		return errno == ENOENT ? 0 : fail("cannot use %s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return fail("%s exists and is not a profile directory; not touching it", dir);
	int r = is_profile_dir(dir, what, sizeof(what));
	if (r < 0)
		return fail("cannot read %s: %s", dir, strerror(errno));
	if (!r)
		return fail("%s exists and is not a scaler profile (it holds %s); not touching it",
			    dir, what);
	return 0;
}

/*
 * Like perf: a profile already at dir is kept as dir.old (the one before
 * it is removed), so one run back is never lost. Anything that is not a
 * profile is left alone and the record refused.
 */
static int prepare_dir(const char *dir)
{
	struct stat st;
	if (lstat(dir, &st) == 0) {
		char old[PATH_MAX];
		snprintf(old, sizeof(old), "%s.old", dir);
		if (replaceable(dir) || replaceable(old))
			return 2;
		if (remove_profile(old) != 0)
			return fail("cannot remove %s: %s", old, strerror(errno));
		if (rename(dir, old) != 0)
			return fail("cannot move %s aside: %s", dir, strerror(errno));
	}
	if (mkdir(dir, 0755) != 0)
		return fail("cannot create %s: %s", dir, strerror(errno));
	/* Servers started as root drop privileges (memcached -u, nginx and
	 * postgres workers, ...) and then start threads and processes whose
	 * files they must create here: like /tmp, anyone may add a file, and
	 * only its owner may remove it. */
	if (geteuid() == 0 && chmod(dir, 01777) != 0)
		return fail("cannot set the mode of %s: %s", dir, strerror(errno));
	char probe[PATH_MAX];
	snprintf(probe, sizeof(probe), "%s/.probe", dir);
	int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("cannot write in %s: %s", dir, strerror(errno));
	close(fd);
	unlink(probe);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Appends the root's exit record to the newest image of that pid. */
static void write_exit(const char *dir, pid_t pid, int status, uint64_t wall)
{
	char path[PATH_MAX];
	int last = -1;
	for (int gen = 0; gen < 10000; gen++) {
		if (snprintf(path, sizeof(path), "%s/p%d-%d.meta", dir, (int)pid, gen) >=
		    (int)sizeof(path) || access(path, F_OK) != 0)
			break;
		last = gen;
	}
	if (last < 0)
		return;
	if (snprintf(path, sizeof(path), "%s/p%d-%d.meta", dir, (int)pid, last) >= (int)sizeof(path))
		return;
	int fd = open(path, O_WRONLY | O_APPEND);
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
	if (write(fd, &rec, sizeof(rec)) != (ssize_t)sizeof(rec))
		fprintf(stderr, "scaler: cannot append to %s\n", path);
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

enum { OPT_TIMING = 256, OPT_FUNCTIONS, OPT_INTERVAL, OPT_INTERVAL_SLOTS };

static const struct cli_opt record_opts[] = {
	{ 'o', "output", required_argument, "DIR", CLI_DIR, NULL, "scaler.data",
	  "the profile directory; a profile already there is kept as DIR.old "
	  "(anything else there is left alone and the record refused)" },
	{ OPT_TIMING, "timing", required_argument, "MODE", CLI_CHOICE, timing_choice, "adaptive",
	  "which calls are timed:" },
	{ OPT_FUNCTIONS, "functions", required_argument, "PATTERN,...", CLI_WORD, NULL, NULL,
	  "also count the functions matched by PATTERN = [COMPONENT:]GLOB (no COMPONENT: "
	  "the executable), exported or not, patched at their entries" },
	{ OPT_INTERVAL, "interval", required_argument, "MS", CLI_WORD, NULL, NULL,
	  "also keep calls and time over the run: every MS milliseconds (10 to "
	  "60000) a sample of each caller, callee and API, in a ring of "
	  "--interval-slots samples (the report's series)" },
	{ OPT_INTERVAL_SLOTS, "interval-slots", required_argument, "N", CLI_WORD, NULL, "512",
	  "samples the ring keeps (2 to 65536); older ones are overwritten" },
	{ 0, NULL, 0, NULL, 0, NULL, NULL, NULL },
};

static const struct cli_cmd record_cmd = {
	.name = "record",
	.synopsis = "[-o DIR] [--timing MODE] [--interval MS] [--] CMD [ARG...]",
	.about = "Runs CMD with the runtime (libscaler.so) preloaded: every call between the "
		 "executable and its shared libraries is counted, and timed as --timing says, "
		 "into DIR. Child processes (fork, exec) are profiled into the same DIR. "
		 "Options end at CMD. The exit status is CMD's (128+N when killed by signal "
		 "N). TERM, INT, QUIT, HUP, USR1, USR2, WINCH and ALRM sent to scaler are "
		 "passed on to CMD. SCALER_LIB names the runtime to preload (default: "
		 "../lib/libscaler.so from the scaler binary).",
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

int cmd_record(int argc, char **argv)
{
	const char *dir = "scaler.data";
	const char *timing = "adaptive";
	const char *functions = NULL;
	unsigned interval = 0, slots = SERIES_SLOTS_DEFAULT;
	int c;

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
		case CLI_EXIT: return 0;
		default: return 2;
		}
	}
	char ferr[256];
	if (functions && record_functions_check(functions, ferr, sizeof(ferr)) != 0)
		return cli_usage_error(&record_cmd, "%s", ferr);
	if (optind >= argc)
		return cli_usage_error(&record_cmd, "no command to run (scaler record [options] "
				       "[--] CMD [ARG...])");
	char **cmd = argv + optind;
	char exe[PATH_MAX], lib[PATH_MAX], absdir[PATH_MAX];
	if (find_command(cmd[0], exe, sizeof(exe)) != 0)
		return fail("cannot run %s: %s", cmd[0], strerror(errno));
	if (find_runtime(lib, sizeof(lib)) != 0)
		return fail("cannot find the runtime libscaler.so next to this scaler (set SCALER_LIB)");
	int r = prepare_dir(dir);
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
	free(preload);

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
	uint64_t t0 = mono_ns();
	pid_t pid = fork();
	if (pid < 0)
		return fail("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		for (size_t i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
			sigaction(forwarded[i], &old[i], NULL);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		execv(exe, cmd);
		fprintf(stderr, "scaler: cannot run %s: %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	int status;
	if (interval) {
		if (series_wait(absdir, pid, interval, slots, t0, &status) < 0)
			return fail("waitpid: %s", strerror(errno));
	} else {
		while (waitpid(pid, &status, 0) < 0) {
			if (errno != EINTR)
				return fail("waitpid: %s", strerror(errno));
		}
	}
	uint64_t wall = mono_ns() - t0;
	write_exit(absdir, pid, status, wall);
	if (functions)
		record_functions_summary(absdir);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
