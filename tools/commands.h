/* SPDX-License-Identifier: Apache-2.0 */
/* The mergejit tool's commands (tools/cmd_*.c), dispatched by main.c. Their helpers are the
 * mergejit_cli library (cli/cli.h). */
#ifndef MERGEJIT_TOOLS_COMMANDS_H
#define MERGEJIT_TOOLS_COMMANDS_H

/* Each gets argv[0] = the command's name and returns the process exit status (CLI_OK,
 * CLI_FAILURE or CLI_USAGE). */
int cmd_demo(int argc, char **argv);
int cmd_sort(int argc, char **argv);
int cmd_join(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_cache(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_gen(int argc, char **argv);

#endif
