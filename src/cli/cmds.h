/*
 * cmds.h - the subcommands of the `scaler` front end (scaler.c). Each gets
 * the arguments from its own name on (argv[0] == "record", "report", ...)
 * and returns the process exit status: 0 ok, 1 failure, 2 usage error.
 */
#ifndef SCALER_CMDS_H
#define SCALER_CMDS_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);

#endif
