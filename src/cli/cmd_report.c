/*
 * cmd_report.c - `scaler report`: parses the options (its table below),
 * loads a profile directory and builds its model (model.h), selects what
 * to show (report_model.c, report_match.c) and hands it to the writer
 * --format names (report_writers.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "model.h"
#include "profile.h"
#include "report.h"
#include "series.h"

/* Codes of the options with a long name only (cli.h). */
enum {
	OPT_FORMAT = 256, OPT_SORT, OPT_MIN_PERCENT, OPT_COMPONENT, OPT_PID, OPT_THREADS,
	OPT_COLOR, OPT_LIST_COMPONENTS, OPT_WEIGHT,
};

/* --color's choices, in this order */
enum { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

static const struct cli_choice color_whens[] = {
	{ "auto", "on a terminal, unless NO_COLOR is set" },
	{ "always", NULL },
	{ "never", NULL },
};

static const char *color_choice(size_t i, const char **help)
{
	return cli_choice_at(color_whens, sizeof(color_whens) / sizeof(color_whens[0]), i, help);
}

/* --weight's choices, in the order of enum report_weight */
static const struct cli_choice weights[] = {
	{ "time", "each frame's own time, in ns" },
	{ "count", "each frame's own calls" },
};

static const char *weight_choice(size_t i, const char **help)
{
	return cli_choice_at(weights, sizeof(weights) / sizeof(weights[0]), i, help);
}

static const struct cli_opt report_opts[] = {
	{ 'i', "input", required_argument, "DIR", CLI_DIR, NULL, "scaler.data",
	  "the profile directory to read" },
	{ OPT_FORMAT, "format", required_argument, "FMT", CLI_CHOICE, report_writer_choice,
	  "text", "the output format:" },
	{ OPT_WEIGHT, "weight", required_argument, "W", CLI_CHOICE, weight_choice, "time",
	  "what the folded, speedscope and pprof exports weigh their stacks by:" },
	{ 'o', "output", required_argument, "FILE", CLI_FILE, NULL, NULL,
	  "write to FILE instead of standard output ('-': standard output)" },
	{ OPT_SORT, "sort", required_argument, "KEY", CLI_CHOICE, report_sort_choice,
	  "total", "the order of the API rows (and of the JSON and CSV calls):" },
	{ OPT_MIN_PERCENT, "min-percent", required_argument, "P", CLI_WORD, NULL, "0",
	  "hide rows under P % of what they are shown against: components and "
	  "edges of all threads' time, APIs of their component's calls in "
	  "(its %in; of the calls, for --timing=none profiles)" },
	{ OPT_COMPONENT, "component", required_argument, "NAME", CLI_COMPONENT, NULL, NULL,
	  "only these components: their rows, the calls into them and the calls "
	  "they make. NAME is a whole name, a glob ('lib*') or the start of a "
	  "name (libc: libc.so.6, not libcrypto.so.3)" },
	{ OPT_PID, "pid", required_argument, "PID[.GEN]", CLI_WORD, NULL, NULL,
	  "only that process (.GEN: which exec'd image of it)" },
	{ OPT_THREADS, "threads", no_argument, NULL, CLI_NONE, NULL, NULL,
	  "the per-thread and per-thread-group tables" },
	{ OPT_COLOR, "color", optional_argument, "WHEN", CLI_CHOICE, color_choice, "auto",
	  "colour in the text view (--color alone: always):" },
	{ OPT_COLOR, "colour", optional_argument, "WHEN", CLI_CHOICE, color_choice, NULL, NULL },
	/* for the completion of --component: the profile's component names */
	{ OPT_LIST_COMPONENTS, "list-components", no_argument, NULL, CLI_NONE, NULL, NULL, NULL },
	{ 0, NULL, 0, NULL, 0, NULL, NULL, NULL },
};

static const struct cli_cmd report_cmd = {
	.name = "report",
	.synopsis = "[-i DIR] [--format FMT] [-o FILE] [options]",
	.about = "Prints the profile in DIR: the component view (each component's total and "
		 "self time, the time it spends in each other component, its Wait), the API "
		 "view (each API's calls, times and latency percentiles, per calling "
		 "component), the processes, and thread imbalance. --sort, --min-percent "
		 "and --component choose the rows of text, json, csv and html; the exports "
		 "(folded, speedscope, chrome, pprof) are the whole profile, or one --pid.",
	.operands = CLI_NONE,
	.opts = report_opts,
};

/* ---- command ----------------------------------------------------------- */

struct opts {
	const char *input, *output, *component, *pid;
	const char *min_percent;
	const struct report_writer *writer;
	int sort, color, threads, list_components, weight;
};

/* Returns CLI_EXIT, CLI_USAGE, or 0 to go on. */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	int c;

	optind = 0;     /* getopt starts afresh (and reads the "+" again) */
	while ((c = cli_getopt(&report_cmd, argc, argv)) != CLI_END) {
		switch (c) {
		case 'i': o->input = optarg; break;
		case 'o': o->output = optarg; break;
		case OPT_FORMAT:
			if (cli_choice(&report_cmd, c, optarg) < 0)
				return CLI_USAGE;
			o->writer = report_writer(optarg);
			break;
		case OPT_SORT:
			if (cli_choice(&report_cmd, c, optarg) < 0)
				return CLI_USAGE;
			o->sort = report_sort_parse(optarg);
			break;
		case OPT_WEIGHT:
			o->weight = cli_choice(&report_cmd, c, optarg);
			if (o->weight < 0)
				return CLI_USAGE;
			break;
		case OPT_MIN_PERCENT: o->min_percent = optarg; break;
		case OPT_COMPONENT: o->component = optarg; break;
		case OPT_PID: o->pid = optarg; break;
		case OPT_THREADS: o->threads = 1; break;
		case OPT_LIST_COMPONENTS: o->list_components = 1; break;
		case OPT_COLOR:
			o->color = optarg ? cli_choice(&report_cmd, c, optarg) : 1;
			if (o->color < 0)
				return CLI_USAGE;
			break;
		default:
			return c;
		}
	}
	if (optind < argc) {
		cli_usage_error(&report_cmd, "unexpected argument '%s' (the profile is -i DIR)",
				argv[optind]);
		return CLI_USAGE;
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

/* --component matched nothing: say so, with the components there are. */
static void unknown_component(const struct sc_agg *a, const char *name)
{
	size_t i;

	fprintf(stderr, "scaler: report: no component matches '%s' (components:", name);
	for (i = 0; i < a->ncomp; i++)
		fprintf(stderr, "%s %s", i ? "," : "", a->comp[i].name);
	fprintf(stderr, ")\n");
}

/* Check the options that need no profile; 0, or CLI_USAGE after the error. */
static int check_opts(const struct opts *o, struct report *r)
{
	char *end;

	errno = 0;
	r->min_percent = strtod(o->min_percent, &end);
	if (errno || end == o->min_percent || *end || !isfinite(r->min_percent) ||
	    r->min_percent < 0 || r->min_percent > 100)
		return cli_usage_error(&report_cmd, "--min-percent wants a number from 0 to 100, "
				       "not '%s'", o->min_percent), CLI_USAGE;
	if (o->component && !o->component[0])
		return cli_usage_error(&report_cmd, "--component wants a component name"), CLI_USAGE;
	r->sort = (enum report_sort)o->sort;
	return 0;
}

/* Colour: asked for, or auto on a terminal without NO_COLOR (no-color.org:
 * set and not empty). Only the text view has any. */
static int want_color(const struct opts *o, FILE *out)
{
	const char *nc = getenv("NO_COLOR");

	if (strcmp(o->writer->name, "text") || o->color == COLOR_NEVER)
		return 0;
	if (o->color == COLOR_ALWAYS)
		return 1;
	return isatty(fileno(out)) && !(nc && nc[0]);
}

/* The text view's width: the terminal's, else $COLUMNS, else 0 (120). */
static int text_cols(FILE *out)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	long v = env ? strtol(env, NULL, 10) : 0;

	if (isatty(fileno(out)) && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return v > 0 && v < 10000 ? (int)v : 0;
}

/* Matches the --component pattern against a; 0 or -1 after the error. */
static int check_component(const struct sc_agg *a, const char *pattern)
{
	const char **names = report_xcalloc(a->ncomp, sizeof(*names));
	size_t n = report_match_components(a, pattern, names);

	free(names);
	if (n)
		return 0;
	unknown_component(a, pattern);
	return -1;
}

int cmd_report(int argc, char **argv)
{
	struct opts o = {
		.input = "scaler.data", .min_percent = "0", .writer = report_writer("text"),
		.sort = SORT_TOTAL, .color = COLOR_AUTO,
	};
	struct report r = { 0 };
	struct sc_profile prof;
	struct sc_model model;
	struct series series = { 0 };
	char err[1024];
	int rc, status = 0, to_stdout;

	rc = parse_opts(argc, argv, &o);
	if (rc == 0)
		rc = check_opts(&o, &r);
	if (rc)
		return rc == CLI_EXIT ? 0 : 2;
	rc = sc_profile_load(o.input, &prof, err, sizeof(err));
	/* not into a shell's completion */
	if (!o.list_components)
		sc_profile_print_skipped(&prof, stderr);
	if (rc < 0) {
		fprintf(stderr, "scaler: %s\n", err);
		series_free(&series);
		sc_profile_free(&prof);
		return 1;
	}
	int has_series = series_load(o.input, &series, err, sizeof(err));
	if (has_series < 0) {
		fprintf(stderr, "scaler: report: %s\n", err);
		series_free(&series);
		sc_profile_free(&prof);
		return 1;
	}
	r.series = has_series ? &series : NULL;
	sc_model_build(&model, &prof);
	r.p = &prof;
	r.model = &model;
	r.agg = &model.agg;
	if (o.pid) {
		r.only = select_pid(&prof, o.pid);
		if (!r.only) {
			sc_model_free(&model);
			series_free(&series);
			sc_profile_free(&prof);
			return 2;
		}
		r.agg = sc_model_image(&model, r.only);
	}
	if (o.list_components) {
		for (size_t i = 0; i < r.agg->ncomp; i++)
			puts(r.agg->comp[i].name);
		sc_model_free(&model);
		series_free(&series);
		sc_profile_free(&prof);
		return 0;
	}
	if (o.component && check_component(r.agg, o.component) < 0) {
		sc_model_free(&model);
		series_free(&series);
		sc_profile_free(&prof);
		return 2;
	}
	to_stdout = !o.output || !strcmp(o.output, "-");
	r.out = stdout;
	if (!to_stdout && !(r.out = fopen(o.output, "w"))) {
		fprintf(stderr, "scaler: report: cannot write %s: %s\n", o.output, strerror(errno));
		sc_model_free(&model);
		series_free(&series);
		sc_profile_free(&prof);
		return 1;
	}
	r.component = o.component;
	r.threads = o.threads;
	r.weight = (enum report_weight)o.weight;
	r.timed = prof.timing_mode != SC_TIMING_NONE;
	r.color = want_color(&o, r.out);
	r.cols = text_cols(r.out);
	report_select(&r);
	o.writer->write(&r);
	report_release(&r);
	if (fflush(r.out) != 0 || ferror(r.out)) {
		fprintf(stderr, "scaler: report: write error on %s: %s\n",
			to_stdout ? "stdout" : o.output, strerror(errno));
		status = 1;
	}
	if (r.out != stdout && fclose(r.out) != 0 && !status) {
		fprintf(stderr, "scaler: report: write error on %s: %s\n", o.output, strerror(errno));
		status = 1;
	}
	sc_model_free(&model);
	series_free(&series);
	sc_profile_free(&prof);
	return status;
}
