# SPDX-License-Identifier: Apache-2.0
"""Every function on the GPU, checked against numpy (stable sorts). Skipped without a driver or
device. Arrays are DeviceArray holders (cuMemAlloc, __cuda_array_interface__) unless a test
says otherwise."""
import numpy as np
import pytest

import mergejit
from holders import DeviceArray, DLPackArray, cuda
from reference import FLOAT_BITS, LESS, REC, merge_join, ordinals, pick, random_keys, record_order, records, \
    same_bits, set_reference, sorted_floats, stable_order

RNG = np.random.default_rng(20)
BIG = 1 << 20


@pytest.mark.parametrize("dtype", ["u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8", "f2",
                                   "f4", "f8", "?"])
def test_sort_builtin(gpu, dtype):
    host = random_keys(RNG, dtype, 5000)
    d = DeviceArray(host)
    assert mergejit.sort(d, out=d, context=gpu) is d
    assert same_bits(d.get(), host[stable_order(host)])


@pytest.mark.parametrize("n", [0, 1, 2, 1000, BIG])
def test_sort_sizes(gpu, n):
    host = RNG.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    d = DeviceArray(host)
    mergejit.sort(d, out=d, context=gpu)
    assert same_bits(d.get(), np.sort(host, kind="stable"))


@pytest.mark.parametrize("dtype", ["i4", "u8", "f4", "f8"])
def test_sort_descending(gpu, dtype):
    host = random_keys(RNG, dtype, 20000)
    d = DeviceArray(host)
    mergejit.sort(d, out=d, order="descending", context=gpu)
    assert same_bits(d.get(), host[stable_order(host, True)])


@pytest.mark.parametrize("order", ["ascending", "descending"])
@pytest.mark.parametrize("dtype", ["f2", "f4", "f8"])
@pytest.mark.parametrize("locality", [False, True])
def test_nan_last(gpu, order, dtype, locality):
    """NaNs of both signs and several payloads, -0 and +0, infinities and subnormals: NaNs
    last in both orders, ordered by their bits, equal bits stable; mergesort (which holds keys
    as ordinals) and locality sort (which compares through them) alike."""
    uint, mantissa = FLOAT_BITS[np.dtype(dtype).itemsize]
    width = 8 * np.dtype(dtype).itemsize
    exp = ((1 << (width - 1)) - 1) & ~((1 << mantissa) - 1)
    special = [exp | 1, exp | 1 << (mantissa - 1), exp | (1 << mantissa) - 1, 0, exp, 1]
    special = np.array(special + [b | 1 << (width - 1) for b in special], dtype=uint)
    host = RNG.standard_normal(30000).astype(dtype)
    at = RNG.integers(0, host.size, 3000)
    host.view(uint)[at] = special[RNG.integers(0, special.size, at.size)]
    values = np.arange(host.size, dtype=np.uint32)
    d, dv = DeviceArray(host), DeviceArray(values)
    mergejit.sort_by_key(d, dv, out=(d, dv), order=order, locality=locality, context=gpu)
    want = stable_order(host, order == "descending")
    assert same_bits(d.get(), host[want])
    assert np.array_equal(dv.get(), want)
    got = d.get()
    assert np.isnan(got[-int(np.isnan(host).sum()):]).all()


def test_sort_big_pairs_and_argsort(gpu):
    keys = RNG.standard_normal(BIG).astype(np.float64)
    keys[::7] = np.round(keys[::7])                  # ties
    vals = np.arange(BIG, dtype=np.uint32)
    dk, dv = DeviceArray(keys), DeviceArray(vals)
    mergejit.sort_by_key(dk, dv, out=(dk, dv), context=gpu)
    order = stable_order(keys)
    assert same_bits(dk.get(), keys[order]) and same_bits(dv.get(), vals[order])
    di, dk2 = DeviceArray.empty(BIG, np.int64), DeviceArray(keys)
    assert mergejit.argsort(dk2, di, context=gpu) is di
    assert np.array_equal(di.get(), order) and same_bits(dk2.get(), keys)
    di4 = DeviceArray.empty(BIG, np.uint32)
    mergejit.argsort(dk2, di4, order="descending", context=gpu)
    assert np.array_equal(di4.get(), stable_order(keys, True))


def test_sort_by_key_row_values(gpu):
    keys = RNG.integers(0, 50, 10000).astype(np.int16)
    vals = RNG.standard_normal((10000, 3)).astype(np.float32)     # 12-byte values
    dk, dv = DeviceArray(keys), DeviceArray(vals)
    mergejit.sort_by_key(dk, dv, out=(dk, dv), context=gpu)
    order = stable_order(keys)
    assert same_bits(dk.get(), keys[order]) and same_bits(dv.get(), vals[order])


def test_locality_sort(gpu):
    host = np.arange(BIG, dtype=np.int32)
    swaps = RNG.integers(0, BIG - 1, 1000)
    host[swaps], host[swaps + 1] = host[swaps + 1], host[swaps]
    d = DeviceArray(host)
    mergejit.sort(d, out=d, locality=True, context=gpu)
    assert np.array_equal(d.get(), np.sort(host))


@pytest.mark.parametrize("n", [0, 1, 5000, BIG])
def test_struct_two_field_comparator(gpu, n):
    rec = records(RNG, n)
    d = DeviceArray(rec)
    mergejit.sort(d, out=d, less=LESS, context=gpu)
    assert same_bits(d.get(), rec[record_order(rec)])


def test_padded_struct_pairs(gpu):
    dt = np.dtype([("flag", "u1"), ("w", "f8"), ("tag", "i2", (2,))], align=True)
    n = 20000
    rec = np.zeros(n, dt)
    rec["flag"] = RNG.integers(0, 3, n)
    rec["w"] = RNG.integers(0, 40, n)
    rec["tag"] = RNG.integers(-5, 5, (n, 2))
    vals = np.arange(n, dtype=np.uint64)
    dk, dv = DeviceArray(rec), DeviceArray(vals)
    mergejit.sort_by_key(dk, dv, out=(dk, dv),
                         less="a.w > b.w || (a.w == b.w && a.tag[1] < b.tag[1])", context=gpu)
    order = np.lexsort((rec["tag"][:, 1], -rec["w"]))
    assert np.array_equal(dv.get(), vals[order])
    assert same_bits(dk.get(), rec[order])


def test_merge(gpu):
    a = np.sort(RNG.integers(0, 1000, 30000).astype(np.int64))
    b = np.sort(RNG.integers(0, 1000, 50000).astype(np.int64))
    av, bv = np.arange(a.size, dtype=np.uint32), np.arange(b.size, dtype=np.uint32) + a.size
    out, outv = DeviceArray.empty(a.size + b.size, np.int64), \
        DeviceArray.empty(a.size + b.size, np.uint32)
    r = mergejit.merge(DeviceArray(a), DeviceArray(b), out, a_values=DeviceArray(av),
                       b_values=DeviceArray(bv), out_values=outv, context=gpu)
    assert r == (out, outv)
    both = np.concatenate([a, b])
    order = np.argsort(both, kind="stable")                 # a's first on ties
    assert np.array_equal(out.get(), both[order])
    assert np.array_equal(outv.get(), np.concatenate([av, bv])[order])
    out2 = DeviceArray.empty(a.size, np.int64)
    mergejit.merge(DeviceArray(a), DeviceArray(a[:0]), out2, context=gpu)
    assert np.array_equal(out2.get(), a)


def test_merge_structs(gpu):
    a, b = records(RNG, 3000), records(RNG, 4000)
    a, b = a[record_order(a)], b[record_order(b)]
    out = DeviceArray.empty(7000, REC)
    mergejit.merge(DeviceArray(a), DeviceArray(b), out, less=LESS, context=gpu)
    both = np.concatenate([a, b])
    assert same_bits(out.get(), both[record_order(both)])


@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_segmented_sort(gpu, index):
    n = 100000
    keys = RNG.integers(0, 20, n).astype(np.uint16)
    vals = np.arange(n, dtype=np.uint32)
    cuts = np.unique(np.concatenate([[0, n], RNG.integers(0, n, 300)]))
    offsets = cuts.astype(index)
    dk, dv = DeviceArray(keys), DeviceArray(vals)
    mergejit.segmented_sort(dk, DeviceArray(offsets), dv, out=(dk, dv), context=gpu)
    order = np.concatenate([lo + np.argsort(keys[lo:hi], kind="stable")
                            for lo, hi in zip(cuts[:-1], cuts[1:])])
    assert np.array_equal(dk.get(), keys[order]) and np.array_equal(dv.get(), vals[order])
    flags = np.zeros(n, np.uint8)
    flags[cuts[:-1]] = 1
    dk = DeviceArray(keys)
    mergejit.segmented_sort(dk, DeviceArray(flags), out=dk, kind="flags", order="descending",
                            context=gpu)
    order = np.concatenate([lo + np.argsort(-keys[lo:hi].astype(np.int32), kind="stable")
                            for lo, hi in zip(cuts[:-1], cuts[1:])])
    assert np.array_equal(dk.get(), keys[order])


def test_reduce_and_scan(gpu):
    x = RNG.integers(-1 << 31, 1 << 31, BIG, dtype=np.int64).astype(np.int32)
    wrap = lambda v: np.array(v).astype(np.int64).astype(np.int32)  # noqa: E731
    out = DeviceArray.empty(1, np.int32)
    mergejit.reduce(DeviceArray(x), out, context=gpu)
    assert out.get()[0] == wrap(x.astype(np.int64).sum() & 0xFFFFFFFF)
    mx = DeviceArray.empty(1, np.int32)
    mergejit.reduce(DeviceArray(x), mx, op="max(a, b)", identity="-2147483647 - 1",
                    context=gpu)
    assert mx.get()[0] == x.max()
    inc = np.cumsum(x.astype(np.int64)).astype(np.int32)    # numpy wraps like the GPU
    dx, total = DeviceArray(x), DeviceArray.empty(1, np.int32)
    mergejit.scan(dx, dx, total=total, context=gpu)          # exclusive, in place
    assert np.array_equal(dx.get(), np.concatenate([[0], inc[:-1]]).astype(np.int32))
    assert total.get()[0] == inc[-1]
    out = DeviceArray.empty(BIG, np.int32)
    mergejit.scan(DeviceArray(x), out, inclusive=True, context=gpu)
    assert np.array_equal(out.get(), inc)


def test_scan_struct_operator(gpu):
    aff = np.dtype([("m", "u4"), ("c", "u4")])
    n = 10000
    maps = np.zeros(n, aff)
    maps["m"], maps["c"] = RNG.integers(0, 100, n), RNG.integers(0, 100, n)
    d = DeviceArray(maps)
    mergejit.scan(d, d, op="aff{a.m * b.m, a.c * b.m + b.c}", identity="aff{1, 0}",
                  inclusive=True, type_name="aff", context=gpu)
    m, c = np.uint32(1), np.uint32(0)
    want = np.zeros(n, aff)
    with np.errstate(over="ignore"):
        for i in range(n):
            m, c = m * maps["m"][i], c * maps["m"][i] + maps["c"][i]
            want[i] = (m, c)
    assert same_bits(d.get(), want)


def test_segmented_reduce(gpu):
    x = RNG.integers(-1 << 31, 1 << 31, BIG, dtype=np.int64).astype(np.int32)
    lens = RNG.integers(0, 40, BIG // 10)
    lens[100:5000] = 0                                        # many empty segments
    lens[7] = BIG // 3                                        # and a long one
    off = np.minimum(np.concatenate([[0], np.cumsum(lens)]), BIG)
    for dt in (np.int32, np.int64):
        out = mergejit.segmented_reduce(DeviceArray(x), DeviceArray(off.astype(dt)),
                                        out=DeviceArray.empty(off.size - 1, np.int32),
                                        context=gpu)
        want = [x[a:b].astype(np.int64).sum() & 0xFFFFFFFF for a, b in zip(off[:-1], off[1:])]
        assert np.array_equal(out.get(), np.array(want).astype(np.int64).astype(np.int32))
    # A non-commutative operator over records: maps composed in order within each segment.
    aff = np.dtype([("m", "u4"), ("c", "u4")])
    n = 20000
    maps = np.zeros(n, aff)
    maps["m"], maps["c"] = RNG.integers(0, 100, n), RNG.integers(0, 100, n)
    off = np.array([0, 0, 3, 3000, 3001, 19000, n], np.int64)
    out = DeviceArray.empty(off.size - 1, aff)
    mergejit.segmented_reduce(DeviceArray(maps), DeviceArray(off), out,
                              op="aff{a.m * b.m, a.c * b.m + b.c}", identity="aff{1, 0}",
                              type_name="aff", context=gpu)
    want = np.zeros(off.size - 1, aff)
    with np.errstate(over="ignore"):
        for s in range(off.size - 1):
            m, c = np.uint32(1), np.uint32(0)
            for i in range(off[s], off[s + 1]):
                m, c = m * maps["m"][i], c * maps["m"][i] + maps["c"][i]
            want[s] = (m, c)
    assert same_bits(out.get(), want)


def rbk_reference(keys, values, op):
    """Each run of equal adjacent keys (equal bits): its first key and its values folded."""
    bits = keys.view(np.uint8).reshape(keys.size, -1)
    heads = np.ones(keys.size, bool)
    heads[1:] = (bits[1:] != bits[:-1]).any(axis=1)
    starts = np.flatnonzero(heads)
    ends = list(starts[1:]) + [keys.size]
    return keys[starts], [op(values[b:e]) for b, e in zip(starts, ends)]


def test_reduce_by_key(gpu, alloc):
    # runs of 1 to 7 copies drawn from 50 keys (equal keys come back apart), -0 and +0 apart
    runs = RNG.integers(1, 8, 40000)
    keys = np.repeat(RNG.integers(0, 50, runs.size).astype(np.float32), runs)
    keys[::97] = -0.0
    keys[1::97] = 0.0
    vals = RNG.integers(0, 1 << 32, keys.size, dtype=np.uint64).astype(np.uint32)
    got_k, got_v = mergejit.reduce_by_key(DeviceArray(keys), DeviceArray(vals), context=gpu)
    want_k, want_v = rbk_reference(keys, vals, lambda v: v.sum(dtype=np.uint32))
    assert same_bits(got_k.get(), want_k)
    assert np.array_equal(got_v.get(), np.array(want_v, np.uint32))
    # a structured value with an operator that is not commutative
    aff = np.dtype([("m", "u4"), ("c", "u4")])
    maps = np.zeros(keys.size, aff)
    maps["m"], maps["c"] = RNG.integers(0, 100, keys.size), RNG.integers(0, 100, keys.size)

    def compose(v):
        m, c = np.uint32(1), np.uint32(0)
        with np.errstate(over="ignore"):
            for x in v:
                m, c = m * x["m"], c * x["m"] + x["c"]
        return (m, c)
    got_k, got_v = mergejit.reduce_by_key(DeviceArray(keys), DeviceArray(maps),
                                          op="aff{a.m * b.m, a.c * b.m + b.c}",
                                          identity="aff{1, 0}", value_type="aff",
                                          value_type_source="struct aff { unsigned m, c; };",
                                          context=gpu)
    want_k, want_v = rbk_reference(keys, maps, compose)
    assert same_bits(got_k.get(), want_k)
    assert same_bits(got_v.get(), np.array(want_v, aff))


def test_sorted_search(gpu):
    a = np.sort(RNG.integers(0, 5000, 20000).astype(np.float32))
    b = np.sort(RNG.integers(0, 5000, 30000).astype(np.float32))
    r = mergejit.sorted_search(DeviceArray(a), DeviceArray(b),
                               a_indices=DeviceArray.empty(a.size, np.int64),
                               a_counts=DeviceArray.empty(a.size, np.int64),
                               b_matches=DeviceArray.empty(b.size, np.uint8),
                               match_counts=DeviceArray.empty(2, np.uint64), context=gpu)
    lo, hi = np.searchsorted(b, a, "left"), np.searchsorted(b, a, "right")
    assert np.array_equal(r.a_indices.get(), lo)
    assert np.array_equal(r.a_counts.get(), hi - lo)
    assert np.array_equal(r.b_matches.get(), np.isin(b, a).astype(np.uint8))
    assert np.array_equal(r.match_counts.get(), [(hi > lo).sum(), np.isin(b, a).sum()])
    up = mergejit.sorted_search(DeviceArray(a), DeviceArray(b), bound="upper",
                                a_indices=DeviceArray.empty(a.size, np.uint32), context=gpu)
    assert np.array_equal(up.a_indices.get(), hi)


@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_load_balance(gpu, index):
    counts = RNG.integers(0, 10, 5000)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(index)
    m = int(counts.sum())
    objects, ranks = DeviceArray.empty(m, index), DeviceArray.empty(m, index)
    mergejit.load_balance(DeviceArray(offsets), m, objects, ranks, context=gpu)
    want = np.repeat(np.arange(counts.size), counts)
    assert np.array_equal(objects.get(), want)
    assert np.array_equal(ranks.get(), np.arange(m) - offsets[want])


def test_sorter_build_once_run_many_with_temp(gpu):
    s = mergejit.Sorter(REC, less=LESS, value_size=4, context=gpu)
    assert s.source in ("nvrtc", "disk", "memory") and s.build_ms >= 0
    temp = DeviceArray.empty(s.temp_size(BIG), np.uint8)
    for n in (BIG, 1000, 0):
        rec, vals = records(RNG, n), np.arange(n, dtype=np.uint32)
        dk, dv = DeviceArray(rec), DeviceArray(vals)
        s.sort(dk, dv, temp=temp)
        order = record_order(rec)
        assert same_bits(dk.get(), rec[order]) and np.array_equal(dv.get(), vals[order])
    again = mergejit.Sorter(REC, less=LESS, value_size=4, context=gpu)
    assert again.source == "memory"
    other = mergejit.Context(0, cache_dir=gpu.cache_dir)
    assert mergejit.Sorter(REC, less=LESS, value_size=4, context=other).source == "disk"
    other.close()


def test_streams(gpu):
    cu = cuda()
    handle = cu.stream()

    class CoreStream:                                   # cuda.core's protocol
        def __cuda_stream__(self):
            return (0, handle)

    host = RNG.integers(0, 1 << 30, BIG).astype(np.int32)
    for how in ("int", "protocol", "interface"):
        d = DeviceArray(host, stream=handle if how == "interface" else None)
        stream = {"int": handle, "protocol": CoreStream(), "interface": None}[how]
        mergejit.sort(d, out=d, stream=stream, context=gpu)
        assert np.array_equal(d.get(), np.sort(host)), how
    cu.lib.cuStreamDestroy_v2(handle)


def test_dlpack_arrays(gpu):
    host = RNG.standard_normal(BIG).astype(np.float32)
    d = DeviceArray(host)
    dl = DLPackArray.over(d)
    mergejit.sort(dl, out=dl, order="descending", context=gpu)
    assert d.get().tobytes() == host[stable_order(host, True)].tobytes()
    assert dl.asked_stream == 1


def test_errors_leave_data(gpu):
    host = RNG.integers(0, 100, 1000).astype(np.uint32)
    d = DeviceArray(host)
    with pytest.raises(mergejit.InvalidArgumentError):
        mergejit.sort_by_key(d, DeviceArray(np.zeros((1000, 65), np.uint8)), context=gpu)
    assert np.array_equal(d.get(), host)
    with pytest.raises(mergejit.CompileError, match="comparator"):
        mergejit.sort(d, out=d, less="a.nope < b", context=gpu)
    assert np.array_equal(d.get(), host)


def test_default_context(gpu):
    host = RNG.integers(0, 100, 1000).astype(np.uint8)
    d = DeviceArray(host)
    mergejit.sort(d, out=d)
    assert np.array_equal(d.get(), np.sort(host))
    assert mergejit.default_context(0).device_name == gpu.device_name


def test_records_as_bytes(gpu):
    # CuPy and PyTorch hold records as bytes: dtype= views them (and a sorter does by itself).
    rec = records(RNG, 5000)
    d = DeviceArray(rec.view(np.uint8))
    mergejit.sort(d, out=d, dtype=REC, less=LESS, context=gpu)
    assert same_bits(d.get(), rec[record_order(rec)])
    d = DeviceArray(rec.view(np.uint8))
    gpu.sorter(REC, less=LESS).sort(d)
    assert same_bits(d.get(), rec[record_order(rec)])


# ---------------------------------------------------------------- the merge-path family

@pytest.fixture
def alloc(monkeypatch):
    """Outputs the package allocates ("like the input") come as DeviceArray holders here: the
    package allocates only like CuPy, PyTorch and Numba arrays, and the tests use none."""
    import mergejit._core
    monkeypatch.setattr(mergejit._core, "empty_like",
                        lambda a, shape, dtype, what: DeviceArray.empty(shape, dtype))


SET_OPS = ["intersection", "union", "difference", "symmetric_difference"]


@pytest.mark.parametrize("op", SET_OPS)
@pytest.mark.parametrize("sizes", [(5000, 7000), (0, 300), (300, 0), (40000, 1000)])
def test_set_operation_floats(gpu, alloc, op, sizes):
    a, b = sorted_floats(RNG, sizes[0], 300), sorted_floats(RNG, sizes[1], 300)
    av = np.arange(a.size, dtype=np.uint64)
    bv = np.arange(b.size, dtype=np.uint64) + (1 << 40)
    keys, vals = mergejit.set_operation(op, DeviceArray(a), DeviceArray(b), DeviceArray(av),
                                        DeviceArray(bv), context=gpu)
    ref = set_reference(op, ordinals(a), ordinals(b))
    assert keys.shape == (len(ref),) and vals.shape == (len(ref),)
    assert same_bits(keys.get(), pick(ref, a, b))
    assert np.array_equal(vals.get(), pick(ref, av, bv))


@pytest.mark.parametrize("op", SET_OPS)
def test_set_operation_keys_descending_on_a_stream(gpu, alloc, op):
    a = np.sort(RNG.integers(0, 2000, 60000).astype(np.int32))[::-1].copy()
    b = np.sort(RNG.integers(0, 2000, 30000).astype(np.int32))[::-1].copy()
    handle = cuda().stream()
    keys = mergejit.set_operation(op, DeviceArray(a), DeviceArray(b), order="descending",
                                  stream=handle, context=gpu)
    ref = set_reference(op, -a.astype(np.int64), -b.astype(np.int64))
    assert np.array_equal(keys.get(), pick(ref, a, b))
    cuda().lib.cuStreamDestroy_v2(handle)


def test_set_operation_structs_and_sorter(gpu, alloc):
    a, b = records(RNG, 3000), records(RNG, 2000)
    a, b = a[record_order(a)], b[record_order(b)]
    # Equivalence is the comparator's: equal x and equal id (ids are mostly distinct, so
    # the comparator on x alone makes the ties).
    keys = mergejit.set_operation("intersection", DeviceArray(a), DeviceArray(b),
                                  less="a.x < b.x", dtype=REC, context=gpu)
    oa, ob = a["x"].astype(np.int64), b["x"].astype(np.int64)
    ref = set_reference("intersection", oa, ob)
    assert same_bits(keys.get(), pick(ref, a, b))
    # The Sorter writes the count to the device and reads nothing back.
    s = mergejit.Sorter(np.int64, primitive="setops", context=gpu)
    x, y = np.arange(0, 1000, 2, dtype=np.int64), np.arange(0, 1000, 3, dtype=np.int64)
    out, count = DeviceArray.empty(x.size + y.size, np.int64), DeviceArray.empty(1, np.uint64)
    s.set_operation("union", DeviceArray(x), DeviceArray(y), out, count)
    want = np.union1d(x, y)
    assert count.get()[0] == want.size and np.array_equal(out.get()[:want.size], want)


@pytest.mark.parametrize("n", [0, 1, 3839, 3840, 3841, 200001])
def test_select_and_unique(gpu, alloc, n):
    x = RNG.integers(0, 50, n).astype(np.int64)
    x = np.repeat(x, RNG.integers(1, 4, n))[:n]       # runs of equal keys
    v = np.arange(n, dtype=np.uint32)
    keys, vals = mergejit.select(DeviceArray(x), "a % 3 == 0", DeviceArray(v), context=gpu)
    keep = x % 3 == 0
    assert np.array_equal(keys.get(), x[keep]) and np.array_equal(vals.get(), v[keep])
    heads = np.ones(n, bool)
    heads[1:] = x[1:] != x[:-1]
    keys, vals = mergejit.unique(DeviceArray(x), DeviceArray(v), context=gpu)
    assert np.array_equal(keys.get(), x[heads]) and np.array_equal(vals.get(), v[heads])


def test_unique_floats_and_records(gpu, alloc):
    # Floats are equivalent only with equal bits: -0 and +0 differ, one NaN pattern repeats.
    x = np.array([1.5, 1.5, -0.0, 0.0, 0.0, np.nan, np.nan, -np.inf, 2.0], np.float32)
    got = mergejit.unique(DeviceArray(x), context=gpu).get()
    assert same_bits(got, x[[0, 2, 3, 5, 7, 8]])
    # Records by the comparator: equal x, whatever id; the first of each run stays.
    r = records(RNG, 5000)
    r = r[record_order(r)]
    got = mergejit.unique(DeviceArray(r), less="a.x < b.x", dtype=REC, context=gpu).get()
    heads = np.ones(r.size, bool)
    heads[1:] = r["x"][1:].view(np.uint32) != r["x"][:-1].view(np.uint32)
    assert same_bits(got, r[heads])
    got = mergejit.select(DeviceArray(r), "a.id % 2 == 1", dtype=REC, context=gpu).get()
    assert same_bits(got, r[r["id"] % 2 == 1])
    # The Sorter writes the count to the device and reads nothing back.
    s = mergejit.Sorter(np.int32, primitive="select", op="a < 0", context=gpu)
    y = np.arange(-500, 500, dtype=np.int32)
    out, count = DeviceArray.empty(y.size, np.int32), DeviceArray.empty(1, np.uint64)
    s.select("if", DeviceArray(y), out, count)
    assert count.get()[0] == 500 and np.array_equal(out.get()[:500], y[:500])


@pytest.mark.parametrize("kind", ["inner", "left", "right", "outer"])
@pytest.mark.parametrize("index", [np.int64, np.uint32])
@pytest.mark.parametrize("sizes", [(3000, 4000), (0, 500), (500, 0), (20000, 300)])
def test_join(gpu, alloc, kind, index, sizes):
    a, b = sorted_floats(RNG, sizes[0], 400), sorted_floats(RNG, sizes[1], 400)
    a_rows, b_rows = mergejit.join(DeviceArray(a), DeviceArray(b), kind, index_dtype=index,
                                   context=gpu)
    null = int(np.array(-1).astype(index))           # all ones: -1, or the unsigned maximum
    want = merge_join(kind, ordinals(a), ordinals(b), null)
    assert a_rows.shape == (len(want),) and b_rows.shape == (len(want),)
    assert a_rows.dtype == index and b_rows.dtype == index
    got = list(zip(a_rows.get().tolist(), b_rows.get().tolist()))
    assert got == want


def test_join_structs_and_sorter(gpu, alloc):
    a, b = records(RNG, 2000), records(RNG, 2500)
    a, b = a[np.argsort(a["x"], kind="stable")], b[np.argsort(b["x"], kind="stable")]
    a_rows, b_rows = mergejit.join(DeviceArray(a), DeviceArray(b), "outer", less="a.x < b.x",
                                   context=gpu)
    want = merge_join("outer", a["x"].astype(np.int64), b["x"].astype(np.int64), -1)
    assert list(zip(a_rows.get().tolist(), b_rows.get().tolist())) == want
    # The Sorter: a count, then rows into caller arrays; too little room writes what fits.
    s = mergejit.Sorter(np.uint16, primitive="join", context=gpu)
    x = np.repeat(np.arange(10, dtype=np.uint16), 3)
    y = np.repeat(np.arange(5, 15, dtype=np.uint16), 2)
    dx, dy, count = DeviceArray(x), DeviceArray(y), DeviceArray.empty(1, np.uint64)
    s.join_count(dx, dy, count, kind="inner")
    assert count.get()[0] == 5 * 3 * 2
    ra, rb = DeviceArray.empty(7, np.uint64), DeviceArray.empty(7, np.uint64)
    s.join(dx, dy, ra, rb, count)
    want = merge_join("inner", x.astype(np.int64), y.astype(np.int64), None)
    assert count.get()[0] == 30
    assert list(zip(ra.get().tolist(), rb.get().tolist())) == want[:7]
    # A plan, then its rows from it (the module's join above ran through both too).
    temp = DeviceArray.empty(s.temp_size(len(x) + len(y)), np.uint8)
    count = DeviceArray.empty(1, np.uint64)
    plan = s.join_plan(dx, dy, count, temp)
    assert count.get()[0] == 30
    ra, rb = DeviceArray.empty(30, np.uint32), DeviceArray.empty(30, np.uint32)
    s.join_rows(plan, ra, rb)
    assert list(zip(ra.get().tolist(), rb.get().tolist())) == want


@pytest.mark.parametrize("index", [np.uint32, np.int64])
def test_bulk_remove(gpu, alloc, index):
    n = 50000
    rec, vals = records(RNG, n), RNG.standard_normal((n, 2)).astype(np.float32)
    idx = np.unique(RNG.integers(0, n, 20000)).astype(index)
    out, out_vals = mergejit.bulk_remove(DeviceArray(rec), DeviceArray(idx),
                                         DeviceArray(vals), context=gpu)
    assert same_bits(out.get(), np.delete(rec, idx))   # records need no comparator to move
    assert same_bits(out_vals.get(), np.delete(vals, idx, axis=0))
    keys = RNG.integers(0, 1 << 30, 1000).astype(np.int32)
    out = DeviceArray.empty(0, np.int32)
    mergejit.bulk_remove(DeviceArray(keys), DeviceArray(np.arange(1000, dtype=index)),
                         out=out, context=gpu)
    keep = DeviceArray.empty(1000, np.int32)
    mergejit.bulk_remove(DeviceArray(keys), DeviceArray(np.zeros(0, index)), out=keep,
                         context=gpu)
    assert np.array_equal(keep.get(), keys)


@pytest.mark.parametrize("index", [np.uint32, np.int64])
def test_bulk_insert(gpu, alloc, index):
    b = RNG.standard_normal(40000)
    a = RNG.standard_normal(15000)
    pos = np.sort(RNG.integers(0, b.size + 1, a.size)).astype(index)
    pos[-10:] = b.size                                  # appends
    av, bv = np.arange(a.size, dtype=np.uint32), np.arange(b.size, dtype=np.uint32) + a.size
    out, out_vals = mergejit.bulk_insert(DeviceArray(a), DeviceArray(pos), DeviceArray(b),
                                         DeviceArray(av), DeviceArray(bv), context=gpu)
    # numpy inserts each a[i] before b[pos[i]], a's of equal position in their order.
    assert same_bits(out.get(), np.insert(b, pos.astype(np.int64), a))
    assert np.array_equal(out_vals.get(), np.insert(bv, pos.astype(np.int64), av))


@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_interval_expand(gpu, alloc, index):
    counts = RNG.integers(0, 12, 4000)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(index)
    values = RNG.standard_normal((counts.size, 3)).astype(np.float32)   # 12-byte values
    m = int(counts.sum())
    out = mergejit.interval_expand(DeviceArray(offsets), m, DeviceArray(values), context=gpu)
    assert out.shape == (m, 3)
    assert same_bits(out.get(), np.repeat(values, counts, axis=0))


@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_interval_move(gpu, alloc, index):
    counts = RNG.integers(0, 40, 3000)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(index)
    m = int(counts.sum())
    x = RNG.integers(0, 1 << 62, 3 * m, dtype=np.int64)
    gather = RNG.integers(0, x.size - 40, counts.size).astype(index)
    # Destinations: the intervals laid out in a shuffled order, one after another.
    perm = RNG.permutation(counts.size)
    starts = np.empty(counts.size, np.int64)
    starts[perm] = np.concatenate([[0], np.cumsum(counts[perm])[:-1]])
    scatter = starts.astype(index)
    dx, doff = DeviceArray(x), DeviceArray(offsets)
    want_g = np.concatenate([x[g:g + c] for g, c in zip(gather, counts)])
    out = mergejit.interval_move(doff, m, dx, gather=DeviceArray(gather), context=gpu)
    assert np.array_equal(out.get(), want_g)
    want_s = np.zeros(m, np.int64)
    for s, o, c in zip(starts, offsets, counts):        # the source: the item's own index
        want_s[s:s + c] = x[o:o + c]
    out = DeviceArray.empty(m, np.int64)
    mergejit.interval_move(doff, m, dx, out, scatter=DeviceArray(scatter), context=gpu)
    assert np.array_equal(out.get(), want_s)
    want_m = np.zeros(m, np.int64)
    for s, g, c in zip(starts, gather, counts):
        want_m[s:s + c] = x[g:g + c]
    out = DeviceArray.empty(m, np.int64)
    mergejit.interval_move(doff, m, dx, out, gather=DeviceArray(gather),
                           scatter=DeviceArray(scatter), context=gpu)
    assert np.array_equal(out.get(), want_m)


# ---------------------------------------------------------------- out=, descending=, indices

@pytest.mark.parametrize("n", [0, 1, 1000, BIG])
def test_sort_into_another_array_and_with_indices(gpu, n):
    host = random_keys(RNG, "f4", n)
    d, o = DeviceArray(host), DeviceArray(np.zeros_like(host))
    assert mergejit.sort(d, out=o, descending=True, stable=False, context=gpu) is o
    assert same_bits(o.get(), host[stable_order(host, True)])
    assert same_bits(d.get(), host)                        # the input as it was
    vals, idx = DeviceArray(np.zeros_like(host)), DeviceArray(np.full(n, -1, np.int64))
    r = mergejit.sort(d, return_indices=True, out=(vals, idx), context=gpu)
    assert r == (vals, idx) and r.values is vals and r.indices is idx
    want = stable_order(host)
    assert np.array_equal(idx.get(), want) and same_bits(vals.get(), host[want])
    assert same_bits(d.get(), host)
    idx32 = DeviceArray(np.zeros(n, np.int32))
    mergejit.sort(d, return_indices=True, out=(d, idx32), descending=True, context=gpu)
    assert np.array_equal(idx32.get(), stable_order(host, True))       # in place, int32
    assert same_bits(d.get(), host[stable_order(host, True)])


def test_sort_by_key_and_segmented_sort_into_other_arrays(gpu):
    n = 30000
    keys = RNG.integers(0, 300, n).astype(np.int32)
    vals = RNG.standard_normal((n, 2)).astype(np.float32)
    dk, dv = DeviceArray(keys), DeviceArray(vals)
    ok, ov = DeviceArray(np.zeros_like(keys)), DeviceArray(np.zeros_like(vals))
    assert mergejit.sort_by_key(dk, dv, out=(ok, ov), context=gpu) == (ok, ov)
    o = stable_order(keys)
    assert same_bits(ok.get(), keys[o]) and same_bits(ov.get(), vals[o])
    assert same_bits(dk.get(), keys) and same_bits(dv.get(), vals)
    cuts = np.unique(np.concatenate([[0, n], RNG.integers(0, n, 50)])).astype(np.int64)
    ok2 = DeviceArray(np.zeros_like(keys))
    assert mergejit.segmented_sort(dk, DeviceArray(cuts), out=ok2, descending=True,
                                   context=gpu) is ok2
    o = np.concatenate([lo + stable_order(keys[lo:hi], True)
                        for lo, hi in zip(cuts[:-1], cuts[1:])])
    assert same_bits(ok2.get(), keys[o]) and same_bits(dk.get(), keys)
