/* empty.c - the library side of the call-rate benchmark: a function that
 * does nothing, so a call through the PLT costs only the call itself. */
void bench_empty(void) { __asm__ volatile(""); }
