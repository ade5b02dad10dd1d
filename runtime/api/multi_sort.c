/* SPDX-License-Identifier: Apache-2.0 */
/* The multi-GPU sort's phases (public: mergejit.h), each a chain of collective steps that carry
 * every rank's status (api/multi.c), with the plan's arithmetic in primitives/multi_plan.
 *   plan:   checks and allocations -> C0 headers -> local sort, sample -> C1 samples -> the
 *           sample's order, splitters, search, split row -> C2 rows -> counts, capacities
 *   finish: checks and allocation -> C3 statuses -> grouped sends and receives -> merge tree
 * After a failure a rank does no more work but still joins the next step, where every rank
 * learns of it; the first step, C0, comes before anyone touches data. */
#include <stdint.h>
#include <string.h>

#include "api/multi.h"
#include "core/context.h"

/* The arguments of a plan; the outputs only from mj_multi_sort, checked with the rest. */
typedef struct plan_args {
    void *keys, *values;
    size_t n;
    int outputs;
    void *out_keys, *out_values;
    size_t capacity;
    size_t *out_count;
} plan_args;

/* The plan's temporary device storage (offsets from its base): the local sort's, the gathered
 * samples (a block of s keys a rank), the samples compacted and their order, the index sort's,
 * the splitters' keys, the search's lower bounds and equal counts (P each), and its own. */
typedef struct plan_temp {
    size_t sort, sort_bytes, gather, compact, order, index, index_bytes, keys, found, search,
        search_bytes, total;
} plan_temp;

static mj_status plan_layout(mj_multi_sorter *m, size_t n, plan_temp *t) {
    size_t P = (size_t)m->ranks, all = P * m->samples, ks = m->sort->key_size;
    mj_status st;
    if ((st = mj_sorter_temp_size(m->sort, n, 0, &t->sort_bytes)) ||
        (st = mj_sorter_temp_size(m->index, all, 1, &t->index_bytes)) ||
        (st = mj_sorter_temp_size(m->search, P - 1 + n, 0, &t->search_bytes)))
        return st;
    mj_temp_layout l = {0, 0};
    t->sort = mj__temp_part(&l, t->sort_bytes, 1);
    t->gather = mj__temp_part(&l, all, ks);
    t->compact = mj__temp_part(&l, all, ks);
    t->order = mj__temp_part(&l, all, sizeof(uint32_t));
    t->index = mj__temp_part(&l, t->index_bytes, 1);
    t->keys = mj__temp_part(&l, P, ks);
    t->found = mj__temp_part(&l, 2 * P, sizeof(uint64_t));
    t->search = mj__temp_part(&l, t->search_bytes, 1);
    t->total = l.total;
    if (l.overflow) return mj__fail(m->ctx, MJ_ERR_TOO_LARGE, "%zu keys do not fit in memory", n);
    return MJ_OK;
}

/* Up to four arrays, inputs first: their sizes, presence, overlaps, pointers (in context). */
static mj_status check_arrays(mj_multi_sorter *m, const char *fn, mj_array *arrays,
                              const size_t *counts, int count) {
    size_t ks = m->sort->key_size, vs = m->sort->value_size;
    const size_t sizes[4] = {ks, vs, ks, vs};
    const size_t align[4] = {m->sort->key_align, m->sort->value_align, m->sort->key_align,
                             m->sort->value_align};
    mj_status st = mj__array_bytes(m->sort, fn, arrays, counts, sizes, count);
    for (int i = 0; !st && i < count; ++i) {
        if (arrays[i].bytes && !arrays[i].p)
            return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn,
                            arrays[i].name);
        if (!vs && i % 2 && arrays[i].p)
            return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: this sorter sorts keys only "
                            "(value_size 0) but %s was given", fn, arrays[i].name);
    }
    if (!st) st = mj__check_overlaps(m->sort, fn, arrays, 1, count);
    if (!st) st = mj__check_array_pointers(m->sort, arrays, align, count);
    return st;
}

static mj_status check_plan(mj_multi_sorter *m, const plan_args *a, const char *fn) {
    if (!a->out_count)
        return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: out_count is NULL", fn);
    mj_array arrays[4] = {{a->keys, 0, "keys"}, {a->values, 0, "values"},
                          {a->out_keys, 0, "out_keys"}, {a->out_values, 0, "out_values"}};
    size_t counts[4] = {a->n, a->n, a->capacity, a->capacity};
    mj_status st = check_arrays(m, fn, arrays, counts, a->outputs ? 4 : 2);
    /* The samples are gathered by 2D copies whose stride must fit the device's pitch. */
    size_t c = mj__multi_sample_count(a->n, m->samples);
    if (!st && c && (a->n / c + 1) * m->sort->key_size > m->max_pitch)
        st = mj__fail(m->ctx, MJ_ERR_TOO_LARGE, "%s: %zu keys are too many for one rank (the "
                      "sample's stride exceeds the device's copy pitch)", fn, a->n);
    return st;
}

/* Every rank's header agrees with rank 0's sizes, and the total fits. */
static mj_status agree(mj_multi_sorter *m, const char *fn) {
    uint64_t total = 0;
    for (int r = 0; r < m->ranks; ++r) {
        const mj_multi_header *h = &m->headers[r];
        if (h->key_size != m->headers[0].key_size || h->value_size != m->headers[0].value_size)
            return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: rank %d sorts %llu-byte keys "
                            "with %llu-byte values, rank 0 %llu and %llu: every rank needs the "
                            "same description", fn, r, (unsigned long long)h->key_size,
                            (unsigned long long)h->value_size,
                            (unsigned long long)m->headers[0].key_size,
                            (unsigned long long)m->headers[0].value_size);
        m->n[r] = h->n;
        if (__builtin_add_overflow(total, h->n, &total))
            return mj__fail(m->ctx, MJ_ERR_TOO_LARGE, "%s: the ranks' keys add up beyond "
                            "2^64", fn);
    }
    return MJ_OK;
}

/* The local sort, then the samples into this rank's block of the gather buffer. */
static mj_status sort_and_sample(mj_multi_sorter *m, const plan_args *a, const plan_temp *t,
                                 char *base, CUstream stream) {
    size_t ks = m->sort->key_size;
    mj_status st = a->n ? mj_sorter_sort(m->sort, a->keys, a->values, a->n, base + t->sort,
                                         t->sort_bytes, stream)
                        : MJ_OK;
    mj_sample_run runs[2];
    int k = mj__multi_sample_runs(a->n, m->samples, runs);
    CUdeviceptr dst = DPTR(base + t->gather + (size_t)m->rank * m->samples * ks);
    for (int i = 0; !st && i < k; ++i) {
        CUDA_MEMCPY2D copy;
        memset(&copy, 0, sizeof copy);
        copy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        copy.srcDevice = DPTR((char *)a->keys + runs[i].first * ks);
        copy.srcPitch = runs[i].stride * ks;
        copy.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        copy.dstDevice = dst;
        copy.dstPitch = ks;
        copy.WidthInBytes = ks;
        copy.Height = runs[i].count;
        CUresult r = m->ctx->cu->memcpy_2d_async(&copy, stream);
        if (r != CUDA_SUCCESS) st = mj__fail_cuda(m->ctx, r, "gathering the sample");
        dst += runs[i].count * ks;
    }
    return st;
}

/* From the gathered samples: their order (the index sort of the compacted samples, which are
 * in rank order, so ties keep (rank, position) order), the splitters, their search in the
 * shard, and this rank's split row. Each splitter is searched only between the two of this
 * rank's sample positions that bracket its split (mj__multi_bracket: at most a span of the
 * shard, n / s + 1 keys), not in the whole shard: a sorted search walks both its arrays, and
 * over the whole shard it read every key once more (at 2^29 keys a rank, most of the plan's
 * time after the local sort). */
static mj_status split(mj_multi_sorter *m, const plan_args *a, const plan_temp *t, char *base,
                       CUstream stream) {
    size_t P = (size_t)m->ranks, s = m->samples, ks = m->sort->key_size, all = 0;
    mj_status st = MJ_OK;
    for (size_t r = 0; r < P && !st; ++r) {
        size_t c = mj__multi_sample_count(m->n[r], s);
        st = mj__multi_copy(m, base + t->compact + all * ks, base + t->gather + r * s * ks,
                            c * ks, stream);
        all += c;
    }
    if (!st && all)
        st = mj_sorter_sort_indices(m->index, base + t->compact, base + t->order, all,
                                    base + t->index, t->index_bytes, stream);
    if (!st) st = mj__multi_download(m, m->order, base + t->order, all * sizeof *m->order, stream);
    if (!st && mj__multi_pick_splitters(m->ranks, m->n, s, m->order, all, m->splitters))
        st = mj__fail(m->ctx, MJ_ERR_CUDA, "the sample's order came back damaged");
    /* found: each splitter's split in this shard, as mj__multi_split_row's lower bounds with
     * no equal counts (zero). The search of splitter q, where one is needed, leaves its offset
     * in its bracket [lo[q], hi[q]) at found[q] on the device. */
    uint64_t *found = m->search_out, *equal = found + P, *lo = equal + P, *hi = lo + P;
    memset(m->search_out, 0, 2 * P * sizeof *m->search_out);
    if (!st && P > 1 && a->n && all) {
        int searched = 0;
        for (size_t q = 0; q + 1 < P && !st; ++q) {
            const mj_splitter *x = &m->splitters[q];
            if (mj__multi_bracket(m->ranks, m->rank, m->n, s, m->order, all, x, &lo[q], &hi[q]))
                st = mj__fail(m->ctx, MJ_ERR_CUDA, "the sample's order came back damaged");
            if (st || x->rank == m->rank || lo[q] == hi[q]) continue;
            st = mj__multi_copy(m, base + t->keys + q * ks, base + t->compact + x->sample * ks,
                                ks, stream);
            mj_search_outputs out;
            memset(&out, 0, sizeof out);
            out.bound = m->rank < x->rank ? MJ_BOUND_UPPER : MJ_BOUND_LOWER;
            out.index_size = sizeof(uint64_t);
            out.a_indices = base + t->found + q * sizeof(uint64_t);
            if (!st)
                st = mj_sorter_sorted_search(m->search, base + t->keys + q * ks, 1,
                                             (const char *)a->keys + lo[q] * ks, hi[q] - lo[q],
                                             &out, base + t->search, t->search_bytes, stream);
            searched = 1;
        }
        if (!st && searched)
            st = mj__multi_download(m, found, base + t->found, (P - 1) * sizeof *found,
                                    stream);
        /* The splitter's own rank splits at its position (mj__multi_split_row); an empty
         * bracket is its split; a searched one adds the search's offset. */
        for (size_t q = 0; !st && q + 1 < P; ++q)
            found[q] = m->splitters[q].rank == m->rank ? 0
                       : lo[q] == hi[q]                ? lo[q]
                                                       : lo[q] + found[q];
    }
    if (!st)
        mj__multi_split_row(m->ranks, m->rank, a->n, m->splitters, found, equal,
                            m->rows + (size_t)m->rank * m->row + 1);
    return st;
}

/* From every rank's row: what this rank receives (into *out_count, also when a capacity is
 * short), and every rank's total against its capacity. */
static mj_status receive(mj_multi_sorter *m, const char *fn, size_t *out_count) {
    int short_rank = -1;
    uint64_t need = 0;
    for (int q = 0; q < m->ranks && short_rank < 0; ++q) {
        need = mj__multi_recv(m->ranks, q, m->rows + 1, m->row, m->recv, m->offset);
        if (need > m->headers[q].capacity) short_rank = q;
    }
    *out_count = m->out_count =
        mj__multi_recv(m->ranks, m->rank, m->rows + 1, m->row, m->recv, m->offset);
    if (short_rank < 0) return MJ_OK;
    return mj__fail(m->ctx, MJ_ERR_TOO_LARGE, "%s: rank %d would receive %llu keys, more than "
                    "its capacity of %llu; nothing was exchanged", fn, short_rank,
                    (unsigned long long)need,
                    (unsigned long long)m->headers[short_rank].capacity);
}

static mj_status plan(mj_multi_sorter *m, const plan_args *a, const char *fn, CUstream stream) {
    mj_context *ctx = m->ctx;
    size_t ks = m->sort->key_size, vs = m->sort->value_size;
    char *ctl = m->ctl;
    m->planned = 0;
    mj_status st = mj__ctx_enter(ctx), cs;
    if (st) return st;
    plan_temp t;
    memset(&t, 0, sizeof t);
    char *base = NULL;
    st = mj__multi_usable(m, fn);
    if (!st) st = check_plan(m, a, fn);
    if (!st) st = plan_layout(m, a->n, &t);
    if (!st) st = mj__multi_scratch(m, t.total, stream, &base);
    if (m->aborted) { /* the wait for the scratch's last use timed out */
        mj__ctx_leave(ctx);
        return st;
    }

    mj_multi_header h = {st, a->n, a->outputs ? a->capacity : UINT64_MAX, ks, vs, {0, 0, 0}};
    cs = mj__multi_upload(m, ctl + m->ctl_headers + (size_t)m->rank * sizeof h, &h, sizeof h,
                          stream);
    if (!cs) cs = mj__multi_gather(m, ctl + m->ctl_headers, sizeof h, m->headers, stream);
    if (!cs) cs = mj__multi_verdict(m, &m->headers[0].status, sizeof h / sizeof(uint64_t), fn);
    if (!cs) cs = agree(m, fn);
    if (cs) goto done;

    st = sort_and_sample(m, a, &t, base, stream);
    cs = mj__multi_gather(m, base + t.gather, m->samples * ks, NULL, stream);
    if (cs) goto done;
    if (!st) st = split(m, a, &t, base, stream);

    uint64_t *row = m->rows + (size_t)m->rank * m->row;
    row[0] = st;
    cs = mj__multi_upload(m, ctl + m->ctl_rows + (size_t)m->rank * m->row * sizeof *row, row,
                          m->row * sizeof *row, stream);
    if (!cs) cs = mj__multi_gather(m, ctl + m->ctl_rows, m->row * sizeof *row, m->rows, stream);
    if (!cs) cs = mj__multi_verdict(m, m->rows, m->row, fn);
    if (!cs) cs = receive(m, fn, a->out_count);
    if (!cs) {
        m->planned = 1;
        m->keys = a->keys;
        m->values = a->values;
        m->count = a->n;
    }
done:
    if (base) mj__multi_scratch_done(m, stream);
    mj__ctx_leave(ctx);
    return cs;
}

mj_status mj_multi_sort_plan(mj_multi_sorter *m, void *keys, void *values, size_t n,
                             size_t *out_count, void *stream) {
    if (!m) return MJ_ERR_INVALID_ARGUMENT;
    plan_args a = {keys, values, n, 0, NULL, NULL, 0, out_count};
    return plan(m, &a, "mj_multi_sort_plan", (CUstream)stream);
}

/* Grouped sends and receives of every other rank's part (keys, then values) into buffer pair
 * (keys, values) at the receive offsets; this rank's own part is read from its input by the
 * merge tree's first level, or copied when the tree has no step (own_copy). */
static mj_status exchange(mj_multi_sorter *m, char *keys, char *values, int own_copy,
                          CUstream stream) {
    const mj_nccl_api *nc = m->nccl;
    size_t ks = m->sort->key_size, vs = m->sort->value_size;
    const uint64_t *split = m->rows + (size_t)m->rank * m->row + 1;
    const char *in_keys = m->keys, *in_values = m->values;
    int r = nc->group_start(), failed = r;
    for (int p = 0; p < m->ranks && !failed; ++p) {
        uint64_t send = split[p + 1] - split[p], at = split[p];
        if (p == m->rank) continue;
        if (send && !failed)
            failed = nc->send(in_keys + at * ks, send * ks, MJ_NCCL_UINT8, p, m->comm, stream);
        if (send && vs && !failed)
            failed = nc->send(in_values + at * vs, send * vs, MJ_NCCL_UINT8, p, m->comm, stream);
        if (m->recv[p] && !failed)
            failed = nc->recv(keys + m->offset[p] * ks, m->recv[p] * ks, MJ_NCCL_UINT8, p,
                              m->comm, stream);
        if (m->recv[p] && vs && !failed)
            failed = nc->recv(values + m->offset[p] * vs, m->recv[p] * vs, MJ_NCCL_UINT8, p,
                              m->comm, stream);
    }
    if (r == MJ_NCCL_SUCCESS) r = nc->group_end();
    if (failed || r != MJ_NCCL_SUCCESS) {
        char text[256];
        mj__nccl_describe(nc, failed ? failed : r, text, sizeof text);
        return mj__fail(m->ctx, MJ_ERR_CUDA, "exchanging the shards (ncclSend, ncclRecv): %s",
                        text);
    }
    if (!own_copy) return MJ_OK;
    uint64_t own = m->recv[m->rank], at = split[m->rank], to = m->offset[m->rank];
    mj_status st = mj__multi_copy(m, keys + to * ks, in_keys + at * ks, own * ks, stream);
    if (!st && vs) st = mj__multi_copy(m, values + to * vs, in_values + at * vs, own * vs, stream);
    return st;
}

/* The merge tree's steps between buffer pairs 0 (the output) and 1; the first level reads
 * this rank's own run from its input (not copied: a pass over it saved). */
static mj_status merge_tree(mj_multi_sorter *m, size_t steps, char *const *keys,
                            char *const *values, char *temp, size_t temp_bytes,
                            CUstream stream) {
    size_t ks = m->sort->key_size, vs = m->sort->value_size;
    uint64_t own = m->rows[(size_t)m->rank * m->row + 1 + m->rank];
    const char *own_keys = (const char *)m->keys + own * ks;
    const char *own_values = vs ? (const char *)m->values + own * vs : NULL;
    mj_status st = MJ_OK;
    for (size_t i = 0; i < steps && !st; ++i) {
        const mj_merge_step *x = &m->steps[i];
        const char *ak = keys[x->from] + x->a_at * ks, *bk = ak + x->a_count * ks;
        const char *av = vs ? values[x->from] + x->a_at * vs : NULL;
        const char *bv = vs ? av + x->a_count * vs : NULL;
        char *dk = keys[!x->from] + x->a_at * ks;
        char *dv = vs ? values[!x->from] + x->a_at * vs : NULL;
        if (x->a_run == m->rank) ak = own_keys, av = own_values;
        if (x->b_run == m->rank) bk = own_keys, bv = own_values;
        if (x->b_count)
            st = mj_sorter_merge(m->merge, ak, av, x->a_count, bk, bv, x->b_count, dk, dv, temp,
                                 temp_bytes, stream);
        else if (!(st = mj__multi_copy(m, dk, ak, x->a_count * ks, stream)) && vs)
            st = mj__multi_copy(m, dv, av, x->a_count * vs, stream);
    }
    return st;
}

/* The outputs of a finish: out_count entries, not overlapping the plan's inputs. */
static mj_status check_finish(mj_multi_sorter *m, void *out_keys, void *out_values,
                              const char *fn) {
    if (!m->planned)
        return mj__fail(m->ctx, MJ_ERR_INVALID_ARGUMENT, "%s: no plan to finish (call "
                        "mj_multi_sort_plan first, on every rank)", fn);
    mj_array arrays[4] = {{m->keys, 0, "keys"}, {m->values, 0, "values"},
                          {out_keys, 0, "out_keys"}, {out_values, 0, "out_values"}};
    size_t counts[4] = {m->count, m->count, m->out_count, m->out_count};
    return check_arrays(m, fn, arrays, counts, 4);
}

static mj_status finish(mj_multi_sorter *m, void *out_keys, void *out_values, const char *fn,
                        CUstream stream) {
    mj_context *ctx = m->ctx;
    size_t ks = m->sort->key_size, vs = m->sort->value_size, merge_bytes = 0;
    mj_status st = mj__ctx_enter(ctx), cs;
    if (st) return st;
    char *base = NULL;
    size_t steps = 0;
    int first = 0;
    mj_temp_layout l = {0, 0};
    size_t tk = 0, tv = 0, tm = 0;
    st = mj__multi_usable(m, fn);
    if (!st) st = check_finish(m, out_keys, out_values, fn);
    if (!st) steps = mj__multi_merge_schedule(m->ranks, m->recv, m->steps, &first);
    if (!st && steps && !(st = mj_sorter_temp_size(m->merge, m->out_count, 0, &merge_bytes))) {
        tk = mj__temp_part(&l, m->out_count, ks);
        tv = mj__temp_part(&l, m->out_count, vs);
        tm = mj__temp_part(&l, merge_bytes, 1);
        st = l.overflow ? mj__fail(ctx, MJ_ERR_TOO_LARGE, "%s: the output does not fit twice "
                                   "in memory", fn)
                        : mj__multi_scratch(m, l.total, stream, &base);
    }
    if (m->aborted) {
        mj__ctx_leave(ctx);
        m->planned = 0;
        return st;
    }

    char *ctl = m->ctl;
    m->status[m->rank] = st;
    cs = mj__multi_upload(m, ctl + m->ctl_status + (size_t)m->rank * sizeof *m->status,
                          &m->status[m->rank], sizeof *m->status, stream);
    if (!cs) cs = mj__multi_gather(m, ctl + m->ctl_status, sizeof *m->status, m->status, stream);
    if (!cs) cs = mj__multi_verdict(m, m->status, 1, fn);
    if (!cs) {
        /* Buffer pair 1, the temporary one, exists only when the tree has steps. */
        char *keys[2] = {out_keys, base ? base + tk : NULL};
        char *values[2] = {out_values, base ? base + tv : NULL};
        cs = exchange(m, keys[first], values[first], !steps, stream);
        if (!cs && steps) cs = merge_tree(m, steps, keys, values, base + tm, merge_bytes, stream);
    }
    if (base) mj__multi_scratch_done(m, stream);
    mj__ctx_leave(ctx);
    m->planned = 0;
    return cs;
}

mj_status mj_multi_sort_finish(mj_multi_sorter *m, void *out_keys, void *out_values,
                               void *stream) {
    if (!m) return MJ_ERR_INVALID_ARGUMENT;
    return finish(m, out_keys, out_values, "mj_multi_sort_finish", (CUstream)stream);
}

mj_status mj_multi_sort(mj_multi_sorter *m, void *keys, void *values, size_t n, void *out_keys,
                        void *out_values, size_t capacity, size_t *out_count, void *stream) {
    if (!m) return MJ_ERR_INVALID_ARGUMENT;
    plan_args a = {keys, values, n, 1, out_keys, out_values, capacity, out_count};
    mj_status st = plan(m, &a, "mj_multi_sort", (CUstream)stream);
    return st ? st : finish(m, out_keys, out_values, "mj_multi_sort", (CUstream)stream);
}
