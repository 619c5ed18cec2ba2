/*
 * cli.c - option parsing, help and usage errors of scaler's subcommands,
 * all made from their option tables (cli.h).
 *
 * The getopt_long arrays are built from the table on every call (a few
 * rows), so a subcommand holds no parser state of its own. getopt's own
 * messages are off (opterr = 0): ours name the subcommand, say what was
 * wrong in one line, and offer the closest option or value.
 */
#include <getopt.h>
#include <stdarg.h>
#include <string.h>

#include "cli.h"

#define MAX_OPTS 48
#define HELP_COL 24             /* where an option's description starts */
#define WIDTH 79                /* of the help text */
#define KEY_LIST_OPTS 0x7f00    /* --list-opts, for the completion */

/* The hidden options every subcommand has. */
static const struct cli_opt common_opts[] = {
	{ 'h', "help", no_argument, NULL, CLI_NONE, NULL, NULL, "this help" },
	{ KEY_LIST_OPTS, "list-opts", no_argument, NULL, CLI_NONE, NULL, NULL, NULL },
};

/* The i-th option of c: its own, then the common ones; NULL past them. */
static const struct cli_opt *opt_at(const struct cli_cmd *c, size_t i)
{
	size_t n = 0;

	while (c->opts[n].name)
		n++;
	if (i < n)
		return &c->opts[i];
	i -= n;
	return i < sizeof(common_opts) / sizeof(common_opts[0]) ? &common_opts[i] : NULL;
}

static const struct cli_opt *opt_by_key(const struct cli_cmd *c, int key)
{
	const struct cli_opt *o;

	for (size_t i = 0; (o = opt_at(c, i)); i++)
		if (o->key == key)
			return o;
	return NULL;
}

/* Long names as candidates for cli_suggest (a file-scope cursor: the
 * suggestion is made once, just before the process exits). */
static const struct cli_cmd *suggest_cmd;

static const char *long_name_at(size_t i, const char **help)
{
	const struct cli_opt *o = opt_at(suggest_cmd, i);

	if (help)
		*help = NULL;
	return o ? o->name : NULL;
}

int cli_usage_error(const struct cli_cmd *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "scaler: %s: ", c->name);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (try: scaler %s --help)\n", c->name);
	va_end(ap);
	return 2;
}

int cli_fail(int status, const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "scaler: %s%s", cmd ? cmd : "", cmd ? ": " : "");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return status;
}

/* A value that is not one of an option's choices: the line says them all. */
__attribute__((format(printf, 2, 3)))
static void choice_error(const struct cli_cmd *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "scaler: %s: ", c->name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Prints what was wrong with the option getopt_long refused: an unknown
 * short or long option, an ambiguous abbreviation, an argument missing or
 * not wanted. arg is the word it was in. */
static void option_error(const struct cli_cmd *c, int what, const char *arg)
{
	const struct cli_opt *o = optopt ? opt_by_key(c, optopt) : NULL;
	int is_long = arg && !strncmp(arg, "--", 2);

	if (what == ':') {
		if (is_long)
			cli_usage_error(c, "option '--%s' needs an argument", o ? o->name : "?");
		else
			cli_usage_error(c, "option '-%c' needs an argument", optopt);
		return;
	}
	if (!is_long) {
		cli_usage_error(c, "unknown option '-%c'", optopt);
		return;
	}
	if (o) {
		cli_usage_error(c, "option '--%s' takes no argument", o->name);
		return;
	}
	/* an unknown long option, or the start of more than one */
	char name[64];
	size_t len = strcspn(arg + 2, "=");
	const struct cli_opt *p;
	char many[256] = "";
	int n = 0;

	snprintf(name, sizeof(name), "%.*s", (int)len, arg + 2);
	for (size_t i = 0; (p = opt_at(c, i)); i++) {
		if (p->help && !strncmp(p->name, name, len)) {
			size_t k = strlen(many);

			snprintf(many + k, sizeof(many) - k, "%s--%s", n ? ", " : "", p->name);
			n++;
		}
	}
	if (n > 1 && len > 0) {
		cli_usage_error(c, "option '--%s' is ambiguous: %s", name, many);
		return;
	}
	suggest_cmd = c;
	const char *near = cli_suggest(name, long_name_at);
	if (near)
		cli_usage_error(c, "unknown option '--%s'; did you mean '--%s'?", name, near);
	else
		cli_usage_error(c, "unknown option '--%s'", name);
}

/*
 * For the completion: one line per option, "--NAME SHORT ARG KIND
 * [CHOICE...]" (SHORT "-x" or "-"; ARG none, required or optional; KIND
 * none, file, dir, word, choice or component), then "-- KIND" for the
 * operands (none, file, dir, word or command).
 */
static void list_opts(const struct cli_cmd *c)
{
	static const char *const kinds[] = {
		[CLI_NONE] = "none", [CLI_FILE] = "file", [CLI_DIR] = "dir",
		[CLI_WORD] = "word", [CLI_CHOICE] = "choice", [CLI_COMMAND] = "command",
		[CLI_COMPONENT] = "component",
	};
	static const char *const args[] = {
		[no_argument] = "none", [required_argument] = "required",
		[optional_argument] = "optional",
	};
	const struct cli_opt *o;

	for (size_t i = 0; (o = opt_at(c, i)); i++) {
		if (o->key == KEY_LIST_OPTS)
			continue;
		printf("--%s ", o->name);
		if (o->key < 256)
			printf("-%c", o->key);
		else
			putchar('-');
		printf(" %s %s", args[o->has_arg], kinds[o->kind]);
		if (o->kind == CLI_CHOICE) {
			const char *v;

			for (size_t k = 0; (v = o->choices(k, NULL)); k++)
				printf(" %s", v);
		}
		putchar('\n');
	}
	printf("-- %s\n", kinds[c->operands]);
}

int cli_getopt(const struct cli_cmd *c, int argc, char **argv)
{
	struct option longopts[MAX_OPTS + 1];
	char shortopts[2 * MAX_OPTS + 3];
	const struct cli_opt *o;
	size_t n = 0, k = 0;

	if (c->stop_at_operand)
		shortopts[k++] = '+';
	shortopts[k++] = ':';
	for (size_t i = 0; (o = opt_at(c, i)) && n < MAX_OPTS; i++) {
		longopts[n++] = (struct option){ o->name, o->has_arg, NULL, o->key };
		if (o->key < 256) {
			shortopts[k++] = (char)o->key;
			if (o->has_arg == required_argument)
				shortopts[k++] = ':';
		}
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	shortopts[k] = 0;

	opterr = 0;
	int r = getopt_long(argc, argv, shortopts, longopts, NULL);
	switch (r) {
	case 'h':
		cli_help(c, stdout);
		return CLI_EXIT;
	case KEY_LIST_OPTS:
		list_opts(c);
		return CLI_EXIT;
	case '?':
	case ':':
		option_error(c, r, optind > 0 && optind <= argc ? argv[optind - 1] : NULL);
		return CLI_USAGE;
	}
	return r;
}

/*
 * Prints text at column col of the line, which is at column at now (on a
 * line of its own if at is there already), words wrapped to WIDTH columns
 * and every line starting at column col; '\n' starts a new line.
 */
static void wrap(FILE *f, const char *text, int col, int at)
{
	int on_line = 0;        /* words of text on the current line */

	if (at >= col && at > 0) {
		fputc('\n', f);
		at = 0;
	}
	while (*text) {
		size_t len = strcspn(text, " \n");

		if (on_line && at + 1 + (int)len > WIDTH) {
			fputc('\n', f);
			at = 0;
			on_line = 0;
		}
		if (!on_line) {
			at += fprintf(f, "%*s", col - at, "");
		} else {
			fputc(' ', f);
			at++;
		}
		at += fprintf(f, "%.*s", (int)len, text);
		on_line++;
		text += len;
		if (*text == '\n') {
			fputc('\n', f);
			at = 0;
			on_line = 0;
		}
		if (*text)
			text++;
	}
	fputc('\n', f);
}

void cli_help(const struct cli_cmd *c, FILE *f)
{
	const struct cli_opt *o;

	fprintf(f, "usage: scaler %s %s\n\n", c->name, c->synopsis);
	if (c->about) {
		wrap(f, c->about, 0, 0);
		fputc('\n', f);
	}
	fputs("options:\n", f);
	for (size_t i = 0; (o = opt_at(c, i)); i++) {
		char head[64], text[1024];
		int at;

		if (!o->help)
			continue;
		if (o->key < 256)
			at = snprintf(head, sizeof(head), "  -%c, --%s", o->key, o->name);
		else
			at = snprintf(head, sizeof(head), "      --%s", o->name);
		if (o->arg && o->has_arg == optional_argument)
			at += snprintf(head + at, sizeof(head) - (size_t)at, "[=%s]", o->arg);
		else if (o->arg)
			at += snprintf(head + at, sizeof(head) - (size_t)at, " %s", o->arg);
		fputs(head, f);
		/* "the output format:" becomes "the output format (default: text):" */
		size_t hl = strlen(o->help);
		int colon = hl && o->help[hl - 1] == ':';
		if (o->def)
			snprintf(text, sizeof(text), "%.*s (default: %s)%s", (int)(hl - (size_t)colon),
				 o->help, o->def, colon ? ":" : "");
		else
			snprintf(text, sizeof(text), "%s", o->help);
		wrap(f, text, HELP_COL, at);
		if (o->kind == CLI_CHOICE) {
			const char *v, *h;

			for (size_t k = 0; (v = o->choices(k, &h)); k++) {
				at = fprintf(f, "%*s%s", HELP_COL + 2, "", v);
				if (h && *h)
					wrap(f, h, HELP_COL + 14, at);
				else
					fputc('\n', f);
			}
		}
	}
}

int cli_choice(const struct cli_cmd *c, int key, const char *value)
{
	const struct cli_opt *o = opt_by_key(c, key);
	const char *v, *near;
	char all[256] = "";
	size_t i;

	for (i = 0; (v = o->choices(i, NULL)); i++) {
		size_t len = strlen(all);

		if (!strcmp(v, value))
			return (int)i;
		snprintf(all + len, sizeof(all) - len, "%s%s", i ? ", " : "", v);
	}
	near = cli_suggest(value, o->choices);
	if (near)
		choice_error(c, "unknown --%s '%s'; did you mean '%s'? (one of %s)",
			     o->name, value, near, all);
	else
		choice_error(c, "unknown --%s '%s' (one of %s)", o->name, value, all);
	return -1;
}

const char *cli_choice_at(const struct cli_choice *list, size_t n, size_t i, const char **help)
{
	if (i >= n)
		return NULL;
	if (help)
		*help = list[i].help;
	return list[i].name;
}

size_t cli_distance(const char *a, const char *b)
{
	enum { MAX = 100 };
	size_t la = strnlen(a, MAX), lb = strnlen(b, MAX);
	/* three rows of the Damerau-Levenshtein (optimal string alignment) table */
	size_t d0[MAX + 1], d1[MAX + 1], d2[MAX + 1];
	size_t *prev2 = d0, *prev = d1, *cur = d2;

	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

const char *cli_suggest(const char *word, cli_choice_fn *candidates)
{
	const char *best = NULL, *v, *prefixed = NULL;
	size_t best_d = (size_t)-1, len = strlen(word), nprefixed = 0;

	for (size_t i = 0; (v = candidates(i, NULL)); i++) {
		size_t d = cli_distance(word, v);
		size_t lv = strlen(v);
		size_t limit = (len > lv ? len : lv) / 3;

		if (len && !strncmp(v, word, len)) {
			prefixed = v;
			nprefixed++;
		}
		if (d <= (limit ? limit : 1) && d < best_d) {
			best = v;
			best_d = d;
		}
	}
	if (best)
		return best;
	return nprefixed == 1 ? prefixed : NULL;
}
