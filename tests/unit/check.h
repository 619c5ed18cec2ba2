/*
 * check.h - the few lines of harness shared by the unit tests: one output
 * line per check, a final "N passed, M failed" line, non-zero exit status
 * on failure.
 */
#ifndef SCALER_TEST_CHECK_H
#define SCALER_TEST_CHECK_H

#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond, ...) do {                                          \
		if (cond) {                                            \
			check_passed++;                                \
			printf("ok   ");                               \
		} else {                                               \
			check_failed++;                                \
			printf("FAIL ");                               \
		}                                                      \
		printf(__VA_ARGS__);                                   \
		if (!(cond))                                           \
			printf("   [%s:%d: %s]", __FILE__, __LINE__, #cond); \
		printf("\n");                                          \
	} while (0)

/* Compare integers, printing both values on failure. */
#define CHECK_EQ(got, want, what) do {                                 \
		long long g_ = (long long)(got), w_ = (long long)(want); \
		if (g_ == w_) {                                        \
			check_passed++;                                \
			printf("ok   %s == %lld\n", what, w_);         \
		} else {                                               \
			check_failed++;                                \
			printf("FAIL %s: got %lld, want %lld   [%s:%d]\n", \
			       what, g_, w_, __FILE__, __LINE__);      \
		}                                                      \
	} while (0)

static int check_summary(void)
{
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}

#endif
