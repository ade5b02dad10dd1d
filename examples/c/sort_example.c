/* SPDX-License-Identifier: Apache-2.0 */
/* mergejit from C, end to end: a context, 32-bit keys sorted by a one-call function, a struct
 * sorted by a comparator with a sorter built once, every status checked, everything freed.
 *
 *   sort_example [n]      (default n = 1000000)
 *
 * Exit status: 0 sorted and checked; 1 an error (printed); 77 no GPU or driver here, nothing
 * sorted (the status test harnesses read as "skipped"). */
#include <mergejit.h>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_NO_GPU 77

/* The record as the host sees it, and the same type for the generated CUDA source. */
struct rec {
    unsigned long long hi, lo;
};
static const char rec_source[] = "struct rec { unsigned long long hi, lo; };";

/* Reports a mergejit failure with the context's message (what went wrong and why). */
static int mj_failed(mj_context *ctx, const char *what, mj_status st) {
    fprintf(stderr, "sort_example: %s: %s: %s\n", what, mj_status_name(st),
            mj_context_last_error(ctx));
    return 1;
}

static int cuda_failed(const char *what, cudaError_t e) {
    fprintf(stderr, "sort_example: %s: %s\n", what, cudaGetErrorString(e));
    return 1;
}

/* The u32 keys: sorted in place on the stream by a one-call function (it builds its sorter
 * once per context and allocates its temporary storage in stream order), then checked. */
static int sort_u32(mj_context *ctx, size_t n, cudaStream_t stream) {
    unsigned *host = malloc(n * sizeof *host), *d_keys = NULL;
    int failed = 1;
    cudaError_t e;
    if (!host) {
        fprintf(stderr, "sort_example: out of host memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) host[i] = (unsigned)rand() * 2654435761u;

    if ((e = cudaMalloc((void **)&d_keys, n * sizeof *d_keys)) != cudaSuccess) {
        cuda_failed("cudaMalloc", e);
        goto out;
    }
    if ((e = cudaMemcpyAsync(d_keys, host, n * sizeof *host, cudaMemcpyHostToDevice,
                             stream)) != cudaSuccess) {
        cuda_failed("cudaMemcpyAsync", e);
        goto out;
    }
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U32, MJ_ASCENDING);
    mj_status st = mj_sort_keys(ctx, &d, d_keys, n, stream);
    if (st != MJ_OK) {
        mj_failed(ctx, "mj_sort_keys", st);
        goto out;
    }
    if ((e = cudaMemcpyAsync(host, d_keys, n * sizeof *host, cudaMemcpyDeviceToHost,
                             stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(stream)) != cudaSuccess) {
        cuda_failed("copying the keys back", e);
        goto out;
    }
    for (size_t i = 1; i < n; i++)
        if (host[i - 1] > host[i]) {
            fprintf(stderr, "sort_example: u32 keys out of order at %zu\n", i);
            goto out;
        }
    printf("sorted %zu u32 keys\n", n);
    failed = 0;
out:
    cudaFree(d_keys);
    free(host);
    return failed;
}

/* The records: a sorter built once from the struct's source and a comparator (NVRTC's log
 * comes in the context's message when it does not compile), with caller-owned temporary
 * storage, then checked on the host. */
static int sort_records(mj_context *ctx, size_t n, cudaStream_t stream) {
    struct rec *host = malloc(n * sizeof *host), *d_recs = NULL;
    void *d_temp = NULL;
    mj_sorter *sorter = NULL;
    int failed = 1;
    cudaError_t e;
    if (!host) {
        fprintf(stderr, "sort_example: out of host memory\n");
        return 1;
    }
    for (size_t i = 0; i < n; i++) {
        host[i].hi = (unsigned long long)(rand() % 1000);
        host[i].lo = i;
    }

    mj_sort_desc r = {0};
    r.primitive = MJ_MERGESORT;
    r.key = MJ_KEY_CUSTOM;
    r.type_name = "rec";
    r.type_source = rec_source;
    r.type_size = sizeof(struct rec);
    r.type_align = _Alignof(struct rec);
    r.less = "a.hi < b.hi || (a.hi == b.hi && a.lo > b.lo)"; /* hi up, then lo down */
    mj_status st = mj_sorter_create(ctx, &r, &sorter);
    if (st != MJ_OK) {
        mj_failed(ctx, "mj_sorter_create", st);
        goto out;
    }
    size_t temp_bytes;
    if ((st = mj_sorter_temp_size(sorter, n, 0, &temp_bytes)) != MJ_OK) {
        mj_failed(ctx, "mj_sorter_temp_size", st);
        goto out;
    }
    if ((e = cudaMalloc((void **)&d_recs, n * sizeof *d_recs)) != cudaSuccess ||
        (e = cudaMalloc(&d_temp, temp_bytes)) != cudaSuccess) {
        cuda_failed("cudaMalloc", e);
        goto out;
    }
    if ((e = cudaMemcpyAsync(d_recs, host, n * sizeof *host, cudaMemcpyHostToDevice,
                             stream)) != cudaSuccess) {
        cuda_failed("cudaMemcpyAsync", e);
        goto out;
    }
    st = mj_sorter_sort(sorter, d_recs, NULL, n, d_temp, temp_bytes, stream);
    if (st != MJ_OK) {
        mj_failed(ctx, "mj_sorter_sort", st);
        goto out;
    }
    if ((e = cudaMemcpyAsync(host, d_recs, n * sizeof *host, cudaMemcpyDeviceToHost,
                             stream)) != cudaSuccess ||
        (e = cudaStreamSynchronize(stream)) != cudaSuccess) {
        cuda_failed("copying the records back", e);
        goto out;
    }
    for (size_t i = 1; i < n; i++) {
        const struct rec *a = &host[i - 1], *b = &host[i];
        if (a->hi > b->hi || (a->hi == b->hi && a->lo < b->lo)) {
            fprintf(stderr, "sort_example: records out of order at %zu\n", i);
            goto out;
        }
    }
    printf("sorted %zu 16-byte records by a comparator\n", n);
    failed = 0;
out:
    mj_sorter_destroy(sorter); /* NULL is accepted */
    cudaFree(d_temp);
    cudaFree(d_recs);
    free(host);
    return failed;
}

int main(int argc, char **argv) {
    size_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
    if (n == 0) {
        fprintf(stderr, "usage: sort_example [n > 0]\n");
        return 1;
    }

    /* Device 0, the default disk cache. A context comes back even when creation fails
     * (unless host memory ran out): read its message, then destroy it. */
    mj_context *ctx;
    mj_status st = mj_context_create(NULL, &ctx);
    if (st != MJ_OK) {
        int no_gpu = st == MJ_ERR_NO_DRIVER || st == MJ_ERR_NO_DEVICE;
        fprintf(no_gpu ? stdout : stderr, "sort_example: %s: %s%s\n", mj_status_name(st),
                ctx ? mj_context_last_error(ctx) : "out of host memory",
                no_gpu ? " (no GPU here: nothing sorted)" : "");
        mj_context_destroy(ctx);
        return no_gpu ? EXIT_NO_GPU : 1;
    }
    printf("mergejit %s on %s\n", mj_version(), mj_context_device_name(ctx));

    cudaStream_t stream;
    cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) {
        mj_context_destroy(ctx);
        return cuda_failed("cudaStreamCreate", e);
    }
    int failed = sort_u32(ctx, n, stream) || sort_records(ctx, n, stream);
    cudaStreamDestroy(stream);
    mj_context_destroy(ctx); /* after the stream's work is done: each sort above synced */
    return failed;
}
