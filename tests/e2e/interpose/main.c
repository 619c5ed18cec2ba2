/*
 * main.c - the "interpose" e2e test: 1000 strlen calls that resolve to
 * an interposing library; prints the result and the wrapper's count.
 */
#include <stdio.h>
#include <string.h>
int wrapper_calls(void);
int main(int argc, char **argv) { (void)argv; size_t t = 0; const char *s = argc > 5 ? "x" : "hello world"; for (int i = 0; i < 1000; i++) t += strlen(s + (i & 1)); printf("%zu %d\n", t, wrapper_calls()); return 0; }
