/* SPDX-License-Identifier: Apache-2.0 */
/* `mergejit demo --json`: what a demo noted as it ran (the device, the first sorter's build,
 * each timed median, the verdict), printed at the end as one JSON object on stdout, while the
 * demo's own lines go to stderr. */
#define _POSIX_C_SOURCE 200809L /* dup, dup2 */
#include <stdio.h>
#include <unistd.h>

#include "cli.h"
#include "demo.h"

#define MAX_TIMES 8

static struct {
    int gpu, sm, have_build, nt, vt, source, times, verdict;
    char device[256];
    double build_ms, median_ms[MAX_TIMES];
} rec = {.verdict = -1};

void demo_note_device(const char *name, int sm, int gpu)
{
    snprintf(rec.device, sizeof rec.device, "%s", name ? name : "");
    rec.sm = sm;
    rec.gpu = gpu;
}

void demo_note_build(const mj_sorter *s)
{
    if (rec.have_build)
        return; /* the demo's own sorter: the first built */
    rec.have_build = 1;
    rec.source = mj_sorter_source(s);
    rec.build_ms = mj_sorter_build_ms(s);
    mj_sorter_tile(s, &rec.nt, &rec.vt);
}

void demo_note_time(double median_ms)
{
    if (rec.times < MAX_TIMES)
        rec.median_ms[rec.times++] = median_ms;
}

void demo_note_verdict(int pass)
{
    /* A demo of several runs passes when every one does. */
    rec.verdict = rec.verdict == 0 ? 0 : pass;
}

int demo_json_begin(void)
{
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    if (saved >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        close(saved);
        return -1;
    }
    return saved;
}

static const char *source_name(int source)
{
    static const char *const names[] = {"nvrtc", "disk", "memory", "bundle", "bundle-ptx"};
    return source >= 0 && source < 5 ? names[source] : "unknown";
}

void demo_json_end(int saved, const demo_opts *o, size_t n, int rc)
{
    fflush(stdout);
    if (saved >= 0) {
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    const char *result = rc != CLI_OK && rc != CLI_FAILURE ? "error"
                         : rec.verdict == 1                ? "PASS"
                         : rec.verdict == 0                ? "FAIL"
                         : rc == CLI_OK && !rec.gpu        ? "built"
                                                           : "error";
    printf("{\"primitive\": \"%s\", \"type\": \"%s\", \"n\": %zu, \"value_size\": %zu, "
           "\"order\": \"%s\", \"seed\": %llu, \"gpus\": %d, \"gpu\": %s, \"device\": ",
           mj_primitive_name(o->primitive), mj_key_kind_name(o->kind), n, o->value_size,
           o->order == MJ_DESCENDING ? "descending" : "ascending",
           (unsigned long long)o->seed, o->gpus, rec.gpu ? "true" : "false");
    cli_put_json_string(stdout, rec.gpu && rec.device[0] ? rec.device : NULL);
    printf(", \"sm\": %d, \"build\": ", rec.sm);
    if (rec.have_build)
        printf("{\"source\": \"%s\", \"ms\": %.3f, \"nt\": %d, \"vt\": %d}",
               source_name(rec.source), rec.build_ms, rec.nt, rec.vt);
    else
        printf("null");
    printf(", \"median_ms\": [");
    for (int i = 0; i < rec.times; i++)
        printf("%s%.4f", i ? ", " : "", rec.median_ms[i]);
    printf("], \"gkeys_per_s\": ");
    if (rec.times && rec.median_ms[0] > 0)
        printf("%.3f", (double)n / (rec.median_ms[0] * 1e6));
    else
        printf("null");
    printf(", \"result\": \"%s\", \"exit\": %d}\n", result, rc);
    fflush(stdout);
}
