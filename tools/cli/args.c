/* Command-line option matching shared by every command. */
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

int cli_take(const char *cmd, int argc, char **argv, int *i, const char *name,
             const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        if (**value == '\0') {
            cli_usage_error(cmd, "option '%s' needs a value", name);
            return -1;
        }
        return 1;
    }
    if (arg[len] != '\0')
        return 0; /* a longer option sharing the prefix */
    if (*i + 1 >= argc) {
        cli_usage_error(cmd, "option '%s' needs a value", name);
        return -1;
    }
    *i += 1;
    *value = argv[*i];
    return 1;
}
