/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit cache stats|clear|prune`: the disk cache of compiled kernels. Works without a GPU: it
 * uses a compile-only context, which needs neither driver nor device. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define CMD "cache"

static const char usage[] =
    "Usage: mergejit cache stats [--dir DIR] [--json]\n"
    "       mergejit cache clear [--dir DIR]\n"
    "       mergejit cache prune [--dir DIR] [--max SIZE]\n"
    "\n"
    "The disk cache of compiled kernels (cubins). Needs no GPU.\n"
    "  stats    prints the cache directory, its number of entries, their total size, its size\n"
    "           cap and whether it can be written\n"
    "  clear    removes every entry and prints how many were removed\n"
    "  prune    removes the least recently used entries (stored or loaded longest ago) until\n"
    "           the cache holds at most its cap, and prints what went and what is left\n"
    "\n"
    "Options:\n"
    "  --dir DIR     cache directory (default: $MERGEJIT_CACHE_DIR, else\n"
    "                $XDG_CACHE_HOME/mergejit, else ~/.cache/mergejit)\n"
    "  --max SIZE    prune's cap: bytes, optionally with K, M, G or T (powers of 1024), e.g.\n"
    "                500M (default: $MERGEJIT_CACHE_MAX, else 1G; 0: no cap)\n"
    "  --json        stats as one JSON object: {\"dir\": ..., \"entries\": N, \"bytes\": N,\n"
    "                \"max_bytes\": N or null (no cap), \"writable\": true or false}\n"
    "  -h, --help    show this help\n";

typedef struct cache_opts {
    const char *dir, *action, *max;
    int json;
} cache_opts;

static int take_action(void *opts, const char *arg)
{
    cache_opts *o = opts;
    if (o->action != NULL)
        return cli_usage_error(CMD, "unexpected argument '%s'", arg);
    if (strcmp(arg, "stats") != 0 && strcmp(arg, "clear") != 0 && strcmp(arg, "prune") != 0)
        return cli_usage_error(CMD, "unknown action '%s' (stats, clear or prune)", arg);
    o->action = arg;
    return CLI_OK;
}

static const cli_option options[] = {
    CLI_OPT_STRING("--dir", NULL, cache_opts, dir),
    CLI_OPT_STRING("--max", NULL, cache_opts, max),
    CLI_OPT_FLAG("--json", cache_opts, json),
    CLI_OPT_END,
};

static const cli_syntax syntax = {CMD, options, take_action, 0, 0};

int cmd_cache(int argc, char **argv)
{
    cache_opts o = {NULL, NULL, NULL, 0};

    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    int rc = cli_parse_args(&syntax, argc, argv, &o);
    if (rc != CLI_OK)
        return rc;
    if (o.action == NULL)
        return cli_usage_error(CMD, "expected an action: stats, clear or prune");
    if (o.json && strcmp(o.action, "stats") != 0)
        return cli_usage_error(CMD, "--json goes with stats");
    uint64_t max = 0; /* 0: the context's cap */
    if (o.max && strcmp(o.action, "prune") != 0)
        return cli_usage_error(CMD, "--max goes with prune");
    if (o.max && mj_cache_parse_size(o.max, &max) != MJ_OK)
        return cli_usage_error(CMD, "--max: '%s' is not a size (bytes, optionally with K, M, G "
                                    "or T, e.g. 500M; 0 for no cap)", o.max);
    const char *dir = o.dir, *action = o.action;

    mj_context_options opts;
    mj_context *ctx = NULL;
    mj_context_options_init(&opts);
    opts.flags |= MJ_CONTEXT_COMPILE_ONLY;
    opts.cache_dir = dir;
    mj_status st = mj_context_create(&opts, &ctx);
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
            if (o.json) {
                printf("{\"dir\": ");
                cli_put_json_string(stdout, mj_context_cache_dir(ctx));
                cli_put_cache_json(stdout, ctx, entries, bytes);
                printf("}\n");
            } else {
                uint64_t cap = mj_context_cache_max(ctx);
                printf("cache:   %s\n", mj_context_cache_dir(ctx));
                printf("entries: %zu\n", entries);
                printf("bytes:   %llu (%s)\n", (unsigned long long)bytes,
                       cli_format_bytes(bytes, buf, sizeof buf));
                printf("cap:     %s\n", cap == UINT64_MAX ? "none (MERGEJIT_CACHE_MAX=0)"
                                                         : cli_format_bytes(cap, buf, sizeof buf));
                if (mj_cache_check_writable(ctx) != MJ_OK)
                    printf("warning: %s; kernels are compiled again by every process\n",
                           mj_context_last_error(ctx));
            }
        }
    } else if (strcmp(action, "prune") == 0) {
        size_t removed = 0;
        uint64_t kept = 0;
        char buf[32];
        st = mj_cache_prune(ctx, max, &removed, &kept);
        if (st != MJ_OK)
            rc = cli_status_error(ctx, st);
        else
            printf("removed %zu entr%s from %s; %s left\n", removed, removed == 1 ? "y" : "ies",
                   mj_context_cache_dir(ctx), cli_format_bytes(kept, buf, sizeof buf));
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
