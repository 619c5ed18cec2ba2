/*
 * diff_write.h - the outputs of `scaler diff` (diff_write.c): text, JSON
 * and HTML of the ranked findings (diff_rank.h).
 */
#ifndef SCALER_DIFF_WRITE_H
#define SCALER_DIFF_WRITE_H

#include <stdio.h>

#include "diff_rank.h"

void diff_text(FILE *o, const struct diff_result *r, const struct diff_side *base,
	       const struct diff_side *new_);
void diff_json(FILE *o, const struct diff_result *r, const struct diff_side *base,
	       const struct diff_side *new_);
void diff_html(FILE *o, const struct diff_result *r, const struct diff_side *base,
	       const struct diff_side *new_);

#endif
