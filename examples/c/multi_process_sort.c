/* SPDX-License-Identifier: Apache-2.0 */
/* Sorting across GPUs with one process a GPU, in plain C without linking NCCL: rank 0 makes the
 * NCCL id and hands it to the others through a file; every process makes its rank of the
 * communicator, sorts its shard of random 64-bit keys (with their 32-bit positions as values)
 * with the others, and checks what it holds: sorted, and ordered after the previous rank's keys
 * (each rank writes its last key beside the id file, the next one reads it).
 *
 *   multi_process_sort RANK RANKS ID_FILE [n]     (n keys a rank, default 10000000)
 *
 * Start one process a rank, e.g. on a machine of two GPUs:
 *   rm -f /tmp/mj.id; for r in 0 1; do ./multi_process_sort $r 2 /tmp/mj.id & done; wait
 * RANK and RANKS given as `env` are read from the launcher's environment (Open MPI's
 * OMPI_COMM_WORLD_RANK and _SIZE, PMI_RANK and PMI_SIZE, torchrun's RANK and WORLD_SIZE):
 *   mpirun -np 2 ./multi_process_sort env env /tmp/mj.id
 * and the GPU is the node-local rank's (OMPI_COMM_WORLD_LOCAL_RANK, LOCAL_RANK) modulo the
 * devices, else the rank's. The file must be on a file system that every rank sees; for several
 * nodes, hand the 128 bytes over as your launcher does (MPI_Bcast, a key-value store).
 *
 * Exit status: 0 sorted and checked; 1 an error (printed); 77 no GPU, driver or NCCL here. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include <mergejit.h>

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_NO_GPU 77

static int rank_, ranks_;

static int failed(mj_context *ctx, const char *what, mj_status st) {
    fprintf(stderr, "rank %d: %s: %s: %s\n", rank_, what, mj_status_name(st),
            ctx ? mj_context_last_error(ctx) : "");
    return st == MJ_ERR_NO_DRIVER || st == MJ_ERR_NO_DEVICE || st == MJ_ERR_UNSUPPORTED
               ? EXIT_NO_GPU
               : 1;
}

static void pause_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* Writes bytes to path whole: to a temporary name, then renamed, so readers never see half. */
static int put_file(const char *path, const void *bytes, size_t size) {
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    int ok = fwrite(bytes, 1, size, f) == size;
    if (fclose(f) != 0 || !ok) return -1;
    return rename(tmp, path);
}

/* Waits up to 120 s for path to appear, then reads size bytes from it. */
static int get_file(const char *path, void *bytes, size_t size) {
    for (int waited = 0; waited < 120000; waited += 50) {
        FILE *f = fopen(path, "rb");
        if (f) {
            int ok = fread(bytes, 1, size, f) == size;
            fclose(f);
            return ok ? 0 : -1;
        }
        pause_ms(50);
    }
    return -1;
}

/* The first of the environment variables names that holds a number, or -1. */
static int from_env(const char *const *names) {
    for (; *names; ++names) {
        const char *v = getenv(*names);
        if (v && *v >= '0' && *v <= '9') return atoi(v);
    }
    return -1;
}

/* RANK or RANKS as given, or from the launcher's environment for `env`. */
static int rank_arg(const char *arg, int size) {
    static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "RANK", NULL};
    static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "WORLD_SIZE",
                                            NULL};
    if (strcmp(arg, "env") == 0) return from_env(size ? size_vars : rank_vars);
    return atoi(arg);
}

static uint64_t mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv) {
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: multi_process_sort RANK RANKS ID_FILE [n]\n");
        return 2;
    }
    rank_ = rank_arg(argv[1], 0);
    ranks_ = rank_arg(argv[2], 1);
    const char *id_file = argv[3];
    size_t n = argc == 5 ? strtoull(argv[4], NULL, 10) : 10000000;
    if (ranks_ < 1 || rank_ < 0 || rank_ >= ranks_) {
        fprintf(stderr, "multi_process_sort: rank %d of %d is out of range\n", rank_, ranks_);
        return 2;
    }

    int devices = 0; /* first: without a GPU there is nothing to do */
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) {
        fprintf(stderr, "rank %d: no GPU here\n", rank_);
        return EXIT_NO_GPU;
    }

    /* 1. The id: made by rank 0, read by the others. */
    mj_multi_id id;
    char err[1024];
    mj_status st;
    if (rank_ == 0) {
        if ((st = mj_multi_id_create(&id, err, sizeof err)) != MJ_OK) {
            fprintf(stderr, "rank 0: %s: %s\n", mj_status_name(st), err);
            return st == MJ_ERR_UNSUPPORTED ? EXIT_NO_GPU : 1;
        }
        if (put_file(id_file, &id, sizeof id)) {
            perror(id_file);
            return 1;
        }
    } else if (get_file(id_file, &id, sizeof id)) {
        fprintf(stderr, "rank %d: no id in %s after 120 s\n", rank_, id_file);
        return 1;
    }

    /* 2. A context on this rank's GPU, and the rank's communicator (waits for every rank). */
    static const char *const local_vars[] = {"OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK", NULL};
    int local = from_env(local_vars);
    mj_context_options o;
    mj_context_options_init(&o);
    o.device = (local >= 0 ? local : rank_) % devices;
    mj_context *ctx = NULL;
    if ((st = mj_context_create(&o, &ctx)) != MJ_OK) return failed(ctx, "context", st);
    cudaSetDevice(o.device); /* for this program's own cudaMalloc */
    void *comm = NULL;
    if ((st = mj_multi_comm_create(ctx, &id, ranks_, rank_, &comm)) != MJ_OK)
        return failed(ctx, "communicator", st);

    /* 3. The sorter: u64 keys, u32 values. Creation compiles (or loads) every kernel, so check
     * it on every rank before the first collective call. */
    mj_sort_desc d;
    mj_sort_desc_init(&d, MJ_KEY_U64, MJ_ASCENDING);
    d.value_size = sizeof(uint32_t);
    mj_multi_sorter *m = NULL;
    if ((st = mj_multi_sorter_create(ctx, &d, comm, &m)) != MJ_OK)
        return failed(ctx, "sorter", st);

    /* 4. This rank's shard, on the device. */
    uint64_t *h_keys = malloc(n * sizeof *h_keys + 1);
    uint32_t *h_vals = malloc(n * sizeof *h_vals + 1);
    if (!h_keys || !h_vals) return fprintf(stderr, "out of host memory\n"), 1;
    for (size_t i = 0; i < n; ++i) {
        h_keys[i] = mix(((uint64_t)rank_ << 40) + i) >> 20; /* repeats, across ranks too */
        h_vals[i] = (uint32_t)i;
    }
    uint64_t *keys = NULL, *out_keys = NULL;
    uint32_t *vals = NULL, *out_vals = NULL;
    cudaStream_t stream;
    if (cudaStreamCreate(&stream) != cudaSuccess || cudaMalloc((void **)&keys, n * 8 + 8) ||
        cudaMalloc((void **)&vals, n * 4 + 4) ||
        cudaMemcpy(keys, h_keys, n * 8, cudaMemcpyHostToDevice) ||
        cudaMemcpy(vals, h_vals, n * 4, cudaMemcpyHostToDevice))
        return fprintf(stderr, "rank %d: CUDA setup failed\n", rank_), 1;

    /* 5. Phase 1 sorts the shard and agrees on the counts; this rank then sizes its output
     * (a rank that cannot passes NULL to phase 2, and every rank fails the same way). */
    size_t count = 0;
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0);
    cudaEventCreate(&t1);
    cudaEventRecord(t0, stream);
    if ((st = mj_multi_sort_plan(m, keys, vals, n, &count, stream)) != MJ_OK)
        return failed(ctx, "plan", st);
    if (cudaMalloc((void **)&out_keys, count * 8 + 8) ||
        cudaMalloc((void **)&out_vals, count * 4 + 4))
        out_keys = NULL, out_vals = NULL;
    if ((st = mj_multi_sort_finish(m, out_keys, out_vals, stream)) != MJ_OK)
        return failed(ctx, "finish", st);
    cudaEventRecord(t1, stream);
    if (cudaStreamSynchronize(stream) != cudaSuccess)
        return fprintf(stderr, "rank %d: the sort failed on the device\n", rank_), 1;
    float ms = 0;
    cudaEventElapsedTime(&ms, t0, t1);

    /* 6. Check: sorted here, and after the previous rank's last key. */
    uint64_t *got = malloc(count * sizeof *got + 8);
    if (!got || cudaMemcpy(got, out_keys, count * 8, cudaMemcpyDeviceToHost))
        return fprintf(stderr, "rank %d: reading back failed\n", rank_), 1;
    size_t bad = 0;
    for (size_t i = 1; i < count; ++i) bad += got[i - 1] > got[i];
    char edge[1100];
    uint64_t last = count ? got[count - 1] : 0, before = 0;
    int have_before = 0;
    if (rank_ + 1 < ranks_) { /* the next rank reads this rank's last key (0 if it has none) */
        snprintf(edge, sizeof edge, "%s.last%d", id_file, rank_);
        if (put_file(edge, &last, sizeof last)) return perror(edge), 1;
    }
    if (rank_ > 0) {
        snprintf(edge, sizeof edge, "%s.last%d", id_file, rank_ - 1);
        if (get_file(edge, &before, sizeof before)) return fprintf(stderr, "no %s\n", edge), 1;
        have_before = 1;
    }
    if (have_before && count && before > got[0]) ++bad;
    printf("rank %d of %d: %zu keys in, %zu out, %s, %.2f ms\n", rank_, ranks_, n, count,
           bad ? "NOT SORTED" : "sorted and after the rank before", ms);

    mj_multi_sorter_destroy(m);
    mj_multi_comms_destroy(1, &comm);
    mj_context_destroy(ctx);
    cudaFree(keys), cudaFree(vals), cudaFree(out_keys), cudaFree(out_vals);
    free(h_keys), free(h_vals), free(got);
    return bad ? 1 : 0;
}
