/*
 * cmd_walk.c - `scaler walk [-i DIR] [--threshold P] [--wall]
 * [--format text|json]`: CrossWalk's descent on one profile (walk.c), of
 * on-CPU time or with --wall of wall time, as a sentence and its steps or
 * as JSON ("format": "scaler-walk", version 1); with --deeper and a
 * command, the rounds that record it again with the hot place's callees
 * patched (walk_deeper.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "walk.h"
#include "walk_deeper.h"

enum { OPT_FORMAT = 256, OPT_THRESHOLD, OPT_DEEPER, OPT_ROUNDS, OPT_WALL };

#define ROUNDS_MAX 8

static const struct cli_choice formats[] = {
	{ "text", "a sentence saying where the time goes, then the steps" },
	{ "json", "for programs: the path's steps and the branches" },
};

static const char *format_choice(size_t i, const char **help)
{
	return cli_choice_at(formats, sizeof(formats) / sizeof(formats[0]), i, help);
}

static const struct cli_opt walk_opts[] = {
	{ 'i', "input", required_argument, "DIR", CLI_DIR, NULL, "scaler.data",
	  "the profile directory to read (with --deeper: to write, round N into DIR.N)" },
	{ OPT_THRESHOLD, "threshold", required_argument, "P", CLI_WORD, NULL, "20",
	  "descend into a child that holds at least P % of the whole time (0 < P <= 100)" },
	{ OPT_WALL, "wall", no_argument, NULL, CLI_NONE, NULL, NULL,
	  "walk the wall time, blocked time included (default: on-CPU time: less what "
	  "the calls were blocked and preempted)" },
	{ OPT_FORMAT, "format", required_argument, "FMT", CLI_CHOICE, format_choice, "text",
	  "the output format:" },
	{ OPT_DEEPER, "deeper", no_argument, NULL, CLI_NONE, NULL, NULL,
	  "record CMD, walk, and record it again with the callees of the hot place "
	  "patched (--functions), until the time splits no further" },
	{ OPT_ROUNDS, "rounds", required_argument, "N", CLI_WORD, NULL, "4",
	  "with --deeper: at most N recordings (1 to 8)" },
	{ 0, NULL, 0, NULL, 0, NULL, NULL, NULL },
};

static const struct cli_cmd walk_cmd = {
	.name = "walk",
	.synopsis = "[-i DIR] [--threshold P] [--wall] [--format FMT]\n"
		    "       scaler walk --deeper [-i DIR] [--rounds N] [options] -- CMD [ARG...]",
	.about = "Walks a profile down to where its time goes, as CrossWalk does: from the "
		 "process with the most time to the component, the API or patched function it "
		 "calls, and below a system call into the kernel (with kernel data: record "
		 "--kernel), at each level taking the child that holds at least the threshold "
		 "of the whole on-CPU time (with --wall: of the whole time, blocked included). "
		 "A child close to the chosen one is walked too, as a "
		 "branch. With --deeper, CMD is recorded and walked, then recorded again with "
		 "--functions set to the callees of the hot place, round after round; the "
		 "command's output goes to standard error.",
	.stop_at_operand = 1,
	.operands = CLI_COMMAND,
	.opts = walk_opts,
};

/* P (percent) as a share in (0, 1]; -1 if s is not one. */
static double parse_threshold(const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end != s && *end == '%')
		end++;
	if (errno || end == s || *end || !(v > 0 && v <= 100))
		return -1;
	return v / 100;
}

int cmd_walk(int argc, char **argv)
{
	struct walk_opts o = { .dir = "scaler.data", .threshold = 0.2, .rounds = 4 };
	int c, deeper = 0, status = 0;
	char err[1024], *end;
	struct walk *w;

	optind = 0;
	while ((c = cli_getopt(&walk_cmd, argc, argv)) != CLI_END) {
		switch (c) {
		case 'i': o.dir = optarg; break;
		case OPT_THRESHOLD:
			if ((o.threshold = parse_threshold(optarg)) < 0)
				return cli_usage_error(&walk_cmd, "--threshold wants a percentage "
						       "above 0 and at most 100, not '%s'", optarg);
			break;
		case OPT_FORMAT:
			if ((o.json = cli_choice(&walk_cmd, c, optarg)) < 0)
				return 2;
			break;
		case OPT_DEEPER: deeper = 1; break;
		case OPT_WALL: o.wall = 1; break;
		case OPT_ROUNDS:
			errno = 0;
			o.rounds = (unsigned)strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || o.rounds < 1 ||
			    o.rounds > ROUNDS_MAX)
				return cli_usage_error(&walk_cmd, "--rounds wants a number from 1 to %d, "
						       "not '%s'", ROUNDS_MAX, optarg);
			break;
		case CLI_EXIT: return 0;
		default: return 2;
		}
	}
	if (deeper && optind >= argc)
		return cli_usage_error(&walk_cmd, "--deeper needs a command to run "
				       "(scaler walk --deeper [options] -- CMD [ARG...])");
	if (!deeper && optind < argc)
		return cli_usage_error(&walk_cmd, "unexpected argument '%s' (the profile is -i DIR; "
				       "a command to run wants --deeper)", argv[optind]);
	if (deeper)
		return walk_deeper(&o, argv + optind, stdout);

	if (!(w = calloc(1, sizeof(*w)))) {
		perror("scaler walk");
		return 1;
	}
	if (walk_dir(o.dir, o.threshold, o.wall, w, err, sizeof(err)) < 0) {
		fprintf(stderr, "scaler: walk: %s\n", err);
		free(w);
		return 1;
	}
	if (o.json)
		walk_json(stdout, w);
	else
		walk_text(stdout, w);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "scaler: walk: write error on stdout: %s\n", strerror(errno));
		status = 1;
	}
	free(w);
	return status;
}
