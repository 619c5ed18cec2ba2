/*
 * inherit.c - what an image hands down to the images it execs, so that
 * they need not measure it again: the TSC rate, what timing a call costs
 * (calib.c) and the size of the CPU's extended state (init.c). Finding
 * them out takes ~290 us (cpuid alone exits to the hypervisor on a virtual
 * machine), which every profiled process paid, however short: a build or
 * a shell script starts thousands.
 *
 * They travel in one variable that exec.c puts into the environment of
 * every exec and posix_spawn:
 *     SCALER_CALIB=<key>:<hz>:<hot>:<cold>:<nested>:<xsave>:<have_xsave>:<pid>:<gen>:
 *                  <own_in>:<own_out>
 * The rate is the one measured over the parent image's life up to the
 * exec (its start-up measures 50 us only), the cost figures those in force
 * on the calling thread (re-measured every few ms while it makes timed
 * calls). The key is a hash of what makes them valid: the machine (host
 * name, kernel, the CPU features the kernel reports in the aux vector and
 * AT_MINSIGSTKSZ, which grows with the extended state), the timing mode
 * and SCALER_BARE. An image whose key differs (an environment carried to
 * another machine by a job scheduler, a nested `scaler record
 * --timing=all`) or whose values are out of range measures them itself.
 * The first image of a run always does: `scaler record` does not set it.
 * The last two fields name the image that exec'd (its meta file's pid and
 * generation, meta.c): an exec'd image of the same pid takes the next
 * generation's name at once instead of trying each from 0 (a shell's
 * fork child that execs holds generation 0). They may be absent. The
 * last two are the own-object figures (calib.c): absent, they are 0.
 */
#include <stdlib.h>
#include <sys/auxv.h>
#include <time.h>
#include <sys/utsname.h>

#include "runtime.h"

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif

static uint64_t key;                    /* 0: not computed */
static uint64_t start_tsc, start_mono, start_hz;

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t make_key(void)
{
	struct utsname u;
	uint64_t h = 0xcbf29ce484222325ull;
	if (uname(&u) == 0) {
		h = fnv(h, u.nodename, strlen(u.nodename) + 1);
		h = fnv(h, u.release, strlen(u.release) + 1);
		h = fnv(h, u.version, strlen(u.version) + 1);
		h = fnv(h, u.machine, strlen(u.machine) + 1);
	}
	unsigned long aux[3] = {getauxval(AT_HWCAP), getauxval(AT_HWCAP2),
				getauxval(AT_MINSIGSTKSZ)};
	h = fnv(h, aux, sizeof(aux));
	int mode = sc_timing_mode;
	h = fnv(h, &mode, sizeof(mode));
	/* the size handed down is of the components saved (init.c): an
	 * image that saves others measures its own */
	unsigned skip = XS_SKIP;
	h = fnv(h, &skip, sizeof(skip));
	const char *b = sc_getenv("SCALER_BARE");
	int bare = b && !strcmp(b, "1");
	h = fnv(h, &bare, sizeof(bare));
	return h | 1;                           /* never 0 */
}

/* Reads the next ':'-separated decimal of *s into *v. */
static bool field(const char **s, uint64_t *v)
{
	const char *end;
	if (**s < '0' || **s > '9')
		return false;
	*v = sc_get_u64(*s, &end);
	if (*end != ':' && *end != 0)
		return false;
	*s = *end ? end + 1 : end;
	return true;
}

/*
 * At start-up, after the timing mode is known: the values the parent
 * handed down, if they are for this machine and mode and in range.
 */
bool sc_inherit_get(struct sc_inherited *out)
{
	key = make_key();
	const char *s = sc_getenv("SCALER_CALIB");
	uint64_t v[11];
	if (!s)
		return false;
	for (int i = 0; i < 7; i++)
		if (!field(&s, &v[i]))
			return false;
	bool image = *s && field(&s, &v[7]) && field(&s, &v[8]) && v[7] <= UINT32_MAX &&
		     v[8] <= UINT32_MAX;
	/* fields 10 and 11, the own-object figures, after the image's: a
	 * parent that did not write them hands down 0 for them, as before */
	bool own = image && *s && field(&s, &v[9]) && field(&s, &v[10]);
	if (!own)
		v[9] = v[10] = 0;
	/* a rate of 100 MHz to 100 GHz; a timing cost under 10 us; an
	 * extended state of 512 + 64 bytes (fxsave) up to 1 MB */
	if (*s || v[0] != key || v[1] < 100000000ull || v[1] > 100000000000ull ||
	    v[2] > v[1] / 100000 || v[3] > v[1] / 100000 || v[4] > v[1] / 100000 ||
	    v[5] < 576 || v[5] > (1u << 20) || v[6] > 1 || (v[6] && v[5] < 640) ||
	    v[9] > v[1] / 100000 || v[10] > v[1] / 100000)
		return false;
	*out = (struct sc_inherited){.hz = v[1], .cal = {v[2], v[3], v[4], v[9], v[10]},
				     .xsave_size = (uint32_t)v[5], .have_xsave = (int)v[6],
				     .pid = image ? (uint32_t)v[7] : 0,
				     .gen = image ? (uint32_t)v[8] : 0, .has_image = image};
	return true;
}

/* The image's clock at start-up: the rate handed down is measured from
 * here to the exec. */
void sc_inherit_set_clock(uint64_t tsc, uint64_t mono, uint64_t hz)
{
	start_tsc = tsc;
	start_mono = mono;
	start_hz = hz;
}

/*
 * "SCALER_CALIB=..." for an image about to be exec'd, into buf (n bytes);
 * false if there is nothing to hand down. Runs in vfork children too: no
 * allocation, no lock, no runtime state written.
 */
bool sc_inherit_format(char *buf, size_t n)
{
	if (!key || !start_hz)
		return false;
	/* by its system call (util.c): in a fork child the vDSO read
	 * faults in libc's clock_gettime and the kernel's time data */
	uint64_t hz = start_hz, tsc = sc_rdtsc(), mono = sc_clock_ns(CLOCK_MONOTONIC);
	/* over 1 ms the rate is known ~20 times better than from start-up's
	 * 50 us. In double, not a 128-bit integer divide: libgcc's
	 * __udivti3 lies on a page of its own at the end of the runtime's
	 * code, a page fault in every exec (a double keeps 1e-16) */
	if (mono > start_mono + 1000000ull && tsc > start_tsc)
		hz = (uint64_t)((double)(tsc - start_tsc) * 1e9 / (double)(mono - start_mono));
	struct sc_calib c = sc_calib_in_force();
	if (sc_have_xsave < 0)
		return false;
	/* by hand, not snprintf: this runs in a shell's fork child before
	 * every exec (util.c says why) */
	uint64_t v[11] = {key, hz, c.hot, c.cold, c.nested, sc_xsave_size,
			  (uint64_t)sc_have_xsave, sc_meta_pid(), sc_gen, c.own_in, c.own_out};
	char tmp[sizeof("SCALER_CALIB=") + 11 * 21];
	char *d = tmp;
	for (const char *p = "SCALER_CALIB="; *p; p++)
		*d++ = *p;
	for (int i = 0; i < 11; i++) {
		if (i)
			*d++ = ':';
		d = sc_put_u64(d, v[i]);
	}
	size_t w = (size_t)(d - tmp);
	if (w >= n)
		return false;
	sc_copy(buf, tmp, w);
	buf[w] = 0;
	return true;
}
