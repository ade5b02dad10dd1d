# SPDX-License-Identifier: Apache-2.0
"""numpy dtypes to mergejit key kinds, and structured dtypes to CUDA struct declarations.

A structured dtype becomes a C struct whose members sit at numpy's offsets: fields in offset
order, explicit byte arrays in the gaps, the struct's alignment the largest of its members'.
That reproduces numpy's layout exactly when every field is at a multiple of its own C
alignment and the itemsize is a multiple of the struct's; other layouts (packed, unaligned
fields; overlapping fields) have no C struct and are refused.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple

import numpy as np

from ._errors import DtypeError
from ._typing import DTypeLike

# kind + itemsize -> key kind name (numpy's platform aliases collapse onto these).
_BUILTIN: Dict[Tuple[str, int], str] = {
    ("u", 1): "u8", ("i", 1): "i8", ("u", 2): "u16", ("i", 2): "i16", ("u", 4): "u32",
    ("i", 4): "i32", ("u", 8): "u64", ("i", 8): "i64", ("f", 2): "f16", ("f", 4): "f32",
    ("f", 8): "f64", ("b", 1): "u8"}

# C spelling, size and alignment of a scalar field. f16/bf16 are the library's bit-pattern
# structs (NVRTC has no cuda_fp16.h here): compare them with mj_key_ord(a.x) < mj_key_ord(b.x).
_FIELD_C: Dict[Tuple[str, int], str] = {
    ("b", 1): "bool", ("i", 1): "signed char", ("u", 1): "unsigned char", ("i", 2): "short",
    ("u", 2): "unsigned short", ("i", 4): "int", ("u", 4): "unsigned int", ("i", 8): "long long",
    ("u", 8): "unsigned long long", ("f", 2): "mj_f16", ("f", 4): "float", ("f", 8): "double",
    ("M", 8): "long long", ("m", 8): "long long"}

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CXX_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t char32_t
char8_t class compl concept const const_cast consteval constexpr constinit continue co_await
co_return co_yield decltype default delete do double dynamic_cast else enum explicit export
extern false float for friend goto if inline int long mutable namespace new noexcept not not_eq
nullptr operator or or_eq private protected public register reinterpret_cast requires return
short signed sizeof static static_assert static_cast struct switch template this thread_local
throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t while
xor xor_eq""".split())

class KeyType(NamedTuple):
    """How a dtype crosses to the library: kind is a key kind name ("u32", ...,
    "custom"); for "custom", the struct's name, source, size and alignment."""
    kind: str
    type_name: Optional[str]
    type_source: Optional[str]
    size: int
    align: int


def is_bfloat16(dt: np.dtype[Any]) -> bool:
    return dt.name == "bfloat16" and dt.itemsize == 2


def _check_byte_order(dt: np.dtype[Any], what: str) -> None:
    if dt.byteorder == ">" or (dt.byteorder == "=" and not np.little_endian):
        raise DtypeError("%s is big-endian (%s): the GPU is little-endian; convert it with "
                         ".astype(%r)" % (what, dt.str, dt.newbyteorder("<").str))


def _check_name(name: str, what: str) -> None:
    if not _IDENT.match(name) or name in _CXX_KEYWORDS or name.startswith("mj_"):
        raise DtypeError("%s %r is not usable as a C++ identifier (letters, digits and _, not "
                         "a keyword, not mj_...): rename the field" % (what, name))


class _StructWriter:
    """Declares a structured dtype and its nested ones, innermost first."""

    def __init__(self) -> None:
        self.decls: List[str] = []

    def field(self, dt: np.dtype[Any], owner: str, field: str) -> Tuple[str, str, int, int]:
        """(C type, array suffix, size, alignment) of a field's dtype."""
        what = "field %r of %s" % (field, owner)
        if dt.subdtype is not None:
            base, shape = dt.subdtype
            ctype, suffix, _, align = self.field(base, owner, field)
            dims = "".join("[%d]" % d for d in shape)
            if 0 in shape:
                raise DtypeError("%s has an empty shape %s: C has no zero-length arrays"
                                 % (what, shape))
            return ctype, dims + suffix, dt.itemsize, align
        if dt.fields is not None:
            name, size, align = self.struct(dt, "%s_%s" % (owner, field))
            return name, "", size, align
        if dt.kind in "biufMm":
            _check_byte_order(dt, what)
        if is_bfloat16(dt):
            return "mj_bf16", "", 2, 2
        key = (dt.kind, dt.itemsize)
        if key in _FIELD_C:
            return _FIELD_C[key], "", dt.itemsize, dt.itemsize
        if dt.kind == "c" and dt.itemsize in (8, 16):
            part = "float" if dt.itemsize == 8 else "double"
            name = "%s_%s_complex" % (owner, field)
            self.decls.append("struct %s { %s re, im; };" % (name, part))
            return name, "", dt.itemsize, dt.itemsize // 2
        if dt.kind == "S":
            return "char", "[%d]" % dt.itemsize, dt.itemsize, 1
        if dt.kind == "U":
            _check_byte_order(dt, what)
            return "unsigned int", "[%d]" % (dt.itemsize // 4), dt.itemsize, 4
        raise DtypeError("%s has dtype %s, which has no CUDA equivalent here" % (what, dt))

    def struct(self, dt: np.dtype[Any], name: str) -> Tuple[str, int, int]:
        """Declares the struct for dt under name; returns (name, size, alignment)."""
        fields = []
        names = dt.names or ()
        by_name: Mapping[str, Tuple[Any, ...]] = dt.fields or {}
        for field in names:
            fdt, offset = by_name[field][:2]
            _check_name(field, "field name of %s:" % name)
            fields.append((offset, field, fdt))
        if not fields:
            raise DtypeError("%s has no fields" % name)
        fields.sort(key=lambda f: f[0])
        members, cursor, align, pads = [], 0, 1, 0
        for offset, field, fdt in fields:
            ctype, suffix, size, falign = self.field(fdt, name, field)
            if offset < cursor:
                raise DtypeError("field %r of %s (offset %d) overlaps the field before it "
                                 "(which ends at %d): a C struct cannot overlap members"
                                 % (field, name, offset, cursor))
            if offset % falign:
                raise DtypeError(
                    "field %r of %s is at offset %d, not a multiple of its C alignment %d: a C "
                    "struct cannot place it there (a packed dtype?); make the dtype with "
                    "align=True or pad the fields before it" % (field, name, offset, falign))
            if offset > cursor:
                members.append("unsigned char mj_pad%d[%d];" % (pads, offset - cursor))
                pads += 1
            members.append("%s %s%s;" % (ctype, field, suffix))
            cursor = offset + size
            align = max(align, falign)
        if dt.itemsize % align:
            raise DtypeError(
                "%s has itemsize %d, not a multiple of its C alignment %d (its widest field's): "
                "a C struct cannot have that size; make the dtype with align=True or pad it to "
                "a multiple of %d" % (name, dt.itemsize, align, align))
        if dt.itemsize > cursor:
            members.append("unsigned char mj_pad%d[%d];" % (pads, dt.itemsize - cursor))
        self.decls.append("struct %s {\n    %s\n};" % (name, "\n    ".join(members)))
        return name, dt.itemsize, align


def struct_source(dtype: DTypeLike, name: str = "record") -> Tuple[str, int, int]:
    """The CUDA declaration of a structured dtype: (source, size, alignment). Raises
    DtypeError, saying why, for dtypes no C struct can reproduce."""
    dt = np.dtype(dtype)
    if dt.fields is None:
        raise DtypeError("%s is not a structured dtype" % dt)
    _check_name(name, "type name")
    w = _StructWriter()
    _, size, align = w.struct(dt, name)
    return "\n".join(w.decls) + "\n", size, align


_cache: Dict[Tuple[Any, str], KeyType] = {}


def key_type(dtype: DTypeLike, type_name: str = "record") -> KeyType:
    """The KeyType of a dtype (cached per dtype and name)."""
    try:
        return _cache[(dtype, type_name)]
    except (KeyError, TypeError):
        pass
    dt = np.dtype(dtype)
    if dt.fields is not None:
        source, size, align = struct_source(dt, type_name)
        kt = KeyType("custom", type_name, source, size, align)
    elif is_bfloat16(dt):
        kt = KeyType("bf16", None, None, 2, 2)
    elif (dt.kind, dt.itemsize) in _BUILTIN:
        _check_byte_order(dt, "dtype")
        kt = KeyType(_BUILTIN[(dt.kind, dt.itemsize)], None, None, dt.itemsize, dt.itemsize)
    else:
        hint = {"c": "complex numbers have no order: view them as a structured dtype "
                     "[('re', 'f4'), ('im', 'f4')] with less=",
                "M": "view datetimes as int64 (.view('i8'))",
                "m": "view timedeltas as int64 (.view('i8'))"}.get(
                    dt.kind, "use a numeric or structured dtype")
        raise DtypeError("mergejit cannot sort dtype %s: %s" % (dt, hint))
    _cache[(dt, type_name)] = kt
    return kt
