/* sc_t2.c - libsc_t2.so for the "tail" e2e test: tail calls through the
 * PLT (or the GOT, -fno-plt) into libsc_t3.so, built with -O2. */
long t3(long x);
void *whoami(void);
__attribute__((noinline)) long t2(long x) { return t3(x * 2); }
/* whoami must see via_tail's caller (the program), as without scaler */
__attribute__((noinline)) void *via_tail(void) { return whoami(); }
