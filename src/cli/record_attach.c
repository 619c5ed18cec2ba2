/*
 * record_attach.c - `scaler record -p PID`: profile a process that was
 * started without scaler for a while, then leave it running as it was.
 *
 * In stages, each undone if a later one fails:
 *  1. checks that touch nothing: the process exists, is x86-64 with
 *     glibc's libc.so.6, is not stopped, traced or profiled already, and
 *     the caller may trace it (owner or root; Yama's ptrace_scope); a
 *     refusal is one line;
 *  2. every thread is seized (PTRACE_SEIZE: traced, not stopped);
 *  3. the profile directory, and a FIFO in it whose writing end scaler
 *     keeps open (the runtime's thread waits on its reading end);
 *  4. all threads are stopped (PTRACE_INTERRUPT) until one of them is at
 *     a safe point: blocked in a system call that waits (inj_syscall_waits)
 *     or running code that is neither libc's nor the loader's, so that it
 *     holds neither malloc's nor the loader's lock; between tries they
 *     run. The others are let go at once: a lock one of them holds is
 *     released while the chosen one calls into the loader;
 *  5. in that thread (arch inject.c): dlopen(runtime, RTLD_NOW |
 *     RTLD_NODELETE) from libc.so.6 (glibc >= 2.34 has no
 *     __libc_dlopen_mode), then scaler_attach(dir, timing, fifo, err),
 *     which patches the process while its threads run and starts the
 *     runtime's thread (src/runtime/attach.c); with --functions, every
 *     other thread is stopped again while the jumps of the function
 *     entries the runtime prepared are written (record_fnsites.c), and
 *     scaler_attach_sites lists those refused; then its registers are put
 *     back and it is let go, with any signal that came meanwhile;
 *  6. a wait: --duration, SIGINT/SIGTERM/SIGHUP to scaler, or the
 *     process's end;
 *  7. with --functions, every thread is stopped while the entries' bytes
 *     are put back; closing the FIFO detaches (the runtime's thread puts
 *     every GOT slot back); scaler waits for that thread to end.
 * Catchable signals are held from stage 2 to 5, so that ^C never leaves a
 * thread stopped or half called. What can and cannot be done safely, and
 * who may attach: doc/record.md, doc/security.md.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fnsite.h"
#include "inject.h"
#include "profdir.h"
#include "record.h"
#include "record_fnsites.h"

static pid_t target;

/* "scaler: cannot attach to PID: <why>" on stderr; returns 2 */
__attribute__((format(printf, 1, 2)))
static int refuse(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "scaler: cannot attach to %d: ", (int)target);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 2;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- what /proc says of the process ----------------------------------- */

/* The value of "key:" in /proc/PID/status, or "" */
static void status_field(const char *key, char *out, size_t n)
{
	char path[64], line[512];
	size_t k = strlen(key);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)target);
	out[0] = 0;
	FILE *f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, k) || line[k] != ':')
			continue;
		const char *v = line + k + 1;
		v += strspn(v, " \t");
		snprintf(out, n, "%s", v);
		out[strcspn(out, "\n")] = 0;
		break;
	}
	if (f)
		fclose(f);
}

/* A mapping of the process (/proc/PID/maps). */
struct map {
	uint64_t lo, hi, off, inode;
	char path[PATH_MAX];
};

struct maps {
	struct map *m;
	size_t n;
};

static void maps_free(struct maps *ms)
{
	free(ms->m);
	ms->m = NULL;
	ms->n = 0;
}

static int maps_read(struct maps *ms)
{
	char path[64], line[PATH_MAX + 128];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)target);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t cap = 0;
	ms->n = 0;
	while (fgets(line, sizeof(line), f)) {
		struct map m = {0};
		int at = 0;
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %lu %n", &m.lo, &m.hi, &m.off, &m.inode, &at) < 4)
			continue;
		snprintf(m.path, sizeof(m.path), "%s", at ? line + at : "");
		if (ms->n == cap) {
			cap = cap ? cap * 2 : 256;
			struct map *nm = realloc(ms->m, cap * sizeof(*nm));
			if (!nm) {
				fclose(f);
				return -1;
			}
			ms->m = nm;
		}
		ms->m[ms->n++] = m;
	}
	fclose(f);
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static bool is_libc(const char *p) { return !strcmp(base_name(p), "libc.so.6"); }
static bool is_loader(const char *p)
{
	return !strncmp(base_name(p), "ld-linux", 8) || !strncmp(base_name(p), "ld64.so", 7);
}

/* The mapping holding a, or NULL */
static const struct map *map_of(const struct maps *ms, uint64_t a)
{
	for (size_t i = 0; i < ms->n; i++)
		if (a >= ms->m[i].lo && a < ms->m[i].hi)
			return &ms->m[i];
	return NULL;
}

/* The first mapping of the file (path and inode), at file offset 0 */
static const struct map *map_first(const struct maps *ms, bool (*is)(const char *),
				   const char *path, uint64_t inode)
{
	for (size_t i = 0; i < ms->n; i++) {
		const struct map *m = &ms->m[i];
		if (m->off == 0 && (is ? is(m->path) : (m->inode == inode && !strcmp(m->path, path))))
			return m;
	}
	return NULL;
}

/* ---- a function's address in an ELF file -------------------------------- */

/*
 * The address the process gives symbol name of the file mapped at m (read
 * through /proc/PID/root: the process's view of the file system): its
 * dynamic symbol's value plus the load bias. 0 if not found.
 */
static uint64_t elf_function(const struct map *m, const char *name)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)target, m->path);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	size_t len = (size_t)st.st_size;
	const uint8_t *b = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (b == MAP_FAILED)
		return 0;
	const Elf64_Ehdr *eh = (const void *)b;
	uint64_t found = 0, vaddr0 = UINT64_MAX;
	bool ok = !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
		  eh->e_shoff < len && eh->e_shnum <= (len - eh->e_shoff) / sizeof(Elf64_Shdr) &&
		  eh->e_phoff < len && eh->e_phnum <= (len - eh->e_phoff) / sizeof(Elf64_Phdr);
	for (unsigned i = 0; ok && i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const void *)(b + eh->e_phoff + i * sizeof(Elf64_Phdr));
		if (ph->p_type == PT_LOAD && ph->p_offset == 0)
			vaddr0 = ph->p_vaddr & ~0xfffull;
	}
	const Elf64_Shdr *sh = ok ? (const void *)(b + eh->e_shoff) : NULL;
	const Elf64_Shdr *sym = NULL, *ver = NULL;
	for (unsigned i = 0; ok && i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_DYNSYM)
			sym = &sh[i];
		else if (sh[i].sh_type == SHT_GNU_versym)
			ver = &sh[i];
	}
	if (ok && sym && sym->sh_link < eh->e_shnum && sym->sh_offset < len &&
	    sym->sh_size <= len - sym->sh_offset && sh[sym->sh_link].sh_offset < len &&
	    vaddr0 != UINT64_MAX) {
		const Elf64_Sym *s = (const void *)(b + sym->sh_offset);
		const char *str = (const char *)(b + sh[sym->sh_link].sh_offset);
		size_t strn = len - sh[sym->sh_link].sh_offset, n = sym->sh_size / sizeof(*s);
		const uint16_t *vs = ver && ver->sh_offset + n * 2 <= len
					     ? (const void *)(b + ver->sh_offset) : NULL;
		for (size_t i = 1; i < n; i++) {
			unsigned type = ELF64_ST_TYPE(s[i].st_info);
			if (s[i].st_shndx == SHN_UNDEF || s[i].st_name >= strn ||
			    (type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    strncmp(str + s[i].st_name, name, strn - s[i].st_name))
				continue;
			found = s[i].st_value;
			if (!vs || !(vs[i] & 0x8000))
				break;          /* the default version */
		}
	}
	munmap((void *)b, len);
	return found ? found - vaddr0 + m->lo : 0;
}

/* ---- the threads, traced ------------------------------------------------ */

struct tracee {
	pid_t tid;
	bool stopped;
	bool gone;
	bool fresh;             /* stopped right after a signal was delivered:
				   maybe at a handler's start, inside anything */
	bool asked;             /* interrupted, its stop not seen yet */
	bool stuck;             /* did not stop in time (a vfork parent, an
				   uninterruptible sleep): left seized, the
				   kernel lets it go when scaler ends */
};

/* The threads traced: all of them while the runtime is loaded (all), or
 * all but that one while entries are written (world) */
struct tracees {
	struct tracee *t;
	size_t n;
	pid_t except;           /* not to seize: traced in the other list */
};
static struct tracees all, world;

static bool traced(const struct tracees *ls, pid_t tid)
{
	for (size_t i = 0; i < ls->n; i++)
		if (ls->t[i].tid == tid)
			return true;
	return tid == ls->except;
}

/* Seizes every thread into ls, until a listing finds no new one: 0, or -1
 * with errno of the first that could not be (a thread that ended is
 * skipped). */
static int seize_all(struct tracees *ls)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)target);
	for (int pass = 0; pass < 100; pass++) {
		DIR *d = opendir(path);
		if (!d)
			return -1;
		bool added = false;
		struct dirent *e;
		while ((e = readdir(d))) {
			pid_t tid = (pid_t)atoi(e->d_name);
			if (tid <= 0 || traced(ls, tid))
				continue;
			if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) != 0) {
				if (errno == ESRCH && tid != target)
					continue;
				int err = errno;
				closedir(d);
				errno = err;
				return -1;
			}
			struct tracee *n = realloc(ls->t, (ls->n + 1) * sizeof(*n));
			if (!n) {
				ptrace(PTRACE_INTERRUPT, tid, NULL, NULL);
				waitpid(tid, NULL, __WALL);
				ptrace(PTRACE_DETACH, tid, NULL, NULL);
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
			ls->t = n;
			ls->t[ls->n++] = (struct tracee){.tid = tid};
			added = true;
		}
		closedir(d);
		if (!added)
			return 0;
	}
	return 0;
}

/* How long a thread is waited for to stop: one waiting for its vfork
 * child, or in an uninterruptible sleep, stops only when that ends */
#define STOP_MS 1000

/* Asks t to stop (its next stop is ours): 0, or -1 with errno */
static int interrupt_one(struct tracee *t)
{
	if (t->stopped || t->gone || t->asked)
		return 0;
	if (ptrace(PTRACE_INTERRUPT, t->tid, NULL, NULL) != 0) {
		if (errno != ESRCH)
			return -1;
		t->gone = true;
		return 0;
	}
	t->asked = true;
	return 0;
}

/* Stops t, waiting for it until mono_ms() reaches until: 0, or -1 with
 * errno (ETIMEDOUT: t marked stuck). A signal that comes first is
 * delivered, and t marked fresh. */
static int stop_one(struct tracee *t, uint64_t until)
{
	if (t->stopped || t->gone)
		return 0;
	if (interrupt_one(t) != 0)
		return -1;
	while (!t->gone) {
		int st;
		pid_t w = waitpid(t->tid, &st, __WALL | WNOHANG);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			t->gone = errno == ECHILD;
			return t->gone ? 0 : -1;
		}
		if (w == 0) {
			if (mono_ms() >= until) {
				t->stuck = true;
				errno = ETIMEDOUT;
				return -1;
			}
			usleep(500);
			continue;
		}
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			t->gone = true;
			return 0;
		}
		if (st >> 16 == PTRACE_EVENT_STOP) {
			t->stopped = true;
			t->asked = t->stuck = false;
			return 0;
		}
		t->fresh = true;
		if (ptrace(PTRACE_CONT, t->tid, NULL, (void *)(long)WSTOPSIG(st)) != 0 && errno == ESRCH)
			t->gone = true;
	}
	return 0;
}

/* Stops every thread of ls (all asked first, then waited for, up to
 * STOP_MS in all): 0, or -1 with errno (ETIMEDOUT: one did not stop) */
static int stop_all(struct tracees *ls)
{
	uint64_t until = mono_ms() + STOP_MS;
	for (size_t i = 0; i < ls->n; i++)
		if (interrupt_one(&ls->t[i]) != 0)
			return -1;
	for (size_t i = 0; i < ls->n; i++)
		if (stop_one(&ls->t[i], until) != 0)
			return -1;
	return 0;
}

static void resume_one(struct tracee *t)
{
	if (t->stopped && !t->gone && ptrace(PTRACE_CONT, t->tid, NULL, NULL) != 0 && errno == ESRCH)
		t->gone = true;
	t->stopped = false;
}

/* Lets t go (stopping it first: only a stopped tracee can be detached),
 * delivering sig (0: none). One that does not stop (stuck already: no
 * more waiting) stays seized until scaler ends. */
static void release_one(struct tracee *t, int sig)
{
	if (t->gone)
		return;
	if (stop_one(t, t->stuck ? 0 : mono_ms() + STOP_MS) == 0 && !t->gone)
		ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)sig);
	t->gone = true;
}

static void release_all(struct tracees *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		release_one(&ls->t[i], 0);
}

/* ---- a safe point ---------------------------------------------------- */

/* Room a call into the loader and the runtime's start-up needs on the
 * chosen thread's stack */
#define STACK_NEED (256u << 10)

/*
 * Whether the stopped thread, with registers r, holds none of libc's or
 * the loader's locks for sure enough to call dlopen (see the top), with
 * room on its stack.
 */
static bool safe_point(const struct maps *ms, const struct tracee *t, const struct inj_regs *r)
{
	const struct map *pc = map_of(ms, inj_pc(r));
	if (t->fresh)
		return false;
	if (pc && is_loader(pc->path))
		return false;
	if (pc && is_libc(pc->path) && !(inj_syscall(r) >= 0 && inj_syscall_waits(r)))
		return false;
	const struct map *sp = map_of(ms, inj_stack_free_top(r));
	if (!sp)
		return false;
	return !strcmp(sp->path, "[stack]") || inj_stack_free_top(r) - sp->lo >= STACK_NEED;
}

/*
 * Stops all threads until one is at a safe point, for up to 5 s; lets the
 * others go. Returns the chosen tracee with its registers in *out, or NULL
 * (all let go).
 */
static struct tracee *choose_thread(struct inj_regs **out)
{
	struct maps ms = {0};
	uint64_t until = mono_ms() + 5000;
	struct tracee *best = NULL;
	for (unsigned round = 0; !best && mono_ms() < until; round++) {
		if (round) {
			for (size_t i = 0; i < all.n; i++)
				resume_one(&all.t[i]);
			usleep(round < 20 ? 1000 : 10000);
		}
		if (stop_all(&all) != 0)
			goto out;       /* ETIMEDOUT: one is stuck (said by the caller) */
		maps_free(&ms);
		if (maps_read(&ms) != 0)
			goto out;
		for (size_t i = 0; i < all.n; i++) {
			struct tracee *t = &all.t[i];
			struct inj_regs *r = t->gone ? NULL : inj_save(t->tid);
			if (r && safe_point(&ms, t, r) && (!best || t->tid == target)) {
				inj_free(*out);
				*out = r;
				best = t;
			} else
				inj_free(r);
			t->fresh = false;
		}
	}
out:
	maps_free(&ms);
	for (size_t i = 0; i < all.n; i++)
		if (&all.t[i] != best)
			release_one(&all.t[i], 0);
	return best;
}

/* ---- function entries (--functions) ------------------------------------ */

static void end_world(void)
{
	release_all(&world);
	free(world.t);
	world = (struct tracees){0};
}

/*
 * Stops every thread of the process but except (0: none; the caller has
 * it stopped) into world, until a listing finds no new one (a thread not
 * stopped yet may have started another). 0, or -1 with errno (ETIMEDOUT:
 * a thread did not stop within STOP_MS), none left stopped.
 */
static int stop_world(pid_t except)
{
	world = (struct tracees){.except = except};
	for (int pass = 0; pass < 100; pass++) {
		size_t had = world.n;
		if (seize_all(&world) != 0 || stop_all(&world) != 0) {
			int e = errno;
			end_world();
			errno = e;
			return -1;
		}
		if (pass && world.n == had)
			return 0;
	}
	end_world();
	errno = EAGAIN;
	return -1;
}

static uint64_t rt_ino;         /* the runtime's file */
static uint64_t table_lo, table_ino;    /* the mapping of its table at the attach */

/* Whether the runtime that made the table at address table is still
 * there (an exec unmaps it: its table's address is then another
 * program's): its file mapped, and the table's mapping (its .bss is
 * anonymous) the one it was at the attach (noted when !restore) */
static bool same_runtime(const struct maps *ms, uint64_t table, bool restore)
{
	const struct map *m = map_of(ms, table);
	bool rt = false;
	for (size_t i = 0; i < ms->n; i++)
		rt = rt || ms->m[i].inode == rt_ino;
	if (!restore && m)
		table_lo = m->lo, table_ino = m->inode;
	return rt && m && m->lo == table_lo && m->inode == table_ino;
}

/* Why entries() failed with errno e, for a message */
static const char *entries_why(int e)
{
	static char why[128];
	if (e == ESTALE)
		snprintf(why, sizeof(why), "the runtime is no longer in %d (an exec replaced the "
			 "program)", (int)target);
	else if (e == ETIMEDOUT)
		snprintf(why, sizeof(why), "a thread did not stop within %.0f s (waiting for its "
			 "vfork child, or in an uninterruptible sleep)", STOP_MS / 1000.0);
	else
		snprintf(why, sizeof(why), "cannot stop its threads (%s)", strerror(e));
	return why;
}

/* The stack of its own of thread tid, with thread pointer tls: the main
 * thread's is [stack]; another's (glibc) the anonymous mapping holding
 * its thread pointer. NULL: not known. */
static const struct map *home_stack(const struct maps *ms, pid_t tid, uint64_t tls)
{
	if (tid == target) {
		for (size_t i = 0; i < ms->n; i++)
			if (!strcmp(ms->m[i].path, "[stack]"))
				return &ms->m[i];
		return NULL;
	}
	const struct map *m = map_of(ms, tls);
	return m && (!m->path[0] || !strncmp(m->path, "[stack", 6)) ? m : NULL;
}

/* What stopped thread tid with registers r may come back to
 * (record_fnsites.h): its next instruction, the stack in use it runs on
 * (the mapping is the one of its stack pointer: the red zone below may
 * be outside it), and the whole of its own stack when that is another */
static void describe(const struct maps *ms, pid_t tid, const struct inj_regs *r,
		     struct fnsite_thread *th)
{
	uint64_t pc = inj_pc(r), sp = inj_sp(r), lo = inj_stack_free_top(r);
	const struct map *m = map_of(ms, sp), *home = home_stack(ms, tid, inj_tls(r));
	*th = (struct fnsite_thread){.pc = {pc, inj_syscall(r) >= 0 ? pc - 2 : 0},
				     .stack_lo = m && lo < m->lo ? m->lo : lo,
				     .stack_hi = m ? m->hi : sp};
	if (home && home != m)
		th->home_lo = home->lo, th->home_hi = home->hi;
}

/*
 * Writes (restore false) or puts back (true) the function entries of the
 * table at address table (the runtime's still: else ESTALE, after an
 * exec), with every thread stopped meanwhile: the one
 * the caller holds stopped (chosen, its own registers r; 0: none) and the
 * others, stopped here and let go after. 0 with counts in *c, or -1 with
 * errno (nothing written).
 */
static int entries(pid_t chosen, const struct inj_regs *r, uint64_t table, bool restore,
		   struct fnsite_counts *c)
{
	struct timespec t0, t1;
	memset(c, 0, sizeof(*c));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (stop_world(chosen) != 0)
		return -1;
	struct maps ms = {0};
	struct fnsite_thread *th = calloc(world.n + 1, sizeof(*th));
	size_t n = 0;
	int rc = -1, e = ENOMEM;
	if (th && maps_read(&ms) == 0) {
		if (r)
			describe(&ms, chosen, r, &th[n++]);
		if (same_runtime(&ms, table, restore))
			rc = 0;
		else
			e = ESTALE;
		for (size_t i = 0; rc == 0 && i < world.n; i++) {
			struct inj_regs *x = world.t[i].gone ? NULL : inj_save(world.t[i].tid);
			if (x)
				describe(&ms, world.t[i].tid, x, &th[n++]);
			else if (!world.t[i].gone && errno != ESRCH)
				rc = -1, e = errno;     /* where it is is not known */
			inj_free(x);
		}
		if (rc == 0 && (rc = fnsites_apply(target, table, th, n, restore, c)) != 0)
			e = errno;
	}
	maps_free(&ms);
	free(th);
	end_world();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	c->stopped_us = (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 +
				   (t1.tv_nsec - t0.tv_nsec) / 1000);
	errno = e;
	return rc;
}

/* ---- the calls ---------------------------------------------------------- */

static int mem_write(uint64_t at, const void *p, size_t n)
{
	return proc_mem_write(target, at, p, n);
}

/* A string of the process at at (up to n - 1 bytes) */
static void mem_string(uint64_t at, char *out, size_t n)
{
	out[0] = 0;
	for (size_t len = n - 1; at && len >= 16; len /= 2) {
		struct iovec l = {out, len}, r = {(void *)at, len};
		if (process_vm_readv(target, &l, 1, &r, 1, 0) == (ssize_t)len) {
			out[len] = 0;
			return;
		}
	}
}

/* What the calls need in the thread's memory, below its stack */
struct call_data {
	char lib[PATH_MAX];
	char dir[PATH_MAX];
	char timing[16];
	char fifo[64];
	char err[512];
	char functions[4096];
	struct sc_attach_fns fns;
};

#define AT(field) (lo + offsetof(struct call_data, field))

/* --functions: the table of entries in the process (0: none), what
 * writing them did, and a line to say once attached */
static uint64_t fn_table;
static struct fnsite_counts fn_done;
static char fn_line[256];
static char rt_line[512];       /* the runtime's first warning, attached */

/*
 * Loads the runtime in thread t (registers r) and starts it. The thread is
 * let go in every case, its registers as they were. Returns the runtime's
 * thread's tid, or 0 with the reason said.
 */
static pid_t inject(struct tracee *t, struct inj_regs *r, const struct call_data *cd,
		    const struct stat *lib_st)
{
	int sigs[16], nsigs = 0, n;
	uint64_t ret = 0, lo = (inj_stack_free_top(r) - sizeof(*cd)) & ~63ull;
	pid_t tid = 0;
	struct maps ms = {0};
	const struct map *libc, *self;
	char msg[600] = "";
	if (maps_read(&ms) != 0 || !(libc = map_first(&ms, is_libc, NULL, 0))) {
		snprintf(msg, sizeof(msg), "cannot read its mappings");
		goto out;
	}
	uint64_t dlopen_at = elf_function(libc, "dlopen"), dlerror_at = elf_function(libc, "dlerror");
	if (!dlopen_at || !dlerror_at) {
		snprintf(msg, sizeof(msg), "no dlopen in %.400s (glibc 2.34 or later is needed)",
			 libc->path);
		goto out;
	}
	struct sc_attach_fns fns = {.spec = cd->functions[0] ? AT(functions) : 0};
	if (mem_write(lo, cd, sizeof(*cd)) != 0 || mem_write(AT(fns), &fns, sizeof(fns)) != 0) {
		snprintf(msg, sizeof(msg), "cannot write its memory: %s", strerror(errno));
		goto out;
	}
	uint64_t a[5] = {AT(lib), RTLD_NOW | RTLD_NODELETE};
	n = (int)(sizeof(sigs) / sizeof(sigs[0])) - nsigs;
	int c = inj_call(t->tid, r, dlopen_at, a, 2, lo, &ret, sigs + nsigs, &n);
	nsigs += n;
	if (c == 0 && !ret) {
		n = (int)(sizeof(sigs) / sizeof(sigs[0])) - nsigs;
		c = inj_call(t->tid, r, dlerror_at, a, 0, lo, &ret, sigs + nsigs, &n);
		nsigs += n;
		char e[300];
		mem_string(c == 0 ? ret : 0, e, sizeof(e));
		snprintf(msg, sizeof(msg), "its dlopen of the runtime failed: %s", e[0] ? e : "?");
		goto out;
	}
	if (c != 0)
		goto failed;
	maps_free(&ms);
	uint64_t attach_at = 0;
	if (maps_read(&ms) == 0 && (self = map_first(&ms, NULL, cd->lib, lib_st->st_ino)))
		attach_at = elf_function(self, "scaler_attach");
	if (!attach_at) {
		snprintf(msg, sizeof(msg), "the runtime loaded, but its scaler_attach is not found "
			 "(it stays loaded, inactive)");
		goto out;
	}
	uint64_t b[6] = {AT(dir), AT(timing), AT(fifo), AT(err), sizeof(cd->err), AT(fns)};
	n = (int)(sizeof(sigs) / sizeof(sigs[0])) - nsigs;
	c = inj_call(t->tid, r, attach_at, b, 6, lo, &ret, sigs + nsigs, &n);
	nsigs += n;
	if (c != 0)
		goto failed;
	if ((long)ret <= 0) {
		char e[sizeof(cd->err)];
		mem_string(AT(err), e, sizeof(e));
		snprintf(msg, sizeof(msg), "the runtime did not start: %s (it stays loaded, "
			 "inactive)", e[0] ? e : "?");
		goto out;
	}
	tid = (pid_t)ret;
	mem_string(AT(err), rt_line, sizeof(rt_line));  /* a warning of its start-up */
	if (fns.spec && (proc_mem_read(target, AT(fns), &fns, sizeof(fns)) != 0 || !fns.table))
		snprintf(fn_line, sizeof(fn_line), "scaler: --functions: the runtime made no "
			 "table of entries; no function patched");
	else if (fns.spec) {
		/* the jumps, all threads stopped; then the refused listed */
		fn_table = fns.table;
		if (entries(t->tid, r, fn_table, false, &fn_done) != 0)
			snprintf(fn_line, sizeof(fn_line), "scaler: --functions: %s; no function "
				 "patched", entries_why(errno));
		uint64_t sites_at = elf_function(self, "scaler_attach_sites");
		c = -1;
		if (sites_at) {
			n = (int)(sizeof(sigs) / sizeof(sigs[0])) - nsigs;
			c = inj_call(t->tid, r, sites_at, b, 0, lo, &ret, sigs + nsigs, &n);
			nsigs += n;
		}
		if (c != 0 && !fn_line[0])
			snprintf(fn_line, sizeof(fn_line), "scaler: --functions: the runtime did not "
				 "list the entries refused");
	}
	goto out;
failed:
	if (errno == ESRCH)
		snprintf(msg, sizeof(msg), "it ended during the attach");
	else if (errno == EFAULT)
		snprintf(msg, sizeof(msg), "the call faulted at %#lx; its thread %d was put back "
			 "as it was stopped", (unsigned long)ret, (int)t->tid);
	else
		snprintf(msg, sizeof(msg), "ptrace: %s", strerror(errno));
out:
	maps_free(&ms);
	if (!t->gone && inj_restore(t->tid, r) != 0 && errno != ESRCH)
		fprintf(stderr, "scaler: cannot put back the registers of thread %d: %s\n",
			(int)t->tid, strerror(errno));
	release_one(t, nsigs ? sigs[0] : 0);
	for (int i = 1; i < nsigs; i++)
		syscall(SYS_tgkill, target, t->tid, sigs[i]);
	if (msg[0])
		refuse("%s", msg);
	return tid;
}

/* ---- checks ------------------------------------------------------------- */

static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	int v = 0;
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/* Why the caller may not trace the process, or NULL (the kernel has the
 * last word: ptrace_may_access and Yama) */
static const char *why_not_allowed(char *buf, size_t n)
{
	int scope = yama_scope();
	char uid[128], gid[128];
	if (scope >= 3)
		return "ptrace is disabled on this system (kernel.yama.ptrace_scope is 3 until the "
		       "next boot)";
	if (geteuid() == 0)
		return NULL;
	if (scope == 2)
		return "only root may use ptrace here (kernel.yama.ptrace_scope is 2)";
	status_field("Uid", uid, sizeof(uid));
	status_field("Gid", gid, sizeof(gid));
	unsigned r, e, s, rg, eg, sg;
	if (sscanf(uid, "%u %u %u", &r, &e, &s) == 3 && sscanf(gid, "%u %u %u", &rg, &eg, &sg) == 3 &&
	    (r != getuid() || e != getuid() || s != getuid() || rg != getgid() || eg != getgid() ||
	     sg != getgid())) {
		snprintf(buf, n, "it is user %u's (group %u): only its owner or root may attach", e,
			 eg);
		return buf;
	}
	if (scope == 1)
		return "kernel.yama.ptrace_scope is 1: a user may trace only its own descendants; "
		       "run as root, or set it to 0";
	return NULL;
}

/* Refuses what cannot be attached to (1, said), or 0. lib: the runtime. */
static int check_target(const char *lib, const struct stat *lib_st, uid_t *owner)
{
	char buf[256], state[64], tracer[64];
	if (target <= 0 || target == getpid())
		return refuse("not a process scaler can attach to");
	snprintf(buf, sizeof(buf), "/proc/%d", (int)target);
	if (access(buf, F_OK) != 0)
		return refuse("no such process");
	status_field("State", state, sizeof(state));
	status_field("TracerPid", tracer, sizeof(tracer));
	status_field("Uid", buf, sizeof(buf));
	unsigned r, e;
	*owner = sscanf(buf, "%u %u", &r, &e) == 2 ? (uid_t)e : 0;
	if (state[0] == 'Z' || state[0] == 'X')
		return refuse("it has ended");
	if (atoi(tracer) > 0)
		return refuse("it is being traced already, by process %s (a debugger?)", tracer);
	if (state[0] == 'T' || state[0] == 't')
		return refuse("it is stopped (state %s): continue it first", state);
	const char *why = why_not_allowed(buf, sizeof(buf));
	if (why)
		return refuse("%s", why);
	struct maps ms = {0};
	if (maps_read(&ms) != 0)
		return refuse("cannot read /proc/%d/maps: %s", (int)target, strerror(errno));
	const struct map *libc = map_first(&ms, is_libc, NULL, 0);
	bool ours = false;
	for (size_t i = 0; i < ms.n; i++)
		ours |= ms.m[i].inode == lib_st->st_ino || !strcmp(base_name(ms.m[i].path), "libscaler.so");
	maps_free(&ms);
	if (!libc)
		return refuse("it does not use glibc's libc.so.6 (statically linked?)");
	if (ours)
		return refuse("the runtime is loaded in it already (profiled by scaler record, or "
			      "attached to before: it stays loaded, and is started once)");
	/* the process must find the runtime where we do */
	struct stat st;
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)target, lib);
	if (stat(path, &st) != 0 || st.st_dev != lib_st->st_dev || st.st_ino != lib_st->st_ino)
		return refuse("%s is not the same file in its file system (another mount namespace?)",
			      lib);
	/* the preloaded runtime would start from its environment */
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)target);
	FILE *f = fopen(path, "re");
	bool env = false;
	char *var = NULL;
	size_t cap = 0;
	while (f && getdelim(&var, &cap, 0, f) > 0)
		env |= !strncmp(var, "SCALER_DIR=", 11);
	free(var);
	if (f)
		fclose(f);
	if (env)
		return refuse("SCALER_DIR is set in its environment: the runtime would start as if "
			      "preloaded");
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)target);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf64_Ehdr eh;
	bool x86 = fd >= 0 && pread(fd, &eh, sizeof(eh), 0) == (ssize_t)sizeof(eh) &&
		   eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_machine == EM_X86_64;
	if (fd >= 0)
		close(fd);
	if (!x86)
		return refuse("it is not an x86-64 program");
	return 0;
}

/* ---- the record --------------------------------------------------------- */

static volatile sig_atomic_t stop_sig;

static void on_stop(int sig)
{
	stop_sig = sig;
}

/* The calls in the stopped thread last longer than they should: say why
 * scaler waits (it cannot undo them from outside). */
static void on_slow(int sig)
{
	static const char msg[] = "scaler: the process has not returned from loading the "
				  "runtime after 10 s; still waiting (killing scaler now would "
				  "leave its thread without a way back)\n";
	(void)sig;
	ssize_t r = write(2, msg, sizeof(msg) - 1);
	(void)r;
}

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

/*
 * The FIFO the runtime's thread waits on, ours to write (0600, the
 * process owner's): its descriptor, or -1 said. Run as root, the
 * directory becomes the process owner's, 0700, while attached (the
 * runtime writes there as that user, and no one else may add a file);
 * record_finish_dir makes it root's again.
 */
static int make_fifo(const char *dir, const char *name, uid_t owner)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int fd = -1;
	if (dfd >= 0 && geteuid() == 0 && (fchown(dfd, owner, (gid_t)-1) != 0 ||
					   fchmod(dfd, 0700) != 0)) {
		fprintf(stderr, "scaler: cannot give %s to uid %u: %s\n", dir, (unsigned)owner,
			strerror(errno));
	} else if (dfd >= 0 && mkfifoat(dfd, name, 0600) == 0 &&
	    (geteuid() != 0 || fchownat(dfd, name, owner, (gid_t)-1, AT_SYMLINK_NOFOLLOW) == 0))
		fd = openat(dfd, name, O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "scaler: cannot make %s/%s: %s\n", dir, name, strerror(errno));
	if (dfd >= 0)
		close(dfd);
	return fd;
}

/* Waits for the end: duration_ms (0: none), a stop signal, or the
 * process's. True if the process ended. */
static bool wait_end(unsigned duration_ms)
{
	int pfd = (int)syscall(SYS_pidfd_open, target, 0);
	uint64_t until = duration_ms ? mono_ms() + duration_ms : 0;
	bool ended = false;
	while (!stop_sig && !ended) {
		uint64_t now = mono_ms();
		if (until && now >= until)
			break;
		int ms = until ? (int)(until - now < 1000 ? until - now : 1000) : 1000;
		if (pfd >= 0) {
			struct pollfd p = {pfd, POLLIN, 0};
			ended = poll(&p, 1, ms) > 0;
		} else {
			usleep(ms < 100 ? (useconds_t)ms * 1000 : 100000);
			ended = kill(target, 0) != 0 && errno == ESRCH;
		}
	}
	if (pfd >= 0)
		close(pfd);
	return ended;
}

/* Waits (up to 10 s) for the runtime's thread to end: it has detached. */
static bool wait_detached(pid_t ctl)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)target, (int)ctl);
	for (int i = 0; i < 2000; i++) {
		if (access(path, F_OK) != 0)
			return true;
		usleep(5000);
	}
	return false;
}

/*
 * At the detach (the process running): puts back the function entries
 * patched, every thread stopped meanwhile, stop signals held. An entry
 * that stays (no ptrace now, or a thread inside it) is paused by the
 * runtime's detaching: its calls go straight on.
 */
static void put_back_entries(void)
{
	sigset_t stops, old;
	struct fnsite_counts c;
	sigemptyset(&stops);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaddset(&stops, stop_signals[i]);
	sigprocmask(SIG_BLOCK, &stops, &old);
	if (entries(0, NULL, fn_table, true, &c) != 0)
		fprintf(stderr, "scaler: function entries not put back: %s; they stay, their "
			"calls going straight on\n", entries_why(errno));
	else
		fprintf(stderr, "scaler: %zu function entries put back, %zu stay (a thread in "
			"them, or their bytes changed; their calls go straight on); threads stopped "
			"%.1f ms\n", c.done, c.busy + c.other, c.stopped_us / 1000.0);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

int record_attach(pid_t pid, const char *dir, const char *timing, unsigned duration_ms,
		  const char *functions)
{
	char lib[PATH_MAX], absdir[PATH_MAX];
	struct stat lib_st;
	uid_t owner = 0;
	target = pid;
	if (record_find_runtime(lib, sizeof(lib)) != 0 || stat(lib, &lib_st) != 0)
		return refuse("cannot find the runtime libscaler.so next to this scaler (set "
			      "SCALER_LIB)");
	if (check_target(lib, &lib_st, &owner))
		return 2;
	rt_ino = (uint64_t)lib_st.st_ino;

	/* from here until the runtime runs, a stop signal waits */
	sigset_t stops, old;
	sigemptyset(&stops);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		struct sigaction sa = {.sa_handler = on_stop};
		sigemptyset(&sa.sa_mask);
		sigaction(stop_signals[i], &sa, NULL);
		sigaddset(&stops, stop_signals[i]);
	}
	sigprocmask(SIG_BLOCK, &stops, &old);
	if (seize_all(&all) != 0) {
		int e = errno;
		release_all(&all);
		char why[256];
		const char *w = why_not_allowed(why, sizeof(why));
		if (e == EPERM && w)
			return refuse("%s", w);
		if (e == EPERM)
			return refuse("ptrace is not permitted (it is being traced, or it is not "
				      "dumpable, or a security module forbids it)");
		return refuse("ptrace: %s", strerror(e));
	}
	int r = profdir_prepare(dir, geteuid() == 0);
	if (r || !realpath(dir, absdir)) {
		release_all(&all);
		return r ? r : refuse("cannot resolve %s: %s", dir, strerror(errno));
	}
	struct call_data cd = {0};
	snprintf(cd.lib, sizeof(cd.lib), "%s", lib);
	snprintf(cd.dir, sizeof(cd.dir), "%s", absdir);
	snprintf(cd.timing, sizeof(cd.timing), "%s", timing);
	snprintf(cd.fifo, sizeof(cd.fifo), "p%d-attach.fifo", (int)pid);
	snprintf(cd.functions, sizeof(cd.functions), "%s", functions ? functions : "");
	int fifo = make_fifo(absdir, cd.fifo, owner);
	struct inj_regs *regs = NULL;
	struct tracee *t = fifo >= 0 ? choose_thread(&regs) : NULL;
	pid_t ctl = 0;
	bool stuck = false;
	for (size_t i = 0; i < all.n; i++)
		stuck = stuck || all.t[i].stuck;
	if (fifo >= 0 && !t && stuck)
		refuse("%s", entries_why(ETIMEDOUT));
	else if (fifo >= 0 && !t)
		refuse("none of its %zu threads came to a safe point in 5 s (each was inside libc "
		       "or the loader, or waiting on a lock)", all.n);
	if (t) {
		struct sigaction sa = {.sa_handler = on_slow};
		sigemptyset(&sa.sa_mask);
		sigaction(SIGALRM, &sa, NULL);
		alarm(10);
		ctl = inject(t, regs, &cd, &lib_st);
		alarm(0);
	}
	inj_free(regs);
	release_all(&all);
	size_t nthreads = all.n;
	free(all.t);
	all.t = NULL;
	all.n = 0;
	sigprocmask(SIG_SETMASK, &old, NULL);
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/%s", absdir, cd.fifo);
	if (!ctl) {
		if (fifo >= 0)
			close(fifo);
		unlink(path);
		if (geteuid() == 0)
			record_finish_dir(absdir, owner);
		return 2;
	}

	uint64_t t0 = mono_ms();
	if (duration_ms)
		fprintf(stderr, "scaler: attached to %d (%zu thread%s), profiling into %s for "
			"%.3g s\n", (int)pid, nthreads, nthreads == 1 ? "" : "s", dir,
			duration_ms / 1000.0);
	else
		fprintf(stderr, "scaler: attached to %d (%zu thread%s), profiling into %s until "
			"^C\n", (int)pid, nthreads, nthreads == 1 ? "" : "s", dir);
	if (rt_line[0])
		fprintf(stderr, "scaler: %s\n", rt_line);
	if (fn_line[0])
		fprintf(stderr, "%s\n", fn_line);
	else if (fn_table)
		fprintf(stderr, "scaler: %zu function entries patched; %zu refused as a thread was "
			"in them, %zu as their bytes changed (scaler report lists them); threads "
			"stopped %.1f ms\n", fn_done.done, fn_done.busy, fn_done.other,
			fn_done.stopped_us / 1000.0);
	bool ended = wait_end(duration_ms);
	if (!ended && fn_table)
		put_back_entries();
	close(fifo);                    /* the runtime's thread detaches */
	bool done = ended || wait_detached(ctl);
	unlink(path);
	if (geteuid() == 0)
		record_finish_dir(absdir, owner);
	double s = (double)(mono_ms() - t0) / 1000.0;
	if (ended)
		fprintf(stderr, "scaler: %d ended while attached (%.1f s)\n", (int)pid, s);
	else if (!done)
		fprintf(stderr, "scaler: %d has not said it detached after 10 s; its profile may "
			"still grow\n", (int)pid);
	else
		fprintf(stderr, "scaler: detached from %d after %.1f s; it runs on\n", (int)pid, s);
	return 0;
}
