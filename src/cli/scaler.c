/*
 * scaler.c - the command-line front end: dispatches to one cmd_<name>()
 * per subcommand (cmd_record.c, cmd_report.c).
 */
#include <stdio.h>
#include <string.h>

#include "cmds.h"

static void usage(FILE *f)
{
	fputs("usage: scaler record [-o DIR] [--timing=adaptive|all|none] [--] CMD [ARG...]\n"
	      "       scaler report [-i DIR] [--format text|json]\n"
	      "\n"
	      "record  runs CMD unmodified with the runtime preloaded; every call between\n"
	      "        the executable and its shared libraries is counted and timed into DIR\n"
	      "        (default scaler.data; an existing one is kept as DIR.old)\n"
	      "report  prints the component view and the API view of DIR\n",
	      f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	const char *cmd = argv[1];
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "--version")) {
		puts("scaler 0.1");
		return 0;
	}
	fprintf(stderr, "scaler: unknown command '%s' (try: scaler --help)\n", cmd);
	return 2;
}
