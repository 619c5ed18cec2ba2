/*
 * cmd_hints.c - `scaler hints [-i DIR]`: the bug-pattern hints of one
 * profile (hints.c), each with the figures that triggered it, as text or
 * JSON ("format": "scaler-hints", version 1).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hints.h"
#include "json.h"

enum { OPT_FORMAT = 256 };

static const struct cli_choice formats[] = {
	{ "text", "one line per hint" },
	{ "json", "for programs: kind, row, share and text of each hint" },
};

static const char *format_choice(size_t i, const char **help)
{
	return cli_choice_at(formats, sizeof(formats) / sizeof(formats[0]), i, help);
}

static const struct cli_opt hints_opts[] = {
	{ 'i', "input", required_argument, "DIR", CLI_DIR, NULL, "scaler.data",
	  "the profile directory to read" },
	{ OPT_FORMAT, "format", required_argument, "FMT", CLI_CHOICE, format_choice, "text",
	  "the output format:" },
	{ 'o', "output", required_argument, "FILE", CLI_FILE, NULL, NULL,
	  "write to FILE instead of standard output ('-': standard output)" },
	{ 0, NULL, 0, NULL, 0, NULL, NULL, NULL },
};

static const struct cli_cmd hints_cmd = {
	.name = "hints",
	.synopsis = "[-i DIR] [--format FMT] [-o FILE]",
	.about = "Names the bug patterns one profile shows evidence of, with the figures "
		 "that triggered each: lock contention (Wait in mutex calls), string "
		 "comparisons dominating a component, busy polling (poll or epoll at a high "
		 "rate, hardly ever blocking). Nothing is printed without evidence.",
	.operands = CLI_NONE,
	.opts = hints_opts,
};

static void write_json(FILE *o, const struct hint *h, size_t n)
{
	struct sc_json j;

	sc_json_init(&j, o);
	sc_json_begin_object(&j);
	sc_json_key(&j, "format");
	sc_json_string(&j, "scaler-hints");
	sc_json_key(&j, "version");
	sc_json_int(&j, 1);
	sc_json_key(&j, "hints");
	sc_json_begin_array(&j);
	for (size_t i = 0; i < n; i++) {
		sc_json_begin_object(&j);
		sc_json_key(&j, "kind");
		sc_json_string(&j, h[i].kind);
		sc_json_key(&j, "caller");
		sc_json_string(&j, h[i].caller);
		sc_json_key(&j, "callee");
		h[i].callee ? sc_json_string(&j, h[i].callee) : sc_json_null(&j);
		sc_json_key(&j, "api");
		h[i].api ? sc_json_string(&j, h[i].api) : sc_json_null(&j);
		sc_json_key(&j, "share_ppm");
		sc_json_int(&j, (int64_t)(h[i].share * 1e6 + 0.5));
		sc_json_key(&j, "text");
		sc_json_string(&j, h[i].text);
		sc_json_end_object(&j);
	}
	sc_json_end_array(&j);
	sc_json_end_object(&j);
	fputc('\n', o);
}

int cmd_hints(int argc, char **argv)
{
	const char *input = "scaler.data", *output = NULL;
	int format = 0, c, status = 0;
	struct sc_profile prof;
	struct sc_model model;
	struct hint *h;
	char err[1024];
	FILE *out = stdout;

	optind = 0;
	while ((c = cli_getopt(&hints_cmd, argc, argv)) != CLI_END) {
		switch (c) {
		case 'i': input = optarg; break;
		case 'o': output = optarg; break;
		case OPT_FORMAT:
			if ((format = cli_choice(&hints_cmd, c, optarg)) < 0)
				return 2;
			break;
		case CLI_EXIT: return 0;
		default: return 2;
		}
	}
	if (optind < argc)
		return cli_usage_error(&hints_cmd, "unexpected argument '%s' (the profile is -i DIR)",
				       argv[optind]);
	if (sc_profile_load(input, &prof, err, sizeof(err)) < 0) {
		fprintf(stderr, "scaler: %s\n", err);
		sc_profile_free(&prof);
		return 1;
	}
	int to_stdout = !output || !strcmp(output, "-");
	if (!to_stdout && !(out = fopen(output, "w"))) {
		fprintf(stderr, "scaler: hints: cannot write %s: %s\n", output, strerror(errno));
		sc_profile_free(&prof);
		return 1;
	}
	sc_model_build(&model, &prof);
	size_t n = hints_find(&model.agg, (long double)prof.wall_ns, &h);
	if (format == 1)
		write_json(out, h, n);
	else if (!n)
		fprintf(out, "no hints: none of the patterns shows in %s\n", input);
	else
		for (size_t i = 0; i < n; i++)
			fprintf(out, "%s\n", h[i].text);
	if (fflush(out) != 0 || ferror(out)) {
		fprintf(stderr, "scaler: hints: write error on %s: %s\n",
			to_stdout ? "stdout" : output, strerror(errno));
		status = 1;
	}
	if (out != stdout && fclose(out) != 0 && !status) {
		fprintf(stderr, "scaler: hints: write error on %s: %s\n", output, strerror(errno));
		status = 1;
	}
	free(h);
	sc_model_free(&model);
	sc_profile_free(&prof);
	return status;
}
