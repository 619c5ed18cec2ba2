/*
 * report_args.h - argument and return values (--args) in words
 * (report_args.c).
 */
#ifndef SCALER_REPORT_ARGS_H
#define SCALER_REPORT_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "argdist.h"

/* bucket b's values: "0", "1", "64..127" */
void report_args_range(char *b, size_t n, int bucket);
/* v as d's values are read (signed or not) */
void report_args_value(char *b, size_t n, const struct sc_argdist *d, uint64_t v);
/* "count 8..4096, mean 103.8; 1,000 calls (98.9%) of 64..127, 10 calls
 * (1.0%) of 4096..8191; 1 negative (errors)" */
void report_args_phrase(char *b, size_t n, const struct sc_argdist *d);
/* errno value err by its name ("EAGAIN"), or "errno 4095"; returns b */
const char *report_args_errname(char *b, size_t n, uint32_t err);

#endif
