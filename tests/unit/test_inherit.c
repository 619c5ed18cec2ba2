/*
 * test_inherit.c - unit test of what an image hands down to the one it
 * execs (src/runtime/inherit.c): SCALER_CALIB written by one image is read
 * back whole by the next, every calibration figure included, and the
 * shorter strings of older runtimes still read, their missing figures 0.
 * The rest of the runtime is stubbed.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime.h"

/* ---- what inherit.c uses of the rest of the runtime ------------------- */

int sc_timing_mode;
int sc_have_xsave = 1;
uint32_t sc_xsave_size = 2696;
uint32_t sc_gen = 3;
static struct sc_calib in_force = {21, 34, 55, 8, 13};
static uint64_t clock_now = 1000;

uint64_t sc_rdtsc(void) { return clock_now; }
uint64_t sc_clock_ns(clockid_t c) { (void)c; return clock_now; }
uint32_t sc_meta_pid(void) { return 4242; }
struct sc_calib sc_calib_in_force(void) { return in_force; }
char *sc_put_u64(char *d, uint64_t v)
{
	char tmp[21];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while (v /= 10);
	while (n)
		*d++ = tmp[--n];
	return d;
}

/* ---- the tests --------------------------------------------------------- */

/* SCALER_CALIB as this image would hand it down, set in the environment. */
static void hand_down(void)
{
	static char bufs[2][512];       /* putenv keeps them */
	static int next;
	char *buf = bufs[next++ % 2];
	CHECK(sc_inherit_format(buf, 512), "formatted: %s", buf);
	putenv(buf);
}

int main(void)
{
	struct sc_inherited in;

	unsetenv("SCALER_CALIB");
	CHECK(!sc_inherit_get(&in), "nothing handed down: nothing read");
	sc_inherit_set_clock(1000, 1000, 2000000000ull);
	hand_down();
	CHECK(sc_inherit_get(&in), "read back");
	CHECK_EQ(in.hz, 2000000000ull, "rate");
	CHECK_EQ(in.cal.hot, 21, "hot");
	CHECK_EQ(in.cal.cold, 34, "cold");
	CHECK_EQ(in.cal.nested, 55, "nested");
	CHECK_EQ(in.cal.own_in, 8, "own_in handed down");
	CHECK_EQ(in.cal.own_out, 13, "own_out handed down");
	CHECK_EQ(in.xsave_size, 2696, "xsave size");
	CHECK(in.has_image && in.pid == 4242 && in.gen == 3, "image named");

	/* an older runtime's string: 9 fields, then 7 */
	const char *full = getenv("SCALER_CALIB");
	char old[512];
	const char *p = full;
	for (int colons = 0; *p && colons < 9; p++)
		colons += *p == ':';
	size_t n = (size_t)(p - full) - 1;
	memcpy(old, full, n);
	old[n] = 0;
	setenv("SCALER_CALIB", old, 1);
	CHECK(sc_inherit_get(&in), "9 fields read: %s", old);
	CHECK(in.has_image && in.cal.nested == 55 && in.cal.own_in == 0 && in.cal.own_out == 0,
	      "9 fields: own figures 0");
	*strrchr(old, ':') = 0;
	*strrchr(old, ':') = 0;
	setenv("SCALER_CALIB", old, 1);
	CHECK(sc_inherit_get(&in), "7 fields read");
	CHECK(!in.has_image && in.cal.own_in == 0, "7 fields: no image, own figures 0");

	/* an own figure out of range (over 10 us) refuses the whole string */
	in_force.own_out = 2000000000ull;
	hand_down();
	CHECK(!sc_inherit_get(&in), "an own figure out of range is refused");

	return check_summary();
}
