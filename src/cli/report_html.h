/*
 * report_html.h - the assets report_html.c inlines into the page, kept in
 * report_html_assets.c so the writer's C and the page's CSS/JS read apart.
 */
#ifndef SCALER_REPORT_HTML_H
#define SCALER_REPORT_HTML_H

extern const char report_html_css[];
extern const char report_html_js[];

#include <stdio.h>

struct report;
/* A string from the profile as HTML text (report_html.c's escaping). */
void report_html_text(FILE *f, const char *s);
/* The "Over time" section of a profile with a series (report_html_series.c). */
void report_html_series(const struct report *r);

#endif
