/* SPDX-License-Identifier: Apache-2.0 */
/* The mergejit tool's exit statuses and messages without a GPU: --help, the demo building for
 * the target, saying on one line that there is no GPU, with its build split per program, then
 * loading from the disk cache; and bad command lines. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_support.h"

/* ---------------------------------------------------------------- the tool */

static int count_lines_with(const char *text, const char *needle) {
    int n = 0;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *copy = strndup(line, len);
        ck_assert_ptr_nonnull(copy);
        n += strstr(copy, needle) != NULL;
        free(copy);
        line += len + (nl != NULL);
    }
    return n;
}

/* Whether the first line of text that starts with prefix holds needle. */
static int line_has(const char *text, const char *prefix, const char *needle) {
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (!strncmp(line, prefix, strlen(prefix))) {
            char *copy = strndup(line, len);
            ck_assert_ptr_nonnull(copy);
            int has = strstr(copy, needle) != NULL;
            free(copy);
            return has;
        }
        line += len + (nl != NULL);
    }
    return 0;
}

START_TEST(tool)
{
    static const char *const help[] = {"--help", NULL};
    mjt_tool_run r = mjt_run_tool(help, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert_msg(strstr(r.out, "Usage") != NULL, "--help printed:\n%s", r.out);
    mjt_tool_run_free(&r);

    static const char *const demo_help[] = {"demo", "--help", NULL};
    r = mjt_run_tool(demo_help, NULL);
    ck_assert_int_eq(r.status, 0);
    ck_assert(strstr(r.out, "Usage: mergejit demo") != NULL);
    mjt_tool_run_free(&r);

    /* No GPU: the demo says so on one line, builds for the target and succeeds. */
    char *cache = mjt_tmpdir();
    char cache_env[4200];
    snprintf(cache_env, sizeof cache_env, "MERGEJIT_CACHE_DIR=%s", cache);
    const char *const env[] = {"MERGEJIT_LIBCUDA=/nonexistent", cache_env, NULL};

    /* info and cache stats as JSON: without a driver, the device's error and an empty cache
     * (cache clear takes no --json: a bad command line). */
    static const char *const info_json[] = {"info", "--json", NULL};
    r = mjt_run_tool(info_json, env);
    ck_assert_msg(r.status == 0, "info --json exited %d:\n%s", r.status, r.err);
    ck_assert_msg(strncmp(r.out, "{\n  \"version\": \"", 16) == 0 &&
                      strstr(r.out, "  \"driver\": null,\n") != NULL &&
                      strstr(r.out, "  \"device\": null,\n") != NULL &&
                      strstr(r.out, "\"device_error\": {\"status\": \"MJ_ERR_NO_DRIVER\", "
                                    "\"message\": \"") != NULL &&
                      strstr(r.out, "\"entries\": 0, \"bytes\": 0, \"max_bytes\": 1073741824, "
                                    "\"writable\": true},\n") != NULL &&
                      strstr(r.out, "  \"bundle\": null\n}\n") != NULL,
                  "info --json printed:\n%s", r.out);
    mjt_tool_run_free(&r);
    static const char *const stats_json[] = {"cache", "stats", "--json", NULL};
    r = mjt_run_tool(stats_json, env);
    ck_assert_msg(r.status == 0 && strncmp(r.out, "{\"dir\": \"", 9) == 0 &&
                      strstr(r.out, "\", \"entries\": 0, \"bytes\": 0, \"max_bytes\": "
                                    "1073741824, \"writable\": true}\n") != NULL,
                  "cache stats --json exited %d:\n%s%s", r.status, r.out, r.err);
    mjt_tool_run_free(&r);
    static const char *const clear_json[] = {"cache", "clear", "--json", NULL};
    r = mjt_run_tool(clear_json, env);
    ck_assert_msg(r.status == 2 && strstr(r.err, "--json goes with stats") != NULL,
                  "cache clear --json exited %d:\n%s", r.status, r.err);
    mjt_tool_run_free(&r);
    static const char *const demo[] = {"demo", "--n", "1000", NULL};
    r = mjt_run_tool(demo, env);
    ck_assert_msg(r.status == 0, "demo exited %d:\n%s\n%s", r.status, r.out, r.err);
    ck_assert_msg(count_lines_with(r.out, "no GPU") == 1, "demo printed:\n%s", r.out);
    ck_assert_msg(count_lines_with(r.out, "/nonexistent") == 1, "demo printed:\n%s", r.out);
    /* Its build line splits the cold build of every kernel the sorter's sorts may launch, one
     * program each: the blocksort, the fused 2-way merge, the 4-way passes' merge and two
     * partitions (no 2-way partition, the passes being fused). */
    ck_assert_msg(count_lines_with(r.out, "build: compiled with NVRTC in") == 1 &&
                      line_has(r.out, "build:", "(5 programs on ") &&
                      count_lines_with(r.out, " + ptxas ") == 1,
                  "demo printed:\n%s", r.out);
    mjt_tool_run_free(&r);
    /* Another NT (half the demo's, the same VT and blocksort) shares the blocksort and the
     * 4-way partitions: only the merges compile. */
    mj_context *ctx = mjt_compile_context(90, cache);
    mj_tile t;
    ck_assert_int_eq(mj_context_tile(ctx, MJ_MERGESORT, 4, 0, &t), MJ_OK);
    mj_context_destroy(ctx);
    char tile[64];
    snprintf(tile, sizeof tile, "MERGEJIT_TILE=%dx%dx%d", t.nt / 2, t.vt, t.bs_nt);
    const char *const env_nt[] = {"MERGEJIT_LIBCUDA=/nonexistent", cache_env, tile, NULL};
    r = mjt_run_tool(demo, env_nt);
    ck_assert_msg(r.status == 0 && line_has(r.out, "build:", "(2 programs on "),
                  "demo printed:\n%s", r.out);
    mjt_tool_run_free(&r);
    /* The first tile again: its module from the disk cache. */
    r = mjt_run_tool(demo, env);
    ck_assert_msg(count_lines_with(r.out, "build: loaded from the disk cache in") == 1 &&
                      count_lines_with(r.out, "programs on") == 0,
                  "demo printed:\n%s", r.out);
    mjt_tool_run_free(&r);
    /* demo --json: its lines on stderr, one JSON object on stdout; without a GPU, "built". A
     * bad command line is refused before anything runs (no JSON). */
    static const char *const demo_json[] = {"demo", "--n", "1000", "--json", NULL};
    r = mjt_run_tool(demo_json, env);
    static const char json_head[] =
        "{\"primitive\": \"mergesort\", \"type\": \"u32\", \"n\": 1000, \"value_size\": 0, "
        "\"order\": \"ascending\", \"seed\": 1, \"gpus\": 0, \"gpu\": false, \"device\": null, "
        "\"sm\": 90, \"build\": {\"source\": \"disk\", \"ms\": ";
    ck_assert_msg(r.status == 0 && count_lines_with(r.out, "") == 1 &&
                      strncmp(r.out, json_head, sizeof json_head - 1) == 0 &&
                      strstr(r.out, "\"median_ms\": [], \"gkeys_per_s\": null, \"result\": "
                                    "\"built\", \"exit\": 0}\n") != NULL &&
                      count_lines_with(r.err, "no GPU") == 1,
                  "demo --json exited %d:\n%s\nstderr:\n%s", r.status, r.out, r.err);
    mjt_tool_run_free(&r);
    static const char *const demo_json_bad[] = {"demo", "--json", "--n", "0", NULL};
    r = mjt_run_tool(demo_json_bad, env);
    ck_assert_msg(r.status == 2 && r.out[0] == '\0', "demo --json --n 0 exited %d:\n%s",
                  r.status, r.out);
    mjt_tool_run_free(&r);
    /* cache prune: a bad size and --max elsewhere are bad command lines; to a cap under one
     * entry it empties the cache, and says so. */
    static const char *const prune_bad[] = {"cache", "prune", "--max", "12Q", NULL};
    r = mjt_run_tool(prune_bad, env);
    ck_assert_msg(r.status == 2 && strstr(r.err, "--max: '12Q' is not a size") != NULL,
                  "cache prune --max 12Q exited %d:\n%s", r.status, r.err);
    mjt_tool_run_free(&r);
    static const char *const stats_max[] = {"cache", "stats", "--max", "1", NULL};
    r = mjt_run_tool(stats_max, env);
    ck_assert_msg(r.status == 2 && strstr(r.err, "--max goes with prune") != NULL,
                  "cache stats --max exited %d:\n%s", r.status, r.err);
    mjt_tool_run_free(&r);
    static const char *const prune[] = {"cache", "prune", "--max", "1", NULL};
    r = mjt_run_tool(prune, env);
    ck_assert_msg(r.status == 0 && strncmp(r.out, "removed ", 8) == 0 &&
                      strncmp(r.out, "removed 0 ", 10) != 0 && strstr(r.out, "; 0 B left\n"),
                  "cache prune --max 1 exited %d:\n%s%s", r.status, r.out, r.err);
    mjt_tool_run_free(&r);
    r = mjt_run_tool(stats_json, env);
    ck_assert_msg(r.status == 0 && strstr(r.out, "\"entries\": 0, \"bytes\": 0,") != NULL,
                  "cache stats --json after prune:\n%s", r.out);
    mjt_tool_run_free(&r);
    mjt_rmtree(cache);
    free(cache);

    /* Bad command lines exit 2 with a message. */
    static const char *const bad_demo[] = {"demo", "--no-such-option", NULL};
    r = mjt_run_tool(bad_demo, NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert(strstr(r.err, "--no-such-option") != NULL);
    mjt_tool_run_free(&r);
    /* --gpus takes a count and sorts only; without a driver it fails (1), naming it. */
    static const char *const bad_gpus[] = {"demo", "--gpus", "0", NULL};
    r = mjt_run_tool(bad_gpus, NULL);
    ck_assert_msg(r.status == 2 && strstr(r.err, "bad GPU count '0'") != NULL, "%d: %s",
                  r.status, r.err);
    mjt_tool_run_free(&r);
    static const char *const gpus_merge[] = {"demo", "--gpus", "2", "--primitive", "merge",
                                             NULL};
    r = mjt_run_tool(gpus_merge, NULL);
    ck_assert_msg(r.status == 2 && strstr(r.err, "--gpus sorts") != NULL, "%d: %s", r.status,
                  r.err);
    mjt_tool_run_free(&r);
    static const char *const gpus_no_driver[] = {"demo", "--gpus", "2", "--n", "1000", NULL};
    static const char *const no_driver[] = {"MERGEJIT_LIBCUDA=/nonexistent", NULL};
    r = mjt_run_tool(gpus_no_driver, no_driver);
    ck_assert_msg(r.status == 1 && strstr(r.err, "/nonexistent") != NULL &&
                      strstr(r.err, "--gpus 2 needs device 0") != NULL,
                  "%d: %s", r.status, r.err);
    mjt_tool_run_free(&r);
    /* Every command that takes --order parses it alike (one option kind). */
    static const char *const ordered[] = {"demo", "sort", "join"};
    for (size_t c = 0; c < sizeof ordered / sizeof ordered[0]; c++) {
        const char *const bad_order[] = {ordered[c], "--order", "up", NULL};
        r = mjt_run_tool(bad_order, NULL);
        ck_assert_msg(r.status == 2 && strstr(r.err, "bad order 'up'") != NULL,
                      "%s --order up exited %d:\n%s", ordered[c], r.status, r.err);
        mjt_tool_run_free(&r);
    }
    /* The file commands take --type and up to three operands alike (one option kind, one
     * operand list). */
    static const char *const file_cmds[] = {"sort", "join"};
    for (size_t c = 0; c < sizeof file_cmds / sizeof file_cmds[0]; c++) {
        const char *const lines[][7] = {{file_cmds[c], "--type", "custom", "a", "b", "c", NULL},
                                        {file_cmds[c], "--type", "u32", "a", "b", "c", "d"},
                                        {file_cmds[c], "a", "b", "c", NULL}};
        const char *const said[] = {"custom key types", "unexpected argument 'd'",
                                    "--type is required"};
        for (size_t l = 0; l < 3; l++) {
            const char *args[8] = {NULL};
            memcpy(args, lines[l], sizeof lines[l]);
            r = mjt_run_tool(args, NULL);
            ck_assert_msg(r.status == 2 && strstr(r.err, said[l]) != NULL,
                          "%s, line %zu, exited %d:\n%s", file_cmds[c], l, r.status, r.err);
            mjt_tool_run_free(&r);
        }
    }
    /* tune refuses, before any device, a sweep whose sizes leave no configuration (every
     * primitive has a timing now). */
    const char *const untuned[][8] = {
        {"tune", "--primitives", "reducebykey", "--values", "0,12", NULL},
        {"tune", "--primitives", "lbs", "--keys", "16", NULL}};
    const char *const untuned_said[] = {"nothing to tune", "nothing to tune"};
    for (size_t l = 0; l < sizeof untuned / sizeof untuned[0]; l++) {
        r = mjt_run_tool(untuned[l], NULL);
        ck_assert_msg(r.status == 2 && strstr(r.err, untuned_said[l]) != NULL,
                      "tune line %zu exited %d:\n%s", l, r.status, r.err);
        mjt_tool_run_free(&r);
    }
    /* Every command that takes --device parses it alike (one option kind). */
    static const char *const cmds[] = {"demo", "sort", "join", "info", "tune"};
    for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
        const char *const bad_device[] = {cmds[c], "--device", "-1", NULL};
        r = mjt_run_tool(bad_device, NULL);
        ck_assert_msg(r.status == 2 && strstr(r.err, "bad device ordinal '-1'") != NULL,
                      "%s --device -1 exited %d:\n%s", cmds[c], r.status, r.err);
        mjt_tool_run_free(&r);
    }
    /* Outputs that cannot be written are refused before any work (exit 1, "cannot write"),
     * whatever the input: sort's and join's before reading it, gen's before compiling, tune's
     * before measuring; an output that is a directory too. */
    char *dir = mjt_tmpdir();
    char missing[4200], in[4200];
    snprintf(missing, sizeof missing, "%s/no/such/folder/out", dir);
    snprintf(in, sizeof in, "%s/never-read", dir);
    const char *const unwritable[][8] = {
        {"sort", "--type", "u32", in, missing, NULL},
        {"sort", "--type", "u32", in, dir, NULL},
        {"join", "--type", "u32", in, in, missing, NULL},
        {"gen", "-o", missing, "--sm", "90", "--types", "u32", NULL},
        {"tune", "--quick", "--json", missing, NULL},
        {"tune", "--quick", "--plot", dir, NULL}};
    for (size_t l = 0; l < sizeof unwritable / sizeof unwritable[0]; l++) {
        r = mjt_run_tool(unwritable[l], NULL);
        ck_assert_msg(r.status == 1 && strstr(r.err, "cannot write '") != NULL &&
                          strstr(r.err, "never-read") == NULL,
                      "%s (line %zu) exited %d:\n%s", unwritable[l][0], l, r.status, r.err);
        mjt_tool_run_free(&r);
    }
    int names = 0;
    DIR *d = opendir(dir); /* no probe left behind */
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        names += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    ck_assert_int_eq(names, 0);
    mjt_rmtree(dir);
    free(dir);
    static const char *const bad_top[] = {"--no-such-option", NULL};
    r = mjt_run_tool(bad_top, NULL);
    ck_assert_int_eq(r.status, 2);
    ck_assert_str_ne(r.err, "");
    mjt_tool_run_free(&r);
    static const char *const bad_cmd[] = {"no-such-command", NULL};
    r = mjt_run_tool(bad_cmd, NULL);
    ck_assert_int_eq(r.status, 2);
    mjt_tool_run_free(&r);
}
END_TEST

static Suite *tool_suite(void) {
    Suite *s = suite_create("tool");
    TCase *tc = tcase_create("context");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, tool);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mjt_run(tool_suite(), 1); }
