/*
 * record_kernel.c - `scaler record --kernel`: what the runtime will be
 * allowed to sample, said once before the command runs, and the kernel's
 * symbols for the addresses it sampled, written beside the profile after
 * the command ends (kernel addresses differ per boot: KASLR; a report made
 * later, or on another machine, could not name them).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "format.h"
#include "offcpu_event.h"
#include "profile.h"
#include "record_kernel.h"
#include "xalloc.h"

/* Can this process open the per-thread event the runtime opens with
 * --kernel when the recorder's per-CPU ones are refused? */
int kernel_sampling_allowed(int *err)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 1000000;
	a.exclude_user = 1;
	a.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	a.disabled = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return 0;
	}
	close(fd);
	return 1;
}

static int read_int_file(const char *path, int *v)
{
	FILE *f = fopen(path, "r");
	int ok = f && fscanf(f, "%d", v) == 1;

	if (f)
		fclose(f);
	return ok ? 0 : -1;
}

/* Does /proc/kallsyms show addresses (not zeros: kptr_restrict)? */
static int kallsyms_visible(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];
	int seen = 0, nonzero = 0;

	if (!f)
		return 0;
	while (seen < 64 && fgets(line, sizeof(line), f)) {
		seen++;
		if (strtoull(line, NULL, 16) != 0)
			nonzero = 1;
	}
	fclose(f);
	return nonzero;
}

/*
 * The id of the sched_switch tracepoint, from tracefs, into id (decimal
 * text); 0, or -1 with why (at most n bytes) when it cannot be read.
 */
static int sched_switch_id(char *id, size_t idlen, char *why, size_t n)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/sched/sched_switch/id",
		"/sys/kernel/debug/tracing/events/sched/sched_switch/id",
	};
	int err = ENOENT;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		FILE *f = fopen(paths[i], "re");
		unsigned long long v;

		if (!f) {
			if (errno != ENOENT)
				err = errno;
			continue;
		}
		int ok = fscanf(f, "%llu", &v) == 1 && v > 0;
		fclose(f);
		if (ok) {
			snprintf(id, idlen, "%llu", v);
			return 0;
		}
	}
	if (err == ENOENT)
		snprintf(why, n, "tracefs not mounted, or no sched_switch event there");
	else
		snprintf(why, n, "tracefs: %s: it is readable by root only, as a rule", strerror(err));
	return -1;
}

/* Can this process sample the sched_switch tracepoint with kernel
 * callchains, as the runtime does (offcpu.c)? */
static int sched_switch_allowed(unsigned long long id, char *why, size_t n)
{
	struct perf_event_attr a;
	int fd;

	sc_offcpu_attr(&a, id);
	a.disabled = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, n, "the sched_switch tracepoint: %s", strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}

void record_kernel_say(void)
{
	int err = 0, paranoid = 0, restrict_ = 0;
	char what[512] = "";
	size_t n = 0;

	if (!kernel_sampling_allowed(&err)) {
		if (read_int_file("/proc/sys/kernel/perf_event_paranoid", &paranoid) == 0)
			n += (size_t)snprintf(what + n, sizeof(what) - n, "kernel stacks not sampled "
					      "(%s; perf_event_paranoid is %d, kernel samples need "
					      "1 or less, CAP_PERFMON or root)", strerror(err),
					      paranoid);
		else
			n += (size_t)snprintf(what + n, sizeof(what) - n, "kernel stacks not sampled "
					      "(%s)", strerror(err));
	} else if (!kallsyms_visible()) {
		read_int_file("/proc/sys/kernel/kptr_restrict", &restrict_);
		n += (size_t)snprintf(what + n, sizeof(what) - n, "kernel symbols hidden "
				      "(/proc/kallsyms shows zeros: kptr_restrict is %d): kernel "
				      "functions are shown as addresses", restrict_);
	}
	if (n)
		fprintf(stderr, "scaler: --kernel: %s; off-CPU time is measured\n", what);
}

void record_kernel_offcpu(int want)
{
	char id[32], why[256];

	unsetenv("SCALER_SCHED_SWITCH");
	if (!want)
		return;
	if (sched_switch_id(id, sizeof(id), why, sizeof(why)) == 0 &&
	    sched_switch_allowed(strtoull(id, NULL, 10), why, sizeof(why)))
		setenv("SCALER_SCHED_SWITCH", id, 1);
	else
		fprintf(stderr, "scaler: --off-cpu: off-CPU stacks not sampled (%s): blocked time is "
			"measured, not where in the kernel it was spent\n", why);
}

/* ---- naming the sampled addresses -------------------------------------- */

struct ksym {
	uint64_t addr;
	char *name;
};

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every kernel address the .kst and .kso files of dir hold, sorted,
 * distinct: of the run's files only, as the reader takes them (in a
 * root run's directory, open to all, another user may plant one, of a
 * million slots). */
static uint64_t *sampled_addresses(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat dst;
	uint64_t *ips = NULL;
	uint32_t *uids = NULL;
	size_t cap = 0, nuids = 0;

	*n = 0;
	if (!d)
		return NULL;
	if (fstat(dirfd(d), &dst) == 0)
		nuids = sc_profile_run_uids(dirfd(d), dst.st_uid, &uids);
	else
		dst.st_uid = 0;
	rewinddir(d);   /* sc_profile_run_uids read it through a dup */
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);
		struct sc_kst_header h;
		struct stat st;
		char why[256];
		int fd;

		if (len < 5 || (strcmp(de->d_name + len - 4, ".kst") &&
				 strcmp(de->d_name + len - 4, ".kso")))
			continue;
		fd = sc_profile_open_run_file(dirfd(d), dst.st_uid, uids, nuids, de->d_name, &st, why,
					      sizeof(why));
		if (fd < 0)
			continue;
		if (pread(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
		    (!memcmp(h.magic, SC_KST_MAGIC, 8) || !memcmp(h.magic, SC_KSO_MAGIC, 8)) &&
		    h.slot_size == sizeof(struct sc_kst_slot) &&
		    h.nslots <= (1u << 20)) {
			for (uint32_t i = 0; i < h.nslots; i++) {
				struct sc_kst_slot s;
				off_t at = (off_t)(sizeof(h) + (uint64_t)i * sizeof(s));

				if (pread(fd, &s, sizeof(s), at) != (ssize_t)sizeof(s))
					break;
				if (!s.entry)
					continue;
				for (uint32_t k = 0; k < s.depth && k < SC_KST_DEPTH; k++) {
					ips = sc_grow(ips, &cap, *n + 1, sizeof(*ips));
					ips[(*n)++] = s.ip[k];
				}
			}
		}
		close(fd);
	}
	closedir(d);
	free(uids);
	qsort(ips, *n, sizeof(*ips), cmp_u64);
	size_t m = 0;
	for (size_t i = 0; i < *n; i++)
		if (!m || ips[m - 1] != ips[i])
			ips[m++] = ips[i];
	*n = m;
	return ips;
}

/* The functions of /proc/kallsyms (text symbols), sorted by address. */
static struct ksym *read_kallsyms(size_t *n)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	struct ksym *s = NULL;
	size_t cap = 0;
	char line[512];

	*n = 0;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256];
		unsigned long long addr;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !addr)
			continue;
		type = (char)tolower((unsigned char)type);
		if (type != 't' && type != 'w')
			continue;
		s = sc_grow(s, &cap, *n + 1, sizeof(*s));
		s[*n].addr = addr;
		s[*n].name = strdup(name);
		if (!s[*n].name)
			break;
		(*n)++;
	}
	fclose(f);
	qsort(s, *n, sizeof(*s), cmp_ksym);
	return s;
}

void record_kernel_symbols(const char *dir)
{
	size_t nips, nsyms;
	uint64_t *ips = sampled_addresses(dir, &nips);
	struct ksym *syms;
	char path[4096];
	FILE *out;

	if (!nips) {
		free(ips);
		return;
	}
	syms = read_kallsyms(&nsyms);
	snprintf(path, sizeof(path), "%s/%s", dir, SC_KSYMS_FILE);
	out = fopen(path, "wex");
	if (out) {
		/* one line per sampled address: "ADDRESS NAME" (format.h) */
		size_t j = 0;

		for (size_t i = 0; i < nips; i++) {
			while (j + 1 < nsyms && syms[j + 1].addr <= ips[i])
				j++;
			if (nsyms && syms[j].addr <= ips[i])
				fprintf(out, "%016" PRIx64 " %s\n", ips[i], syms[j].name);
		}
		fclose(out);
	}
	for (size_t i = 0; i < nsyms; i++)
		free(syms[i].name);
	free(syms);
	free(ips);
}
