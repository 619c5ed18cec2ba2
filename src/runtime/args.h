/*
 * args.h - argument and return values of timed calls (scaler record
 * --args, SCALER_ARGS): setup in args.c, capture in args_hot.c (called
 * from the interceptor's assembly), stub in arch/x86_64/args.S.
 */
#ifndef SCALER_RUNTIME_ARGS_H
#define SCALER_RUNTIME_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "argspec.h"
#include "runtime.h"

/* FR_TREC of a frame whose return value is wanted (never a record's
 * address); offsets.h mirrors it for the trampoline */
#define SC_ARGS_RET_TAG ((struct sc_rec *)1)

/* args.c, at start-up: reads SCALER_ARGS; false (and one warning) if it
 * is set and wrong. */
void sc_args_init(void) SC_HIDDEN;
/* whether some prototype names api (sc_entry_flags_for) */
bool sc_args_wants(const char *name) SC_HIDDEN;
/* import n of api, defined in object callee, is hooked: whether its
 * values are captured (shadow.c, under the leaf lock) */
bool sc_args_hook(uint32_t n, const char *name, uint32_t callee) SC_HIDDEN;
/* import n got entry idx: give it a slot, or clear its SC_ENT_ARGS
 * (shadow.c, under the leaf lock, before the binding is published) */
void sc_args_bind(uint32_t n, uint32_t idx) SC_HIDDEN;
/* the calling thread's .args file (thread.c, once its seq is known) */
void sc_args_thread_open(uint32_t pid, uint32_t gen, uint32_t seq) SC_HIDDEN;

/* shared by args.c and args_hot.c */
extern SC_HIDDEN struct sc_argspec sc_args_spec;
extern SC_HIDDEN uint16_t *sc_args_slot_of;             /* by entry idx: slot + 1 */
extern SC_HIDDEN uint16_t sc_args_proto_of[SC_ARGS_SLOTS]; /* by slot */
extern SC_HIDDEN __thread struct sc_args_rec *sc_tls_args; /* this thread's records */
extern SC_HIDDEN __thread int *sc_tls_errno;               /* this thread's errno */
/* malloc_usable_size of the allocator that defines free, NULL if not
 * known (args.c) */
extern SC_HIDDEN size_t (*sc_args_usable)(void *);

/* args_hot.c, general registers only (see there) */
void *sc_args_enter(const uint64_t *regs, uint64_t slot, struct sc_frame **fout) SC_HIDDEN;
void sc_args_ret(struct sc_frame *f, uint64_t rax) SC_HIDDEN;
void sc_args_stub(void) SC_HIDDEN;
extern SC_HIDDEN struct sc_entry sc_args_entries[2];

#endif
