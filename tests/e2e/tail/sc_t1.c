/* sc_t1.c - libsc_t1.so for the "tail" e2e test: t1 tail-calls libsc_t2.so,
 * which tail-calls libsc_t3.so: one call instruction, three cross-object
 * calls. */
long t2(long x);
__attribute__((noinline)) long t1(long x) { return t2(x + 1); }
