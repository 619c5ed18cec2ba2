/*
 * test_env.c - unit test of the runtime's reading of its settings without
 * libc's getenv and strtoull (src/runtime/env.c): the same answers as
 * theirs, for names that prefix others, empty values, and numbers with
 * trailing text or past 64 bits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "runtime.h"

int main(void)
{
	setenv("SCALER_T", "one", 1);
	setenv("SCALER_TX", "two", 1);
	setenv("SCALER_E", "", 1);
	unsetenv("SCALER_NONE");
	CHECK(sc_getenv("SCALER_T") == getenv("SCALER_T"), "the value getenv gives");
	CHECK(!strcmp(sc_getenv("SCALER_TX"), "two"), "a longer name is another variable");
	CHECK(!strcmp(sc_getenv("SCALER_E"), ""), "an empty value is a value");
	CHECK(!sc_getenv("SCALER_NONE"), "unset: NULL");
	CHECK(!sc_getenv("SCALER"), "a prefix of a name is not the name");

	const char *end;
	CHECK_EQ(sc_get_u64("12345:7", &end), 12345, "digits up to the separator");
	CHECK(*end == ':', "end at the separator");
	CHECK_EQ(sc_get_u64("", &end), 0, "no digits: 0");
	CHECK_EQ(sc_get_u64("18446744073709551615", NULL), UINT64_MAX, "the largest");
	CHECK_EQ(sc_get_u64("18446744073709551614", NULL), UINT64_MAX - 1, "one below");
	CHECK_EQ(sc_get_u64("99999999999999999999999", &end), UINT64_MAX, "past 64 bits: saturated");
	CHECK(*end == 0, "every digit consumed");
	CHECK_EQ(sc_get_u64("1000000000", NULL), strtoull("1000000000", NULL, 10), "as strtoull");
	return check_summary();
}
