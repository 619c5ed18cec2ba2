/*
 * argspec.h - which argument and return values `scaler record --args`
 * captures: the built-in prototypes of the most telling libc APIs and the
 * parser of a user's spec. The CLI checks a spec with it before running
 * anything; the runtime parses the same text (SCALER_ARGS) at start-up.
 * No allocation: a spec fits fixed arrays.
 *
 * Spec: items separated by ';'. An item is
 *   [LIB:]API=VAL,VAL,...    VAL = argN[/FMT] (N 1..6) or ret[/FMT]
 *                            (retval also), FMT d or i: signed, u, x,
 *                            o: unsigned (the default); argN/distinct:
 *                            how many distinct values; or
 *                            errors[/HOW]: failures by errno, HOW -1
 *                            (the default: -1 and errno), null (NULL
 *                            and errno), num (a nonzero int return is
 *                            the error number)
 *   TOKEN,TOKEN,...          TOKEN = default (every built-in prototype),
 *                            [LIB:]API (its built-in prototype), or
 *                            [LIB:]API:VAL (uftrace's -A/-R style)
 * LIB, when given, is the basename of the object defining API (its
 * start is enough: "libfoo" matches libfoo.so.1). "" means default.
 */
#ifndef SCALER_ARGSPEC_H
#define SCALER_ARGSPEC_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

#define SC_ARGSPEC_MAX 96       /* prototypes in one spec */
#define SC_ARGSPEC_NAME 64

enum sc_argkind {
	SC_ARGK_ARG = 1,        /* argument a (1-based) */
	SC_ARGK_PRODUCT = 2,    /* argument a times argument b */
	SC_ARGK_TIMESPEC = 3,   /* argument a points to a struct timespec: its ns */
	SC_ARGK_USABLE = 4,     /* the allocator's size of pointer argument a
				   (free: malloc_usable_size, args.c) */
	SC_ARGK_DISTINCT = 5,   /* how many distinct values argument a has */
	SC_ARGK_RET = 6,        /* the return value (rax); kinds from here on
				   are taken at the return */
	SC_ARGK_ERRNO = 7,      /* failures by errno; a: enum sc_argfail */
};

/* how a return says failure (SC_ARGK_ERRNO) */
enum sc_argfail {
	SC_FAIL_MINUS1 = 1,     /* -1 (an int with SC_ARGV_INT32), errno set */
	SC_FAIL_NULL = 2,       /* NULL, errno set */
	SC_FAIL_ERRNUM = 3,     /* a nonzero int, the error number itself */
};

/* a value's flags beyond format.h's SC_ARGV_*: a 32-bit int (the
 * register's upper half is not part of it) */
#define SC_ARGV_INT32 0x80u

struct sc_argval {
	uint8_t kind;           /* enum sc_argkind */
	uint8_t a, b;
	uint8_t flags;          /* SC_ARGV_* (format.h) */
	char name[SC_ARGS_NAME];
};

struct sc_argproto {
	char lib[SC_ARGSPEC_NAME];      /* "" : any */
	char api[SC_ARGSPEC_NAME];
	uint32_t nval;
	struct sc_argval v[SC_ARGS_NVAL];
};

struct sc_argspec {
	uint32_t n;
	struct sc_argproto p[SC_ARGSPEC_MAX];
};

/* Parses text into *out; 0, or -1 with a one-line reason in err. */
int sc_argspec_parse(const char *text, struct sc_argspec *out, char *err, size_t errlen);

/* The prototype of api defined in object lib (its path or basename), or
 * NULL. */
const struct sc_argproto *sc_argspec_find(const struct sc_argspec *s, const char *api,
					  const char *lib);

/* The built-in prototypes (sc_argspec_builtin(i) for i < count). */
size_t sc_argspec_builtin_count(void);
const struct sc_argproto *sc_argspec_builtin(size_t i);

#endif
