/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit info`: versions, the device, its target and the disk cache. Informational: it exits
 * 0 whatever it finds (only a bad command line gives 2). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define CMD "info"

static const char usage[] =
    "Usage: mergejit info [--device N] [--dir DIR] [--json]\n"
    "\n"
    "Prints the mergejit, driver, NVRTC and NCCL versions (NCCL as $MERGEJIT_NCCL or the\n"
    "loader finds it; the multi-GPU sort needs it), then opens a context on the device and\n"
    "prints its name, its target sm, the cache directory and the number and size of its cache\n"
    "entries. When no context can be had (no driver, no device, ...) it says why on one line,\n"
    "still reports the cache, and exits 0.\n"
    "\n"
    "Options:\n"
    "  --device N    CUDA device ordinal (default 0)\n"
    "  --dir DIR     cache directory (default: $MERGEJIT_CACHE_DIR, else\n"
    "                $XDG_CACHE_HOME/mergejit, else ~/.cache/mergejit)\n"
    "  --json        the same as one JSON object: versions as numbers (null: not found),\n"
    "                device (null when unavailable, with device_error), cache (dir null\n"
    "                when off; cache_error when unreadable; max_bytes null: no cap;\n"
    "                writable), tuning and bundle (null: none)\n"
    "  -h, --help    show this help\n";

static void print_reason(const char *what, const mj_context *ctx, mj_status st)
{
    printf("%s (%s: ", what, mj_status_name(st));
    cli_put_one_line(stdout, mj_context_last_error(ctx));
    printf(")\n");
}

static void print_cache(mj_context *ctx)
{
    const char *dir = mj_context_cache_dir(ctx);
    size_t entries = 0;
    uint64_t bytes = 0;
    char buf[32];

    if (dir == NULL || dir[0] == '\0') {
        printf("cache:   off\n");
        return;
    }
    printf("cache:   %s\n", dir);
    mj_status st = mj_cache_stats(ctx, &entries, &bytes);
    if (st != MJ_OK) {
        print_reason("entries: unavailable", ctx, st);
        return;
    }
    printf("entries: %zu (%s", entries, cli_format_bytes(bytes, buf, sizeof buf));
    uint64_t cap = mj_context_cache_max(ctx);
    printf(" of %s)\n", cap == UINT64_MAX ? "no cap" : cli_format_bytes(cap, buf, sizeof buf));
    st = mj_cache_check_writable(ctx);
    if (st != MJ_OK)
        print_reason("warning: the cache cannot be written; every process compiles again", ctx,
                     st);
}

/* The disk cache, then the tuning file and bundle the context read. */
static void print_files(mj_context *ctx)
{
    print_cache(ctx);
    const char *tuning = mj_context_tuning_file(ctx), *bundle = mj_context_bundle(ctx);
    printf("tuning:  %s\n", tuning[0] ? tuning : "none (built-in tiles)");
    printf("bundle:  %s\n", bundle[0] ? bundle : "none");
}

/* ---------------------------------------------------------------- --json */

static void json_version(const char *name, int version)
{
    if (version)
        printf("  \"%s\": %d,\n", name, version);
    else
        printf("  \"%s\": null,\n", name);
}

static void json_error(const char *name, const mj_context *ctx, mj_status st)
{
    printf("  \"%s\": {\"status\": \"%s\", \"message\": ", name, mj_status_name(st));
    cli_put_json_string(stdout, mj_context_last_error(ctx));
    printf("},\n");
}

/* The cache, tuning file and bundle of ctx (NULL: no context could be had). */
static void json_files(mj_context *ctx)
{
    const char *dir = ctx ? mj_context_cache_dir(ctx) : "";
    size_t entries = 0;
    uint64_t bytes = 0;
    mj_status st = dir[0] ? mj_cache_stats(ctx, &entries, &bytes) : MJ_OK;
    if (st != MJ_OK)
        json_error("cache_error", ctx, st);
    printf("  \"cache\": {\"dir\": ");
    cli_put_json_string(stdout, dir[0] ? dir : NULL);
    if (dir[0] && st == MJ_OK)
        cli_put_cache_json(stdout, ctx, entries, bytes);
    printf("},\n");
    const char *tuning = ctx ? mj_context_tuning_file(ctx) : "";
    const char *bundle = ctx ? mj_context_bundle(ctx) : "";
    printf("  \"tuning\": ");
    cli_put_json_string(stdout, tuning[0] ? tuning : NULL);
    printf(",\n  \"bundle\": ");
    cli_put_json_string(stdout, bundle[0] ? bundle : NULL);
    printf("\n");
}

/* ---------------------------------------------------------------- both forms */

/* A context on the device, else one compile-only (the cache needs no GPU), each failure
 * printed in the form asked for; *on_device says which. NULL when neither could be had. */
static mj_context *open_context(mj_context_options *opts, int json, int *on_device)
{
    mj_context *ctx = NULL;
    mj_status st = mj_context_create(opts, &ctx);
    *on_device = st == MJ_OK;
    if (st == MJ_OK)
        return ctx;
    if (json) {
        printf("  \"device\": null,\n");
        json_error("device_error", ctx, st);
    } else {
        char what[48];
        snprintf(what, sizeof what, "device %d: unavailable", opts->device);
        print_reason(what, ctx, st);
    }
    mj_context_destroy(ctx);

    ctx = NULL;
    opts->flags |= MJ_CONTEXT_COMPILE_ONLY;
    st = mj_context_create(opts, &ctx);
    if (st == MJ_OK)
        return ctx;
    if (json)
        json_error("cache_error", ctx, st);
    else
        print_reason("cache:   unavailable", ctx, st);
    mj_context_destroy(ctx);
    return NULL;
}

static void print_all(mj_context_options *opts, int json)
{
    char buf[32];
    if (json) {
        printf("{\n  \"version\": ");
        cli_put_json_string(stdout, mj_version());
        printf(",\n");
        json_version("driver", mj_driver_version());
        json_version("nvrtc", mj_nvrtc_version());
        json_version("nccl", mj_nccl_version());
    } else {
        printf("mergejit %s\n", mj_version());
        printf("driver:  %s\n", cli_format_version(mj_driver_version(), buf, sizeof buf));
        printf("nvrtc:   %s\n", cli_format_version(mj_nvrtc_version(), buf, sizeof buf));
        printf("nccl:    %s\n", cli_format_nccl_version(mj_nccl_version(), buf, sizeof buf));
    }

    int on_device;
    mj_context *ctx = open_context(opts, json, &on_device);
    if (on_device && json) {
        printf("  \"device\": {\"ordinal\": %d, \"name\": ", opts->device);
        cli_put_json_string(stdout, mj_context_device_name(ctx));
        printf(", \"target_sm\": %d},\n", mj_context_target_sm(ctx));
    } else if (on_device) {
        printf("device %d: %s\n", opts->device, mj_context_device_name(ctx));
        printf("target:  sm_%d\n", mj_context_target_sm(ctx));
    }
    if (json) {
        json_files(ctx);
        printf("}\n");
    } else if (ctx) {
        print_files(ctx);
    }
    mj_context_destroy(ctx);
}

typedef struct info_opts {
    const char *dir;
    int device, json;
} info_opts;

static const cli_option options[] = {
    CLI_OPT_DEVICE(info_opts, device),
    CLI_OPT_STRING("--dir", NULL, info_opts, dir),
    CLI_OPT_FLAG("--json", info_opts, json),
    CLI_OPT_END,
};

static const cli_syntax syntax = {CMD, options, NULL, 0, 0};

int cmd_info(int argc, char **argv)
{
    info_opts o = {NULL, 0, 0};

    if (cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        return CLI_OK;
    }
    int rc = cli_parse_args(&syntax, argc, argv, &o);
    if (rc != CLI_OK)
        return rc;
    mj_context_options opts;
    mj_context_options_init(&opts);
    opts.device = o.device;
    opts.cache_dir = o.dir;
    print_all(&opts, o.json);
    return CLI_OK;
}
