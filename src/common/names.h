/*
 * names.h - turning object paths and symbol names into the names a report
 * shows. Shared by the CLI and the runtime: nothing here allocates or calls
 * outside string-level code.
 */
#ifndef SCALER_NAMES_H
#define SCALER_NAMES_H

#include <stddef.h>

/* The part of `path` after its last '/', or `path` itself when that part
 * would be empty. Never NULL for a non-NULL path; points into `path`. */
const char *sc_basename(const char *path);

/*
 * Normalise a symbol name to the API a person recognises:
 *   - a version suffix is dropped: "strlen@GLIBC_2.2.5", "foo@@V1" -> "strlen", "foo"
 *   - a glibc IFUNC variant maps to its API: "__strlen_avx2" -> "strlen",
 *     "__memmove_avx_unaligned_erms" -> "memmove"; checked variants of the
 *     fortified functions keep their own API: "__memcpy_chk_avx_unaligned"
 *     -> "__memcpy_chk".
 * Anything else is copied unchanged. The result is truncated to fit `n`
 * bytes (always NUL-terminated when n > 0). `out` may not overlap `raw`.
 */
void sc_api_name(const char *raw, char *out, size_t n);

/* Is api (as sc_api_name gives it) one where threads wait for each other:
 * SC_RENDEZVOUS_BARRIER (pthread_barrier_wait), SC_RENDEZVOUS_JOIN
 * (pthread_join and its timed forms), else 0. The thread-imbalance hint's
 * evidence (src/cli/report_model.c). */
#define SC_RENDEZVOUS_BARRIER 1
#define SC_RENDEZVOUS_JOIN 2
int sc_api_rendezvous(const char *api);

#endif
