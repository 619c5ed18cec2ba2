/*
 * signals.c - the end record when a signal ends the process.
 *
 * Counters survive any death (they are file pages), but the end time and
 * the status are only known if the runtime sees the end. For the signals
 * that stop servers (TERM, INT, HUP, QUIT) and the crashes (SEGV, BUS,
 * FPE, ILL, ABRT), whose disposition is still the default at start-up, a
 * handler writes SC_M_END and then lets the default action happen exactly
 * as it would have: the disposition is reset and the signal raised again
 * (a fault re-executes the faulting instruction), so the exit status, the
 * core dump and the parent's view are unchanged. A program that installs
 * its own handler replaces ours; ignored signals are left ignored.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "runtime.h"

SC_HIDDEN volatile int sc_in_signal;

static const int fatal[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV,
			    SIGBUS, SIGFPE, SIGILL, SIGABRT};

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	(void)uc;
	if (!sc_in_signal) {
		sc_in_signal = 1;
		sc_record_end(128 + sig, SC_END_SIGNAL);
	}
	signal(sig, SIG_DFL);
	errno = saved;
	/* A fault (si_code > 0 for SEGV/BUS/FPE/ILL) repeats when we return,
	 * now with the default action; a signal someone sent is sent again. */
	bool fault = (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) &&
		     si && si->si_code > 0;
	if (!fault)
		raise(sig);
}

void sc_signals_init(void)
{
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		struct sigaction old;
		if (sigaction(fatal[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
		    (old.sa_flags & SA_SIGINFO))
			continue;
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_fatal;
		sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | SA_RESETHAND;
		sigemptyset(&sa.sa_mask);
		sigaction(fatal[i], &sa, NULL);
	}
}

/*
 * A program that asks for a disposition must see what it would see without
 * us (Python installs its SIGINT handler only if SIGINT is SIG_DFL):
 * wrappers of sigaction and signal report our handler as SIG_DFL.
 */
static int w_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int r = sigaction(sig, act, old);
	if (r == 0 && old && (old->sa_flags & SA_SIGINFO) &&
	    (old->sa_sigaction == on_fatal || sc_control_handler((void *)old->sa_sigaction))) {
		old->sa_handler = SIG_DFL;
		old->sa_flags = 0;
		sigemptyset(&old->sa_mask);
	}
	return r;
}

static sighandler_t w_signal(int sig, sighandler_t h)
{
	sighandler_t r = signal(sig, h);
	return (void (*)(void))r == (void (*)(void))on_fatal || sc_control_handler((void *)r)
		       ? SIG_DFL : r;
}

static const struct sc_wrapper signal_wrappers[] = {
	{"sigaction", (void *)w_sigaction}, {"__sigaction", (void *)w_sigaction},
	{"signal", (void *)w_signal},       {"bsd_signal", (void *)w_signal},
	{"sysv_signal", (void *)w_signal},
};

void *sc_signal_wrapper(const char *name)
{
	return SC_WRAPPER_FIND(signal_wrappers, name);
}

void sc_signal_wrapper_names(void (*add)(const char *name))
{
	SC_WRAPPER_NAMES(signal_wrappers, add);
}
