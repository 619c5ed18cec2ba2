/*
 * test_cli.c - unit test of the option tables (src/cli/cli.c) and of
 * --component's matching (src/cli/report_match.c): the edit distance and
 * "did you mean", getopt_long driven by a table (short and long names,
 * --opt=value and --opt value, "--", stopping at the first operand, the
 * usage errors), the generated help, and which components a pattern picks.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "check.h"

static const char *fruit(size_t i, const char **help)
{
	static const char *const names[] = { "apple", "banana", "cherry", "date" };

	if (i >= sizeof(names) / sizeof(names[0]))
		return NULL;
	if (help)
		*help = "a fruit";
	return names[i];
}

static void distance(void)
{
	CHECK_EQ(cli_distance("record", "record"), 0, "distance record record");
	CHECK_EQ(cli_distance("recod", "record"), 1, "distance recod record (deletion)");
	CHECK_EQ(cli_distance("reprot", "report"), 1, "distance reprot report (transposition)");
	CHECK_EQ(cli_distance("jsn", "json"), 1, "distance jsn json");
	CHECK_EQ(cli_distance("", "abc"), 3, "distance '' abc");
	CHECK_EQ(cli_distance("kitten", "sitting"), 3, "distance kitten sitting");
	CHECK(cli_suggest("banan", fruit) && !strcmp(cli_suggest("banan", fruit), "banana"),
	      "suggest banan -> banana");
	CHECK(cli_suggest("chery", fruit) && !strcmp(cli_suggest("chery", fruit), "cherry"),
	      "suggest chery -> cherry");
	CHECK(cli_suggest("ch", fruit) && !strcmp(cli_suggest("ch", fruit), "cherry"),
	      "suggest ch -> cherry (the only name it starts)");
	CHECK(cli_suggest("xylophone", fruit) == NULL, "no suggestion for xylophone");
	CHECK(cli_suggest("pear", fruit) == NULL, "no suggestion for pear");
}

enum { OPT_FRUIT = 256, OPT_FLAG, OPT_MAYBE };

static const struct cli_opt opts[] = {
	{ 'o', "output", required_argument, "FILE", CLI_FILE, NULL, "out.txt", "where to write" },
	{ OPT_FRUIT, "fruit", required_argument, "NAME", CLI_CHOICE, fruit, "apple", "a fruit:" },
	{ OPT_FLAG, "flag", no_argument, NULL, CLI_NONE, NULL, NULL, "a flag" },
	{ OPT_MAYBE, "flavour", optional_argument, "F", CLI_CHOICE, fruit, NULL, "maybe:" },
	{ 0, NULL, 0, NULL, 0, NULL, NULL, NULL },
};
static const struct cli_cmd cmd = { "try", "[options] ARG...", "Tries things.", 0, CLI_FILE, opts };
static const struct cli_cmd cmd_plus = { "run", "[options] CMD", NULL, 1, CLI_COMMAND, opts };

/* Parses argv (NULL-terminated) with c: the keys (and "=optarg") seen,
 * space-separated, and the operands after "|". */
static const char *parse(const struct cli_cmd *c, char **argv)
{
	static char out[512];
	int argc = 0, k;

	while (argv[argc])
		argc++;
	out[0] = 0;
	optind = 0;
	while ((k = cli_getopt(c, argc, argv)) != CLI_END) {
		size_t n = strlen(out);

		if (k == CLI_USAGE || k == CLI_EXIT) {
			snprintf(out + n, sizeof(out) - n, "%s", k == CLI_USAGE ? "USAGE" : "EXIT");
			return out;
		}
		snprintf(out + n, sizeof(out) - n, "%s%d%s%s ", k < 256 ? "-" : "#", k,
			 optarg ? "=" : "", optarg ? optarg : "");
	}
	strcat(out, "|");
	for (; optind < argc; optind++) {
		strcat(out, " ");
		strcat(out, argv[optind]);
	}
	return out;
}

#define PARSE(c, want, ...) do {                                               \
		char *argv_[] = { (char *)(c)->name, __VA_ARGS__, NULL };       \
		const char *got_ = parse(c, argv_);                             \
		CHECK(!strcmp(got_, want), "%s: '%s' (want '%s')", #__VA_ARGS__, got_, want); \
	} while (0)

static void getopt_table(void)
{
	FILE *saved = stderr;

	/* the usage errors go to stderr: keep the test's output readable */
	stderr = fopen("/dev/null", "w");
	PARSE(&cmd, "-111=a | x", "-o", "a", "x");
	PARSE(&cmd, "-111=a | x", "-oa", "x");
	PARSE(&cmd, "-111=a | x", "--output=a", "x");
	PARSE(&cmd, "-111=a | x", "--output", "a", "x");
	PARSE(&cmd, "-111=a | x", "--out", "a", "x");
	PARSE(&cmd, "#256=banana #257 | x y", "x", "--fruit=banana", "y", "--flag");
	PARSE(&cmd, "#257 | --fruit x", "--flag", "--", "--fruit", "x");
	PARSE(&cmd, "#258 #258=date |", "--flavour", "--flavour=date");
	PARSE(&cmd_plus, "#257 | ls --flag -o x", "--flag", "ls", "--flag", "-o", "x");
	PARSE(&cmd_plus, "| ls", "--", "ls");
	PARSE(&cmd, "USAGE", "--bogus");
	PARSE(&cmd, "USAGE", "-z");
	PARSE(&cmd, "USAGE", "--output");
	PARSE(&cmd, "USAGE", "-o");
	PARSE(&cmd, "USAGE", "--flag=1");
	PARSE(&cmd, "USAGE", "--fl");      /* --flag or --flavour */
	fclose(stderr);
	stderr = saved;

	CHECK_EQ(cli_choice(&cmd, OPT_FRUIT, "cherry"), 2, "choice cherry");
	saved = stderr;
	stderr = fopen("/dev/null", "w");
	CHECK_EQ(cli_choice(&cmd, OPT_FRUIT, "chery"), -1, "choice chery refused");
	fclose(stderr);
	stderr = saved;

	/* the errors themselves: one line each, naming the option, with the
	 * closest name when there is one */
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");
	saved = stderr;
	stderr = f;
	{
		char *a[] = { "try", "--flavor", NULL };
		optind = 0;
		cli_getopt(&cmd, 2, a);
	}
	cli_choice(&cmd, OPT_FRUIT, "chery");
	{
		char *a[] = { "try", "--fl", NULL };
		optind = 0;
		cli_getopt(&cmd, 2, a);
	}
	fclose(f);
	stderr = saved;
	int same = !strcmp(buf, "scaler: try: unknown option '--flavor'; did you mean '--flavour'? "
			   "(try: scaler try --help)\n"
			   "scaler: try: unknown --fruit 'chery'; did you mean 'cherry'? "
			   "(one of apple, banana, cherry, date)\n"
			   "scaler: try: option '--fl' is ambiguous: --flag, --flavour "
			   "(try: scaler try --help)\n");
	CHECK(same, "error lines%s%s", same ? "" : ":\n", same ? "" : buf);

	/* the help names every option, its argument, default and values */
	f = fmemopen(buf, sizeof(buf), "w");
	cli_help(&cmd, f);
	fclose(f);
	CHECK(strstr(buf, "usage: scaler try [options] ARG...\n") != NULL, "help: usage line");
	CHECK(strstr(buf, "  -o, --output FILE") && strstr(buf, "(default: out.txt)"),
	      "help: -o FILE and its default");
	CHECK(strstr(buf, "--fruit NAME") && strstr(buf, "a fruit (default: apple):") &&
	      strstr(buf, "  date") && strstr(buf, "--flavour[=F]") && strstr(buf, "-h, --help"),
	      "help: choices, optional argument, --help");
	int longest = 0;
	for (char *l = buf; *l; ) {
		int n = (int)strcspn(l, "\n");
		if (n > longest)
			longest = n;
		l += n + (l[n] == '\n');
	}
	CHECK(longest <= 79, "help lines fit 79 columns (longest %d)", longest);
}

static struct sc_component comps[] = {
	{ .name = "app" }, { .name = "libc.so.6" }, { .name = "libcrypto.so.3" },
	{ .name = "libc++.so.1" }, { .name = "libm.so.6" }, { .name = "libc-2.31.so" },
};

static const char *match(const char *pattern)
{
	static char out[256];
	struct sc_agg a = { 0 };
	const char *names[8];
	size_t n, i;

	a.comp = comps;
	a.ncomp = sizeof(comps) / sizeof(comps[0]);
	n = report_match_components(&a, pattern, names);
	out[0] = 0;
	for (i = 0; i < n; i++) {
		strcat(out, i ? " " : "");
		strcat(out, names[i]);
	}
	return out;
}

#define MATCH(pattern, want) do {                                              \
		const char *got_ = match(pattern);                              \
		CHECK(!strcmp(got_, want), "--component %s: '%s' (want '%s')", pattern, got_, want); \
	} while (0)

static void components(void)
{
	MATCH("libc.so.6", "libc.so.6");
	MATCH("libc", "libc.so.6 libc++.so.1 libc-2.31.so");
	MATCH("libcr", "libcrypto.so.3");
	MATCH("lib*", "libc.so.6 libcrypto.so.3 libc++.so.1 libm.so.6 libc-2.31.so");
	MATCH("*.so.6", "libc.so.6 libm.so.6");
	MATCH("lib[m]*", "libm.so.6");
	MATCH("ap", "app");
	MATCH("nope", "");
	MATCH("libz*", "");
}

int main(void)
{
	distance();
	getopt_table();
	components();
	return check_summary();
}
