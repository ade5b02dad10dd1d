# SPDX-License-Identifier: Apache-2.0
"""numpy dtypes to key kinds and CUDA structs (CPU only)."""
import numpy as np
import pytest

import mergejit
from mergejit import DtypeError, key_type, struct_source


@pytest.mark.parametrize("dtype,kind", [
    ("u1", "u8"), ("i1", "i8"), ("u2", "u16"), ("i2", "i16"), ("u4", "u32"), ("i4", "i32"),
    ("u8", "u64"), ("i8", "i64"), ("f2", "f16"), ("f4", "f32"), ("f8", "f64"), ("?", "u8"),
    (np.uintc, "u32"), (np.intp, "i64"), (np.longlong, "i64"), ("<f8", "f64"), ("=i4", "i32"),
])
def test_builtin_kinds(dtype, kind):
    kt = key_type(np.dtype(dtype))
    assert kt.kind == kind and kt.type_source is None
    assert kt.size == np.dtype(dtype).itemsize


@pytest.mark.parametrize("dtype,hint", [
    (">u4", "big-endian"), (">f8", "big-endian"), ("c8", "complex"), ("M8[s]", "int64"),
    ("m8[s]", "int64"), ("O", "cannot sort"), ("S4", "cannot sort"), ("U3", "cannot sort"),
    ("V8", "cannot sort"),
])
def test_refused_kinds(dtype, hint):
    with pytest.raises(DtypeError, match=hint) as e:
        key_type(np.dtype(dtype))
    assert e.value.status == "MJ_ERR_INVALID_ARGUMENT"
    assert isinstance(e.value, TypeError) and isinstance(e.value, ValueError)


def test_bfloat16_by_name():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    assert key_type(np.dtype(ml_dtypes.bfloat16)).kind == "bf16"


def test_simple_struct():
    src, size, align = struct_source(np.dtype([("x", "f4"), ("id", "u4")]))
    assert (size, align) == (8, 4)
    assert src == "struct record {\n    float x;\n    unsigned int id;\n};\n"


def test_padded_struct_keeps_numpy_offsets():
    dt = np.dtype([("a", "u1"), ("b", "f8"), ("c", "i2")], align=True)
    src, size, align = struct_source(dt, "rec")
    assert (size, align) == (24, 8) == (dt.itemsize, dt.alignment)
    assert "unsigned char a;\n    unsigned char mj_pad0[7];\n    double b;" in src
    assert "short c;\n    unsigned char mj_pad1[6];" in src


def test_explicit_offsets_and_itemsize():
    # Gaps and trailing space given by offsets, fields listed out of offset order.
    dt = np.dtype({"names": ["hi", "lo"], "formats": ["u4", "u4"], "offsets": [8, 0],
                   "itemsize": 16})
    src, size, align = struct_source(dt)
    assert (size, align) == (16, 4)
    lines = [l.strip() for l in src.splitlines()]
    assert lines[1:5] == ["unsigned int lo;", "unsigned char mj_pad0[4];", "unsigned int hi;",
                          "unsigned char mj_pad1[4];"]


def test_nested_struct_and_subarrays():
    inner = np.dtype([("p", "i2"), ("q", "u1", (2, 3))], align=True)
    dt = np.dtype([("pos", "f4", (3,)), ("tag", inner), ("w", "f8")], align=True)
    src, size, align = struct_source(dt, "rec")
    assert (size, align) == (dt.itemsize, 8)
    assert src.index("struct rec_tag {") < src.index("struct rec {")
    assert "float pos[3];" in src and "rec_tag tag;" in src and "unsigned char q[2][3];" in src


def test_every_scalar_field():
    dt = np.dtype([("b", "?"), ("i1", "i1"), ("u1", "u1"), ("i2", "i2"), ("u2", "u2"),
                   ("h", "f2"), ("i4", "i4"), ("u4", "u4"), ("f4", "f4"), ("i8", "i8"),
                   ("u8", "u8"), ("f8", "f8"), ("t", "M8[ns]"), ("d", "m8[ns]"),
                   ("c", "c8"), ("z", "c16"), ("s", "S5"), ("u", "U2")], align=True)
    src, size, align = struct_source(dt, "all")
    assert (size, align) == (dt.itemsize, 8)
    for decl in ("bool b;", "signed char i1;", "unsigned char u1;", "short i2;",
                 "unsigned short u2;", "mj_f16 h;", "int i4;", "unsigned int u4;", "float f4;",
                 "long long i8;", "unsigned long long u8;", "double f8;", "long long t;",
                 "long long d;", "all_c_complex c;", "all_z_complex z;", "char s[5];",
                 "unsigned int u[2];"):
        assert decl in src, decl
    assert "struct all_c_complex { float re, im; };" in src


def test_struct_key_type_is_custom_and_cached():
    dt = np.dtype([("x", "f4"), ("id", "u4")])
    kt = key_type(dt, "rec")
    assert kt.kind == "custom" and kt.type_name == "rec" and (kt.size, kt.align) == (8, 4)
    assert key_type(np.dtype([("x", "f4"), ("id", "u4")]), "rec") is kt


@pytest.mark.parametrize("dtype,match", [
    # A packed dtype: f8 at offset 1.
    (np.dtype([("a", "u1"), ("b", "f8")]), "offset 1, not a multiple of its C alignment 8"),
    # Aligned fields but an itemsize C cannot have.
    (np.dtype({"names": ["x"], "formats": ["f8"], "offsets": [0], "itemsize": 12}),
     "itemsize 12, not a multiple of its C alignment 8"),
    # Overlapping fields (a union).
    (np.dtype({"names": ["x", "y"], "formats": ["u4", "u2"], "offsets": [0, 2]}), "overlaps"),
    # Nested packed struct.
    (np.dtype([("n", np.dtype([("a", "u1"), ("b", "u4")]))]), "not a multiple"),
    (np.dtype([("x", ">u4")]), "big-endian"),
    (np.dtype([("x", "O")]), "no CUDA equivalent"),
    (np.dtype([("class", "u4")]), "C\\+\\+ identifier"),
    (np.dtype([("mj_x", "u4")]), "C\\+\\+ identifier"),
    (np.dtype([("x", "u4", (0,))]), "zero-length"),
])
def test_refused_structs(dtype, match):
    with pytest.raises(DtypeError, match=match):
        struct_source(dtype)


def test_bad_type_name():
    with pytest.raises(DtypeError, match="type name"):
        struct_source(np.dtype([("x", "u4")]), "not a name")


def test_struct_compiles_with_nvrtc(compile_ctx):
    # The declaration's size and alignment are checked by static_asserts in the generated code.
    inner = np.dtype([("p", "i2"), ("q", "u1", (2, 3))], align=True)
    dt = np.dtype([("a", "u1"), ("pos", "f4", (3,)), ("tag", inner), ("h", "f2"), ("w", "f8"),
                   ("c", "c8")], align=True)
    s = compile_ctx.sorter(dt, less="a.w < b.w || (a.w == b.w && a.tag.p > b.tag.p)")
    assert s.source in ("nvrtc", "disk", "memory")
    s = compile_ctx.sorter(np.dtype({"names": ["hi", "lo"], "formats": ["u4", "u4"],
                                     "offsets": [8, 0], "itemsize": 16}),
                           less="a.hi < b.hi", value_size=4)
    assert s.tile[0] > 0


def test_half_fields_compare_through_the_library_order(compile_ctx):
    dt = np.dtype([("h", "f2"), ("k", "u2")])
    compile_ctx.sorter(dt, less="mj_key_ord(a.h) < mj_key_ord(b.h)")


def test_version():
    assert mergejit.__version__.count(".") == 2
