/* empty.c - the library side of the call-rate benchmark: functions that
 * do nothing, so a call through the PLT costs only the call itself.
 * bench_empty is the one callrate.c calls by default; bench_f0..15 are
 * sixteen distinct APIs for its varied mode. */
void bench_empty(void) { __asm__ volatile(""); }

#define F(n) void bench_f##n(void) { __asm__ volatile(""); }
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)
