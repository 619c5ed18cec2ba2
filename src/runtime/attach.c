/*
 * attach.c - the runtime started in a process that is already running
 * (scaler record -p, src/cli/record_attach.c), and its detaching.
 *
 * scaler record -p stops one of the program's threads at a safe point
 * (not inside the loader or malloc), makes it call dlopen on this library
 * (RTLD_NODELETE: it is never unloaded) and then scaler_attach, and
 * resumes it; the program's other threads run throughout. The process's
 * environment cannot change, so what the preloaded runtime reads from it
 * comes as arguments: the profile directory, the timing mode and the name
 * of a FIFO there. scaler_attach starts the runtime as the constructor
 * would, with these differences:
 *  - GOT slots are patched while the threads run (8-byte aligned stores,
 *    patch.c); the value each held is noted (unpatch.c). Calls already in
 *    flight are not seen; threads get their files at their first call.
 *  - function entries (--functions: scaler_attach's patterns) get their
 *    code, but their jumps are written by scaler with every thread
 *    stopped, and put back at the detach (fnsites.c). No handler for
 *    fatal signals is installed, and new images (exec) and fork children
 *    run unprofiled.
 *  - a thread of the runtime's own ("scaler-attach", every signal
 *    blocked, no intercepted calls) waits on the FIFO, whose other end
 *    scaler holds: when scaler closes it, or dies, the thread detaches.
 * Detaching, under both locks: the runtime stops for good (sc_detached),
 * every slot gets its old value back and every import forgets its entry
 * (unpatch.c), every patched function is paused (an entry scaler could
 * not put back sends its calls straight on), an END record says when (SC_END_DETACH), and the
 * descriptors are closed. The code stays mapped, as do the threads' files:
 * a timed call in flight still returns through the trampoline.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fnsite.h"
#include "runtime.h"

SC_HIDDEN int sc_attached;
SC_HIDDEN int sc_detached;

static int ctl_fd = -1;
static int ctl_tid;

/* Stops profiling for good (see the top). From the control thread. */
static void detach(void)
{
	sc_lock();
	sc_leaf_lock();
	sc_detached = 1;
	sc_unpatch_detach();
	sc_functions_pause(true);
	sc_record_end(-1, SC_END_DETACH);
	sc_active = 0;
	sc_meta_close();
	sc_threads_close();
	sc_files_close();
	sc_leaf_unlock();
	sc_unlock();
}

static void *control(void *arg)
{
	(void)arg;
	prctl(PR_SET_NAME, "scaler-attach", 0, 0, 0);
	__atomic_store_n(&ctl_tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	char b[64];
	for (;;) {
		ssize_t r = read(ctl_fd, b, sizeof(b));
		if (r > 0 || (r < 0 && errno == EINTR))
			continue;
		break;                  /* scaler closed its end, or died */
	}
	detach();
	close(ctl_fd);
	ctl_fd = -1;
	return NULL;
}

/* The control thread, every signal blocked (the program's signals are for
 * its own threads); its tid, or -1. */
static int start_control(void)
{
	pthread_attr_t a;
	pthread_t th;
	sigset_t all, old;
	if (pthread_attr_init(&a) != 0)
		return -1;
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&th, &a, control, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&a);
	if (e != 0) {
		errno = e;
		return -1;
	}
	for (int i = 0; i < 2000 && !__atomic_load_n(&ctl_tid, __ATOMIC_ACQUIRE); i++)
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	return __atomic_load_n(&ctl_tid, __ATOMIC_ACQUIRE);
}

/*
 * The command line as /proc/self/cmdline shows it now, split into argv
 * (attached, the constructor's argv is long gone): in static storage,
 * since the call runs on one of the program's stacks. Returns argc.
 */
static int read_cmdline(char ***argv)
{
	static char buf[SC_META_ROOM] SC_LARGE_BSS;
	static char *args[256] SC_LARGE_BSS;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC), argc = 0;
	size_t len = 0;

	if (fd >= 0) {
		ssize_t r;
		while (len < sizeof(buf) - 1 &&
		       (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
			len += (size_t)r;
		close(fd);
	}
	buf[len] = 0;
	for (size_t i = 0; i < len && argc < (int)(sizeof(args) / sizeof(args[0])); argc++) {
		args[argc] = buf + i;
		i += strlen(buf + i) + 1;
	}
	*argv = args;
	return argc;
}

/*
 * Called by scaler record -p in a thread it stopped (with
 * scaler_attach_sites, fnsites.c, the entry points the library exports).
 * dir: the profile directory (absolute); timing: "adaptive", "all" or
 * "none"; fifo: a FIFO's name in dir; fn: --functions' patterns in, the
 * table of entries to write out (fnsite.h). Returns the control thread's
 * tid, or -1 with a one-line reason in err (n bytes); on failure nothing
 * of the program is left changed.
 */
__attribute__((visibility("default"))) long scaler_attach(const char *dir, const char *timing,
							  const char *fifo, char *err, size_t n,
							  struct sc_attach_fns *fn);
long scaler_attach(const char *dir, const char *timing, const char *fifo, char *err, size_t n,
		   struct sc_attach_fns *fn)
{
	if (sc_active || sc_attached || sc_dir[0]) {
		snprintf(err, n, "the runtime has run in this process before");
		return -1;
	}
	sc_warn_capture(err, n);
	sc_attached = 1;
	int tid = -1;
	char **argv;
	int argc = read_cmdline(&argv);
	sc_fnsites_begin((const char *)(uintptr_t)fn->spec);
	int started = sc_start(dir, timing, argc, argv);
	sc_lock();
	sc_fnsites_end_defer();         /* a dlopen from now on writes its own */
	sc_unlock();
	fn->table = 0;
	if (started == 0) {
		ctl_fd = sc_file_open_fifo(fifo);
		if (ctl_fd < 0)
			sc_warn("cannot open %s/%s: %s", dir, fifo, strerror(errno));
		else if ((tid = start_control()) <= 0) {
			sc_warn("cannot start a thread: %s", strerror(errno));
			tid = -1;
		}
		if (tid < 0) {
			detach();               /* scaler wrote no jump yet */
			if (ctl_fd >= 0)
				close(ctl_fd);
			ctl_fd = -1;
		}
	} else {
		/* never patched: only what start-up opened is closed */
		sc_detached = 1;
		sc_meta_close();
		sc_files_close();
	}
	if (tid > 0)
		fn->table = sc_fnsites_table();
	if (tid < 0 && !err[0])
		snprintf(err, n, "cannot start the runtime");
	sc_warn_capture(NULL, 0);
	return tid;
}

/*
 * In the child of a fork (one thread, the locks fresh): the child of an
 * attached process is not profiled, and its copy of the slots and of its
 * thread's counters must not reach the parent's files: the slots are put
 * back, its patched functions paused (scaler puts back the parent's entries
 * alone), the thread's mapping of its file (shared with the parent) is
 * replaced by private memory its calls in flight still book into, and the
 * descriptors are closed.
 */
void sc_attach_child(void)
{
	sc_detached = 1;
	sc_unpatch_detach();
	sc_functions_pause(true);       /* its copy of the entries: calls go straight on */
	struct sc_thread *t = sc_tls_thread;
	if (t && t != &sc_idle_thread && t->hdr)
		mmap(t->hdr, t->map_len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
	sc_active = 0;
	sc_meta_close();
	sc_threads_close();
	sc_files_close();
	if (ctl_fd >= 0)
		close(ctl_fd);
	ctl_fd = -1;
}
