/*
 * util.c - the runtime's general helpers: its one kind of message (a
 * `scaler:` line on stderr, written whole with one write), its clocks, and
 * the lookup of its tables of wrappers by API name, the names of its
 * files, and what kind of file a descriptor is.
 */
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime.h"

/* where sc_warn_capture asked for the first message to go */
static char *capture;
static size_t capture_n;

void sc_warn_capture(char *buf, size_t n)
{
	capture = n ? buf : NULL;
	capture_n = n;
	if (capture)
		capture[0] = 0;
}

void sc_warn(const char *fmt, ...)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "scaler: ");
	va_list ap;
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	if (capture) {
		if (!capture[0])
			snprintf(capture, capture_n, "%.*s", n - 8, buf + 8);
		return;
	}
	buf[n++] = '\n';
	ssize_t r = write(2, buf, (size_t)n);
	(void)r;
}

uint64_t sc_rdtsc(void)
{
	return sc_arch_ticks();
}

uint64_t sc_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Clock c in ns by its system call, 0 if it cannot be read: for the reads
 * made once per image or thread (its start, its end). The vDSO's first
 * read costs a process a page fault on the kernel's time data and one on
 * libc's clock_gettime, ~3 us, which a small program never pays for
 * itself; the system call costs ~0.2 us. CPU-time clocks are a system
 * call through the vDSO as well.
 */
uint64_t sc_clock_ns(clockid_t c)
{
	struct timespec ts;
	if (syscall(SYS_clock_gettime, c, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void *sc_wrapper_find(const struct sc_wrapper *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (sc_name_eq(name, t[i].name))
			return t[i].fn;
	return NULL;
}

/* v in decimal at d; the end. Written by hand where a forked child
 * writes numbers: snprintf's machinery touches a few more pages of stack
 * and libc, each a copy-on-write fault there (doc/performance.md). */
char *sc_put_u64(char *d, uint64_t v)
{
	char tmp[20];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*d++ = tmp[--n];
	return d;
}

/* s at d, unterminated; the end (as sc_put_u64). */
char *sc_put_s(char *d, const char *s)
{
	while (*s)
		*d++ = *s++;
	return d;
}

/*
 * Its files' names, p<a>-<b><sep><c><ext> or p<a>-<b><ext> (sep NULL),
 * written by hand (sc_put_u64). buf holds SC_NAME_MAX bytes, enough for
 * three 32-bit numbers.
 */
const char *sc_file_name(char buf[SC_NAME_MAX], uint32_t a, uint32_t b, const char *sep,
			 uint32_t c, const char *ext)
{
	char *d = sc_put_u64(sc_put_s(buf, "p"), a);
	d = sc_put_u64(sc_put_s(d, "-"), b);
	if (sep)
		d = sc_put_u64(sc_put_s(d, sep), c);
	*sc_put_s(d, ext) = 0;
	return buf;
}

/* Is fd a perf event's (its link in /proc/self/fd)? */
bool sc_fd_is_perf_event(int fd)
{
	static const char want[] = "anon_inode:[perf_event]";
	char path[32], link[sizeof(want)];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(path, link, sizeof(link));
	return n == (ssize_t)sizeof(want) - 1 && !memcmp(link, want, sizeof(want) - 1);
}
