/* SPDX-License-Identifier: Apache-2.0 */
/* Names of statuses and key kinds, and the version (all public: mergejit.h; primitives are
 * named by their rows, gen/catalog.c). */
#include <string.h>

#include "mergejit.h"

const char *mj_status_name(mj_status status) {
    switch (status) {
    case MJ_OK: return "MJ_OK";
    case MJ_ERR_INVALID_ARGUMENT: return "MJ_ERR_INVALID_ARGUMENT";
    case MJ_ERR_HOST_MEMORY: return "MJ_ERR_HOST_MEMORY";
    case MJ_ERR_NO_DRIVER: return "MJ_ERR_NO_DRIVER";
    case MJ_ERR_NO_DEVICE: return "MJ_ERR_NO_DEVICE";
    case MJ_ERR_NO_COMPILER: return "MJ_ERR_NO_COMPILER";
    case MJ_ERR_COMPILE: return "MJ_ERR_COMPILE";
    case MJ_ERR_DEVICE_MEMORY: return "MJ_ERR_DEVICE_MEMORY";
    case MJ_ERR_CUDA: return "MJ_ERR_CUDA";
    case MJ_ERR_CACHE: return "MJ_ERR_CACHE";
    case MJ_ERR_UNSUPPORTED: return "MJ_ERR_UNSUPPORTED";
    case MJ_ERR_TOO_LARGE: return "MJ_ERR_TOO_LARGE";
    case MJ_ERR_FILE: return "MJ_ERR_FILE";
    case MJ_ERR_NOT_IN_BUNDLE: return "MJ_ERR_NOT_IN_BUNDLE";
    case MJ_ERR_TIMEOUT: return "MJ_ERR_TIMEOUT";
    }
    return "MJ_ERR_UNKNOWN";
}

const char *mj_version(void) { return MJ_VERSION_STRING; }

static const struct {
    const char *name;
    size_t size;
} kinds[MJ_KEY_KIND_COUNT] = {
    [MJ_KEY_U8] = {"u8", 1},   [MJ_KEY_I8] = {"i8", 1},     [MJ_KEY_U16] = {"u16", 2},
    [MJ_KEY_I16] = {"i16", 2}, [MJ_KEY_U32] = {"u32", 4},   [MJ_KEY_I32] = {"i32", 4},
    [MJ_KEY_U64] = {"u64", 8}, [MJ_KEY_I64] = {"i64", 8},   [MJ_KEY_F16] = {"f16", 2},
    [MJ_KEY_BF16] = {"bf16", 2}, [MJ_KEY_F32] = {"f32", 4}, [MJ_KEY_F64] = {"f64", 8},
    [MJ_KEY_CUSTOM] = {"custom", 0},
};

const char *mj_key_kind_name(mj_key_kind kind) {
    return (unsigned)kind < MJ_KEY_KIND_COUNT ? kinds[kind].name : NULL;
}

mj_key_kind mj_key_kind_parse(const char *name) {
    for (int k = 0; name && k < MJ_KEY_KIND_COUNT; ++k)
        if (strcmp(kinds[k].name, name) == 0) return (mj_key_kind)k;
    return MJ_KEY_KIND_COUNT;
}

size_t mj_key_kind_size(mj_key_kind kind) {
    return (unsigned)kind < MJ_KEY_KIND_COUNT ? kinds[kind].size : 0;
}

void mj_sort_desc_init(mj_sort_desc *desc, mj_key_kind kind, mj_order order) {
    memset(desc, 0, sizeof *desc);
    desc->key = kind;
    desc->order = order;
}
