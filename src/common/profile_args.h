/*
 * profile_args.h - profile.c's way into the .args reader (profile_args.c).
 */
#ifndef SCALER_PROFILE_ARGS_H
#define SCALER_PROFILE_ARGS_H

#include <stddef.h>

#include "profile.h"

/* Adds the .args file open at fd to im's entries; 0, or -1 with why. */
int sc_profile_load_args(struct sc_profile *p, struct sc_image *im, int fd, char *why,
			 size_t whylen);
/* Scales the distributions to the entries' call counts (once all is read). */
void sc_profile_args_finish(struct sc_image *im);
void sc_profile_args_free(struct sc_image *im);

#endif
