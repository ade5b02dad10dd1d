"""Every function on the GPU, checked against numpy (stable sorts). Skipped without a driver or
device. Arrays are DeviceArray holders (cuMemAlloc, __cuda_array_interface__) unless a test
says otherwise."""
import numpy as np
import pytest

import mergejit
from holders import DeviceArray, DLPackArray, cuda

RNG = np.random.default_rng(20)
REC = np.dtype([("x", "f4"), ("id", "u4")])
LESS = "a.x < b.x || (a.x == b.x && a.id > b.id)"
BIG = 1 << 20


def random_keys(dtype, n):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        return (RNG.standard_normal(n) * 1000).astype(dt)
    if dt.kind == "b":
        return RNG.integers(0, 2, n).astype(dt)
    info = np.iinfo(dt)
    # Few distinct values, so that stability shows.
    return RNG.integers(info.min, info.max, n, dtype=dt, endpoint=True) % 97 if n > 1000 \
        else RNG.integers(info.min, info.max, n, dtype=dt, endpoint=True)


def total_order(keys):
    """Float keys as integers in the library's total order (-0 before +0; NaNs are handled
    by the caller): numpy's own comparison takes -0 and +0 as equal."""
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[keys.dtype.itemsize]
    b = keys.view(ints).astype(np.int64)
    magnitude = b & ((1 << (8 * keys.dtype.itemsize - 1)) - 1)
    return np.where(b < 0, -magnitude - 1, magnitude)


def stable_order(keys, descending=False):
    """The stable permutation of the library's order; descending reverses the non-NaN keys,
    NaNs stay last."""
    if keys.dtype.kind == "f":
        nan = np.isnan(keys)
        idx = np.arange(keys.size)
        o = total_order(keys[~nan])
        body = idx[~nan][np.argsort(-o if descending else o, kind="stable")]
        return np.concatenate([body, idx[nan]])
    if not descending:
        return np.argsort(keys, kind="stable")
    return np.argsort(~keys, kind="stable")          # ~ reverses any integer order


def same_bits(a, b):
    return a.tobytes() == b.tobytes()


@pytest.mark.parametrize("dtype", ["u1", "i1", "u2", "i2", "u4", "i4", "u8", "i8", "f2",
                                   "f4", "f8", "?"])
def test_sort_builtin(gpu, dtype):
    host = random_keys(dtype, 5000)
    d = DeviceArray(host)
    assert mergejit.sort(d, context=gpu) is d
    assert same_bits(d.get(), host[stable_order(host)])


@pytest.mark.parametrize("n", [0, 1, 2, 1000, BIG])
def test_sort_sizes(gpu, n):
    host = RNG.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    d = DeviceArray(host)
    mergejit.sort(d, context=gpu)
    assert same_bits(d.get(), np.sort(host, kind="stable"))


@pytest.mark.parametrize("dtype", ["i4", "u8", "f4", "f8"])
def test_sort_descending(gpu, dtype):
    host = random_keys(dtype, 20000)
    d = DeviceArray(host)
    mergejit.sort(d, order="descending", context=gpu)
    assert same_bits(d.get(), host[stable_order(host, True)])


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_nan_last(gpu, order):
    host = RNG.standard_normal(30000).astype(np.float32)
    host[RNG.integers(0, host.size, 500)] = np.nan
    host[:3] = [np.inf, -np.inf, np.nan]
    d = DeviceArray(host)
    mergejit.sort(d, order=order, context=gpu)
    got = d.get()
    want = host[stable_order(host, order == "descending")]
    assert np.array_equal(got, want, equal_nan=True)
    assert np.isnan(got[-int(np.isnan(host).sum()):]).all()


def test_sort_big_pairs_and_argsort(gpu):
    keys = RNG.standard_normal(BIG).astype(np.float64)
    keys[::7] = np.round(keys[::7])                  # ties
    vals = np.arange(BIG, dtype=np.uint32)
    dk, dv = DeviceArray(keys), DeviceArray(vals)
    mergejit.sort_by_key(dk, dv, context=gpu)
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
    mergejit.sort_by_key(dk, dv, context=gpu)
    order = stable_order(keys)
    assert same_bits(dk.get(), keys[order]) and same_bits(dv.get(), vals[order])


def test_locality_sort(gpu):
    host = np.arange(BIG, dtype=np.int32)
    swaps = RNG.integers(0, BIG - 1, 1000)
    host[swaps], host[swaps + 1] = host[swaps + 1], host[swaps]
    d = DeviceArray(host)
    mergejit.sort(d, locality=True, context=gpu)
    assert np.array_equal(d.get(), np.sort(host))


def struct_keys(n):
    rec = np.zeros(n, REC)
    rec["x"] = RNG.integers(0, 100, n).astype(np.float32)
    rec["id"] = RNG.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    return rec


def struct_order(rec):
    # x ascending, then id descending; np.lexsort is stable, its last key the primary one.
    return np.lexsort((np.uint32(0xFFFFFFFF) - rec["id"], rec["x"]))


@pytest.mark.parametrize("n", [0, 1, 5000, BIG])
def test_struct_two_field_comparator(gpu, n):
    rec = struct_keys(n)
    d = DeviceArray(rec)
    mergejit.sort(d, less=LESS, context=gpu)
    assert same_bits(d.get(), rec[struct_order(rec)])


def test_padded_struct_pairs(gpu):
    dt = np.dtype([("flag", "u1"), ("w", "f8"), ("tag", "i2", (2,))], align=True)
    n = 20000
    rec = np.zeros(n, dt)
    rec["flag"] = RNG.integers(0, 3, n)
    rec["w"] = RNG.integers(0, 40, n)
    rec["tag"] = RNG.integers(-5, 5, (n, 2))
    vals = np.arange(n, dtype=np.uint64)
    dk, dv = DeviceArray(rec), DeviceArray(vals)
    mergejit.sort_by_key(dk, dv, less="a.w > b.w || (a.w == b.w && a.tag[1] < b.tag[1])",
                         context=gpu)
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
    a, b = struct_keys(3000), struct_keys(4000)
    a, b = a[struct_order(a)], b[struct_order(b)]
    out = DeviceArray.empty(7000, REC)
    mergejit.merge(DeviceArray(a), DeviceArray(b), out, less=LESS, context=gpu)
    both = np.concatenate([a, b])
    assert same_bits(out.get(), both[struct_order(both)])


@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_segmented_sort(gpu, index):
    n = 100000
    keys = RNG.integers(0, 20, n).astype(np.uint16)
    vals = np.arange(n, dtype=np.uint32)
    cuts = np.unique(np.concatenate([[0, n], RNG.integers(0, n, 300)]))
    offsets = cuts.astype(index)
    dk, dv = DeviceArray(keys), DeviceArray(vals)
    mergejit.segmented_sort(dk, DeviceArray(offsets), dv, context=gpu)
    order = np.concatenate([lo + np.argsort(keys[lo:hi], kind="stable")
                            for lo, hi in zip(cuts[:-1], cuts[1:])])
    assert np.array_equal(dk.get(), keys[order]) and np.array_equal(dv.get(), vals[order])
    flags = np.zeros(n, np.uint8)
    flags[cuts[:-1]] = 1
    dk = DeviceArray(keys)
    mergejit.segmented_sort(dk, DeviceArray(flags), kind="flags", order="descending",
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
        rec, vals = struct_keys(n), np.arange(n, dtype=np.uint32)
        dk, dv = DeviceArray(rec), DeviceArray(vals)
        s.sort(dk, dv, temp=temp)
        order = struct_order(rec)
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
        mergejit.sort(d, stream=stream, context=gpu)
        assert np.array_equal(d.get(), np.sort(host)), how
    cu.lib.cuStreamDestroy_v2(handle)


def test_dlpack_arrays(gpu):
    host = RNG.standard_normal(BIG).astype(np.float32)
    d = DeviceArray(host)
    dl = DLPackArray.over(d)
    mergejit.sort(dl, order="descending", context=gpu)
    assert d.get().tobytes() == host[stable_order(host, True)].tobytes()
    assert dl.asked_stream == 1


def test_errors_leave_data(gpu):
    host = RNG.integers(0, 100, 1000).astype(np.uint32)
    d = DeviceArray(host)
    with pytest.raises(mergejit.InvalidArgumentError):
        mergejit.sort_by_key(d, DeviceArray(np.zeros((1000, 65), np.uint8)), context=gpu)
    assert np.array_equal(d.get(), host)
    with pytest.raises(mergejit.CompileError, match="comparator"):
        mergejit.sort(d, less="a.nope < b", context=gpu)
    assert np.array_equal(d.get(), host)


def test_default_context(gpu):
    host = RNG.integers(0, 100, 1000).astype(np.uint8)
    d = DeviceArray(host)
    mergejit.sort(d)
    assert np.array_equal(d.get(), np.sort(host))
    assert mergejit.default_context(0).device_name == gpu.device_name


def test_records_as_bytes(gpu):
    # CuPy and PyTorch hold records as bytes: dtype= views them (and a sorter does by itself).
    rec = struct_keys(5000)
    d = DeviceArray(rec.view(np.uint8))
    mergejit.sort(d, dtype=REC, less=LESS, context=gpu)
    assert same_bits(d.get(), rec[struct_order(rec)])
    d = DeviceArray(rec.view(np.uint8))
    gpu.sorter(REC, less=LESS).sort(d)
    assert same_bits(d.get(), rec[struct_order(rec)])
