/*
 * main.c - sc_args MODE, for checks/args.py (scaler record --args):
 *   std    write(64) x1000, write(4096) x10, one write(-1) that fails,
 *          malloc(100) x50, and calls of libsc_ac.so that check their
 *          arguments and return values: exits 1 if any came wrong
 *   small  4 MB to /dev/null in writes of 64 bytes
 *   big    the same 4 MB in writes of 4096 bytes
 * Prints what it checked.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ac_pair { long a, b; };
struct ac_pair ac_six(long a, long b, long c, long d, long e, long f);
double ac_dbl(int n, double x, double y);
double ac_var(int n, ...);

static char buf[4096];

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "std";
	int fd = open("/dev/null", O_WRONLY), bad = 0;

	if (fd < 0)
		return 2;
	memset(buf, 'x', sizeof(buf));
	if (!strcmp(mode, "small") || !strcmp(mode, "big")) {
		size_t piece = !strcmp(mode, "small") ? 64 : 4096;
		for (size_t done = 0; done < (4u << 20); done += piece)
			bad |= write(fd, buf, piece) != (ssize_t)piece;
		printf("%s %d\n", mode, bad);
		return bad;
	}
	if (strcmp(mode, "std"))
		return 2;
	for (int i = 0; i < 1000; i++)
		bad |= write(fd, buf, 64) != 64;
	for (int i = 0; i < 10; i++)
		bad |= write(fd, buf, 4096) != 4096;
	bad |= write(-1, buf, 8) != -1;
	for (int i = 0; i < 50; i++) {
		char *volatile p = malloc(100);
		bad |= !p;
		free(p);
	}
	for (int i = 0; i < 100; i++) {
		struct ac_pair p = ac_six(1, 2, 3, 4, 5, 0x123456789abcdef0L);
		bad |= p.a != 15 || p.b != 0x123456789abcdef0L;
		bad |= ac_dbl(i, 2.5, 0.5) != i * 2.5 + 0.5;
		bad |= ac_var(3, 1.5, 2.5, (double)i) != 4.0 + i;
	}
	printf("std %d\n", bad);
	return bad;
}
