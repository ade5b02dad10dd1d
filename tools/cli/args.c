/* SPDX-License-Identifier: Apache-2.0 */
/* Command lines: the option tables every command declares, and the --help test. */
#include <string.h>

#include "cli.h"

int cli_is_option(const char *arg)
{
    return arg[0] == '-' && arg[1] != '\0';
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return 0;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    }
    return 0;
}

/* How arg spells the option: 0 (not at all), 1 (alone), 2 ("--name=value"). */
static int spells(const char *arg, const char *spelling, int flag)
{
    size_t len = strlen(spelling);
    if (strncmp(arg, spelling, len) != 0)
        return 0;
    if (arg[len] == '\0')
        return 1;
    return !flag && arg[len] == '=' ? 2 : 0; /* else a longer option sharing the prefix */
}

/* The table entry arg names, with the spelling it used; NULL when none. */
static const cli_option *find_option(const cli_option *table, const char *arg,
                                     const char **spelling, int *how)
{
    for (const cli_option *o = table; o->name != NULL; o++) {
        int flag = o->kind == CLI_FLAG;
        if ((*how = spells(arg, o->name, flag)) != 0) {
            *spelling = o->name;
            return o;
        }
        if (o->alias != NULL && (*how = spells(arg, o->alias, flag)) != 0) {
            *spelling = o->alias;
            return o;
        }
    }
    return NULL;
}

int cli_parse_args(const cli_syntax *syntax, int argc, char **argv, void *opts)
{
    const char *cmd = syntax->cmd;
    const cli_option *end = syntax->options;
    while (end->name != NULL)
        end++;
    cli_operands *kept =
        end->kind == CLI_OPERANDS ? (cli_operands *)(void *)((char *)opts + end->offset) : NULL;
    int only_operands = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (only_operands || !cli_is_option(arg)) {
            if (syntax->operand != NULL) {
                int rc = syntax->operand(opts, arg);
                if (rc != CLI_OK)
                    return rc;
            } else if (kept != NULL && kept->count < CLI_MAX_OPERANDS) {
                kept->arg[kept->count++] = arg;
            } else if (syntax->say_argument) {
                return cli_usage_error(cmd, "unknown argument '%s'", arg);
            } else {
                return cli_usage_error(cmd, "unexpected argument '%s'", arg);
            }
            continue;
        }
        if (syntax->dashdash && strcmp(arg, "--") == 0) {
            only_operands = 1;
            continue;
        }
        const char *spelling = NULL;
        int how = 0;
        const cli_option *o = find_option(syntax->options, arg, &spelling, &how);
        if (o == NULL) {
            if (syntax->say_argument)
                return cli_usage_error(cmd, "unknown argument '%s'", arg);
            return cli_usage_error(cmd, "unknown option '%s'", arg);
        }
        if (o->kind == CLI_FLAG) {
            *(int *)(void *)((char *)opts + o->offset) = 1;
            continue;
        }
        const char *value;
        if (how == 2) {
            value = arg + strlen(spelling) + 1;
            if (*value == '\0')
                return cli_usage_error(cmd, "option '%s' needs a value", spelling);
        } else {
            if (i + 1 >= argc)
                return cli_usage_error(cmd, "option '%s' needs a value", spelling);
            value = argv[++i];
        }
        if (o->kind == CLI_STRING) {
            *(const char **)(void *)((char *)opts + o->offset) = value;
        } else if (o->kind == CLI_DEVICE) {
            long l;
            if (cli_parse_int(value, 0, 1 << 20, &l) != 0)
                return cli_usage_error(cmd, "bad device ordinal '%s'", value);
            *(int *)(void *)((char *)opts + o->offset) = (int)l;
        } else if (o->kind == CLI_ORDER) {
            if (cli_parse_order(value, (mj_order *)(void *)((char *)opts + o->offset)) != 0)
                return cli_usage_error(cmd, "bad order '%s' (asc or desc)", value);
        } else if (o->kind == CLI_TYPE) {
            int rc = cli_key_type(cmd, value, (mj_key_kind *)(void *)((char *)opts + o->offset));
            if (rc != CLI_OK)
                return rc;
        } else {
            int rc = o->parse(opts, value);
            if (rc != CLI_OK)
                return rc;
        }
    }
    return CLI_OK;
}
