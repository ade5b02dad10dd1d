/* `mergejit cache stats|clear`: the disk cache of compiled kernels. Works without a GPU: it
 * uses a compile-only context, which needs neither driver nor device. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define CMD "cache"

static const char usage[] =
    "Usage: mergejit cache stats [--dir DIR]\n"
    "       mergejit cache clear [--dir DIR]\n"
    "\n"
    "The disk cache of compiled kernels (cubins). Needs no GPU.\n"
    "  stats    prints the cache directory, its number of entries and their total size\n"
    "  clear    removes every entry and prints how many were removed\n"
    "\n"
    "Options:\n"
    "  --dir DIR     cache directory (default: $MERGEJIT_CACHE_DIR, else\n"
    "                $XDG_CACHE_HOME/mergejit, else ~/.cache/mergejit)\n"
    "  -h, --help    show this help\n";

int cmd_cache(int argc, char **argv)
{
    const char *dir = NULL, *action = NULL;

    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    for (int i = 1; i < argc; i++) {
        const char *v = NULL;
        int r;
        if ((r = cli_take(CMD, argc, argv, &i, "--dir", &v)) != 0) {
            if (r < 0)
                return CLI_USAGE;
            dir = v;
        } else if (cli_is_option(argv[i])) {
            return cli_usage_error(CMD, "unknown option '%s'", argv[i]);
        } else if (action == NULL) {
            action = argv[i];
            if (strcmp(action, "stats") != 0 && strcmp(action, "clear") != 0)
                return cli_usage_error(CMD, "unknown action '%s' (stats or clear)", action);
        } else {
            return cli_usage_error(CMD, "unexpected argument '%s'", argv[i]);
        }
    }
    if (action == NULL)
        return cli_usage_error(CMD, "expected an action: stats or clear");

    mj_context_options opts;
    mj_context *ctx = NULL;
    mj_context_options_init(&opts);
    opts.flags |= MJ_CONTEXT_COMPILE_ONLY;
    opts.cache_dir = dir;
    mj_status st = mj_context_create(&opts, &ctx);
    int rc = CLI_OK;
    if (st != MJ_OK) {
        rc = cli_status_error(ctx, st);
        mj_context_destroy(ctx);
        return rc;
    }

    if (strcmp(action, "stats") == 0) {
        size_t entries = 0;
        uint64_t bytes = 0;
        char buf[32];
        st = mj_cache_stats(ctx, &entries, &bytes);
        if (st != MJ_OK) {
            rc = cli_status_error(ctx, st);
        } else {
            printf("cache:   %s\n", mj_context_cache_dir(ctx));
            printf("entries: %zu\n", entries);
            printf("bytes:   %llu (%s)\n", (unsigned long long)bytes,
                   cli_format_bytes(bytes, buf, sizeof buf));
        }
    } else {
        size_t removed = 0;
        st = mj_cache_clear(ctx, &removed);
        if (st != MJ_OK)
            rc = cli_status_error(ctx, st);
        else
            printf("removed %zu entr%s from %s\n", removed, removed == 1 ? "y" : "ies",
                   mj_context_cache_dir(ctx));
    }
    mj_context_destroy(ctx);
    return rc;
}
