/*
 * cli.h - the option tables of scaler's subcommands (cli.c).
 *
 * Each subcommand describes its options once, in a table of struct
 * cli_opt. From that table come the getopt_long parsing (short and long
 * names, --opt=value and --opt value, "--"), the --help text, the one-line
 * usage errors with a "did you mean", and the list the bash completion
 * reads (`scaler CMD --list-opts`). A new option is a row in the table and
 * a case in the subcommand's switch; its help cannot fall out of date.
 */
#ifndef SCALER_CLI_H
#define SCALER_CLI_H

#include <stddef.h>
#include <stdio.h>

/* What an option's argument (or a subcommand's operands) is: tells the
 * completion what to offer. */
enum cli_kind {
	CLI_NONE,       /* no argument / no operands */
	CLI_FILE,       /* a file name */
	CLI_DIR,        /* a directory name */
	CLI_WORD,       /* anything (a number, a name): nothing to offer */
	CLI_CHOICE,     /* one of the option's choices */
	CLI_COMMAND,    /* a command and its arguments (record's CMD [ARG...]) */
	CLI_COMPONENT,  /* a component of the profile (`report --list-components`) */
};

/* The i-th choice of an option (its description in *help when help is not
 * NULL), or NULL past the last one. */
typedef const char *cli_choice_fn(size_t i, const char **help);

/* A fixed list of choices, and the i-th of n of them as a cli_choice_fn
 * would answer (a subcommand's choice function calls it on its list). */
struct cli_choice {
	const char *name, *help;
};
const char *cli_choice_at(const struct cli_choice *list, size_t n, size_t i, const char **help);

struct cli_opt {
	int key;                /* what getopt_long returns: the short letter,
				   or a code >= 256 for an option with a long
				   name only */
	const char *name;       /* the long name, without "--" */
	int has_arg;            /* no_argument, required_argument, optional_argument */
	const char *arg;        /* the argument's name in the help ("DIR"), or NULL */
	enum cli_kind kind;     /* what the argument is */
	cli_choice_fn *choices; /* CLI_CHOICE: the values it takes */
	const char *def;        /* the default, shown in the help; or NULL */
	const char *help;       /* one line, or more separated by '\n'; NULL
				   for an alias that the help does not show */
};

struct cli_cmd {
	const char *name;       /* "report" */
	const char *synopsis;   /* what follows "scaler NAME" in the usage line */
	const char *about;      /* paragraphs for the help, after the usage line */
	int stop_at_operand;    /* options end at the first operand (record's CMD) */
	enum cli_kind operands; /* what the operands are, for the completion */
	const struct cli_opt *opts; /* ends with a row whose name is NULL */
};

/* Special results of cli_getopt. */
enum {
	CLI_END = -1,   /* no more options: the operands start at optind */
	CLI_EXIT = -2,  /* --help or --list-opts was printed: exit 0 */
	CLI_USAGE = -3, /* a usage error was printed: exit 2 */
};

/* The next option of argv (argv[0] is the subcommand's name), as
 * getopt_long: its key with optarg set, or one of the results above. -h,
 * --help and --list-opts are every subcommand's and handled here. Set
 * optind to 0 before the first call, so that getopt starts afresh. */
int cli_getopt(const struct cli_cmd *c, int argc, char **argv);

/* "scaler: NAME: <message> (try: scaler NAME --help)" on stderr; returns 2,
 * the exit status of a usage error. */
__attribute__((format(printf, 2, 3)))
int cli_usage_error(const struct cli_cmd *c, const char *fmt, ...);

/* "scaler: CMD: <message>" (without "CMD: " when cmd is NULL) on stderr;
 * returns status, the command's exit status for it. */
__attribute__((format(printf, 3, 4)))
int cli_fail(int status, const char *cmd, const char *fmt, ...);

/* The value of a CLI_CHOICE option: the index of its choice, or -1 after
 * the usage error (which names the choices and the closest one). */
int cli_choice(const struct cli_cmd *c, int key, const char *value);

/* The --help text of c. */
void cli_help(const struct cli_cmd *c, FILE *f);

/* Edit distance (insertions, deletions, substitutions, transpositions of
 * adjacent characters) between a and b, capped at 100. */
size_t cli_distance(const char *a, const char *b);

/* The candidate closest to word, if it is close enough to be a likely typo
 * (distance at most a third of the longer word, at least 1; or word is the
 * start of exactly one candidate); NULL if none is. */
const char *cli_suggest(const char *word, cli_choice_fn *candidates);

#endif
