/*
 * main.c - the "basic" e2e program: app -> libsc_a.so a_add (1000003 calls),
 * app -> libc strlen (7001), libsc_a.so -> libc strlen (5003),
 * libsc_a.so -> libsc_b.so b_mul (3001), app -> libsc_b.so b_mul (11),
 * app -> libsc_a.so a_outer (1; its internal a_inner calls are not counted).
 * Prints a checksum that must not change under scaler. See expect.
 */
#include <stdio.h>
#include <string.h>

int a_add(int x, int y);
unsigned long a_lens(const char *s, int n);
long a_chain(int n);
int a_outer(int n);
int b_mul(int x, int y);

int main(int argc, char **argv)
{
	char buf[64];
	unsigned long sum = 0;
	int acc = 0;

	(void)argv;
	snprintf(buf, sizeof(buf), "hello, scaler %d", argc);
	for (int i = 0; i < 1000003; i++)
		acc = a_add(acc, i & 0xff);
	for (int i = 0; i < 7001; i++) {
		__asm__ volatile("" : : "r"(buf) : "memory");
		sum += strlen(buf + (i % 5));
	}
	sum += a_lens(buf, 5003);
	sum += (unsigned long)a_chain(3001);
	for (int i = 0; i < 11; i++)
		sum += (unsigned long)b_mul(i, 7);
	sum += (unsigned long)a_outer(100);
	printf("acc=%d sum=%lu\n", acc, sum);
	return 0;
}
