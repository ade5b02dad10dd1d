/* SPDX-License-Identifier: Apache-2.0 */
/* The mergejit command: dispatch to a command, global --help and --version. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"

static const char usage[] =
    "Usage: mergejit COMMAND [options]\n"
    "       mergejit --help | --version\n"
    "\n"
    "mergejit generates merge-sort kernels at run time, compiles them with NVRTC, caches the\n"
    "binaries on disk and runs them on the GPU.\n"
    "\n"
    "Commands:\n"
    "  demo     sort random keys on the GPU, check them against a CPU sort and time them\n"
    "           (without a GPU: build for a target and report the JIT cost)\n"
    "  sort     sort a binary file of keys (and a file of values) on the GPU\n"
    "  join     the relational join of two sorted binary key files on the GPU\n"
    "  info     versions, device, target and disk cache\n"
    "  cache    'cache stats' or 'cache clear': the disk cache of compiled kernels\n"
    "  tune     find the fastest tiles on this GPU and write them to the tuning file\n"
    "  gen      write a deployment bundle of compiled kernels (or --list one)\n"
    "\n"
    "Options:\n"
    "  -h, --help       show this help; 'mergejit COMMAND --help' for a command's options\n"
    "  -V, --version    show the version\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure or failed check, 2 bad command line.\n"
    "Environment: MERGEJIT_CACHE_DIR, else XDG_CACHE_HOME, chooses the cache directory;\n"
    "MERGEJIT_TUNING names the tuning file and MERGEJIT_BUNDLE a bundle to sort from.\n";

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"demo", cmd_demo},
    {"sort", cmd_sort},
    {"join", cmd_join},
    {"info", cmd_info},
    {"cache", cmd_cache},
    {"tune", cmd_tune},
    {"gen", cmd_gen},
};

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage_error(NULL, "expected a command: demo, sort, join, info, cache, tune or gen");

    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        printf("mergejit %s\n", mj_version());
        return CLI_OK;
    }
    if (strcmp(first, "help") == 0) { /* "mergejit help [COMMAND]" */
        if (argc < 3) {
            fputs(usage, stdout);
            return CLI_OK;
        }
        const command *c = find_command(argv[2]);
        if (c == NULL)
            return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
        char help[] = "--help";
        char *help_argv[] = {argv[2], help, NULL};
        return c->run(2, help_argv);
    }
    if (cli_is_option(first))
        return cli_usage_error(NULL, "unknown option '%s'", first);

    const command *c = find_command(first);
    if (c == NULL)
        return cli_usage_error(NULL, "unknown command '%s'", first);
    int rc = c->run(argc - 1, argv + 1);
    if (fflush(stdout) != 0 && rc == CLI_OK) {
        perror("mergejit: writing standard output");
        rc = CLI_FAILURE;
    }
    return rc;
}
