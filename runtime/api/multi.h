/* SPDX-License-Identifier: Apache-2.0 */
/* The multi-GPU sorter's insides (public: mergejit.h): its sorters, its communicator, the
 * small buffers its collectives use, the host copies of what they gather, and the plan kept
 * between the two phases; and the collective step that every phase is built of. Internal. */
#ifndef MJ_MULTI_H
#define MJ_MULTI_H

#include <stddef.h>
#include <stdint.h>

#include "driver/dl_nccl.h"
#include "mergejit.h"
#include "primitives/multi_plan.h"
#include "primitives/run.h"

/* What each rank tells the others first, before anyone touches data. */
typedef struct mj_multi_header {
    uint64_t status;   /* the rank's mj_status after its checks and allocations */
    uint64_t n;        /* its keys */
    uint64_t capacity; /* its output's room (UINT64_MAX for a plan alone) */
    uint64_t key_size, value_size;
    uint64_t pad[3];
} mj_multi_header;

struct mj_multi_sorter {
    mj_context *ctx;
    const mj_nccl_api *nccl;
    mj_nccl_comm comm;
    int rank, ranks;
    size_t samples;      /* per rank: MJ__MULTI_SAMPLES */
    size_t max_pitch;    /* the largest stride a 2D copy takes */
    mj_sorter *sort;     /* the local sort (the caller's description) */
    mj_sorter *index;    /* the sample's index sort (4-byte indices) */
    mj_sorter *search;   /* the splitters' search in the shard */
    mj_sorter *merge;    /* the runs' merges */
    /* Device memory of the small collectives (cuMemAlloc'd at creation, so that no step can
     * fail for it): headers (ranks), rows (ranks * row), statuses (ranks). */
    void *ctl;
    size_t ctl_headers, ctl_rows, ctl_status;
    size_t row;          /* u64s per row: the status, then splits 0 .. ranks */
    /* Host copies, sized at creation. */
    mj_multi_header *headers;
    uint64_t *rows, *status, *n, *recv, *offset, *search_out;
    uint32_t *order;
    mj_splitter *splitters;
    mj_merge_step *steps;
    /* Temporary device memory kept between calls (grown, never shrunk, until destroy), and
     * the event after its last use, which a call on another stream waits for. */
    void *scratch;
    size_t scratch_bytes;
    CUevent scratch_free;
    int scratch_used;
    double timeout; /* seconds a step waits for the others; 0: for ever */
    int aborted;    /* the communicator was aborted (a timeout, NCCL's error): no more calls */
    /* The plan between the phases. */
    int planned;
    void *keys, *values;
    uint64_t count, out_count;
};

/* One collective step: this rank's block of `bytes` at its slot (dev + rank * bytes) is
 * gathered into every rank's dev (ncclAllGather in place), on stream; then, when host is not
 * NULL, the whole array is copied back to host and the stream synchronized. A failure of NCCL
 * or of the copy is this rank's alone (the message names it). Call inside the context. */
mj_status mj__multi_gather(mj_multi_sorter *m, void *dev, size_t bytes, void *host,
                           CUstream stream);

/* The verdict of a step that gathered each rank's status (status[r * stride], u64s): MJ_OK
 * when every rank's is; else the first failed rank's status on every rank, with this rank's
 * message kept when it failed too, else one naming the rank that failed. */
mj_status mj__multi_verdict(mj_multi_sorter *m, const uint64_t *status, size_t stride,
                            const char *fn);

/* Waits for stream, giving up after the sorter's timeout or at NCCL's asynchronous error:
 * then the communicator is aborted (m->aborted) and the step fails with MJ_ERR_TIMEOUT or
 * MJ_ERR_CUDA. Every wait for other ranks goes through here. Call inside the context. */
mj_status mj__multi_wait(mj_multi_sorter *m, CUstream stream);

/* At least `bytes` of the sorter's temporary memory, usable on stream (ordered after its last
 * use), into *base; grown by a fresh allocation when short. Call inside the context. */
mj_status mj__multi_scratch(mj_multi_sorter *m, size_t bytes, CUstream stream, char **base);
/* Marks the end, in stream order, of the scratch's use by this call. */
void mj__multi_scratch_done(mj_multi_sorter *m, CUstream stream);

/* MJ_ERR_INVALID_ARGUMENT with a message when the communicator was aborted. */
mj_status mj__multi_usable(mj_multi_sorter *m, const char *fn);

/* Uploads bytes from host to dev in stream order (the host copy may be reused at once). */
mj_status mj__multi_upload(mj_multi_sorter *m, void *dev, const void *host, size_t bytes,
                           CUstream stream);
/* Copies bytes on the device in stream order. */
mj_status mj__multi_copy(mj_multi_sorter *m, void *dst, const void *src, size_t bytes,
                         CUstream stream);
/* Waits for the stream (mj__multi_wait: the timeout), then copies bytes to the host. */
mj_status mj__multi_download(mj_multi_sorter *m, void *host, const void *dev, size_t bytes,
                             CUstream stream);

#endif
