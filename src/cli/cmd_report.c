/*
 * cmd_report.c - `scaler report`: parses the options, loads a profile
 * directory (profile.c), selects what to show (report_model.c) and hands it
 * to a writer: text for people (report_text.c), the "scaler-report"
 * version 1 JSON document for programs (report_json.c), CSV (report_csv.c)
 * or one self-contained HTML page (report_html.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "model.h"
#include "profile.h"
#include "report.h"

static void usage(FILE *f)
{
	fputs("usage: scaler report [-i DIR] [--format text|json|csv|html] [-o FILE] [options]\n"
	      "\n"
	      "  -i, --input DIR        profile directory to read (default scaler.data)\n"
	      "      --format FMT       text (default), json, csv (one row per call) or html\n"
	      "                         (one self-contained page)\n"
	      "  -o, --output FILE      write there instead of to stdout\n"
	      "      --sort KEY         order of the API rows: total (default), self, count,\n"
	      "                         avg, p99, name, attr\n"
	      "      --min-percent P    hide rows under P % of all threads' time\n"
	      "      --component NAME   only that component: its API view and the calls it makes\n"
	      "      --pid PID[.GEN]    only that process (GEN: which exec'd image of it)\n"
	      "      --threads          per-thread and thread-group tables (text)\n"
	      "      --color[=WHEN]     auto (default: on a terminal, unless NO_COLOR is set),\n"
	      "                         always or never\n"
	      "  -h, --help             this help\n",
	      f);
}

/* ---- command ----------------------------------------------------------- */

struct opts {
	const char *input, *format, *output, *component, *pid;
	const char *sort, *min_percent, *color;
	int threads;
};

/* "--name VALUE", "--name=VALUE" (and "-xVALUE" for a short name): the
 * value, advancing *i past it; NULL if argv[*i] is not this option. A
 * missing value is reported by setting *missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *shrt,
			     const char *lng, int *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(lng);

	if (!strcmp(a, lng) || (shrt && !strcmp(a, shrt))) {
		if (*i + 1 >= argc) {
			*missing = 1;
			return NULL;
		}
		return argv[++*i];
	}
	if (!strncmp(a, lng, n) && a[n] == '=')
		return a + n + 1;
	if (shrt && !strncmp(a, shrt, 2) && a[2])
		return a + 2;
	return NULL;
}

/* Returns -1 after printing the error, 1 for --help, 0 to go on. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct {
		const char *shrt, *lng;
		size_t off;
	} valued[] = {
		{ "-i", "--input", offsetof(struct opts, input) },
		{ NULL, "--format", offsetof(struct opts, format) },
		{ "-o", "--output", offsetof(struct opts, output) },
		{ NULL, "--component", offsetof(struct opts, component) },
		{ NULL, "--pid", offsetof(struct opts, pid) },
		{ NULL, "--sort", offsetof(struct opts, sort) },
		{ NULL, "--min-percent", offsetof(struct opts, min_percent) },
	};
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int missing = 0;
		size_t k;

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 1;
		}
		if (!strcmp(a, "--threads")) {
			o->threads = 1;
			continue;
		}
		if (!strcmp(a, "--color") || !strcmp(a, "--colour")) {
			o->color = "always";
			continue;
		}
		if (!strncmp(a, "--color=", 8) || !strncmp(a, "--colour=", 9)) {
			o->color = strchr(a, '=') + 1;
			continue;
		}
		for (k = 0; k < sizeof(valued) / sizeof(valued[0]); k++) {
			v = opt_value(argc, argv, &i, valued[k].shrt, valued[k].lng, &missing);
			if (v || missing)
				break;
		}
		if (missing) {
			fprintf(stderr, "scaler: report: option '%s' needs an argument\n", a);
			return -1;
		}
		if (v) {
			*(const char **)((char *)o + valued[k].off) = v;
		} else if (a[0] == '-') {
			fprintf(stderr, "scaler: report: unknown option '%s' (try: scaler report --help)\n", a);
			return -1;
		} else {
			fprintf(stderr, "scaler: report: unexpected argument '%s' (use -i DIR)\n", a);
			return -1;
		}
	}
	return 0;
}

/* Digits only, into *v (fits 32 bits); 0 on success. */
static int parse_u32(const char *s, const char *end, uint32_t *v)
{
	uint64_t x = 0;

	if (s == end)
		return -1;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
		if (x > UINT32_MAX)
			return -1;
	}
	*v = (uint32_t)x;
	return 0;
}

/* --pid PID[.GEN]: the image, or NULL after printing why not. */
static const struct sc_image *select_pid(const struct sc_profile *p, const char *arg)
{
	const char *dot = strchr(arg, '.');
	const struct sc_image *hit = NULL;
	uint32_t pid, gen = 0;
	size_t i, n = 0;

	if (parse_u32(arg, dot ? dot : arg + strlen(arg), &pid) ||
	    (dot && parse_u32(dot + 1, dot + strlen(dot), &gen))) {
		fprintf(stderr, "scaler: report: --pid wants a process id (PID or PID.GEN), not '%s'\n", arg);
		return NULL;
	}
	for (i = 0; i < p->nimages; i++)
		if (p->images[i].pid == pid) {
			n++;
			if (!dot || p->images[i].gen == gen)
				hit = &p->images[i];
		}
	if (n > 1 && !dot) {
		fprintf(stderr, "scaler: report: process %u exec'd: pick one of its %zu images "
			"with --pid %u.0 .. %u.%zu\n", pid, n, pid, pid, n - 1);
		return NULL;
	}
	if (!hit) {
		fprintf(stderr, "scaler: report: no process %s in %s (processes:", arg, p->dir);
		for (i = 0; i < p->nimages && i < 20; i++)
			fprintf(stderr, " %u%s", p->images[i].pid, p->images[i].gen ? "+" : "");
		fprintf(stderr, "%s)\n", p->nimages > 20 ? " ..." : "");
	}
	return hit;
}

static void unknown_component(const struct sc_agg *a, const char *name)
{
	size_t i;

	fprintf(stderr, "scaler: report: no component '%s' (components:", name);
	for (i = 0; i < a->ncomp; i++)
		fprintf(stderr, "%s %s", i ? "," : "", a->comp[i].name);
	fprintf(stderr, ")\n");
}

/* Check the options that need no profile; 0 or -1 after the error. */
static int check_opts(const struct opts *o, struct report *r)
{
	static const char *const formats[] = { "text", "json", "csv", "html" };
	size_t k;
	char *end;
	int sort;

	for (k = 0; k < 4 && strcmp(o->format, formats[k]); k++)
		;
	if (k == 4) {
		fprintf(stderr, "scaler: report: unknown format '%s' (text, json, csv or html)\n", o->format);
		return -1;
	}
	sort = report_sort_parse(o->sort);
	if (sort < 0) {
		fprintf(stderr, "scaler: report: unknown sort key '%s' "
			"(total, self, count, avg, p99, name or attr)\n", o->sort);
		return -1;
	}
	r->sort = (enum report_sort)sort;
	errno = 0;
	r->min_percent = strtod(o->min_percent, &end);
	if (errno || end == o->min_percent || *end || !isfinite(r->min_percent) ||
	    r->min_percent < 0 || r->min_percent > 100) {
		fprintf(stderr, "scaler: report: --min-percent wants a number from 0 to 100, not '%s'\n",
			o->min_percent);
		return -1;
	}
	if (strcmp(o->color, "auto") && strcmp(o->color, "always") && strcmp(o->color, "never")) {
		fprintf(stderr, "scaler: report: --color wants auto, always or never, not '%s'\n", o->color);
		return -1;
	}
	if (o->component && !o->component[0]) {
		fprintf(stderr, "scaler: report: --component wants a component name\n");
		return -1;
	}
	return 0;
}

/* Colour: asked for, or auto on a terminal without NO_COLOR (no-color.org:
 * set and not empty). Only the text view has any. */
static int want_color(const struct opts *o, FILE *out)
{
	const char *nc = getenv("NO_COLOR");

	if (strcmp(o->format, "text") || !strcmp(o->color, "never"))
		return 0;
	if (!strcmp(o->color, "always"))
		return 1;
	return isatty(fileno(out)) && !(nc && nc[0]);
}

int cmd_report(int argc, char **argv)
{
	struct opts o = {
		.input = "scaler.data", .format = "text", .sort = "total",
		.min_percent = "0", .color = "auto",
	};
	struct report r = { 0 };
	struct sc_profile prof;
	struct sc_model model;
	char err[1024];
	int rc, status = 0;

	rc = parse_opts(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (check_opts(&o, &r) < 0)
		return 2;
	if (sc_profile_load(o.input, &prof, err, sizeof(err)) < 0) {
		fprintf(stderr, "scaler: %s\n", err);
		sc_profile_free(&prof);
		return 1;
	}
	sc_model_build(&model, &prof);
	r.p = &prof;
	r.model = &model;
	r.agg = &model.agg;
	if (o.pid) {
		r.only = select_pid(&prof, o.pid);
		if (!r.only) {
			sc_model_free(&model);
			sc_profile_free(&prof);
			return 2;
		}
		r.agg = sc_model_image(&model, r.only);
	}
	if (o.component && !sc_agg_component(r.agg, o.component)) {
		unknown_component(r.agg, o.component);
		sc_model_free(&model);
		sc_profile_free(&prof);
		return 2;
	}
	r.out = stdout;
	if (o.output && !(r.out = fopen(o.output, "w"))) {
		fprintf(stderr, "scaler: report: cannot write %s: %s\n", o.output, strerror(errno));
		sc_model_free(&model);
		sc_profile_free(&prof);
		return 1;
	}
	r.component = o.component;
	r.threads = o.threads;
	r.timed = prof.timing_mode != SC_TIMING_NONE;
	r.color = want_color(&o, r.out);
	report_select(&r);
	if (!strcmp(o.format, "json"))
		report_json(&r);
	else if (!strcmp(o.format, "csv"))
		report_csv(&r);
	else if (!strcmp(o.format, "html"))
		report_html(&r);
	else
		report_text(&r);
	report_release(&r);
	if (fflush(r.out) != 0 || ferror(r.out)) {
		fprintf(stderr, "scaler: report: write error on %s: %s\n",
			o.output ? o.output : "stdout", strerror(errno));
		status = 1;
	}
	if (r.out != stdout && fclose(r.out) != 0 && !status) {
		fprintf(stderr, "scaler: report: write error on %s: %s\n", o.output, strerror(errno));
		status = 1;
	}
	sc_model_free(&model);
	sc_profile_free(&prof);
	return status;
}
