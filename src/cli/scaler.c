/*
 * scaler.c - the `scaler` command: one table of subcommands drives the
 * dispatch, the usage, `scaler help [CMD]`, "did you mean" and the list
 * the bash completion reads (`scaler --list-cmds`).
 *
 * A subcommand is a row of COMMANDS below and its cmd_<name>.c, which
 * defines int cmd_<name>(int argc, char **argv): it gets the arguments from
 * its own name on (argv[0] == "<name>"), answers --help itself (cli.h), and
 * returns the exit status: 0 ok, 1 failure, 2 usage error (or the recorded
 * command's own status, for record).
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "version.h"

/* name, one-line summary */
#define COMMANDS(X)                                                                    \
	X(record, "run a command with the profiler; write its profile directory")     \
	X(report, "show a profile (component and API views) or export it")            \
	X(live, "watch a running profile: calls and time per second, like top")      \
	X(ctl, "pause, resume, reset or snapshot the profile of a running process")  \
	X(diff, "rank what made one profile differ from another, and why")           \
	X(hints, "name the bug patterns one profile shows evidence of")              \
	X(walk, "walk a profile down to where its time goes, into the kernel")      \
	X(help, "show the help of scaler or of a command")                            \
	X(version, "print scaler's version")

#define DECLARE(name, summary) int cmd_##name(int argc, char **argv);
COMMANDS(DECLARE)

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
#define ROW(name, summary) { #name, cmd_##name, summary },
	COMMANDS(ROW)
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static const char *command_name(size_t i, const char **help)
{
	if (i >= NCOMMANDS)
		return NULL;
	if (help)
		*help = commands[i].summary;
	return commands[i].name;
}

/* report's formats, from its table of writers, wrapped under its summary */
static void formats(FILE *f)
{
	const char *name;
	int col = fprintf(f, "%12s--format", "");

	for (size_t i = 0; (name = report_writer_choice(i, NULL)); i++) {
		const char *sep = i ? "," : "";

		if (col + 2 + (int)strlen(name) > 79)
			col = fprintf(f, "%s\n%21s", sep, "") - 1 - (int)strlen(sep);
		else
			col += fprintf(f, "%s ", sep);
		col += fprintf(f, "%s", name);
	}
	fputc('\n', f);
}

static void usage(FILE *f)
{
	fputs("usage: scaler [--version] [--help] COMMAND [ARGS]\n\n"
	      "scaler counts and times every call between the components of a program\n"
	      "(its executable and shared libraries), unmodified.\n\ncommands:\n", f);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
		if (commands[i].run == cmd_report)
			formats(f);
	}
	fputs("\n'scaler help COMMAND' or 'scaler COMMAND --help' shows a command's options;\n"
	      "man scaler-COMMAND tells more.\n", f);
}

/* Unknown command: one line, with the closest name if there is one. */
static int unknown(const char *name)
{
	const char *near = cli_suggest(name, command_name);

	if (near)
		fprintf(stderr, "scaler: unknown command '%s'; did you mean '%s'? "
			"(try: scaler help)\n", name, near);
	else
		fprintf(stderr, "scaler: unknown command '%s' (try: scaler help)\n", name);
	return 2;
}

int cmd_help(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "scaler: help: one command at a time (try: scaler help)\n");
		return 2;
	}
	const struct command *c = find(argv[1]);
	if (!c)
		return unknown(argv[1]);
	if (c->run == cmd_help) {
		usage(stdout);
		return 0;
	}
	char *args[] = { (char *)c->name, "--help", NULL };
	return c->run(2, args);
}

int cmd_version(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: scaler version\n\nprints scaler's version");
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "scaler: version: unexpected argument '%s'\n", argv[1]);
		return 2;
	}
	puts("scaler " SCALER_VERSION);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *name = argv[1];
	if (!strcmp(name, "-h") || !strcmp(name, "--help"))
		return cmd_help(1, argv + 1);
	if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		return cmd_version(1, argv + 1);
	if (!strcmp(name, "--list-cmds")) {
		for (size_t i = 0; i < NCOMMANDS; i++)
			puts(commands[i].name);
		return 0;
	}
	const struct command *c = find(name);
	if (!c) {
		if (name[0] == '-') {
			fprintf(stderr, "scaler: unknown option '%s' (try: scaler help)\n", name);
			return 2;
		}
		return unknown(name);
	}
	return c->run(argc - 1, argv + 1);
}
