# SPDX-License-Identifier: Apache-2.0
"""sort, sort_by_key, segmented_sort and argsort as numpy, CuPy and torch have them, without a
GPU: a new array by default (the input's bytes copied into it, then sorted there), out= for in
place or another array, descending= and stable=, and sort's (values, indices). The device
steps (the copy, the zero fill, the library's runs) are recorded instead of run, in a
compile-only context whose sorters are really built; arrays are fake."""
import numpy as np
import pytest

import mergejit
from mergejit import DtypeError, InvalidArgumentError, UnsupportedError, _core
from mergejit._arrays import as_array
from holders import FakeArray

REC = np.dtype([("x", "f4"), ("id", "u4")])
LESS = "a.x < b.x || (a.x == b.x && a.id > b.id)"
KEYS, NEW, OTHER, STEP = 0x100000, 0x10000000, 0x300000, 0x1000000


class Device:
    """What the calls queued, in order: ("copy", dst, src, nbytes), ("zero", dst, nbytes),
    ("sort", primitive, value_size, keys, values), ("segsort", keys, segments, values),
    ("sort+indices", primitive, value_size, keys, indices); and the arrays allocated (new)."""

    def __init__(self, monkeypatch, ctx):
        self.log, self.new, self.next = [], [], NEW
        monkeypatch.setattr(ctx, "compile_only", False)     # the steps are recorded, not run
        monkeypatch.setattr(_core._driver, "copy", self.copy)
        monkeypatch.setattr(_core._driver, "zero", self.zero)
        monkeypatch.setattr(_core, "empty_like", self.empty_like)
        log = self.log

        def sort(s, keys, values=None, *, temp=None, stream=None):
            log.append(("sort", s.primitive, s.value_size, _ptr(keys), _ptr(values)))

        def segmented_sort(s, keys, segments, values=None, *, kind="offsets", temp=None,
                           stream=None):
            log.append(("segsort", _ptr(keys), _ptr(segments), _ptr(values)))

        def sort_with_indices(s, keys, indices, *, temp=None, stream=None):
            log.append(("sort+indices", s.primitive, s.value_size, _ptr(keys), _ptr(indices)))

        monkeypatch.setattr(_core.Sorter, "sort", sort)
        monkeypatch.setattr(_core.Sorter, "segmented_sort", segmented_sort)
        monkeypatch.setattr(_core.Sorter, "sort_with_indices", sort_with_indices)

    def copy(self, device, dst, src, nbytes, stream):
        self.log.append(("copy", dst, src, nbytes))

    def zero(self, device, dst, nbytes, stream):
        self.log.append(("zero", dst, nbytes))

    def empty_like(self, a, shape, dtype, what):
        arr = FakeArray(shape, dtype, ptr=self.next)
        self.next += STEP
        self.new.append((arr, tuple(shape), np.dtype(dtype), what))
        return arr


def _ptr(a):
    return None if a is None else as_array(a, "x").ptr


@pytest.fixture
def dev(monkeypatch, compile_ctx):
    return Device(monkeypatch, compile_ctx)


# ---------------------------------------------------------------- a new array by default

def test_sort_returns_a_new_array(dev, compile_ctx):
    keys = FakeArray((100,), "f4", ptr=KEYS)
    got = mergejit.sort(keys, context=compile_ctx)
    assert got is dev.new[0][0] and dev.new[0][1:] == ((100,), np.float32, "out")
    # keys copied into the new array, which is sorted there: keys are only read
    assert dev.log == [("copy", NEW, KEYS, 400), ("sort", "mergesort", 0, NEW, None)]


def test_sort_in_place_and_into_another_array(dev, compile_ctx):
    keys = FakeArray((100,), "u4", ptr=KEYS)
    assert mergejit.sort(keys, out=keys, context=compile_ctx) is keys
    assert dev.log == [("sort", "mergesort", 0, KEYS, None)]             # no copy, no new array
    other = FakeArray((100,), "u4", ptr=OTHER)
    dev.log.clear()
    assert mergejit.sort(keys, out=other, locality=True, context=compile_ctx) is other
    assert dev.log == [("copy", OTHER, KEYS, 400), ("sort", "locality", 0, OTHER, None)]
    assert dev.new == []


def test_records_as_bytes_get_bytes_back(dev, compile_ctx):
    records = FakeArray((80,), "u1", ptr=KEYS)
    got = mergejit.sort(records, dtype=REC, less=LESS, context=compile_ctx)
    assert dev.new[0][1:] == ((80,), np.uint8, "out") and got is dev.new[0][0]
    assert dev.log == [("copy", NEW, KEYS, 80), ("sort", "mergesort", 0, NEW, None)]


@pytest.mark.parametrize("out,match", [
    (FakeArray((99,), "f4", ptr=OTHER), r"out must be like its input: 100 elements of float32"),
    (FakeArray((100,), "f8", ptr=OTHER), r"got 100 of float64"),
    (FakeArray((100, 2), "f4", ptr=OTHER), r"4 bytes each \(got 100 of float32, 8 bytes each"),
    (FakeArray((100,), "f4", ptr=OTHER, readonly=True), "out is read-only"),
    (FakeArray((100,), "f4", ptr=KEYS + 4), "overlaps its input"),
])
def test_bad_out_refused_before_anything_runs(dev, compile_ctx, out, match):
    keys = FakeArray((100,), "f4", ptr=KEYS)
    with pytest.raises(InvalidArgumentError, match=match):
        mergejit.sort(keys, out=out, context=compile_ctx)
    assert dev.log == [] and dev.new == []


def test_sort_by_key_returns_new_arrays(dev, compile_ctx):
    keys = FakeArray((10,), "u8", ptr=KEYS)
    values = FakeArray((10, 3), "f4", ptr=OTHER)
    k, v = mergejit.sort_by_key(keys, values, descending=True, context=compile_ctx)
    assert [n[1:] for n in dev.new] == [((10,), np.uint64, "out[0]"),
                                       ((10, 3), np.float32, "out[1]")]
    assert (k, v) == (dev.new[0][0], dev.new[1][0])
    assert dev.log == [("copy", NEW, KEYS, 80), ("copy", NEW + STEP, OTHER, 120),
                       ("sort", "mergesort", 12, NEW, NEW + STEP)]
    assert ("order", "descending") in _built(compile_ctx, np.uint64, 12)


def test_sort_by_key_out(dev, compile_ctx):
    keys = FakeArray((10,), "u8", ptr=KEYS)
    values = FakeArray((10,), "i4", ptr=OTHER)
    assert mergejit.sort_by_key(keys, values, out=(keys, values), context=compile_ctx) == \
        (keys, values)
    assert dev.log == [("sort", "mergesort", 4, KEYS, OTHER)]
    with pytest.raises(InvalidArgumentError, match=r"out= of sort_by_key: a pair"):
        mergejit.sort_by_key(keys, values, out=keys, context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match=r"out\[1\] must be like its input"):
        mergejit.sort_by_key(keys, values, out=(keys, FakeArray((10,), "i8")),
                             context=compile_ctx)
    assert len(dev.log) == 1 and dev.new == []


def test_segmented_sort_returns_new_arrays(dev, compile_ctx):
    keys = FakeArray((10,), "i4", ptr=KEYS)
    offsets = FakeArray((4,), "i4", ptr=0x900000)
    got = mergejit.segmented_sort(keys, offsets, context=compile_ctx)
    assert got is dev.new[0][0]
    assert dev.log == [("copy", NEW, KEYS, 40), ("segsort", NEW, 0x900000, None)]
    dev.log.clear()
    values = FakeArray((10,), "u2", ptr=OTHER)
    assert mergejit.segmented_sort(keys, offsets, values, out=(keys, values),
                                   context=compile_ctx) == (keys, values)
    assert dev.log == [("segsort", KEYS, 0x900000, OTHER)]
    with pytest.raises(InvalidArgumentError, match="without values: one array"):
        mergejit.segmented_sort(keys, offsets, out=(keys, values), context=compile_ctx)


def test_sort_return_indices(dev, compile_ctx):
    keys = FakeArray((50,), "f8", ptr=KEYS)
    r = mergejit.sort(keys, return_indices=True, context=compile_ctx)
    assert isinstance(r, mergejit.SortResult)
    values, indices = r
    assert (r.values, r.indices) == (values, indices)
    new = {n[3]: n for n in dev.new}
    assert new["out[0]"][1:3] == ((50,), np.float64) and new["out[1]"][1:3] == ((50,), np.int64)
    vp, ip = _ptr(values), _ptr(indices)
    # the keys copied, then sorted there with their indices made as they sort: nothing else
    # allocated, no index array filled first
    assert set(new) == {"out[0]", "out[1]"}
    assert dev.log == [("copy", vp, KEYS, 400), ("sort+indices", "mergesort", 8, vp, ip)]
    # locality=True sorts the same way (its queue has no run that makes indices)
    dev.log.clear()
    mergejit.sort(keys, return_indices=True, locality=True, context=compile_ctx)
    assert dev.log[-1][:3] == ("sort+indices", "mergesort", 8)


def test_sort_return_indices_out(dev, compile_ctx):
    keys = FakeArray((50,), "u2", ptr=KEYS)
    idx = FakeArray((50,), "i4", ptr=OTHER)
    r = mergejit.sort(keys, return_indices=True, out=(keys, idx), context=compile_ctx)
    assert r == (keys, idx)
    assert dev.log == [("sort+indices", "mergesort", 4, KEYS, OTHER)]   # in place: no copy
    with pytest.raises(DtypeError, match=r"out\[1\] \(the indices\) must be a 1-D int32 or "
                                         r"int64 array \(got uint8"):
        mergejit.sort(keys, return_indices=True, out=(keys, FakeArray((50,), "u1")),
                      context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match=r"out\[1\] has 49 elements, expected 50"):
        mergejit.sort(keys, return_indices=True, out=(keys, FakeArray((49,), "i8")),
                      context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match=r"a pair \(keys, values\)"):
        mergejit.sort(keys, return_indices=True, out=keys, context=compile_ctx)


def test_empty_input_copies_nothing(dev, compile_ctx):
    got = mergejit.sort(FakeArray((0,), "f4", ptr=0), context=compile_ctx)
    assert got is dev.new[0][0] and dev.log == [("sort", "mergesort", 0, NEW, None)]


# ---------------------------------------------------------------- descending= and stable=

def _built(ctx, dtype, value_size=0):
    """The keyword items of the context's sorters of that dtype and value size."""
    items = set()
    for key in ctx._sorters:
        kw = dict(key[1:])
        if key[0] == np.dtype(dtype) and kw.get("value_size", 0) == value_size:
            items |= set(kw.items())
    return items


@pytest.mark.parametrize("kw", [dict(descending=True), dict(order="descending"),
                                dict(order="desc", descending=True)])
def test_descending(kw, compile_ctx):
    keys = FakeArray((8,), "i2")
    with pytest.raises(UnsupportedError, match="compile-only"):        # reached the library
        mergejit.sort(keys, out=keys, context=compile_ctx, **kw)
    assert ("order", kw.get("order", "descending")) in _built(compile_ctx, np.int16)


@pytest.mark.parametrize("call", [mergejit.sort, mergejit.argsort])
def test_order_keyword_errors(call, compile_ctx):
    keys = FakeArray((8,), "u4")
    with pytest.raises(InvalidArgumentError, match=r"order='ascending' and descending=True "
                                                   r"disagree"):
        call(keys, order="ascending", descending=True, context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match=r"descending='yes': True or False"):
        call(keys, descending="yes", context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match=r"not less=: write the comparator the other "
                                                   r"way round"):
        call(FakeArray((80,), "u1"), dtype=REC, less=LESS, descending=True, context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match=r"stable='no': True, False or None"):
        call(keys, stable="no", context=compile_ctx)


@pytest.mark.parametrize("stable", [True, False, None])
def test_stable_accepted(stable, compile_ctx):
    keys = FakeArray((8,), "u4")
    with pytest.raises(UnsupportedError):                               # past every check
        mergejit.sort(keys, out=keys, stable=stable, context=compile_ctx)
    for call in (lambda: mergejit.sort_by_key(keys, FakeArray((8,), "u4"), out=(keys, keys),
                                              stable=stable, context=compile_ctx),
                 lambda: mergejit.segmented_sort(keys, FakeArray((2,), "i4"), out=keys,
                                                 stable=stable, context=compile_ctx)):
        with pytest.raises(UnsupportedError):
            call()


def test_compile_only_refuses_a_copy_before_running(compile_ctx):
    keys = FakeArray((8,), "u4", ptr=KEYS)
    with pytest.raises(UnsupportedError, match="a compile-only context runs nothing"):
        mergejit.sort(keys, out=FakeArray((8,), "u4", ptr=OTHER), context=compile_ctx)


def test_new_arrays_need_a_library_that_allocates(compile_ctx):
    # A bare __cuda_array_interface__ has no allocator: out= is the way.
    with pytest.raises(InvalidArgumentError, match="pass it as an argument"):
        mergejit.sort(FakeArray((8,), "u4"), context=compile_ctx)
