/* SPDX-License-Identifier: Apache-2.0 */
/* Sorts u32 keys from a deployment bundle (`mergejit gen`), never calling NVRTC: a context
 * opened with the bundle builds its sorters from it, and a request the bundle lacks fails
 * with MJ_ERR_NOT_IN_BUNDLE instead of compiling (no MJ_CONTEXT_BUNDLE_FALLBACK).
 *
 *   sort_from_bundle BUNDLE [n]
 *
 * Without a GPU it opens the bundle in a compile-only context for sm_90 instead and builds the
 * sorter from it (which proves the bundle holds it and that NVRTC is not needed), sorts
 * nothing, and exits 0. Exit status 1: an error (printed). */
#include <mergejit.h>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const sources[] = {"NVRTC", "the disk cache", "the context's memory",
                                      "the bundle (cubin)", "the bundle (PTX)"};

static int failed(mj_context *ctx, const char *what, mj_status st) {
    fprintf(stderr, "sort_from_bundle: %s: %s: %s\n", what, mj_status_name(st),
            mj_context_last_error(ctx));
    return 1;
}

/* Sorts n random keys with the sorter on the GPU and checks them. */
static int sort_on_gpu(mj_context *ctx, mj_sorter *s, size_t n) {
    unsigned *host = malloc(n * sizeof *host), *d_keys = NULL;
    int bad = 1;
    if (!host) return fprintf(stderr, "sort_from_bundle: out of host memory\n"), 1;
    for (size_t i = 0; i < n; i++) host[i] = (unsigned)rand() * 2654435761u;
    cudaError_t e = cudaMalloc((void **)&d_keys, n * sizeof *d_keys);
    if (e == cudaSuccess) e = cudaMemcpy(d_keys, host, n * sizeof *host, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        fprintf(stderr, "sort_from_bundle: %s\n", cudaGetErrorString(e));
        goto out;
    }
    mj_status st = mj_sorter_sort(s, d_keys, NULL, n, NULL, 0, NULL); /* legacy stream */
    if (st != MJ_OK) {
        failed(ctx, "mj_sorter_sort", st);
        goto out;
    }
    if ((e = cudaMemcpy(host, d_keys, n * sizeof *host, cudaMemcpyDeviceToHost)) != cudaSuccess) {
        fprintf(stderr, "sort_from_bundle: %s\n", cudaGetErrorString(e));
        goto out;
    }
    for (size_t i = 1; i < n; i++)
        if (host[i - 1] > host[i]) {
            fprintf(stderr, "sort_from_bundle: out of order at %zu\n", i);
            goto out;
        }
    printf("sorted %zu u32 keys\n", n);
    bad = 0;
out:
    cudaFree(d_keys);
    free(host);
    return bad;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: sort_from_bundle BUNDLE [n]\n");
        return 1;
    }
    size_t n = argc > 2 ? strtoull(argv[2], NULL, 0) : 1000000;

    mj_context_options o;
    mj_context_options_init(&o);
    o.bundle = argv[1]; /* sorters come from here, never from NVRTC */
    o.tuning_file = ""; /* the bundle's entries carry their tiles */
    mj_context *ctx;
    mj_status st = mj_context_create(&o, &ctx);
    int gpu = st == MJ_OK;
    if (st == MJ_ERR_NO_DRIVER || st == MJ_ERR_NO_DEVICE) {
        printf("no GPU (%s): opening the bundle for sm_90, compile-only\n",
               mj_context_last_error(ctx));
        mj_context_destroy(ctx);
        o.flags = MJ_CONTEXT_COMPILE_ONLY;
        o.target_sm = 90;
        st = mj_context_create(&o, &ctx);
    }
    if (st != MJ_OK) {
        int rc = failed(ctx, "mj_context_create", st);
        mj_context_destroy(ctx);
        return rc;
    }

    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_sorter *s;
    st = mj_sorter_create(ctx, &d, &s); /* MJ_ERR_NOT_IN_BUNDLE: gen it with --types u32 */
    if (st != MJ_OK) {
        int rc = failed(ctx, "mj_sorter_create", st);
        mj_context_destroy(ctx);
        return rc;
    }
    int source = mj_sorter_source(s);
    printf("u32 sorter from %s in %.1f ms\n", source >= 0 && source <= 4 ? sources[source] : "?",
           mj_sorter_build_ms(s));
    int rc = source == 3 || source == 4 ? 0 : 1; /* anything else did not come from the bundle */
    if (rc) fprintf(stderr, "sort_from_bundle: the sorter did not come from the bundle\n");
    if (!rc && gpu) rc = sort_on_gpu(ctx, s, n);
    mj_sorter_destroy(s);
    mj_context_destroy(ctx);
    return rc;
}
