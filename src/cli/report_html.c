/* report_html.c - placeholder */
#include "report.h"
void report_html(const struct report *r) { (void)r; }
