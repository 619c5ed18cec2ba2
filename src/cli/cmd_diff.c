/*
 * cmd_diff.c - `scaler diff BASE NEW`: parses the options (its table
 * below), loads each side's profile directories and their models, has
 * diff_rank.c find and rank what changed, and writes it (diff_write.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diff_rank.h"
#include "diff_write.h"
#include "xalloc.h"

enum { OPT_FORMAT = 256 };

static const struct cli_choice formats[] = {
	{ "text", "for people: the significant changes, then the largest unchanged rows" },
	{ "json", "for programs: every finding with its figures and tests" },
	{ "html", "one self-contained page" },
};

static const char *format_choice(size_t i, const char **help)
{
	return cli_choice_at(formats, sizeof(formats) / sizeof(formats[0]), i, help);
}

static const struct cli_opt diff_opts[] = {
	{ OPT_FORMAT, "format", required_argument, "FMT", CLI_CHOICE, format_choice, "text",
	  "the output format:" },
	{ 'o', "output", required_argument, "FILE", CLI_FILE, NULL, NULL,
	  "write to FILE instead of standard output ('-': standard output)" },
	{ 0, NULL, 0, NULL, 0, NULL, NULL, NULL },
};

static const struct cli_cmd diff_cmd = {
	.name = "diff",
	.synopsis = "[--format FMT] [-o FILE] BASE NEW",
	.about = "Ranks what made the profile NEW differ from BASE: per (caller, API) and per "
		 "component its calls, calls per unit of work, time, Wait and latency "
		 "distribution, each tested for a real change; the significant changes come "
		 "first, named as patterns (\"strcmp ×50 per lookup\", \"p50 ×4\", \"new "
		 "blocking in poll\"). BASE and NEW are profile directories; several "
		 "separated by commas (a1,a2,a3) give a side its run-to-run spread.",
	.operands = CLI_DIR,
	.opts = diff_opts,
};

/* Load the directories of one side ("a,b,c"); 0, or -1 after the error. */
static int load_side(const char *arg, struct diff_side *s)
{
	char *list = strdup(arg), *save = NULL, *d;
	char err[1024];

	if (!list) {
		fprintf(stderr, "scaler: diff: out of memory\n");
		return -1;
	}
	for (d = strtok_r(list, ",", &save); d; d = strtok_r(NULL, ",", &save)) {
		struct diff_run *r;

		s->runs = sc_xrealloc(s->runs, (s->nruns + 1) * sizeof(*s->runs));
		r = &s->runs[s->nruns];
		memset(r, 0, sizeof(*r));
		r->dir = strdup(d);
		if (!r->dir || sc_profile_load(d, &r->prof, err, sizeof(err)) < 0) {
			fprintf(stderr, "scaler: diff: %s\n", r->dir ? err : "out of memory");
			sc_profile_free(&r->prof);
			free((char *)r->dir);
			free(list);
			return -1;
		}
		sc_model_build(&r->model, &r->prof);
		s->nruns++;
	}
	free(list);
	if (!s->nruns) {
		fprintf(stderr, "scaler: diff: no profile directory in '%s'\n", arg);
		return -1;
	}
	return 0;
}

static void free_side(struct diff_side *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		sc_model_free(&s->runs[i].model);
		sc_profile_free(&s->runs[i].prof);
		free((char *)s->runs[i].dir);
	}
	free(s->runs);
	memset(s, 0, sizeof(*s));
}

int cmd_diff(int argc, char **argv)
{
	const char *output = NULL;
	int format = 0, c, status = 0;
	struct diff_side base = { 0 }, new_ = { 0 };
	struct diff_result res;
	FILE *out = stdout;

	optind = 0;
	while ((c = cli_getopt(&diff_cmd, argc, argv)) != CLI_END) {
		switch (c) {
		case OPT_FORMAT:
			if ((format = cli_choice(&diff_cmd, c, optarg)) < 0)
				return 2;
			break;
		case 'o': output = optarg; break;
		case CLI_EXIT: return 0;
		default: return 2;
		}
	}
	if (argc - optind != 2)
		return cli_usage_error(&diff_cmd, argc - optind < 2 ?
				       "wants two profiles: BASE NEW" :
				       "unexpected argument '%s' (two profiles: BASE NEW)",
				       argv[optind + (argc - optind < 2 ? 0 : 2)]);
	if (load_side(argv[optind], &base) < 0 || load_side(argv[optind + 1], &new_) < 0) {
		free_side(&base);
		free_side(&new_);
		return 1;
	}
	int to_stdout = !output || !strcmp(output, "-");
	if (!to_stdout && !(out = fopen(output, "w"))) {
		fprintf(stderr, "scaler: diff: cannot write %s: %s\n", output, strerror(errno));
		free_side(&base);
		free_side(&new_);
		return 1;
	}
	diff_build(&base, &new_, &res);
	if (format == 1)
		diff_json(out, &res, &base, &new_);
	else if (format == 2)
		diff_html(out, &res, &base, &new_);
	else
		diff_text(out, &res, &base, &new_);
	if (fflush(out) != 0 || ferror(out)) {
		fprintf(stderr, "scaler: diff: write error on %s: %s\n",
			to_stdout ? "stdout" : output, strerror(errno));
		status = 1;
	}
	if (out != stdout && fclose(out) != 0 && !status) {
		fprintf(stderr, "scaler: diff: write error on %s: %s\n", output, strerror(errno));
		status = 1;
	}
	diff_free(&res);
	free_side(&base);
	free_side(&new_);
	return status;
}
