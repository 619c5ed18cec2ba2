/*
 * exec.c - wrappers of the exec family and posix_spawn: a new image is
 * profiled into the same directory even when the program hands it an
 * environment of its own (execve with a small envp, execle, `env -i`,
 * clearenv then execv, posix_spawn with envp).
 *
 * `scaler record` tells the runtime what to do through three variables
 * (LD_PRELOAD, SCALER_DIR, SCALER_TIMING), and a fourth with --functions
 * (SCALER_FUNCTIONS). Each wrapper looks at the environment the new image
 * would get and passes a copy with any of them that is missing put back: a
 * missing variable is appended with the value this image started with, an
 * LD_PRELOAD of the program's own gets the runtime prepended. Two more
 * are always set to this image's state, in place or appended: SCALER_CALIB
 * (inherit.c), its figures, and SCALER_PAUSED, whether it is paused now
 * (control.c: --paused, scaler ctl, the control signal), with
 * SCALER_CONTROL_SIGNAL put back when missing: the new image goes on as
 * this one was, as a fork child does. Every other variable, and their
 * order, is unchanged; a SCALER_DIR that is present (a nested `scaler
 * record`) is left alone.
 *
 * These run in vfork children too, which share the parent's memory: the
 * copy lives on the wrapper's stack (mmap for an environment of more than
 * 8192 variables), nothing is allocated with malloc, no lock is taken and
 * no runtime state is touched.
 */
#include <dlfcn.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"

extern char **environ;

/* made once at start-up, kept in the runtime's own memory (mem.c) */
static const char *kv_preload = "";     /* LD_PRELOAD=<this library> */
static const char *kv_dir;
static const char *kv_timing = "SCALER_TIMING=adaptive";
static const char *kv_functions;       /* SCALER_FUNCTIONS=..., or NULL */
static const char *kv_args;            /* SCALER_ARGS=..., or NULL */
static const char *kv_signal;          /* SCALER_CONTROL_SIGNAL=..., or NULL */
static const char *self_path;           /* points into kv_preload */
static size_t self_len;

/* "key=val" kept for the process's life (mem.c); NULL if val is NULL, too
 * long for an environment entry here or there is no memory. Written by
 * hand: snprintf's code is pages of libc a small program never touches. */
static const char *kv_make(const char *key, const char *val)
{
	char buf[PATH_MAX + 32];
	if (!val || strlen(key) + 1 + strlen(val) >= sizeof(buf))
		return NULL;
	char *d = sc_put_s(sc_put_s(buf, key), "=");
	*sc_put_s(d, val) = 0;
	return sc_mem_strdup(buf);
}

/* Called at start-up, once the settings are read. */
void sc_exec_init(void)
{
	const char *pre = kv_make("LD_PRELOAD", sc_self_path());
	kv_dir = kv_make("SCALER_DIR", sc_dir);
	if (!pre || !kv_dir)
		return;
	kv_preload = pre;
	self_path = kv_preload + 11;
	self_len = strlen(self_path);
	if (sc_timing_mode == SC_TIMING_ALL)
		kv_timing = "SCALER_TIMING=all";
	else if (sc_timing_mode == SC_TIMING_NONE)
		kv_timing = "SCALER_TIMING=none";
	const char *fn = sc_getenv("SCALER_FUNCTIONS");
	if (fn && fn[0])
		kv_functions = kv_make("SCALER_FUNCTIONS", fn);
	kv_args = kv_make("SCALER_ARGS", sc_getenv("SCALER_ARGS"));
	const char *sg = sc_getenv("SCALER_CONTROL_SIGNAL");
	if (sg && sg[0])
		kv_signal = kv_make("SCALER_CONTROL_SIGNAL", sg);
}

/* Does the LD_PRELOAD value v (':' or ' ' separated) name this library?
 * Compared by hand: a shell's fork child runs this before every exec, and
 * strstr's code would be one more page it faults in. */
static bool preloads_us(const char *v)
{
	for (const char *p = v; *p;) {
		size_t n = 0;
		while (p[n] && p[n] != ':' && p[n] != ' ')
			n++;
		size_t i = 0;
		while (n == self_len && i < n && p[i] == self_path[i])
			i++;
		if (n == self_len && i == n)
			return true;
		p += n + (p[n] != 0);
	}
	return false;
}

/* Whether s starts with p, and whether s and t are the same string. By
 * hand, as preloads_us: strncmp's and strcmp's code are pages of libc a
 * fork child may not have mapped, and most variables differ at their
 * first byte. */
static bool starts(const char *s, const char *p)
{
	while (*p)
		if (*s++ != *p++)
			return false;
	return true;
}

static bool same(const char *s, const char *t)
{
	while (*s && *s == *t)
		s++, t++;
	return *s == *t;
}

#define ENV_STACK_MAX 8192

/* One exec-like call, with the environment it passes. */
enum exec_kind { EX_EXECVE, EX_EXECVPE, EX_FEXECVE, EX_EXECVEAT, EX_SPAWN, EX_SPAWNP };
struct exec_call {
	enum exec_kind kind;
	const char *path;
	int fd, flags;
	char *const *argv;
	char *const *envp;
	pid_t *pid;
	const posix_spawn_file_actions_t *fa;
	const posix_spawnattr_t *attr;
};

static int call_real(const struct exec_call *c, char *const *envp)
{
	if (c->kind != EX_SPAWN && c->kind != EX_SPAWNP)
		sc_record_exec();
	switch (c->kind) {
	case EX_EXECVE: return execve(c->path, c->argv, envp);
	case EX_EXECVPE: return execvpe(c->path, c->argv, envp);
	case EX_FEXECVE: return fexecve(c->fd, c->argv, envp);
	case EX_EXECVEAT: return execveat(c->fd, c->path, c->argv, envp, c->flags);
	case EX_SPAWN: return posix_spawn(c->pid, c->path, c->fa, c->attr, c->argv, envp);
	case EX_SPAWNP: return posix_spawnp(c->pid, c->path, c->fa, c->attr, c->argv, envp);
	}
	return -1;
}

static int exec_fixed(const struct exec_call *c)
{
	char *const *env = c->envp;
	size_t n = 0;
	int pre = -1, cal = -1, pau = -1;
	bool dir = false, timing = false, functions = !kv_functions, args = !kv_args;
	bool sig = !kv_signal;
	char kv_calib[160];
	bool nested = false;    /* another scaler record's SCALER_DIR */
	bool paused = __atomic_load_n(&sc_paused, __ATOMIC_RELAXED);
	const char *kv_paused = paused ? "SCALER_PAUSED=1" : "SCALER_PAUSED=0";
	if (!sc_active || !kv_preload[0])
		return call_real(c, env);
	for (; env && env[n]; n++) {
		const char *e = env[n], *k = e + 7;     /* past "SCALER_" */
		if (starts(e, "LD_PRELOAD="))
			pre = (int)n;
		else if (!starts(e, "SCALER_"))
			continue;
		else if (starts(k, "DIR="))
			dir = true, nested = !same(e, kv_dir);
		else if (starts(k, "TIMING="))
			timing = true;
		else if (starts(k, "FUNCTIONS="))
			functions = true;
		else if (starts(k, "ARGS="))
			args = true;
		else if (starts(k, "CALIB="))
			cal = (int)n;
		else if (starts(k, "PAUSED="))
			pau = (int)n;
		else if (starts(k, "CONTROL_SIGNAL="))
			sig = true;
	}
	bool pre_ok = pre >= 0 && preloads_us(env[pre] + 11);
	bool paused_ok = nested || (pau >= 0 ? same(env[pau], kv_paused) : !paused);
	sig = sig || nested;
	bool calib = sc_inherit_format(kv_calib, sizeof(kv_calib));
	if (pre_ok && dir && timing && functions && args && sig && !calib && paused_ok)
		return call_real(c, env);
	/* LD_PRELOAD, DIR, TIMING, FUNCTIONS, ARGS, CALIB, PAUSED, SIGNAL, NULL */
	size_t cap = n + 9,
	       bytes = cap * sizeof(char *);
	char *small[cap <= ENV_STACK_MAX ? cap : 1];
	char **v = small;
	if (cap > ENV_STACK_MAX) {
		v = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (v == MAP_FAILED)
			return call_real(c, env);
	}
	/* "LD_PRELOAD=<us>:<theirs>", when they have one without us */
	size_t plen = pre >= 0 && !pre_ok ? strlen(env[pre]) + self_len + 2 : 1;
	char joined[plen <= 65536 ? plen : 1];
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		v[k++] = env[i];
	if (pre >= 0 && !pre_ok && plen <= 65536) {
		snprintf(joined, plen, "LD_PRELOAD=%s:%s", self_path, env[pre] + 11);
		v[pre] = joined;
	} else if (pre < 0) {
		v[k++] = (char *)kv_preload;
	}
	if (!dir)
		v[k++] = (char *)kv_dir;
	if (!timing)
		v[k++] = (char *)kv_timing;
	if (!functions)
		v[k++] = (char *)kv_functions;
	if (!args)
		v[k++] = (char *)kv_args;
	if (calib && cal >= 0)
		v[cal] = kv_calib;
	else if (calib)
		v[k++] = kv_calib;
	if (!paused_ok && pau >= 0)
		v[pau] = (char *)kv_paused;
	else if (!paused_ok)
		v[k++] = (char *)kv_paused;
	if (!sig)
		v[k++] = (char *)kv_signal;
	v[k] = NULL;
	int r = call_real(c, v);
	if (v != small)
		munmap(v, bytes);
	return r;
}

static int w_execve(const char *path, char *const argv[], char *const envp[])
{
	return exec_fixed(&(struct exec_call){.kind = EX_EXECVE, .path = path, .argv = argv,
					      .envp = envp});
}

static int w_execv(const char *path, char *const argv[])
{
	return w_execve(path, argv, environ);
}

static int w_execvpe(const char *file, char *const argv[], char *const envp[])
{
	return exec_fixed(&(struct exec_call){.kind = EX_EXECVPE, .path = file, .argv = argv,
					      .envp = envp});
}

static int w_execvp(const char *file, char *const argv[])
{
	return w_execvpe(file, argv, environ);
}

static int w_fexecve(int fd, char *const argv[], char *const envp[])
{
	return exec_fixed(&(struct exec_call){.kind = EX_FEXECVE, .fd = fd, .argv = argv,
					      .envp = envp});
}

static int w_execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
		      int flags)
{
	return exec_fixed(&(struct exec_call){.kind = EX_EXECVEAT, .fd = dirfd, .path = path,
					      .argv = argv, .envp = envp, .flags = flags});
}

static int w_posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
			 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return exec_fixed(&(struct exec_call){.kind = EX_SPAWN, .pid = pid, .path = path,
					      .fa = fa, .attr = attr, .argv = argv, .envp = envp});
}

static int w_posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
			  const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return exec_fixed(&(struct exec_call){.kind = EX_SPAWNP, .pid = pid, .path = file,
					      .fa = fa, .attr = attr, .argv = argv, .envp = envp});
}

/*
 * execl, execlp, execle: the argument list becomes an argv on the stack.
 * Returns the number of arguments after arg0 up to the NULL; fills v
 * (n + 1 pointers) when it is given; *envp gets what follows the NULL.
 */
static size_t list_args(const char *arg0, va_list ap, char **v, char *const **envp)
{
	size_t n = 0;
	if (v)
		v[0] = (char *)arg0;
	for (char *a; (a = va_arg(ap, char *)); n++)
		if (v)
			v[n + 1] = a;
	if (v)
		v[n + 1] = NULL;
	if (envp)
		*envp = va_arg(ap, char *const *);
	return n;
}

#define LIST_WRAPPER(name, how, has_env)                                                   \
	static int name(const char *path, const char *arg0, ...)                            \
	{                                                                                    \
		va_list ap;                                                                  \
		va_start(ap, arg0);                                                          \
		size_t n = list_args(arg0, ap, NULL, NULL);                                  \
		va_end(ap);                                                                  \
		char *argv[n + 2];                                                           \
		char *const *envp = environ;                                                 \
		va_start(ap, arg0);                                                          \
		list_args(arg0, ap, argv, has_env ? &envp : NULL);                           \
		va_end(ap);                                                                  \
		return exec_fixed(&(struct exec_call){.kind = how, .path = path, .argv = argv,  \
						      .envp = envp});                        \
	}
LIST_WRAPPER(w_execl, EX_EXECVE, 0)
LIST_WRAPPER(w_execle, EX_EXECVE, 1)
LIST_WRAPPER(w_execlp, EX_EXECVPE, 0)

static const struct sc_wrapper exec_wrappers[] = {
	{"execve", (void *)w_execve},     {"execv", (void *)w_execv},
	{"execvpe", (void *)w_execvpe},   {"execvp", (void *)w_execvp},
	{"fexecve", (void *)w_fexecve},   {"execveat", (void *)w_execveat},
	{"execl", (void *)w_execl},       {"execle", (void *)w_execle},
	{"execlp", (void *)w_execlp},     {"posix_spawn", (void *)w_posix_spawn},
	{"posix_spawnp", (void *)w_posix_spawnp},
};

void *sc_exec_wrapper(const char *name)
{
	if (sc_attached)
		return NULL;            /* a new image of an attached process runs free */
	return SC_WRAPPER_FIND(exec_wrappers, name);
}

void sc_exec_wrapper_names(void (*add)(const char *name))
{
	SC_WRAPPER_NAMES(exec_wrappers, add);
}
