# SPDX-License-Identifier: Apache-2.0
"""Argument errors, array interfaces, streams and compile errors, without a GPU: arrays are fake
(their addresses are never touched) and sorters are built in a compile-only context."""
import itertools

import numpy as np
import pytest

import mergejit
from mergejit import CompileError, DtypeError, InvalidArgumentError, UnsupportedError
from mergejit._arrays import as_array, call_stream, stream_handle
from holders import DLPackArray, FakeArray

REC = np.dtype([("x", "f4"), ("id", "u4")])
LESS = "a.x < b.x || (a.x == b.x && a.id > b.id)"


@pytest.fixture(scope="module")
def u32(compile_ctx):
    return compile_ctx.sorter(np.uint32)


# ---------------------------------------------------------------- array interfaces

def test_cuda_array_interface_fields():
    a = as_array(FakeArray((10, 3), "f4", ptr=0x1000, stream=7), "x")
    assert (a.ptr, a.n, a.row_bytes, a.dtype, a.stream) == (0x1000, 10, 12, np.float32, 7)
    b = as_array(FakeArray((4,), REC), "x")
    assert b.dtype == REC


def test_cuda_array_interface_padded_descr():
    dt = np.dtype([("a", "u1"), ("b", "f8")], align=True)
    a = as_array(FakeArray((4,), dt), "x")
    assert a.dtype == dt and a.dtype.itemsize == 16


@pytest.mark.parametrize("shape,strides", [((4,), (4,)), ((4, 2), (8, 4)), ((1, 3), (64, 4)),
                                           ((0, 3), (4, 8))])
def test_contiguous_strides_accepted(shape, strides):
    as_array(FakeArray(shape, "f4", strides=strides), "keys")


@pytest.mark.parametrize("shape,strides", [((4,), (8,)), ((4, 2), (4, 16)), ((4,), (-4,))])
def test_strided_arrays_refused(shape, strides):
    with pytest.raises(InvalidArgumentError, match="not C-contiguous"):
        as_array(FakeArray(shape, "f4", strides=strides), "keys")


def test_old_interface_and_masks_refused():
    with pytest.raises(InvalidArgumentError, match="version 1"):
        as_array(FakeArray((4,), "f4", version=1), "keys")
    with pytest.raises(InvalidArgumentError, match="masked"):
        as_array(FakeArray((4,), "f4", mask=object()), "keys")


HOST = (r"this is a NumPy array in host memory, and mergejit works on GPU arrays; move it "
        r"with cupy.asarray\(%s\) or torch.as_tensor\(%s, device='cuda'\)")


def test_not_an_array():
    # A NumPy array where a device array is needed: named, with the way to move it, and left
    # as it was.
    host = np.array([3, 1, 2], np.int32)
    with pytest.raises(InvalidArgumentError, match="^MJ_ERR_INVALID_ARGUMENT: keys: " +
                       HOST % ("keys", "keys") + "$"):
        mergejit.sort(host)
    assert host.tolist() == [3, 1, 2]
    with pytest.raises(TypeError, match=r"not a GPU array .*cupy.asarray"):
        mergejit.sort([3, 1, 2])


class _HostTensor:
    """What a PyTorch CPU tensor shows: DLPack on the CPU."""
    __module__ = "torch"
    device = "cpu"

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None):
        raise AssertionError("not exported: the device is checked first")


@pytest.mark.parametrize("call,what", [
    (lambda h, d: mergejit.sort_by_key(d, h), "values"),
    (lambda h, d: mergejit.merge(d, h), "b"),
    (lambda h, d: mergejit.argsort(d, out=h), "out"),
    (lambda h, d: mergejit.segmented_sort(d, h), "segments"),
    (lambda h, d: mergejit.sorted_search(h, d), "a"),
    (lambda h, d: mergejit.load_balance(h, 4), "offsets"),
    (lambda h, d: mergejit.reduce(h), "x"),
    (lambda h, d: mergejit.join(d, h), "b"),
])
def test_host_arrays_named_in_every_function(call, what, compile_ctx):
    host = np.arange(4, dtype=np.uint32)
    dev = FakeArray((4,), "u4")
    with pytest.raises(InvalidArgumentError, match=HOST % (what, what)):
        call(host, dev)
    assert host.tolist() == [0, 1, 2, 3]
    with pytest.raises(InvalidArgumentError,
                       match=r"keys: this is a PyTorch tensor in host memory \(device cpu\).*"
                             r"keys.cuda\(\) or torch.as_tensor\(keys, device='cuda'\)"):
        mergejit.sort(_HostTensor())


def test_dlpack_fields_and_stream():
    d = DLPackArray(0x2000, (5, 2), "u2", byte_offset=16)
    a = as_array(d, "x", stream=0)
    assert (a.ptr, a.n, a.row_bytes, a.dtype) == (0x2010, 5, 4, np.uint16)
    assert d.asked_stream == 1          # the legacy default stream, as the protocol spells it
    as_array(d, "x", stream=1234)
    assert d.asked_stream == 1234


def test_dlpack_refusals():
    with pytest.raises(InvalidArgumentError, match=r"keys: this is a .*DLPackArray in host "
                                                   r"memory \(DLPack device type 1\)"):
        as_array(DLPackArray(0x2000, (5,), "u4", device_type=1), "keys")
    with pytest.raises(InvalidArgumentError, match="not C-contiguous"):
        as_array(DLPackArray(0x2000, (5,), "u4", strides=(2,)), "keys")
    as_array(DLPackArray(0x2000, (5, 1), "u4", strides=(1, 1)), "keys")


def test_streams():
    class CoreStream:
        def __cuda_stream__(self):
            return (0, 0xABC)

    class TorchLike:
        cuda_stream = 0xDEF

    assert stream_handle(None) is None and stream_handle(5) == 5
    assert stream_handle(CoreStream()) == 0xABC and stream_handle(TorchLike()) == 0xDEF
    with pytest.raises(TypeError, match="__cuda_stream__"):
        stream_handle("default")
    a = as_array(FakeArray((4,), "u4", stream=42), "a")
    b = as_array(FakeArray((4,), "u4"), "b")
    assert call_stream(None, (b, a)) == 42 and call_stream(9, (a,)) == 9
    assert call_stream(None, (b,)) == 0


# ---------------------------------------------------------------- sorter arguments

def test_wrong_dtype(u32):
    with pytest.raises(DtypeError, match="built for uint32"):
        u32.sort(FakeArray((8,), "f4"))
    with pytest.raises(DtypeError, match="built for uint32"):
        u32.sort(FakeArray((8,), "u8"))
    with pytest.raises(DtypeError):
        u32.sort(FakeArray((8,), "i4"))
    # Records given to a sorter of a built-in key: the same DtypeError (it was a TypeError
    # from the struct's name, None, before mypy found it).
    with pytest.raises(DtypeError, match="built for uint32"):
        u32.sort(FakeArray((8,), [("x", "f4"), ("id", "u4")]))


def test_keys_must_be_1d_and_writable(u32):
    with pytest.raises(InvalidArgumentError, match="1-D"):
        u32.sort(FakeArray((8, 2), "u4"))
    with pytest.raises(InvalidArgumentError, match="read-only"):
        u32.sort(FakeArray((8,), "u4", readonly=True))


def test_values_rules(compile_ctx, u32):
    with pytest.raises(InvalidArgumentError, match="keys only"):
        u32.sort(FakeArray((8,), "u4"), FakeArray((8,), "u4"))
    pairs = compile_ctx.sorter(np.uint32, value_size=12)
    with pytest.raises(InvalidArgumentError, match="values is required"):
        pairs.sort(FakeArray((8,), "u4"))
    with pytest.raises(InvalidArgumentError, match="has 7 elements, expected 8"):
        pairs.sort(FakeArray((8,), "u4"), FakeArray((7, 3), "f4"))
    with pytest.raises(InvalidArgumentError, match="8 bytes per element"):
        pairs.sort(FakeArray((8,), "u4"), FakeArray((8,), "f8"))


def test_runs_need_a_device(u32, compile_ctx):
    # Arguments that pass the package's checks reach the library, which refuses to run in a
    # compile-only context: the status and the library's message come back.
    with pytest.raises(UnsupportedError, match="compile-only") as e:
        u32.sort(FakeArray((8,), "u4"))
    assert e.value.status == "MJ_ERR_UNSUPPORTED" and "compile-only" in e.value.message
    keys = FakeArray((8,), "u4")
    with pytest.raises(UnsupportedError):
        mergejit.sort(keys, out=keys, context=compile_ctx)


def test_argsort_out_rules(u32, compile_ctx):
    idx = compile_ctx.sorter(np.uint32, value_size=8)
    with pytest.raises(DtypeError, match="4- or 8-byte integers"):
        idx.argsort(FakeArray((8,), "u4"), FakeArray((8,), "f8"))
    with pytest.raises(DtypeError, match="4-byte indices; this sorter writes 8"):
        idx.argsort(FakeArray((8,), "u4"), FakeArray((8,), "i4"))
    with pytest.raises(InvalidArgumentError, match="expected 8"):
        idx.argsort(FakeArray((8,), "u4"), FakeArray((9,), "i8"))
    with pytest.raises(InvalidArgumentError, match="pass it as an argument"):
        mergejit.argsort(FakeArray((8,), "u4"), context=compile_ctx)


def test_merge_rules(compile_ctx):
    m = compile_ctx.sorter(np.float64, primitive="merge")
    a, b = FakeArray((3,), "f8"), FakeArray((4,), "f8")
    with pytest.raises(InvalidArgumentError, match="out has 6 elements, expected 7"):
        m.merge(a, b, FakeArray((6,), "f8"))
    with pytest.raises(DtypeError, match="b has dtype float32"):
        m.merge(a, FakeArray((4,), "f4"), FakeArray((7,), "f8"))
    with pytest.raises(InvalidArgumentError, match="go together"):
        mergejit.merge(a, b, FakeArray((7,), "f8"), a_values=FakeArray((3,), "u4"),
                       context=compile_ctx)


def test_segmented_rules(compile_ctx):
    s = compile_ctx.sorter(np.int32, primitive="segmented_sort")
    keys = FakeArray((100,), "i4")
    with pytest.raises(DtypeError, match="4- or 8-byte integers"):
        s.segmented_sort(keys, FakeArray((5,), "i2"))
    with pytest.raises(InvalidArgumentError, match="kind='csr'"):
        s.segmented_sort(keys, FakeArray((5,), "i4"), kind="csr")
    with pytest.raises(InvalidArgumentError, match="100 keys need 16"):
        s.segmented_sort(keys, FakeArray((3,), "u4"), kind="flag_bits")


def test_search_and_lbs_rules(compile_ctx):
    s = compile_ctx.sorter(np.uint32, primitive="search")
    a, b = FakeArray((3,), "u4"), FakeArray((5,), "u4")
    with pytest.raises(InvalidArgumentError, match="at least one output"):
        s.sorted_search(a, b)
    with pytest.raises(DtypeError, match="one index width"):
        s.sorted_search(a, b, a_indices=FakeArray((3,), "u4"), b_indices=FakeArray((5,), "u8"))
    with pytest.raises(InvalidArgumentError, match="one-byte"):
        s.sorted_search(a, b, a_matches=FakeArray((3,), "u4"))
    with pytest.raises(InvalidArgumentError, match="bound='middle'"):
        s.sorted_search(a, b, bound="middle", a_indices=FakeArray((3,), "u4"))
    with pytest.raises(DtypeError, match="int32 or int64"):
        mergejit.load_balance(FakeArray((3,), "u4"), 10, context=compile_ctx)


def test_bad_choices(compile_ctx):
    with pytest.raises(InvalidArgumentError, match="order='sideways'"):
        compile_ctx.sorter(np.uint32, order="sideways")
    with pytest.raises(InvalidArgumentError, match="primitive='quicksort'"):
        compile_ctx.sorter(np.uint32, primitive="quicksort")
    with pytest.raises(InvalidArgumentError, match="tile="):
        compile_ctx.sorter(np.uint32, tile=(128,))


def test_library_argument_errors(compile_ctx):
    # Checked by the library at build time: the status and its message come back.
    with pytest.raises(InvalidArgumentError, match="less") as e:
        compile_ctx.sorter(REC)                     # a struct needs a comparator
    assert e.value.status == "MJ_ERR_INVALID_ARGUMENT"
    with pytest.raises(InvalidArgumentError):
        compile_ctx.sorter(np.uint32, less="a < b; return true")
    with pytest.raises(InvalidArgumentError):
        compile_ctx.sorter(np.uint32, value_size=65)
    with pytest.raises(InvalidArgumentError):
        compile_ctx.sorter(np.uint32, tile=(100, 7))
    with pytest.raises(InvalidArgumentError, match="merge4_log2 63 is out of range"):
        compile_ctx.sorter(np.uint32, merge4_log2=63)
    with pytest.raises(InvalidArgumentError, match="for mergesort only"):
        compile_ctx.sorter(np.uint32, primitive="merge", merge4_log2=22)
    compile_ctx.sorter(np.uint32, merge4_log2=22)   # a threshold of its own builds


# ---------------------------------------------------------------- compile errors

def test_compile_error_carries_nvrtc_log(compile_ctx):
    with pytest.raises(CompileError) as e:
        compile_ctx.sorter(REC, less="a.x < b.y")
    err = e.value
    assert err.status == "MJ_ERR_COMPILE"
    assert 'comparator(1): error: class "record" has no member "y"' in err.message
    assert "a.x < b.y" in err.message          # NVRTC quotes the user's expression


def test_compile_error_in_operator(compile_ctx):
    with pytest.raises(CompileError, match="operator"):
        compile_ctx.sorter(np.float32, primitive="reduce", op="fmax(a)", identity="0")


def test_struct_sorter_builds_once(compile_ctx):
    s1 = compile_ctx.sorter(REC, less=LESS)
    s2 = compile_ctx.sorter(REC, less=LESS)
    assert s1 is s2
    fresh = mergejit.Sorter(REC, less=LESS, context=compile_ctx)
    assert fresh.source == "memory" and fresh is not s1
    assert fresh.temp_size(1 << 20) > 0
    fresh.close()
    with pytest.raises(InvalidArgumentError, match="closed"):
        fresh.temp_size(10)


def test_context_facts(compile_ctx, cache_dir):
    assert compile_ctx.target_sm == 90
    assert compile_ctx.device_name == "" and compile_ctx.bundle == ""
    assert compile_ctx.tuning_file == ""
    assert "compile-only sm_90" in repr(compile_ctx)


def test_context_errors(tmp_path):
    with pytest.raises(mergejit.FileError, match="nope"):
        mergejit.Context(compile_only=True, tuning_file=str(tmp_path / "nope"))
    with pytest.raises(mergejit.FileError):
        mergejit.Context(compile_only=True, tuning_file="", bundle=str(tmp_path / "nope.mjb"))
    with pytest.raises(InvalidArgumentError, match="target_sm"):
        mergejit.Context(compile_only=True, target_sm=-1, tuning_file="")
    ctx = mergejit.Context(compile_only=True, tuning_file="", disk_cache=False)
    assert ctx.cache_dir == ""
    ctx.close()
    with pytest.raises(InvalidArgumentError, match="closed"):
        ctx.target_sm


def test_dtype_views_bytes_as_records():
    a = as_array(FakeArray((80,), "u1"), "keys", dtype=REC)
    assert (a.n, a.dtype, a.row_bytes) == (10, REC, 8)
    a = as_array(FakeArray((5, 4), "u4"), "keys", dtype=REC)    # 80 bytes, any shape
    assert a.n == 10 and a.shape == (10,)
    with pytest.raises(DtypeError, match="not a whole number"):
        as_array(FakeArray((81,), "u1"), "keys", dtype=REC)


def test_sorters_take_byte_arrays_as_their_dtype(compile_ctx):
    s = compile_ctx.sorter(REC, less=LESS)
    with pytest.raises(UnsupportedError):                       # past every package check
        s.sort(FakeArray((80,), "u1"))
    with pytest.raises(DtypeError, match="not a whole number"):
        s.sort(FakeArray((81,), "u1"))
    records = FakeArray((80,), "u1")
    with pytest.raises(UnsupportedError):
        mergejit.sort(records, out=records, dtype=REC, less=LESS, context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="pass it as an argument"):
        mergejit.merge(FakeArray((80,), "u1"), FakeArray((16,), "u1"), dtype=REC, less=LESS,
                       context=compile_ctx)


def test_dlpack_when_the_interface_refuses():
    class TorchBf16Like(DLPackArray):
        @property
        def __cuda_array_interface__(self):
            raise TypeError("dtype bfloat16 is not supported")

    a = as_array(TorchBf16Like(0x3000, (4,), "u2"), "keys")
    assert (a.ptr, a.n) == (0x3000, 4)


def test_opaque_interface_types_go_through_dlpack():
    # PyTorch's and CuPy's bfloat16: "<V2" in __cuda_array_interface__, kDLBfloat in DLPack.
    class Bf16Like(DLPackArray):
        @property
        def __cuda_array_interface__(self):
            return {"shape": (4,), "typestr": "<V2", "descr": [("", "<V2")],
                    "data": (0x3000, False), "version": 3, "strides": None, "stream": 77}

    d = Bf16Like(0x3000, (4,), "u2", code=4)
    try:
        import ml_dtypes
    except ImportError:
        with pytest.raises(DtypeError, match="ml_dtypes"):
            as_array(d, "keys")
    else:
        a = as_array(d, "keys")
        assert a.dtype == np.dtype(ml_dtypes.bfloat16) and (a.ptr, a.n) == (0x3000, 4)
        assert a.stream == 77                   # the work stays on the interface's stream
        as_array(d, "keys", stream=5)
        assert d.asked_stream == 5
    assert d.asked_stream in (77, 5)            # the export was asked for that stream
    with pytest.raises(DtypeError, match="cannot sort dtype"):   # no DLPack to ask: refused
        mergejit.key_type(as_array(FakeArray((4,), "V2"), "keys").dtype)


def test_outputs_are_not_reinterpreted(compile_ctx):
    a, b = FakeArray((3,), "f8"), FakeArray((4,), "f8")
    with pytest.raises(DtypeError, match="out has dtype float32"):
        mergejit.merge(a, b, FakeArray((14,), "f4"), context=compile_ctx)
    with pytest.raises(DtypeError, match="built for uint16"):
        compile_ctx.sorter(np.uint16).sort(FakeArray((8,), "u1"))


# ---------------------------------------------------------------- the merge-path family
# Fake arrays that get past the package's checks need addresses of their own: the library
# refuses outputs that overlap inputs before it finds that the context cannot run.

_next_fake = itertools.count(1)


def fakes(*specs):
    """FakeArrays (shape, dtype), each at an address of its own, far from any other."""
    return [FakeArray(shape, dt, ptr=0x7F0000000000 + (next(_next_fake) << 32))
            for shape, dt in specs]


def at(fake, offset=0):
    return fake.__cuda_array_interface__["data"][0] + offset


def test_select_rules(compile_ctx):
    k, out, count = fakes(((5,), "u4"), ((5,), "u4"), ((1,), "u8"))
    with pytest.raises(InvalidArgumentError, match="select needs op"):
        mergejit.select(k, None, context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="pass it as an argument"):
        mergejit.select(k, "a > 3", context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="pass it as an argument"):
        mergejit.unique(k, context=compile_ctx)
    s = compile_ctx.sorter(np.uint32, primitive="select", op="a > 3")
    with pytest.raises(InvalidArgumentError, match="kind='all': one of if, unique"):
        s.select("all", k, out, count)
    with pytest.raises(InvalidArgumentError, match="out has 4 elements, at least 5"):
        s.select("if", k, FakeArray((4,), "u4"), count)
    with pytest.raises(InvalidArgumentError, match="count needs one uint64"):
        s.select("if", k, out, FakeArray((1,), "u4"))
    with pytest.raises(InvalidArgumentError, match="out_keys overlaps keys"):
        s.select("unique", k, FakeArray((5,), "u4", ptr=at(k, 8)), count)
    with pytest.raises(UnsupportedError, match="compile-only"):
        s.select("if", k, out, count)
    u = compile_ctx.sorter(np.uint32, primitive="unique")
    with pytest.raises(InvalidArgumentError, match="selection operator"):
        u.select("if", k, out, count)
    with pytest.raises(mergejit.CompileError):
        compile_ctx.sorter(np.uint32, primitive="select", op="a >>> 3")
    # Records selected by op alone need no comparator; unique then does.
    r, rout = FakeArray((5,), REC, ptr=0x7F0000100000), FakeArray((5,), REC, ptr=0x7F0000200000)
    sel = compile_ctx.sorter(REC, primitive="select", op="a.id % 2 == 1")
    with pytest.raises(InvalidArgumentError, match="needs a comparator"):
        sel.select("unique", r, rout, count)
    with pytest.raises(UnsupportedError, match="compile-only"):
        sel.select("if", r, rout, count)
    with pytest.raises(InvalidArgumentError, match="comparator expression"):
        compile_ctx.sorter(REC, primitive="select")


def test_reduce_by_key_rules(compile_ctx):
    k, v, ok, ov, count = fakes(((5,), "u4"), ((5,), "f4"), ((5,), "u4"), ((5,), "f4"),
                                ((1,), "u8"))
    # the value type follows the values' dtype; records need it named
    with pytest.raises(InvalidArgumentError, match="need value_type="):
        mergejit.reduce_by_key(k, FakeArray((5,), REC), context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="need value_type="):
        mergejit.reduce_by_key(k, FakeArray((5, 2), "f4"), context=compile_ctx)
    with pytest.raises(CompileError, match="is not 4 as declared"):
        mergejit.reduce_by_key(k, v, value_type="double", context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="value_type"):
        compile_ctx.sorter(np.uint32, primitive="setops", value_type="float")
    # the sorter builds; its outputs cannot be allocated like fake arrays
    with pytest.raises(InvalidArgumentError, match="pass it as an argument"):
        mergejit.reduce_by_key(k, v, op="max(a, b)", identity="-INFINITY", out_keys=ok,
                               out_values=ov, context=compile_ctx)
    s = compile_ctx.sorter(np.uint32, primitive="reduce_by_key", value_size=4,
                           value_type="float")
    with pytest.raises(InvalidArgumentError, match="out_keys has 4 elements, at least 5"):
        s.reduce_by_key(k, v, FakeArray((4,), "u4"), ov, count)
    with pytest.raises(InvalidArgumentError, match="out_values has 4 elements, at least 5"):
        s.reduce_by_key(k, v, ok, FakeArray((4,), "f4"), count)
    with pytest.raises(InvalidArgumentError, match="values is required"):
        s.reduce_by_key(k, None, ok, ov, count)
    with pytest.raises(InvalidArgumentError, match="count needs one uint64"):
        s.reduce_by_key(k, v, ok, ov, FakeArray((1,), "u4"))
    with pytest.raises(DtypeError, match="keys has dtype float32"):
        s.reduce_by_key(FakeArray((5,), "f4"), v, ok, ov, count)
    with pytest.raises(InvalidArgumentError, match="out_keys overlaps keys"):
        s.reduce_by_key(k, v, FakeArray((5,), "u4", ptr=at(k, 4)), ov, count)
    with pytest.raises(UnsupportedError, match="compile-only"):
        s.reduce_by_key(k, v, ok, ov, count)


def test_set_operation_rules(compile_ctx):
    a, b, out, count = fakes(((3,), "f4"), ((4,), "f4"), ((7,), "f4"), ((1,), "u8"))
    with pytest.raises(InvalidArgumentError, match="op='xor': one of difference, "
                                                   "intersection, symmetric_difference, union"):
        mergejit.set_operation("xor", a, b, context=compile_ctx)
    with pytest.raises(DtypeError, match="b has dtype float64"):
        mergejit.set_operation("union", a, FakeArray((4,), "f8"), context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="go together"):
        mergejit.set_operation("union", a, b, a_values=FakeArray((3,), "u4"),
                               context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="pass it as an argument"):
        mergejit.set_operation("union", a, b, context=compile_ctx)
    s = compile_ctx.sorter(np.float32, primitive="set_operation")
    with pytest.raises(InvalidArgumentError, match="out has 6 elements, at least 7"):
        s.set_operation("union", a, b, FakeArray((6,), "f4"), count)
    with pytest.raises(InvalidArgumentError, match="count needs one uint64"):
        s.set_operation("union", a, b, out, FakeArray((1,), "u4"))
    with pytest.raises(InvalidArgumentError, match="out_keys overlaps a_keys"):
        s.set_operation("union", a, b, FakeArray((7,), "f4", ptr=at(a)), count)
    with pytest.raises(UnsupportedError, match="compile-only"):
        s.set_operation("difference", a, b, FakeArray((3,), "f4", ptr=0x10000), count)
    pairs = compile_ctx.sorter(np.float32, primitive="setops", value_size=8)
    av, bv, ov = fakes(((3,), "f8"), ((4,), "f8"), ((2,), "f8"))
    with pytest.raises(InvalidArgumentError, match="out_values has 2 elements, at least 3"):
        pairs.set_operation("intersection", a, b, out, count, av, bv, ov)


def test_segmented_reduce_rules(compile_ctx):
    x, off, out = fakes(((10,), "f4"), ((4,), "i8"), ((3,), "f4"))
    with pytest.raises(DtypeError, match="offsets must be a 1-D array of 4- or 8-byte"):
        mergejit.segmented_reduce(x, FakeArray((4,), "f4"), out=out, context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="out has 2 elements, expected 3"):
        mergejit.segmented_reduce(x, off, out=FakeArray((2,), "f4"), context=compile_ctx)
    with pytest.raises(DtypeError, match="out has dtype float64"):
        mergejit.segmented_reduce(x, off, out=FakeArray((3,), "f8"), context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="out overlaps in"):
        mergejit.segmented_reduce(x, off, out=FakeArray((3,), "f4", ptr=at(x, 4)),
                                  context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="out overlaps offsets"):
        mergejit.segmented_reduce(x, off, out=FakeArray((3,), "f4", ptr=at(off, 20)),
                                  context=compile_ctx)
    with pytest.raises(UnsupportedError, match="compile-only"):
        mergejit.segmented_reduce(x, off, out=out, op="fmaxf(a, b)", identity="-INFINITY",
                                  context=compile_ctx)
    s = compile_ctx.sorter(np.float32, primitive="segmented_reduce")
    assert s.primitive == "segreduce"
    with pytest.raises(InvalidArgumentError, match="cannot run a sorter built for reduce"):
        compile_ctx.sorter(np.float32, primitive="reduce").segmented_reduce(x, off, out)
    with pytest.raises(UnsupportedError, match="compile-only"):
        s.segmented_reduce(x, FakeArray((4,), "u4"), out)


def test_join_rules(compile_ctx):
    a, b, ra, rb, count = fakes(((3,), "i8"), ((4,), "i8"), ((5,), "u4"), ((5,), "u4"),
                                ((1,), "i8"))
    with pytest.raises(InvalidArgumentError, match="kind='cross': one of inner, left, outer"):
        mergejit.join(a, b, "cross", context=compile_ctx)
    with pytest.raises(DtypeError, match="index_dtype must be a 4- or 8-byte integer"):
        mergejit.join(a, b, index_dtype=np.float32, context=compile_ctx)
    with pytest.raises(DtypeError, match="b has dtype int32"):
        mergejit.join(a, FakeArray((4,), "i4"), context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="pass it as an argument"):
        mergejit.join(a, b, "outer", context=compile_ctx)
    s = compile_ctx.sorter(np.int64, primitive="join")
    with pytest.raises(DtypeError, match="one dtype"):
        s.join(a, b, ra, FakeArray((5,), "u8", ptr=0x10000), count)
    with pytest.raises(InvalidArgumentError, match="b_rows has 4 elements, expected 5"):
        s.join(a, b, ra, FakeArray((4,), "u4", ptr=0x10000), count)
    with pytest.raises(DtypeError, match="4- or 8-byte integers"):
        s.join(a, b, FakeArray((5,), "f4"), rb, count)
    with pytest.raises(InvalidArgumentError, match="b_rows overlaps a_rows"):
        s.join(a, b, ra, FakeArray((5,), "u4", ptr=at(ra, 8)), count)
    with pytest.raises(InvalidArgumentError, match="kind='semi'"):
        s.join_count(a, b, count, kind="semi")
    with pytest.raises(UnsupportedError, match="compile-only"):
        s.join(a, b, ra, rb, count, kind="left")
    with pytest.raises(UnsupportedError, match="compile-only"):
        s.join_count(a, b, count, kind="right")
    # A plan: the caller's temp; rows only from a plan the sorter's join_plan filled.
    (temp,) = fakes(((s.temp_size(7),), "u1"))
    with pytest.raises(InvalidArgumentError, match="temp is NULL"):
        s.join_plan(a, b, count, None)
    with pytest.raises(InvalidArgumentError, match="kind='semi'"):
        s.join_plan(a, b, count, temp, kind="semi")
    with pytest.raises(InvalidArgumentError, match="too small"):
        s.join_plan(a, b, count, FakeArray((8,), "u1", ptr=at(temp)))
    with pytest.raises(UnsupportedError, match="compile-only"):
        s.join_plan(a, b, count, temp, kind="outer")
    with pytest.raises(InvalidArgumentError, match="JoinPlan from this sorter"):
        s.join_rows("plan", ra, rb)
    other = compile_ctx.sorter(np.int64, primitive="join", order="descending")
    with pytest.raises(InvalidArgumentError, match="JoinPlan from this sorter"):
        s.join_rows(mergejit.JoinPlan(other, temp), ra, rb)
    with pytest.raises(InvalidArgumentError, match="not filled by mj_sorter_join_plan"):
        s.join_rows(mergejit.JoinPlan(s, temp), ra, rb)
    with pytest.raises(DtypeError, match="one dtype"):
        s.join_rows(mergejit.JoinPlan(s, temp), ra, FakeArray((5,), "u8", ptr=0x10000))


def test_bulk_rules(compile_ctx):
    keys, idx, out = fakes(((10,), REC), ((3,), "u4"), ((7,), REC))
    with pytest.raises(DtypeError, match="indices must be a 1-D array of 4- or 8-byte"):
        mergejit.bulk_remove(keys, FakeArray((3,), "i2"), out=out, context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="11 indices to remove from 10 keys"):
        mergejit.bulk_remove(keys, FakeArray((11,), "u4"), context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="out has 8 elements, expected 7"):
        mergejit.bulk_remove(keys, idx, out=FakeArray((8,), REC), context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="keys only"):
        mergejit.bulk_remove(keys, idx, out=out, out_values=FakeArray((7,), "u4"),
                             context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="out_keys overlaps keys"):
        mergejit.bulk_remove(keys, idx, out=FakeArray((7,), REC, ptr=at(keys, 16)),
                             context=compile_ctx)
    with pytest.raises(UnsupportedError):             # records need no comparator to move
        mergejit.bulk_remove(keys, idx, out=out, context=compile_ctx)
    a, pos, b, out2 = fakes(((3,), "f4"), ((3,), "i8"), ((5,), "f4"), ((8,), "f4"))
    with pytest.raises(InvalidArgumentError, match="positions has 2 elements, expected 3"):
        mergejit.bulk_insert(a, FakeArray((2,), "i8"), b, out=out2, context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="out has 7 elements, expected 8"):
        mergejit.bulk_insert(a, pos, b, out=FakeArray((7,), "f4", ptr=0x10000),
                             context=compile_ctx)
    with pytest.raises(DtypeError, match="b has dtype float64"):
        mergejit.bulk_insert(a, pos, FakeArray((5,), "f8"), out=out2, context=compile_ctx)
    with pytest.raises(UnsupportedError):
        mergejit.bulk_insert(a, pos, b, out=out2, context=compile_ctx)


def test_interval_rules(compile_ctx):
    off, vals, out = fakes(((4,), "i4"), ((4, 3), "f4"), ((20, 3), "f4"))
    with pytest.raises(DtypeError, match="int32 or int64"):
        mergejit.interval_expand(FakeArray((4,), "u4"), 20, vals, out, context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="out has 19 elements, expected 20"):
        mergejit.interval_expand(off, 20, vals, FakeArray((19, 3), "f4", ptr=0x10000),
                                 context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="8 bytes per element"):
        mergejit.interval_expand(off, 20, vals, FakeArray((20, 2), "f4", ptr=0x10000),
                                 context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="overlaps"):
        mergejit.interval_expand(off, 20, vals, FakeArray((20, 3), "f4", ptr=at(vals)),
                                 context=compile_ctx)
    with pytest.raises(UnsupportedError):
        mergejit.interval_expand(off, 20, vals, out, context=compile_ctx)
    x, gather, scatter = fakes(((50, 3), "f4"), ((4,), "i4"), ((4,), "i4"))
    with pytest.raises(InvalidArgumentError, match="with scatter needs out"):
        mergejit.interval_move(off, 20, x, scatter=scatter, context=compile_ctx)
    with pytest.raises(DtypeError, match="gather has dtype int64; this sorter was built for int32"):
        mergejit.interval_move(off, 20, x, out, gather=FakeArray((4,), "i8"),
                               context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="scatter has 3 elements, expected 4"):
        mergejit.interval_move(off, 20, x, out, scatter=FakeArray((3,), "i4"),
                               context=compile_ctx)
    with pytest.raises(InvalidArgumentError, match="pass it as an argument"):
        mergejit.interval_move(off, 20, x, gather=gather, context=compile_ctx)
    with pytest.raises(UnsupportedError):
        mergejit.interval_move(off, 20, x, FakeArray((60, 3), "f4", ptr=0x10000),
                               gather=gather, scatter=scatter, context=compile_ctx)


# ---------------------------------------------------------------- empty arrays
# An empty array's pointer may be NULL (CuPy's and PyTorch's are), which the library reads as
# an array not given: the package decides from its arguments (None or not) instead.

def empty(dtype, row=()):
    return FakeArray((0,) + row, dtype, ptr=0)


def test_empty_search_outputs_need_no_call(compile_ctx):
    s = compile_ctx.sorter(np.uint32, primitive="search")
    b, b_idx = fakes(((5,), "u4"), ((5,), "i8"))
    out = empty("i8")
    r = s.sorted_search(empty("u4"), b, a_indices=out)      # nothing to write: no call
    assert r.a_indices is out and r.b_indices is None
    r = mergejit.sorted_search(empty("u4"), empty("u4"), bound="upper", a_indices=out,
                               a_matches=empty("u1"), context=compile_ctx)
    assert r.a_indices is out and r.a_matches is not None
    with pytest.raises(UnsupportedError, match="compile-only"):   # b's outputs are written
        s.sorted_search(empty("u4"), b, a_indices=out, b_indices=b_idx)


def test_merge_with_empty_a_takes_b_rows(compile_ctx, monkeypatch):
    calls = []
    monkeypatch.setattr(mergejit._core.lib, "mj_sorter_merge",
                        lambda *args: calls.append(args) or 0)
    b, bv, out, ov = fakes(((5,), "f8"), ((5, 2), "u4"), ((5,), "f8"), ((5, 2), "u4"))
    # The function's sorter carries b's rows of two (8 bytes), not the 4 of a's (0,) values;
    # the empty a passes as it is (the library takes NULL for a count of 0).
    r = mergejit.merge(empty("f8"), b, out, a_values=empty("u4"), b_values=bv, out_values=ov,
                       context=compile_ctx)
    assert r[0] is out and r[1] is ov
    # (a_keys, a_values, a_count, b_keys, b_values, b_count, out_keys, out_values)
    assert calls[-1][1:9] == (0, 0, 0, at(b), at(bv), 5, at(out), at(ov))


def test_insert_into_b_takes_b_rows(compile_ctx):
    b, bv, out, ov = fakes(((5,), "f4"), ((5, 2), "u4"), ((5,), "f4"), ((5, 2), "u4"))
    with pytest.raises(UnsupportedError, match="compile-only"):   # past the package's checks
        mergejit.bulk_insert(empty("f4"), empty("i8"), b, empty("u4"), bv, out=out,
                             out_values=ov, context=compile_ctx)


def test_move_from_or_to_nothing_skips_every_item(compile_ctx):
    off, x, out = fakes(((4,), "i4"), ((50, 3), "f4"), ((20, 3), "f4"))
    s = compile_ctx.sorter(np.int32, primitive="move", value_size=12)
    nothing = empty("f4", (3,))
    assert s.interval_move(off, 20, nothing, out) is out
    assert mergejit.interval_move(off, 20, x, nothing, gather=off,
                                  context=compile_ctx) is nothing
    with pytest.raises(InvalidArgumentError, match="no intervals"):   # the library's refusal
        s.interval_move(empty("i4"), 20, nothing, out)


def test_empty_temp_is_not_none(compile_ctx, u32):
    need = u32.temp_size(8)
    with pytest.raises(InvalidArgumentError, match="0 bytes is too small: %d needed" % need):
        u32.sort(FakeArray((8,), "u4"), temp=empty("u1"))
    with pytest.raises(UnsupportedError, match="compile-only"):    # a temp of its own: passed
        u32.sort(FakeArray((8,), "u4"), temp=FakeArray((need,), "u1", ptr=0x10000))
