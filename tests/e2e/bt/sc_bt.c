/*
 * sc_bt.c - libsc_bt.so for the "bt" e2e test: calls back into the
 * program, which takes a backtrace from inside this (timed) call.
 */
void lib_call(void (*cb)(int), int x) { cb(x); }
