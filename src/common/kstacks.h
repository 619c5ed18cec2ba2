/*
 * kstacks.h - the reader's side of `scaler record --kernel`: each thread's
 * kernel stacks, sampled on CPU (.kst, format.h) or where it blocked
 * (.kso), named from the profile's kallsyms file, folded into each
 * entry's kernel functions (profile.h, sc_entry.kfuncs and okfuncs).
 */
#ifndef SCALER_KSTACKS_H
#define SCALER_KSTACKS_H

#include "profile.h"

struct sc_ksyms;
struct sc_kst_acc;

/* The kallsyms file of a profile (fd, read from its start; NULL on any
 * error or when empty). */
struct sc_ksyms *sc_ksyms_read(int fd);
void sc_ksyms_free(struct sc_ksyms *k);
/* The name of kernel address ip (a copy kept with p's strings). */
const char *sc_ksyms_name(struct sc_profile *p, const struct sc_ksyms *k, uint64_t ip);

/* Samples (off: blocked ns) per (entry, kernel function) of one image,
 * over its threads' .kst files (off: .kso files). */
struct sc_kst_acc *sc_kst_acc_new(size_t nentries, int off);
/* Folds one .kst or .kso file (fd) of image im in, as the accumulator
 * takes; a malformed one adds nothing. Returns 0, or -1 if it is not one
 * of those. */
int sc_kst_fold(struct sc_kst_acc *a, struct sc_profile *p, const struct sc_image *im, int fd,
		const struct sc_ksyms *k);
/* Gives each entry of im its kernel functions: its kernel_ticks split in
 * proportion to the samples whose stacks hold each function (inclusive),
 * largest first, at most SC_KFUNCS_MAX (off: its blocked_ticks in
 * proportion to the blocked ns, into okfuncs); frees a. */
#define SC_KFUNCS_MAX 32
void sc_kst_finish(struct sc_kst_acc *a, struct sc_image *im);

#endif
