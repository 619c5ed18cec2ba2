/*
 * sc_kstale: SCALER_KCPU naming a process that is not the recorder, as a
 * process that outlived `scaler record --kernel` finds it once the
 * recorder's pid is reused (checks/kernel_stale.py). Under record
 * --kernel, a child execs this program again ("run") with SCALER_KCPU
 * rewritten: the same format, every CPU's descriptor number 100, where
 * the child holds a regular file whose first page looks like a perf
 * ring's header (its data area past the file's end), and as the process
 * either itself with the recorder's start time (MODE stale: a reused
 * pid), itself with its own start time (MODE notperf: a live process
 * whose descriptor is no perf event), or a process that has exited
 * (MODE dead). The run image makes timed calls around a sleep (its ring
 * is read) and forks with errno set, which its fork child must still
 * see. Prints "signal S exit E": the signal that ended the run image (0:
 * none) and its exit status (0: its fork child found errno kept).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FD 100

static unsigned long long own_start(void)
{
	char buf[1024];
	FILE *f = fopen("/proc/self/stat", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')');
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* A file at FD whose first page is a ring header pointing past its end. */
static int plant(void)
{
	char name[] = "/tmp/sc_kstale.XXXXXX";
	int fd = mkstemp(name);
	static char page[1100];
	struct perf_event_mmap_page h;

	if (fd < 0)
		return -1;
	unlink(name);
	memset(&h, 0, sizeof(h));
	h.data_head = 64;
	h.data_offset = 4096;
	h.data_size = 65536;
	memcpy(page + offsetof(struct perf_event_mmap_page, data_head), &h.data_head, 32);
	if (write(fd, page, sizeof(page)) != (ssize_t)sizeof(page) || dup2(fd, FD) != FD)
		return -1;
	close(fd);
	return 0;
}

/* spec with pid (and @start, if spec has one) for its own and FD for
 * every CPU's descriptor */
static void rewrite(const char *spec, long pid, unsigned long long start, char *out, size_t len)
{
	const char *rest = strchr(spec, ':'), *at = strchr(spec, '@');
	size_t n = (size_t)snprintf(out, len, "%ld", pid);

	if (at && at < rest)
		n += (size_t)snprintf(out + n, len - n, "@%llu", start);
	/* LEN: and whatever else precedes the CPU list (its last field) */
	const char *cpus = strrchr(spec, ':') + 1;
	n += (size_t)snprintf(out + n, len - n, "%.*s", (int)(cpus - rest), rest);
	for (const char *p = cpus; *p;) {
		int cpu = atoi(p);
		n += (size_t)snprintf(out + n, len - n, "%s%d=%d", p == cpus ? "" : ",", cpu, FD);
		p = strchr(p, ',');
		p = p ? p + 1 : "";
	}
}

static int run(void)
{
	for (int i = 0; i < 100000; i++)
		getppid();
	usleep(100000);
	for (int i = 0; i < 100000; i++)
		getppid();
	errno = EDOM;
	pid_t p = fork();
	if (p == 0)
		_exit(errno == EDOM ? 0 : 1);
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 2;
}

int main(int argc, char **argv)
{
	const char *spec = getenv("SCALER_KCPU");
	char out[32768];

	if (argc > 1 && !strcmp(argv[1], "run"))
		return run();
	if (argc < 2 || !spec || !strchr(spec, ':')) {
		fprintf(stderr, "usage: sc_kstale stale|notperf|dead, under record --kernel\n");
		return 2;
	}
	const char *at = strchr(spec, '@');
	unsigned long long rec_start = at ? strtoull(at + 1, NULL, 10) : 0;
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	pid_t c = fork();
	if (c == 0) {
		if (plant() != 0)
			_exit(3);
		if (!strcmp(argv[1], "stale"))
			rewrite(spec, getpid(), rec_start, out, sizeof(out));
		else if (!strcmp(argv[1], "notperf"))
			rewrite(spec, getpid(), own_start(), out, sizeof(out));
		else
			rewrite(spec, gone, rec_start, out, sizeof(out));
		setenv("SCALER_KCPU", out, 1);
		execl("/proc/self/exe", "sc_kstale", "run", (char *)0);
		_exit(4);
	}
	int st;
	waitpid(c, &st, 0);
	printf("signal %d exit %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0,
	       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
