/* SPDX-License-Identifier: Apache-2.0 */
// The cases bench_sort measures: the key types and their orders, the CUB side, the case table,
// the input of a case and mergejit's sorter for it. Kept apart from the measurement
// (bench_sort.cu), so that adding a case touches this file only. Included by bench_sort.cu.
#ifndef MJ_BENCH_SORT_CASES_H
#define MJ_BENCH_SORT_CASES_H

#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bench_common.h"
#include "mergejit.h"

// ---------------------------------------------------------------- key types and orders

// The 16-byte struct key, laid out as the CUDA source given to mergejit declares it.
struct rec16 {
    unsigned long long hi, lo;
};
static_assert(sizeof(rec16) == 16 && alignof(rec16) == 8, "rec16 layout");

// A 4-byte struct compared by its one field: a custom comparator as cheap as u32's order,
// which should sort as fast.
struct rec4 {
    unsigned x;
};
static_assert(sizeof(rec4) == 4 && alignof(rec4) == 4, "rec4 layout");

// A custom key as mergejit is told of it.
struct CustomKey {
    const char *type_name, *type_source, *less;
    size_t align;
};
static const CustomKey kRec16 = {"rec16", "struct rec16 { unsigned long long hi, lo; };",
                                 "a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo)", alignof(rec16)};
static const CustomKey kRec4 = {"rec4", "struct rec4 { unsigned x; };", "a.x < b.x",
                                alignof(rec4)};

struct Less {
    template <typename T>
    __device__ bool operator()(const T &a, const T &b) const
    {
        return a < b;
    }
};

struct Rec16Less {
    __device__ bool operator()(const rec16 &a, const rec16 &b) const
    {
        return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
    }
};

struct Rec4Less {
    __device__ bool operator()(const rec4 &a, const rec4 &b) const { return a.x < b.x; }
};

// ---------------------------------------------------------------- the CUB side

// One signature for every case: a temp-size query when temp is NULL, else the sort, in place.
// V = void means keys only. StableSort* is the documented-stable entry point of DeviceMergeSort.
typedef cudaError_t (*CubSortFn)(void *temp, size_t *temp_bytes, void *keys, void *values,
                                 int n, cudaStream_t stream);

template <typename K, typename V, typename Op>
static cudaError_t cub_sort(void *temp, size_t *temp_bytes, void *keys, void *values, int n,
                            cudaStream_t stream)
{
    if constexpr (std::is_void<V>::value) {
        (void)values;
        return cub::DeviceMergeSort::StableSortKeys(temp, *temp_bytes, static_cast<K *>(keys), n,
                                                    Op(), stream);
    } else {
        return cub::DeviceMergeSort::StableSortPairs(temp, *temp_bytes, static_cast<K *>(keys),
                                                     static_cast<V *>(values), n, Op(), stream);
    }
}

// CUB's radix sort of the built-in keys, beside: the bar a comparison sort of 4-byte keys has to
// reach. It sorts between the keys (values) and alt_keys (alt_values) with a cub::DoubleBuffer
// and says where the result is: *in_alt 0 or 1. Ascending, stable, as mergejit's built-in order
// for the keys the cases generate (no -0 or NaN).
typedef cudaError_t (*CubRadixFn)(void *temp, size_t *temp_bytes, void *keys, void *values,
                                  void *alt_keys, void *alt_values, int n, cudaStream_t stream,
                                  int *in_alt);

template <typename K, typename V>
static cudaError_t cub_radix(void *temp, size_t *temp_bytes, void *keys, void *values,
                             void *alt_keys, void *alt_values, int n, cudaStream_t stream,
                             int *in_alt)
{
    cub::DoubleBuffer<K> k(static_cast<K *>(keys), static_cast<K *>(alt_keys));
    cudaError_t e;
    if constexpr (std::is_void<V>::value) {
        (void)values;
        (void)alt_values;
        e = cub::DeviceRadixSort::SortKeys(temp, *temp_bytes, k, n, 0, 8 * (int)sizeof(K),
                                           stream);
    } else {
        cub::DoubleBuffer<V> v(static_cast<V *>(values), static_cast<V *>(alt_values));
        e = cub::DeviceRadixSort::SortPairs(temp, *temp_bytes, k, v, n, 0, 8 * (int)sizeof(K),
                                            stream);
    }
    *in_alt = k.selector;
    return e;
}

// ---------------------------------------------------------------- cases

enum KeyGen { GEN_U32, GEN_U64, GEN_F32, GEN_F64, GEN_REC16 };

struct Case {
    const char *name;
    KeyGen gen;
    mj_key_kind kind; // MJ_KEY_CUSTOM: `custom` says which
    size_t key_size;
    size_t value_size; // 0: keys only; values are the element's index, 4 or 8 bytes
    CubSortFn cub;
    const CustomKey *custom;
    CubRadixFn radix; // nullptr: no radix sort for the key (custom types)
};

static const Case kCases[] = {
    {"u32", GEN_U32, MJ_KEY_U32, 4, 0, cub_sort<uint32_t, void, Less>, nullptr,
     cub_radix<uint32_t, void>},
    {"u64", GEN_U64, MJ_KEY_U64, 8, 0, cub_sort<uint64_t, void, Less>, nullptr,
     cub_radix<uint64_t, void>},
    {"f32", GEN_F32, MJ_KEY_F32, 4, 0, cub_sort<float, void, Less>, nullptr,
     cub_radix<float, void>},
    {"f64", GEN_F64, MJ_KEY_F64, 8, 0, cub_sort<double, void, Less>, nullptr,
     cub_radix<double, void>},
    {"rec16", GEN_REC16, MJ_KEY_CUSTOM, 16, 0, cub_sort<rec16, void, Rec16Less>, &kRec16,
     nullptr},
    {"rec4", GEN_U32, MJ_KEY_CUSTOM, 4, 0, cub_sort<rec4, void, Rec4Less>, &kRec4, nullptr},
    {"pairs_u32", GEN_U32, MJ_KEY_U32, 4, 4, cub_sort<uint32_t, uint32_t, Less>, nullptr,
     cub_radix<uint32_t, uint32_t>},
    {"pairs_u64", GEN_U64, MJ_KEY_U64, 8, 8, cub_sort<uint64_t, uint64_t, Less>, nullptr,
     cub_radix<uint64_t, uint64_t>},
};
static const int kCaseCount = (int)(sizeof kCases / sizeof kCases[0]);

// Fills n keys of the case's kind and, for pairs, values 0, 1, 2, ... (so that any difference in
// stability shows in the values). Floats are finite, never zero (so -0/+0 and NaN, where the
// built-in total order and CUB's operator< differ, do not occur), of both signs and magnitudes
// from about 2^-44 to 2^20. rec16 keys have 20-bit `hi` so that ties on hi are common and `lo`
// decides; rec4 keys are the u32 case's.
static void generate(const Case &c, void *keys, void *values, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = splitmix64(&s);
        switch (c.gen) {
        case GEN_U32: static_cast<uint32_t *>(keys)[i] = (uint32_t)(r >> 32); break;
        case GEN_U64: static_cast<uint64_t *>(keys)[i] = r; break;
        case GEN_F32: {
            float m = (float)((r & 0xffffffu) + 1);             // 1 .. 2^24, exact
            int e = (int)((r >> 24) % 41) - 44;                 // 2^-44 .. 2^-4 scale
            float x = ldexpf(m, e);
            static_cast<float *>(keys)[i] = (r >> 63) ? -x : x;
            break;
        }
        case GEN_F64: {
            double m = (double)((r >> 11) + 1);                 // 1 .. 2^53, exact
            uint64_t r2 = splitmix64(&s);
            int e = (int)(r2 % 41) - 73;                        // 2^-73 .. 2^-33 scale
            double x = ldexp(m, e);
            static_cast<double *>(keys)[i] = (r2 >> 63) ? -x : x;
            break;
        }
        case GEN_REC16: {
            rec16 k;
            k.hi = r >> 44;
            k.lo = splitmix64(&s);
            static_cast<rec16 *>(keys)[i] = k;
            break;
        }
        }
        if (c.value_size == 4)
            static_cast<uint32_t *>(values)[i] = (uint32_t)i;
        else if (c.value_size == 8)
            static_cast<uint64_t *>(values)[i] = (uint64_t)i;
    }
}

static mj_sorter *build_sorter(const Case &c)
{
    mj_sort_desc desc;
    if (c.kind == MJ_KEY_CUSTOM) {
        memset(&desc, 0, sizeof desc);
        desc.key = MJ_KEY_CUSTOM;
        desc.order = MJ_ASCENDING;
        desc.less = c.custom->less;
        desc.type_name = c.custom->type_name;
        desc.type_source = c.custom->type_source;
        desc.type_size = c.key_size;
        desc.type_align = c.custom->align;
    } else {
        mj_sort_desc_init(&desc, c.kind, MJ_ASCENDING);
    }
    desc.value_size = c.value_size;
    mj_sorter *sorter = nullptr;
    MJ_CHECK(mj_sorter_create(g_ctx, &desc, &sorter));
    return sorter;
}

#endif
