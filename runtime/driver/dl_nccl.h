/* SPDX-License-Identifier: Apache-2.0 */
/* NCCL, opened with dlopen at first use, so that the library loads and runs without it; only
 * the multi-GPU sort (api/multi.c) needs it. nccl.h is not included (a CUDA toolkit need not
 * ship it): the few types used are declared here with NCCL's documented values, which have
 * not changed since NCCL 2.0. Internal.
 * MERGEJIT_NCCL names the library file to open (a path); else libnccl.so.2, then libnccl.so.
 * It must be the NCCL that made the caller's communicators. */
#ifndef MJ_DL_NCCL_H
#define MJ_DL_NCCL_H

#include <stddef.h>

typedef struct mj_nccl_comm *mj_nccl_comm; /* ncclComm_t */
typedef void *mj_nccl_stream;              /* cudaStream_t, the same as a CUstream */
/* ncclUniqueId: NCCL_UNIQUE_ID_BYTES (128) opaque bytes, passed by value. */
typedef struct mj_nccl_unique_id {
    char internal[128];
} mj_nccl_unique_id;

/* ncclResult_t and ncclDataType_t values used here. */
enum { MJ_NCCL_SUCCESS = 0, MJ_NCCL_IN_PROGRESS = 7 };
enum { MJ_NCCL_UINT8 = 1, MJ_NCCL_UINT64 = 5 };

typedef struct mj_nccl_api {
    int (*get_version)(int *version);
    const char *(*error_string)(int result);
    int (*comm_count)(mj_nccl_comm comm, int *count);
    int (*comm_user_rank)(mj_nccl_comm comm, int *rank);
    int (*comm_cu_device)(mj_nccl_comm comm, int *device);
    int (*comm_async_error)(mj_nccl_comm comm, int *error);
    int (*group_start)(void);
    int (*group_end)(void);
    int (*send)(const void *buf, size_t count, int type, int peer, mj_nccl_comm comm,
                mj_nccl_stream stream);
    int (*recv)(void *buf, size_t count, int type, int peer, mj_nccl_comm comm,
                mj_nccl_stream stream);
    int (*all_gather)(const void *send, void *recv, size_t count, int type, mj_nccl_comm comm,
                      mj_nccl_stream stream);
    int (*comm_init_all)(mj_nccl_comm *comms, int count, const int *devices);
    int (*get_unique_id)(mj_nccl_unique_id *id);
    int (*comm_init_rank)(mj_nccl_comm *comm, int count, mj_nccl_unique_id id, int rank);
    int (*comm_destroy)(mj_nccl_comm comm);
    int (*comm_abort)(mj_nccl_comm comm);
    int version; /* e.g. 22805 for 2.28.5 */
} mj_nccl_api;

/* The loaded NCCL, or NULL with the reason (naming what was tried) in err. Loads once per
 * process. */
const mj_nccl_api *mj__nccl_load(char *err, size_t errcap);

/* "ncclInvalidUsage (5): invalid usage" style text for a result. */
void mj__nccl_describe(const mj_nccl_api *api, int result, char *out, size_t cap);

#endif
