/* One-call sorts: build (or find) the sorter, run it with library-allocated storage. */
#include "context.h"

static mj_status one_call(mj_context *ctx, const mj_sort_desc *desc, size_t value_size,
                          const void *keys, void *values, int indices, size_t n, void *stream) {
    if (!ctx) return MJ_ERR_INVALID_ARGUMENT;
    if (!desc) return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT, "desc is NULL");
    mj_sort_desc d = *desc;
    d.value_size = value_size;
    mj_sorter *s;
    mj_status st = mj_sorter_create(ctx, &d, &s);
    if (st) return st;
    st = indices ? mj_sorter_sort_indices(s, keys, values, n, NULL, 0, stream)
                 : mj_sorter_sort(s, (void *)keys, values, n, NULL, 0, stream);
    mj_sorter_destroy(s);
    return st;
}

mj_status mj_sort_keys(mj_context *ctx, const mj_sort_desc *desc, void *keys, size_t n,
                       void *stream) {
    return one_call(ctx, desc, 0, keys, NULL, 0, n, stream);
}

mj_status mj_sort_pairs(mj_context *ctx, const mj_sort_desc *desc, void *keys, void *values,
                        size_t value_size, size_t n, void *stream) {
    if (ctx && value_size == 0)
        return mj_fail(ctx, MJ_ERR_INVALID_ARGUMENT, "mj_sort_pairs needs value_size > 0");
    return one_call(ctx, desc, value_size, keys, values, 0, n, stream);
}

mj_status mj_sort_indices(mj_context *ctx, const mj_sort_desc *desc, const void *keys,
                          void *indices, size_t index_size, size_t n, void *stream) {
    return one_call(ctx, desc, index_size, keys, indices, 1, n, stream);
}
