# SPDX-License-Identifier: Apache-2.0
"""mergejit on CuPy arrays and PyTorch tensors, checked against numpy's stable sorts of the host
copy: every function in place and zero-copy (the data pointer stays, nothing goes through the
host); int8..uint64, bool, float16/32/64 with -0/NaN mixes, bfloat16; the framework's current
stream and stream=; the __cuda_array_interface__ and __dlpack__ paths each; non-contiguous
views refused; records as bytes and, where CuPy holds them, as a structured dtype; every
function with each input empty in turn and all empty (test_empty_*); docs/python.md's CuPy
examples as written. Each framework's tests skip where it cannot be imported or sees no
GPU."""
import os
import re

import numpy as np
import pytest

import mergejit
from holders import Gate
from reference import LESS, REC, float_mix, merge_join, ordinals, pick, random_keys, \
    record_order, records, same_bits, set_reference, sorted_floats, stable_order

RNG = np.random.default_rng(21)
SET_OPS = ["intersection", "union", "difference", "symmetric_difference"]


# ---------------------------------------------------------------- the frameworks
# One interface over both, so that each test runs on each: arrays from host copies (and back),
# data pointers, streams (a new non-blocking one, as the current stream, its handle, whether
# its work is done), device copies and allocations.

class Torch:
    name = "torch"

    def __init__(self):
        self.m = torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip("PyTorch %s sees no GPU" % torch.__version__)
        self.device = torch.device("cuda", 0)
        self.array_type = torch.Tensor

    def dtype(self, name):
        t = getattr(self.m, name, None)
        if t is None:
            pytest.skip("PyTorch %s has no %s" % (self.m.__version__, name))
        return t

    def array(self, host, dtype=None):
        """A tensor with host's bytes, as dtype (a name; default host's own). Built from bytes,
        so that dtypes numpy and PyTorch do not share (bfloat16, unsigned) travel as well."""
        host = np.ascontiguousarray(host)
        dt = self.dtype(dtype or host.dtype.name)
        if host.size == 0:  # an empty byte tensor has stride 0, which view() refuses
            return self.m.empty(host.shape, dtype=dt, device=self.device)
        raw = self.m.from_numpy(host.reshape(-1).view(np.uint8).copy()).to(self.device)
        return raw.view(dt).reshape(host.shape)

    def get(self, x):
        """x's host copy, a numpy array (bfloat16 as its uint16 bit patterns)."""
        name = str(x.dtype).split(".")[-1]
        dt = np.dtype(np.uint16 if name == "bfloat16" else name)
        raw = x.contiguous().reshape(-1).view(self.m.uint8).cpu().numpy()
        return raw.view(dt).reshape(tuple(x.shape))

    def ptr(self, x):
        return x.data_ptr()

    def stream(self):
        return self.m.cuda.Stream(self.device)        # non-blocking, as all of PyTorch's

    def use(self, s):
        return self.m.cuda.stream(s)

    def handle(self, s):
        return s.cuda_stream

    def done(self, s):
        return s.query()

    def copy(self, dst, src):
        dst.copy_(src)

    def sync(self):
        self.m.cuda.synchronize()


class Cupy:
    name = "cupy"

    def __init__(self):
        self.m = cupy = pytest.importorskip("cupy")
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as e:              # CUDARuntimeError without a driver
            pytest.skip("CuPy %s sees no GPU: %s" % (cupy.__version__, e))
        if not count:
            pytest.skip("CuPy %s sees no GPU" % cupy.__version__)
        self.array_type = cupy.ndarray

    def dtype(self, name):
        if name == "bfloat16":
            ml_dtypes = pytest.importorskip("ml_dtypes", reason="CuPy holds bfloat16 through "
                                            "ml_dtypes, which is not installed")
            return np.dtype(ml_dtypes.bfloat16)
        return np.dtype(name)

    def array(self, host, dtype=None):
        a = self.m.asarray(np.ascontiguousarray(host))
        if dtype is None:
            return a
        try:
            return a.view(self.dtype(dtype))
        except Exception as e:
            pytest.skip("CuPy %s cannot hold %s: %s" % (self.m.__version__, dtype, e))

    def get(self, x):
        if x.dtype.name == "bfloat16":
            x = x.view(self.m.uint16)
        return x.get()

    def ptr(self, x):
        return x.data.ptr

    def stream(self):
        # Non-blocking: a blocking stream would wait for the legacy default stream's work
        # (and it for the stream's), hiding work queued on the wrong stream.
        return self.m.cuda.Stream(non_blocking=True)

    def use(self, s):
        return s

    def handle(self, s):
        return s.ptr

    def done(self, s):
        return s.done

    def copy(self, dst, src):
        self.m.copyto(dst, src)

    def sync(self):
        self.m.cuda.Device().synchronize()


@pytest.fixture(scope="module", params=[Torch, Cupy], ids=["torch", "cupy"])
def fw(request, gpu):
    return request.param()


class OnlyInterface:
    """An array seen through __cuda_array_interface__ alone."""

    def __init__(self, x):
        self.x = x

    @property
    def __cuda_array_interface__(self):
        return self.x.__cuda_array_interface__


class OnlyDLPack:
    """An array seen through __dlpack__ alone; .asked lists the streams it was exported for."""

    def __init__(self, x):
        self.x, self.asked = x, []

    def __dlpack_device__(self):
        return self.x.__dlpack_device__()

    def __dlpack__(self, stream=None):
        self.asked.append(stream)
        return self.x.__dlpack__(stream=stream)


def need_ml_dtypes():
    pytest.importorskip("ml_dtypes", reason="mergejit names bfloat16 through ml_dtypes, which "
                        "is not installed")


def keys_of(dtype, n):
    """(host keys, their library order): bfloat16 keys as uint16 bit patterns."""
    if dtype != "bfloat16":
        host = random_keys(RNG, dtype, n)
        return host, stable_order(host)
    f = float_mix(RNG, n, np.float32)
    bits = (f.view(np.uint32) >> 16).astype(np.uint16)        # bfloat16: float32's top half
    return bits, stable_order((bits.astype(np.uint32) << 16).view(np.float32))


# ---------------------------------------------------------------- dtypes and sizes

DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool",
          "float16", "float32", "float64", "bfloat16"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_in_place(fw, gpu, dtype):
    host, order = keys_of(dtype, 5000)
    x = fw.array(host, dtype)
    p = fw.ptr(x)
    if dtype == "bfloat16":
        need_ml_dtypes()
    assert mergejit.sort(x, out=x, context=gpu) is x
    assert fw.ptr(x) == p
    assert same_bits(fw.get(x), host[order])


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_returns_a_new_array(fw, gpu, dtype):
    host, order = keys_of(dtype, 5000)
    x = fw.array(host, dtype)
    if dtype == "bfloat16":
        need_ml_dtypes()
    y = mergejit.sort(x, context=gpu)
    assert isinstance(y, fw.array_type) and fw.ptr(y) != fw.ptr(x)
    assert same_bits(fw.get(y), host[order])
    assert same_bits(fw.get(x), host)                  # the input as it was


@pytest.mark.parametrize("dtype", ["float16", "float64", "bfloat16", "int16"])
def test_sort_descending(fw, gpu, dtype):
    host, _ = keys_of(dtype, 20000)
    x = fw.array(host, dtype)
    if dtype == "bfloat16":
        need_ml_dtypes()
        order = stable_order((host.astype(np.uint32) << 16).view(np.float32), True)
    else:
        order = stable_order(host, True)
    y = mergejit.sort(x, descending=True, context=gpu)
    assert same_bits(fw.get(y), host[order])          # NaNs last here too
    assert same_bits(fw.get(x), host)
    mergejit.sort(x, out=x, order="descending", stable=False, context=gpu)
    assert same_bits(fw.get(x), host[order])


@pytest.mark.parametrize("n", [0, 1, 2, 1000, (1 << 20) + 3])
def test_sort_sizes(fw, gpu, n):
    host = RNG.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)
    x = fw.array(host)
    y = mergejit.sort(x, context=gpu)
    assert same_bits(fw.get(y), np.sort(host, kind="stable")) and same_bits(fw.get(x), host)
    values, indices = mergejit.sort(x, return_indices=True, context=gpu)    # as torch.sort
    assert fw.get(indices).dtype == np.int64
    assert np.array_equal(fw.get(indices), np.argsort(host, kind="stable"))
    assert same_bits(fw.get(values), np.sort(host, kind="stable"))
    assert same_bits(fw.get(x), host)


def test_sort_by_key_and_argsort(fw, gpu):
    n = 100003
    keys = float_mix(RNG, n, np.float64, distinct=500)
    vals = RNG.standard_normal((n, 3)).astype(np.float32)          # 12-byte rows
    order = stable_order(keys)
    k, v = fw.array(keys), fw.array(vals)
    pk, pv = fw.ptr(k), fw.ptr(v)
    rk, rv = mergejit.sort_by_key(k, v, context=gpu)                 # new arrays
    assert isinstance(rk, fw.array_type) and isinstance(rv, fw.array_type)
    assert same_bits(fw.get(rk), keys[order]) and same_bits(fw.get(rv), vals[order])
    assert same_bits(fw.get(k), keys) and same_bits(fw.get(v), vals)
    rk, rv = mergejit.sort_by_key(k, v, out=(k, v), context=gpu)     # in place
    assert rk is k and rv is v and (fw.ptr(k), fw.ptr(v)) == (pk, pv)
    assert same_bits(fw.get(k), keys[order]) and same_bits(fw.get(v), vals[order])

    k = fw.array(keys)
    idx = mergejit.argsort(k, context=gpu)                 # a new int64 array of the framework
    assert isinstance(idx, fw.array_type) and fw.get(idx).dtype == np.int64
    assert np.array_equal(fw.get(idx), order)
    assert same_bits(fw.get(k), keys)                      # the keys stay as they were
    idx32 = fw.array(np.zeros(n, np.int32))
    assert mergejit.argsort(k, idx32, order="descending", context=gpu) is idx32
    assert np.array_equal(fw.get(idx32), stable_order(keys, True))


def test_merge(fw, gpu):
    a, b = sorted_floats(RNG, 30000, 300), sorted_floats(RNG, 20001, 300)
    av = np.arange(a.size, dtype=np.uint32)
    bv = np.arange(b.size, dtype=np.uint32) + a.size
    out, out_v = mergejit.merge(fw.array(a), fw.array(b), a_values=fw.array(av),
                                b_values=fw.array(bv), context=gpu)
    assert isinstance(out, fw.array_type) and isinstance(out_v, fw.array_type)
    both = np.concatenate([a, b])
    order = np.argsort(ordinals(both), kind="stable")       # a's first on ties
    assert same_bits(fw.get(out), both[order])
    assert np.array_equal(fw.get(out_v), np.concatenate([av, bv])[order])


def test_segmented_sort(fw, gpu):
    n = 60000
    keys = float_mix(RNG, n, np.float32, distinct=40)
    vals = np.arange(n, dtype=np.uint32)
    cuts = np.unique(np.concatenate([[0, n], RNG.integers(0, n, 200)]))
    k, v = fw.array(keys), fw.array(vals)
    order = np.concatenate([lo + stable_order(keys[lo:hi]) for lo, hi in zip(cuts[:-1], cuts[1:])])
    r = mergejit.segmented_sort(k, fw.array(cuts.astype(np.int32)), v, context=gpu)
    assert same_bits(fw.get(r[0]), keys[order]) and np.array_equal(fw.get(r[1]), vals[order])
    assert same_bits(fw.get(k), keys) and np.array_equal(fw.get(v), vals)
    r = mergejit.segmented_sort(k, fw.array(cuts.astype(np.int32)), v, out=(k, v), context=gpu)
    assert r[0] is k and r[1] is v
    assert same_bits(fw.get(k), keys[order]) and np.array_equal(fw.get(v), vals[order])


def test_sorted_search(fw, gpu):
    a, b = sorted_floats(RNG, 20000, 500), sorted_floats(RNG, 30000, 500)
    oa, ob = ordinals(a), ordinals(b)
    r = mergejit.sorted_search(fw.array(a), fw.array(b), context=gpu)
    assert isinstance(r.a_indices, fw.array_type)
    assert np.array_equal(fw.get(r.a_indices), np.searchsorted(ob, oa, "left"))
    counts, matches = fw.array(np.zeros(a.size, np.int64)), fw.array(np.zeros(b.size, np.uint8))
    r = mergejit.sorted_search(fw.array(a), fw.array(b), bound="upper", a_counts=counts,
                               b_matches=matches, context=gpu)
    assert r.a_counts is counts and r.b_matches is matches
    lo, hi = np.searchsorted(ob, oa, "left"), np.searchsorted(ob, oa, "right")
    assert np.array_equal(fw.get(counts), hi - lo)
    assert np.array_equal(fw.get(matches), np.isin(ob, oa).astype(np.uint8))


def test_reduce_and_scan(fw, gpu):
    n = (1 << 20) + 17
    x = RNG.integers(-1 << 31, 1 << 31, n, dtype=np.int64).astype(np.int32)
    inc = np.cumsum(x.astype(np.int64)).astype(np.int32)          # wraps as the GPU does
    total = mergejit.reduce(fw.array(x), context=gpu)              # a new one-element array
    assert isinstance(total, fw.array_type) and fw.get(total)[0] == inc[-1]
    mx = mergejit.reduce(fw.array(x), op="max(a, b)", identity="-2147483647 - 1", context=gpu)
    assert fw.get(mx)[0] == x.max()
    d, t = fw.array(x), fw.array(np.zeros(1, np.int32))
    p = fw.ptr(d)
    assert mergejit.scan(d, d, total=t, context=gpu) is d          # exclusive, in place
    assert fw.ptr(d) == p
    assert np.array_equal(fw.get(d), np.concatenate([[0], inc[:-1]]).astype(np.int32))
    assert fw.get(t)[0] == inc[-1]
    assert np.array_equal(fw.get(mergejit.scan(fw.array(x), inclusive=True, context=gpu)), inc)


@pytest.mark.parametrize("kind", ["inner", "left", "right", "outer"])
def test_join(fw, gpu, kind):
    a, b = sorted_floats(RNG, 3000, 400), sorted_floats(RNG, 4000, 400)
    a_rows, b_rows = mergejit.join(fw.array(a), fw.array(b), kind, context=gpu)
    want = merge_join(kind, ordinals(a), ordinals(b), -1)
    assert isinstance(a_rows, fw.array_type) and isinstance(b_rows, fw.array_type)
    got = list(zip(fw.get(a_rows).tolist(), fw.get(b_rows).tolist()))
    assert got == want


@pytest.mark.parametrize("op", SET_OPS)
def test_set_operation(fw, gpu, op):
    a, b = sorted_floats(RNG, 5000, 300), sorted_floats(RNG, 7000, 300)
    av = np.arange(a.size, dtype=np.int64)
    bv = np.arange(b.size, dtype=np.int64) + (1 << 40)
    keys, vals = mergejit.set_operation(op, fw.array(a), fw.array(b), fw.array(av),
                                        fw.array(bv), context=gpu)
    ref = set_reference(op, ordinals(a), ordinals(b))
    assert isinstance(keys, fw.array_type) and keys.shape[0] == len(ref)
    assert same_bits(fw.get(keys), pick(ref, a, b))
    assert np.array_equal(fw.get(vals), pick(ref, av, bv))


# ---------------------------------------------------------------- empty inputs
# Every function with each input empty in turn and all empty, keys and values, against numpy.
# An empty CuPy array's or PyTorch tensor's data pointer is NULL, which the library reads as
# an array not given (issue 49). Values are float32 rows of two (8 bytes: the size the merge
# kernel would fill with positions for a NULL a_values), an empty side's given as a (0,) array.

SIDES = {"a": (0, 3000), "b": (3000, 0), "both": (0, 0)}


def ints(n, descending=False):
    """n sorted int32 keys with ties."""
    k = np.sort(RNG.integers(-300, 300, n)).astype(np.int32)
    return k[::-1].copy() if descending else k


def value_rows(n, base):
    """n float32 rows of two, all distinct; (0,) when n is 0."""
    if not n:
        return np.zeros(0, np.float32)
    return (np.arange(2 * n, dtype=np.float32) + base).reshape(n, 2)


def rows(x):
    return x.reshape(-1, 2)


def test_empty_sort_and_argsort(fw, gpu):
    x = fw.array(np.zeros(0, np.float32))
    assert mergejit.sort(x, out=x, context=gpu) is x and fw.get(x).shape == (0,)
    assert fw.get(mergejit.sort(x, context=gpu)).shape == (0,)
    for locality in (False, True):
        k, v = fw.array(np.zeros(0, np.int64)), fw.array(np.zeros((0, 3), np.float32))
        r = mergejit.sort_by_key(k, v, out=(k, v), locality=locality, context=gpu)
        assert r[0] is k and r[1] is v
        assert fw.get(k).shape == (0,) and fw.get(v).shape == (0, 3)
        r = mergejit.sort_by_key(k, v, locality=locality, context=gpu)
        assert fw.get(r[0]).shape == (0,) and fw.get(r[1]).shape == (0, 3)
    idx = mergejit.argsort(fw.array(np.zeros(0, np.float64)), context=gpu)
    assert isinstance(idx, fw.array_type)
    assert fw.get(idx).dtype == np.int64 and fw.get(idx).shape == (0,)


@pytest.mark.parametrize("order", ["ascending", "descending"])
@pytest.mark.parametrize("side", SIDES)
def test_empty_merge(fw, gpu, side, order):
    na, nb = SIDES[side]
    desc = order == "descending"
    a, b = ints(na, desc), ints(nb, desc)
    both = np.concatenate([a, b])
    o = stable_order(both, desc)                              # a's first on ties
    for av, bv, width in ((value_rows(na, 0.5), value_rows(nb, 1e5 + 0.25), 2),
                          (np.arange(na, dtype=np.int64), np.arange(nb, dtype=np.int64) + 10**7,
                           1)):
        out, out_v = mergejit.merge(fw.array(a), fw.array(b), a_values=fw.array(av),
                                    b_values=fw.array(bv), order=order, context=gpu)
        assert fw.get(out).dtype == np.int32 and same_bits(fw.get(out), both[o])
        got = fw.get(out_v)
        want = np.concatenate([av.reshape(-1, width), bv.reshape(-1, width)])[o]
        assert got.dtype == av.dtype and np.array_equal(got.reshape(-1, width), want)
    out = mergejit.merge(fw.array(a), fw.array(b), order=order, context=gpu)
    assert same_bits(fw.get(out), both[o])


@pytest.mark.parametrize("bound", ["lower", "upper"])
@pytest.mark.parametrize("side", SIDES)
def test_empty_sorted_search(fw, gpu, side, bound):
    na, nb = SIDES[side]
    a, b = ints(na), ints(nb)
    sa, sb = ("left", "right") if bound == "lower" else ("right", "left")   # b: the other
    r = mergejit.sorted_search(fw.array(a), fw.array(b), bound=bound, context=gpu)
    assert isinstance(r.a_indices, fw.array_type) and r.b_indices is None
    got = fw.get(r.a_indices)
    assert got.dtype == np.int64 and np.array_equal(got, np.searchsorted(b, a, sa))
    outs = dict(a_indices=np.full(na, 7, np.int64), a_matches=np.full(na, 7, np.uint8),
                a_counts=np.full(na, 7, np.int64), b_indices=np.full(nb, 7, np.int64),
                b_matches=np.full(nb, 7, np.uint8), match_counts=np.full(2, 7, np.int64))
    r = mergejit.sorted_search(fw.array(a), fw.array(b), bound=bound, context=gpu,
                               **{name: fw.array(x) for name, x in outs.items()})
    a_matches, b_matches = np.isin(a, b), np.isin(b, a)
    want = dict(a_indices=np.searchsorted(b, a, sa), a_matches=a_matches,
                a_counts=np.searchsorted(b, a, "right") - np.searchsorted(b, a, "left"),
                b_indices=np.searchsorted(a, b, sb), b_matches=b_matches,
                match_counts=[a_matches.sum(), b_matches.sum()])
    for name, x in want.items():
        got = fw.get(getattr(r, name))
        assert got.dtype == outs[name].dtype and np.array_equal(got, x), name


# An empty side's segments: two empty segments (CSR offsets) of no keys, no heads (one
# segment from element 0: the whole array) of keys, no offsets of no keys.
EMPTY_SEGMENTS = {"keys": (np.zeros(3, np.int32), "offsets"),
                  "segments": (np.zeros(0, np.int64), "heads"),
                  "both": (np.zeros(0, np.int64), "offsets")}


@pytest.mark.parametrize("side", EMPTY_SEGMENTS)
def test_empty_segmented_sort(fw, gpu, side):
    n = 2000 if side == "segments" else 0
    keys = RNG.integers(-1000, 1000, n).astype(np.int32)
    vals = value_rows(n, 0.5).reshape(n, 2)
    segments, kind = EMPTY_SEGMENTS[side]
    k, v = fw.array(keys), fw.array(vals)
    r = mergejit.segmented_sort(k, fw.array(segments), v, out=(k, v), kind=kind, context=gpu)
    assert r[0] is k and r[1] is v
    o = stable_order(keys)
    assert same_bits(fw.get(k), keys[o]) and same_bits(fw.get(v), vals[o])


def test_empty_reduce_and_scan(fw, gpu):
    x = fw.array(np.zeros(0, np.int32))
    total = mergejit.reduce(x, context=gpu)
    assert fw.get(total).dtype == np.int32 and fw.get(total).tolist() == [0]
    mx = mergejit.reduce(x, op="max(a, b)", identity="-2147483647 - 1", context=gpu)
    assert fw.get(mx).tolist() == [-2**31]
    for inclusive in (False, True):
        t = fw.array(np.full(1, 7, np.int32))
        out = mergejit.scan(x, inclusive=inclusive, total=t, context=gpu)
        assert fw.get(out).dtype == np.int32 and fw.get(out).shape == (0,)
        assert fw.get(t).tolist() == [0]                   # the identity
    assert mergejit.scan(x, x, context=gpu) is x


@pytest.mark.parametrize("objects", [0, 3])
def test_empty_load_balance_and_expand(fw, gpu, objects):
    off = fw.array(np.zeros(objects, np.int32))        # no items: each object's count 0
    objs, ranks = mergejit.load_balance(off, 0, ranks=fw.array(np.zeros(0, np.int32)),
                                        context=gpu)
    assert fw.get(objs).dtype == np.int32 and fw.get(objs).shape == (0,)
    assert fw.get(ranks).shape == (0,)
    vals = fw.array(value_rows(objects, 0.5).reshape(objects, 2))
    out = mergejit.interval_expand(off, 0, vals, context=gpu)
    assert fw.get(out).dtype == np.float32 and fw.get(out).shape == (0, 2)


@pytest.mark.parametrize("side", ["x", "out", "both"])
def test_empty_interval_move(fw, gpu, side):
    off, gather, scatter = (np.array(v, np.int32) for v in ([0, 4, 9], [0, 10, 20], [0, 5, 10]))
    x = value_rows(0 if side != "out" else 30, 0.5).reshape(-1, 2)
    out = np.full((0 if side != "x" else 20, 2), -1, np.float32)
    d = fw.array(out)
    r = mergejit.interval_move(fw.array(off), 12, fw.array(x), d, gather=fw.array(gather),
                               scatter=fw.array(scatter), context=gpu)
    assert r is d and same_bits(fw.get(d), out)        # every item skipped
    r = mergejit.interval_move(fw.array(np.zeros(0, np.int64)), 0, fw.array(x), context=gpu)
    assert fw.get(r).dtype == np.float32 and fw.get(r).shape == (0, 2)


@pytest.mark.parametrize("side", ["keys", "indices", "out"])
def test_empty_bulk_remove(fw, gpu, side):
    n = 0 if side == "keys" else 3000
    keys, vals = RNG.integers(-1 << 40, 1 << 40, n), value_rows(n, 0.5)
    idx = np.arange(n, dtype=np.int32) if side == "out" else np.zeros(0, np.int32)
    out, out_v = mergejit.bulk_remove(fw.array(keys), fw.array(idx), fw.array(vals),
                                      context=gpu)
    keep = np.ones(n, bool)
    keep[idx] = False
    assert fw.get(out).dtype == np.int64 and same_bits(fw.get(out), keys[keep])
    assert fw.get(out_v).dtype == np.float32
    assert np.array_equal(rows(fw.get(out_v)), rows(vals)[keep])
    assert same_bits(fw.get(mergejit.bulk_remove(fw.array(keys), fw.array(idx), context=gpu)),
                     keys[keep])


@pytest.mark.parametrize("side", SIDES)
def test_empty_bulk_insert(fw, gpu, side):
    na, nb = SIDES[side]
    a, b = RNG.integers(-1000, 1000, na).astype(np.int32), ints(nb)
    pos = np.sort(RNG.integers(0, nb + 1, na))
    av, bv = value_rows(na, 0.5), value_rows(nb, 1e5 + 0.25)
    out, out_v = mergejit.bulk_insert(fw.array(a), fw.array(pos), fw.array(b), fw.array(av),
                                      fw.array(bv), context=gpu)
    assert fw.get(out).dtype == np.int32 and same_bits(fw.get(out), np.insert(b, pos, a))
    assert fw.get(out_v).dtype == np.float32
    assert np.array_equal(rows(fw.get(out_v)), np.insert(rows(bv), pos, rows(av), axis=0))
    out = mergejit.bulk_insert(fw.array(a), fw.array(pos), fw.array(b), context=gpu)
    assert same_bits(fw.get(out), np.insert(b, pos, a))


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("op", SET_OPS)
def test_empty_set_operation(fw, gpu, op, side):
    na, nb = SIDES[side]
    a, b = ints(na), ints(nb)
    av, bv = value_rows(na, 0.5), value_rows(nb, 1e5 + 0.25)
    ref = set_reference(op, a, b)
    keys, vals = mergejit.set_operation(op, fw.array(a), fw.array(b), fw.array(av),
                                        fw.array(bv), context=gpu)
    assert fw.get(keys).dtype == np.int32 and same_bits(fw.get(keys), pick(ref, a, b))
    assert fw.get(vals).dtype == np.float32
    assert np.array_equal(rows(fw.get(vals)), pick(ref, rows(av), rows(bv)))
    keys = mergejit.set_operation(op, fw.array(a), fw.array(b), context=gpu)
    assert same_bits(fw.get(keys), pick(ref, a, b))


def test_empty_select_and_unique(fw, gpu):
    x, v = np.zeros(0, np.int32), np.zeros((0, 2), np.float32)
    keys, vals = mergejit.select(fw.array(x), "a > 0", fw.array(v), context=gpu)
    assert fw.get(keys).shape == (0,) and fw.get(vals).shape == (0, 2)
    assert fw.get(mergejit.unique(fw.array(x), context=gpu)).shape == (0,)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("kind", ["inner", "left", "right", "outer"])
def test_empty_join(fw, gpu, kind, side):
    na, nb = SIDES[side]
    a, b = ints(na), ints(nb)
    a_rows, b_rows = mergejit.join(fw.array(a), fw.array(b), kind, context=gpu)
    assert fw.get(a_rows).dtype == np.int64 and fw.get(b_rows).dtype == np.int64
    got = list(zip(fw.get(a_rows).tolist(), fw.get(b_rows).tolist()))
    assert got == merge_join(kind, a, b, -1)


# ---------------------------------------------------------------- streams
# A Gate holds the stream back while the test queues a copy of fresh keys over stale ones, the
# sort and a copy of the result. Had the sort waited for its stream it would return only when
# the gate's timer opened it; had it run on another stream, it would have sorted the stale
# keys before the copy, and the copy after it would read unsorted keys.

@pytest.mark.parametrize("how", ["current", "stream object", "handle"])
def test_stream_order(fw, gpu, how):
    n = 1 << 20
    host = RNG.integers(-1 << 31, 1 << 31, n).astype(np.int32)
    x = fw.array(RNG.integers(-1 << 31, 1 << 31, n).astype(np.int32))       # stale keys
    fresh, result = fw.array(host), fw.array(np.zeros(n, np.int32))
    # The sorter is built, and the framework's copy ready, before the hold.
    mergejit.sort(fw.array(host[:1000]), context=gpu)      # builds the sorter
    fw.copy(result, fresh)
    s = fw.stream()
    fw.sync()
    stream = {"current": None, "stream object": s, "handle": fw.handle(s)}[how]
    with Gate() as gate:
        try:
            gate.hold(fw.handle(s))
        except NotImplementedError as e:
            pytest.skip("no stream memory operations here to hold a stream: %s" % e)
        with fw.use(s):
            fw.copy(x, fresh)
            if how == "current":
                assert mergejit.sort(x, out=x, context=gpu) is x
        if how != "current":
            assert mergejit.sort(x, out=x, stream=stream, context=gpu) is x
        with fw.use(s):
            fw.copy(result, x)
        queued = not fw.done(s) and not gate.timed_out
        gate.open()
        s.synchronize()
    assert queued, "mergejit.sort waited for its stream"
    assert same_bits(fw.get(result), np.sort(host)), "the sort ran outside its stream's order"
    assert same_bits(fw.get(x), np.sort(host))


def test_stream_family(fw, gpu):
    # The functions that read a count back (join, set_operation) wait for their stream.
    s = fw.stream()
    a, b = sorted_floats(RNG, 3000, 200), sorted_floats(RNG, 2000, 200)
    da, db = fw.array(a), fw.array(b)
    fw.sync()
    with fw.use(s):
        keys = mergejit.set_operation("union", da, db, context=gpu)
        a_rows, b_rows = mergejit.join(da, db, "inner", context=gpu)
        order = mergejit.argsort(fw.array(a[::-1].copy()), context=gpu)
    s.synchronize()
    assert same_bits(fw.get(keys), pick(set_reference("union", ordinals(a), ordinals(b)), a, b))
    want = merge_join("inner", ordinals(a), ordinals(b), -1)
    assert list(zip(fw.get(a_rows).tolist(), fw.get(b_rows).tolist())) == want
    assert np.array_equal(fw.get(order), stable_order(a[::-1].copy()))


# ---------------------------------------------------------------- the two protocols

def test_interface_path(fw, gpu):
    host, order = keys_of("float32", 100000)
    x = fw.array(host)
    w = OnlyInterface(x)
    assert mergejit.sort(w, out=w, context=gpu) is w
    assert same_bits(fw.get(x), host[order])
    vals = np.arange(host.size, dtype=np.int64)
    k, v = fw.array(host), fw.array(vals)
    wk, wv = OnlyInterface(k), OnlyInterface(v)
    mergejit.sort_by_key(wk, wv, out=(wk, wv), order="descending", context=gpu)
    order = stable_order(host, True)
    assert same_bits(fw.get(k), host[order]) and np.array_equal(fw.get(v), vals[order])


def test_dlpack_path(fw, gpu):
    host, order = keys_of("float32", 100000)
    x = fw.array(host)
    p = fw.ptr(x)
    w = OnlyDLPack(x)
    assert mergejit.sort(w, out=w, context=gpu) is w
    assert w.asked == [1]             # exported for the legacy default stream, where it ran
    assert fw.ptr(x) == p and same_bits(fw.get(x), host[order])

    s = fw.stream()
    k, out = fw.array(host), fw.array(np.zeros(host.size, np.int64))
    fw.sync()
    wk, wo = OnlyDLPack(k), OnlyDLPack(out)
    assert mergejit.argsort(wk, wo, order="descending", stream=s, context=gpu) is wo
    assert wk.asked == [fw.handle(s)] and wo.asked == [fw.handle(s)]
    s.synchronize()
    assert np.array_equal(fw.get(out), stable_order(host, True))


def test_bfloat16_goes_through_dlpack(fw, gpu, monkeypatch):
    # The interface names bfloat16 only as an opaque "<V2" (PyTorch; CuPy 14), DLPack by its
    # type code: the package asks DLPack then.
    from mergejit import _arrays
    host, order = keys_of("bfloat16", 3000)
    x = fw.array(host, "bfloat16")
    need_ml_dtypes()
    calls = []
    real = _arrays._from_dlpack
    monkeypatch.setattr(_arrays, "_from_dlpack",
                        lambda *a: calls.append(a[0]) or real(*a))
    mergejit.sort(x, out=x, context=gpu)
    assert calls and calls[0] is x
    assert same_bits(fw.get(x), host[order])


# ---------------------------------------------------------------- refusals

def test_non_contiguous_views_refused(fw, gpu):
    host = RNG.integers(0, 1000, 4000).astype(np.int32)
    x = fw.array(host)
    rows = fw.array(host.reshape(50, 80))
    for view in (x[::2], x[::-1] if fw.name == "cupy" else x[1::3], rows.T, rows[:, :40],
                 OnlyDLPack(x[::2])):
        with pytest.raises(mergejit.InvalidArgumentError, match="not C-contiguous"):
            mergejit.sort(view, context=gpu)
    vals = fw.array(np.zeros((4000, 3), np.float32))
    with pytest.raises(mergejit.InvalidArgumentError, match="not C-contiguous"):
        mergejit.sort_by_key(x, vals[:, :2], context=gpu)
    assert same_bits(fw.get(x), host) and same_bits(fw.get(rows), host.reshape(50, 80))


# ---------------------------------------------------------------- records

def test_records_as_bytes(fw, gpu):
    rec = records(RNG, 20000)
    d = fw.array(rec.view(np.uint8))
    p = fw.ptr(d)
    assert mergejit.sort(d, out=d, dtype=REC, less=LESS, context=gpu) is d
    assert fw.ptr(d) == p
    assert same_bits(fw.get(d), rec[record_order(rec)])
    vals = np.arange(rec.size, dtype=np.uint32)
    k, v = fw.array(rec.view(np.uint8)), fw.array(vals)
    gpu.sorter(REC, less=LESS, value_size=4).sort(k, v)      # a sorter views bytes by itself
    order = record_order(rec)
    assert same_bits(fw.get(k), rec[order]) and np.array_equal(fw.get(v), vals[order])
    idx = mergejit.argsort(fw.array(rec.view(np.uint8)), dtype=REC, less="a.id < b.id",
                           context=gpu)
    assert np.array_equal(fw.get(idx), np.argsort(rec["id"], kind="stable"))


def test_cupy_structured_dtype(gpu):
    cupy = Cupy().m
    rec = records(RNG, 5000)
    try:
        c = cupy.asarray(rec)
    except Exception as e:
        pytest.skip("CuPy %s cannot hold a structured dtype (%s): records go as bytes "
                    "(test_records_as_bytes)" % (cupy.__version__, e))
    assert c.dtype == REC
    p = c.data.ptr
    assert mergejit.sort(c, out=c, less=LESS, context=gpu) is c  # the dtype comes with it
    assert c.data.ptr == p
    raw = cupy.ndarray((rec.nbytes,), cupy.uint8, c.data)       # whatever CuPy can do with it
    assert same_bits(raw.get(), rec[record_order(rec)])
    idx = mergejit.argsort(c, less="a.id < b.id", context=gpu)
    assert np.array_equal(idx.get(), np.argsort(rec[record_order(rec)]["id"], kind="stable"))


# ---------------------------------------------------------------- docs/python.md

def docs_python_blocks():
    """The ```python blocks of docs/python.md's "Using it from Python" section, as written."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                        "python.md")
    with open(path) as f:
        text = f.read()
    section = text[text.index("## Using it from Python"):]
    end = section.find("\n## ", 1)
    return re.findall(r"```python\n(.*?)```", section if end < 0 else section[:end], re.S)


def test_docs_three_lines_sort_a_cupy_array(gpu):
    cupy = Cupy().m
    block = docs_python_blocks()[0]
    lines = block.strip().splitlines()
    assert len(lines) == 4 and "mergejit.sort(" in lines[2] and "out=x" in lines[3]
    cupy.random.seed(20)
    ns = {}
    exec(compile("\n".join(lines[:3]), "docs/python.md", "exec"), ns)
    cupy.random.seed(20)                                   # the keys the example sorted
    unsorted = {}
    exec(compile("\n".join(lines[:2]), "docs/python.md", "exec"), unsorted)
    host = unsorted["x"].get()
    assert ns["y"].dtype == host.dtype and ns["y"].size == host.size
    assert same_bits(ns["y"].get(), host[stable_order(host, descending=True)])
    assert same_bits(ns["x"].get(), host)                  # a new array: x as it was
    exec(compile(lines[3], "docs/python.md", "exec"), ns)
    assert same_bits(ns["x"].get(), host[stable_order(host, descending=True)])


def test_docs_records(gpu):
    Cupy()
    block = docs_python_blocks()[1]
    ns = {}
    exec(compile(block, "docs/python.md", "exec"), ns)
    host, rec = ns["host"], ns["rec"]
    got = ns["records"].get().view(rec)
    want = host[record_order(host)]
    assert same_bits(got, want)
    assert np.array_equal(ns["order"].get(), np.argsort(want["id"], kind="stable"))
