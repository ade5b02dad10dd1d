# SPDX-License-Identifier: Apache-2.0
"""Contexts, sorters and the one-call functions over libmergejit.so."""
from __future__ import annotations

import ctypes
import os
import threading
from typing import (TYPE_CHECKING, Any, Dict, Literal, Mapping, NamedTuple, NoReturn, Optional,
                    Sequence, Tuple, Union, overload)

import numpy as np

from . import _driver, _lib
from ._arrays import Array, as_array, call_stream, empty_like, stream_handle
from ._dtypes import KeyType, is_bfloat16, key_type
from ._errors import DtypeError, InvalidArgumentError, UnsupportedError, error_for
from ._typing import (ArrayPair, Bound, DeviceArray, DTypeLike, JoinKind, Order, SegmentKind,
                      SelectKind, SetOp, StreamLike)

lib = _lib.lib

_SOURCES = ("nvrtc", "disk", "memory", "bundle", "bundle-ptx")
_PRIMITIVE_ALIASES: Dict[str, str] = {
    "sort": "mergesort", "segmented_sort": "segsort", "locality_sort": "locality",
    "load_balance": "lbs", "sorted_search": "search", "interval_expand": "expand",
    "interval_move": "move", "bulk_remove": "remove", "bulk_insert": "insert",
    "set_operation": "setops", "unique": "select", "segmented_reduce": "segreduce",
    "reduce_by_key": "reducebykey"}
_ORDER_ALIASES: Dict[str, str] = {"asc": "ascending", "desc": "descending"}
# A file or folder: what os.fsencode takes. (os.PathLike takes a parameter at run time from
# Python 3.9 on.)
if TYPE_CHECKING:
    _PathLike = Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]
else:
    _PathLike = Union[str, bytes, os.PathLike]


def _text(b: Optional[bytes]) -> str:
    return b.decode("utf-8", "replace") if b else ""


def _path(p: Optional[_PathLike]) -> Optional[bytes]:
    return None if p is None else os.fsencode(p)


class Context:
    """A mergejit context on one device: the disk cache, tuning file and bundle it reads, and
    the sorters it has built (the one-call functions keep theirs here, built once).

    device: CUDA ordinal. cache_dir, tuning_file, bundle: as mj_context_options (None: the
    environment's or the default; "" for tuning_file and bundle: none). disk_cache=False keeps
    kernels in memory only. compile_only=True needs no driver nor device: sorters are built
    for target_sm (default 90) but cannot run. bundle_fallback=True compiles what the bundle
    lacks. Work launched through the context must be finished before close()."""

    def __init__(self, device: int = 0, *, cache_dir: Optional[_PathLike] = None,
                 tuning_file: Optional[_PathLike] = None, bundle: Optional[_PathLike] = None,
                 disk_cache: bool = True, compile_only: bool = False,
                 target_sm: Optional[int] = None, bundle_fallback: bool = False) -> None:
        _lib.find_nvrtc()           # before the library's first use of NVRTC
        opts = _lib.ContextOptions()
        lib.mj_context_options_init(ctypes.byref(opts))
        opts.device = device
        opts.cache_dir = _path(cache_dir)
        opts.tuning_file = _path(tuning_file)
        opts.bundle = _path(bundle)
        if target_sm is not None:
            opts.target_sm = target_sm
        opts.flags = ((0 if disk_cache else _lib.CONTEXT_NO_DISK_CACHE) |
                      (_lib.CONTEXT_COMPILE_ONLY if compile_only else 0) |
                      (_lib.CONTEXT_BUNDLE_FALLBACK if bundle_fallback else 0))
        handle = ctypes.c_void_p()
        self._h: Optional[int] = None
        st = lib.mj_context_create(ctypes.byref(opts), ctypes.byref(handle))
        if st:
            message = _text(lib.mj_context_last_error(handle))
            lib.mj_context_destroy(handle)
            raise error_for(_text(lib.mj_status_name(st)), message)
        self._h = handle.value
        self.device = device
        self.compile_only = compile_only
        self._sorters: Dict[Tuple[Any, ...], Sorter] = {}
        self._lock = threading.Lock()

    def _handle(self) -> int:
        if self._h is None:
            raise InvalidArgumentError("the context is closed")
        return self._h

    def _raise(self, st: int) -> NoReturn:
        raise error_for(_text(lib.mj_status_name(st)),
                        _text(lib.mj_context_last_error(self._h)))

    @property
    def target_sm(self) -> int:
        """The sm_XY the context builds for (its device's, or target_sm= when compile-only)."""
        return int(lib.mj_context_target_sm(self._handle()))

    @property
    def cache_dir(self) -> str:
        return _text(lib.mj_context_cache_dir(self._handle()))

    @property
    def device_name(self) -> str:
        return _text(lib.mj_context_device_name(self._handle()))

    @property
    def tuning_file(self) -> str:
        return _text(lib.mj_context_tuning_file(self._handle()))

    @property
    def bundle(self) -> str:
        return _text(lib.mj_context_bundle(self._handle()))

    def sorter(self, dtype: DTypeLike, **kw: Any) -> Sorter:
        """The context's sorter for these arguments (those of Sorter), built on first use."""
        key = (np.dtype(dtype),) + tuple(sorted(kw.items()))
        s = self._sorters.get(key)
        if s is None:
            with self._lock:
                s = self._sorters.get(key)
                if s is None:
                    s = self._sorters[key] = Sorter(dtype, context=self, **kw)
        return s

    def close(self) -> None:
        """Destroys the context's sorters and the context. Sorters made by the caller on it
        must not be used afterwards."""
        if self._h is None:
            return
        for s in self._sorters.values():
            s.close()
        self._sorters.clear()
        lib.mj_context_destroy(self._h)
        self._h = None

    def __enter__(self) -> Context:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_h", None) is not None and lib is not None:
            self.close()

    def __repr__(self) -> str:
        if self._h is None:
            return "<mergejit.Context closed>"
        what = "compile-only sm_%d" % self.target_sm if self.compile_only else \
            "device %d (%s)" % (self.device, self.device_name)
        return "<mergejit.Context %s, cache %r>" % (what, self.cache_dir or None)


_defaults: Dict[int, Context] = {}
_defaults_lock = threading.Lock()


def default_context(device: int = 0) -> Context:
    """The context the functions use when given none: one per device, made on first use with
    the environment's settings (MERGEJIT_CACHE_DIR, MERGEJIT_TUNING, MERGEJIT_BUNDLE)."""
    ctx = _defaults.get(device)
    if ctx is None:
        with _defaults_lock:
            ctx = _defaults.get(device)
            if ctx is None:
                ctx = _defaults[device] = Context(device)
    return ctx


def _array_device(a: Array) -> int:
    if a.device is not None:
        return a.device
    dev = getattr(a.obj, "device", None)
    for attr in ("id", "index"):  # CuPy, PyTorch
        v = getattr(dev, attr, None)
        if isinstance(v, int):
            return v
    return 0


def _context(context: Optional[Context], a: Array) -> Context:
    return context if context is not None else default_context(_array_device(a))


def _choice(value: str, table: Mapping[str, int], what: str) -> int:
    v = _ORDER_ALIASES.get(value, value) if table is _lib.ORDERS else value
    if v not in table:
        raise InvalidArgumentError("%s=%r: one of %s" % (what, value, ", ".join(sorted(table))))
    return table[v]


def _ptr(a: Optional[Array]) -> Optional[int]:
    return a.ptr if a is not None else None


def _index_size(a: Array, what: str) -> int:
    if a.dtype.kind not in "iu" or a.dtype.itemsize not in (4, 8) or len(a.shape) != 1:
        raise DtypeError("%s must be a 1-D array of 4- or 8-byte integers (got %s of shape %s)"
                         % (what, a.dtype, a.shape))
    return a.dtype.itemsize


def _need_length(a: Array, n: int, what: str) -> None:
    if a.n != n:
        raise InvalidArgumentError("%s has %d elements, expected %d" % (what, a.n, n))


def _need_room(a: Optional[Array], n: int, what: str) -> None:
    if a is not None and a.n < n:
        raise InvalidArgumentError("%s has %d elements, at least %d are needed" % (what, a.n, n))


def _count_array(a: Array, what: str) -> None:
    """A device uint64 the library writes a count to (one element, 8 bytes)."""
    if a.dtype.kind not in "iu" or a.dtype.itemsize != 8 or a.n < 1:
        raise InvalidArgumentError("%s needs one uint64 (got %s of shape %s)"
                                   % (what, a.dtype, a.shape))
    _writable(a, what)


def _writable(a: Array, what: str) -> None:
    if a.readonly:
        raise InvalidArgumentError("%s is read-only, and this call writes to it" % what)


class SearchResult(NamedTuple):
    """sorted_search's outputs, each the array given (or made) for it, None for one not
    asked for."""
    a_indices: Optional[DeviceArray]
    a_matches: Optional[DeviceArray]
    a_counts: Optional[DeviceArray]
    b_indices: Optional[DeviceArray]
    b_matches: Optional[DeviceArray]
    match_counts: Optional[DeviceArray]


def sort_desc(key: KeyType, primitive: str, *, order: Order = "ascending",
              less: Optional[str] = None, value_size: int = 0, op: Optional[str] = None,
              identity: Optional[str] = None, tile: Optional[Sequence[int]] = None,
              merge4_log2: Optional[int] = None, value_type: Optional[str] = None,
              value_type_source: Optional[str] = None) -> _lib.SortDesc:
    """The mj_sort_desc of a sorter (Sorter's arguments); shared with mergejit.distributed."""
    d = _lib.SortDesc()
    d.primitive = _lib.PRIMITIVES[primitive]
    d.key = _lib.KEY_KINDS[key.kind]
    d.order = _choice(order, _lib.ORDERS, "order")
    d.less = less.encode() if less is not None else None
    d.op = op.encode() if op is not None else None
    d.identity = identity.encode() if identity is not None else None
    d.value_type = value_type.encode() if value_type is not None else None
    d.value_type_source = (value_type_source.encode() if value_type_source is not None
                           else None)
    if key.kind == "custom":
        assert key.type_name is not None and key.type_source is not None
        d.type_name = key.type_name.encode()
        d.type_source = key.type_source.encode()
        d.type_size = key.size
        d.type_align = key.align
    d.value_size = value_size
    if tile is not None:
        if len(tile) not in (2, 3):
            raise InvalidArgumentError("tile=%r: (nt, vt) or (nt, vt, bs_nt)" % (tile,))
        d.nt, d.vt = tile[0], tile[1]
        d.bs_nt = tile[2] if len(tile) == 3 else 0
    if merge4_log2 is not None:
        d.merge4_log2 = merge4_log2
    return d


class Sorter:
    """Kernels built once for one primitive, key dtype and order (or comparator), run many
    times. Building compiles with NVRTC or loads from the disk cache, the context's memory or
    its bundle, every kernel the runs may launch: building is the step that may wait for the
    GPU (loading a module waits for the work already queued on it), and the runs then return
    once their work is queued. The module-level functions build their sorter on first use (the
    context keeps it), so a first call may wait where later ones do not.

    dtype: the key (element) dtype: a numpy built-in (bool sorts as uint8; bfloat16 from
    ml_dtypes) or a structured dtype, which becomes `struct <type_name> {...}` in CUDA.
    primitive: "mergesort", "locality", "merge", "segsort", "reduce", "scan", "search", "lbs",
    "expand", "move" (keyed by the int32/int64 offsets), "remove", "insert" (any dtype, moved
    as bytes: no order), "join", "setops", "select" (or the functions' names:
    "interval_expand", ...; "unique" is "select").
    order: "ascending" or "descending" (floats: NaNs last in both, ordered by their bits;
    keys equal only with equal bits, so -0 and +0 differ), or less: a CUDA boolean
    expression over `a` and `b` (const KEY &), required for structured dtypes.
    value_size: bytes of the value carried with each key (0: none; 4 or 8 for argsort; for
    expand and move, the bytes of an element moved).
    op, identity: reduce and scan (CUDA expressions; default a + b and 0); select takes op
    alone, its selection operator (a CUDA boolean expression over `a`, true to keep); reduce
    by key ("reducebykey"): over its values.
    value_type, value_type_source: reduce by key only: the values' CUDA type name (e.g.
    "float"), and the CUDA source defining it when it is not built in; value_size its size.
    tile: (nt, vt) or (nt, vt, bs_nt), for experiments; default the context's choice.
    merge4_log2: mergesort, the input size (2**merge4_log2 bytes of keys and values, 1 to 62)
    from which its passes merge four lists; default the context's choice (its tuning file,
    else 2**25)."""

    def __init__(self, dtype: DTypeLike, *, primitive: str = "mergesort",
                 order: Order = "ascending", less: Optional[str] = None, value_size: int = 0,
                 op: Optional[str] = None, identity: Optional[str] = None,
                 type_name: str = "record", tile: Optional[Sequence[int]] = None,
                 merge4_log2: Optional[int] = None, value_type: Optional[str] = None,
                 value_type_source: Optional[str] = None,
                 context: Optional[Context] = None) -> None:
        self._h: Optional[int] = None
        self.context: Context = context if context is not None else default_context()
        self.dtype: np.dtype[Any] = np.dtype(dtype)
        self.key = key_type(self.dtype, type_name)
        self.primitive = _PRIMITIVE_ALIASES.get(primitive, primitive)
        if self.primitive not in _lib.PRIMITIVES:
            raise InvalidArgumentError("primitive=%r: one of %s" % (
                primitive, ", ".join(sorted(_lib.PRIMITIVES))))
        self.value_size = value_size
        d = sort_desc(self.key, self.primitive, order=order, less=less, value_size=value_size,
                      op=op, identity=identity, tile=tile, merge4_log2=merge4_log2,
                      value_type=value_type, value_type_source=value_type_source)
        handle = ctypes.c_void_p()
        st = lib.mj_sorter_create(self.context._handle(), ctypes.byref(d), ctypes.byref(handle))
        if st:
            self.context._raise(st)
        self._h = handle.value

    # ------------------------------------------------------------ facts

    @property
    def source(self) -> str:
        """How the kernels were obtained: "nvrtc", "disk", "memory", "bundle", or "bundle-ptx"
        (the bundle's PTX, compiled by the driver for a GPU newer than its cubins)."""
        return _SOURCES[lib.mj_sorter_source(self._handle())]

    @property
    def build_ms(self) -> float:
        """Milliseconds the build took (compiling, or loading from a cache or bundle)."""
        return float(lib.mj_sorter_build_ms(self._handle()))

    @property
    def tile(self) -> Tuple[int, int]:
        """The (nt, vt) the kernels were built with: threads a block, items a thread."""
        nt, vt = ctypes.c_int(), ctypes.c_int()
        lib.mj_sorter_tile(self._handle(), ctypes.byref(nt), ctypes.byref(vt))
        return nt.value, vt.value

    @property
    def resources(self) -> Tuple[int, int]:
        """(registers, spill bytes) as ptxas reported them; -1 each when unknown."""
        r, sp = ctypes.c_int(), ctypes.c_long()
        lib.mj_sorter_resources(self._handle(), ctypes.byref(r), ctypes.byref(sp))
        return r.value, sp.value

    def temp_size(self, n: int, indices: bool = False) -> int:
        """Bytes of temporary storage a run over n elements needs (see mj_sorter_temp_size):
        what a run's temp= must hold, an empty one included (refused, not taken for none,
        where the run needs any)."""
        out = ctypes.c_size_t()
        self._check(lib.mj_sorter_temp_size(self._handle(), n, int(indices), ctypes.byref(out)))
        return out.value

    def close(self) -> None:
        """Destroys the sorter (a context's close() destroys the sorters it made itself)."""
        if self._h is not None and self.context._h is not None:
            lib.mj_sorter_destroy(self._h)
        self._h = None

    def __del__(self) -> None:
        if getattr(self, "_h", None) is not None and lib is not None:
            self.close()

    def __repr__(self) -> str:
        return "<mergejit.Sorter %s of %s, value_size %d>" % (self.primitive, self.dtype,
                                                             self.value_size)

    # ------------------------------------------------------------ helpers

    def _handle(self) -> int:
        if self._h is None or self.context._h is None:
            raise InvalidArgumentError("the sorter (or its context) is closed")
        return self._h

    def _check(self, st: int) -> None:
        if st:
            self.context._raise(st)

    def _keys(self, obj: Union[DeviceArray, Array], what: str, stream: Optional[int],
              writable: bool = False) -> Array:
        a = as_array(obj, what, stream)
        if a.dtype == np.uint8 and self.key.kind == "custom":
            a = as_array(a, what, stream, self.dtype)       # bytes: viewed as the records
        if a.dtype != self.dtype and key_type(a.dtype, self.key.type_name or "record") != self.key:
            raise DtypeError("%s has dtype %s; this sorter was built for %s"
                             % (what, a.dtype, self.dtype))
        if len(a.shape) != 1:
            raise InvalidArgumentError("%s must be 1-D (got shape %s); for rows use "
                                       "segmented_sort" % (what, a.shape))
        if writable:
            _writable(a, what)
        return a

    def _values(self, obj: Union[DeviceArray, Array, None], n: Optional[int], what: str,
                stream: Optional[int], writable: bool = False) -> Optional[Array]:
        """The value array for n keys (None: any number): required exactly when the sorter
        carries values."""
        if obj is None:
            if self.value_size:
                raise InvalidArgumentError("this sorter carries %d-byte values: %s is required"
                                           % (self.value_size, what))
            return None
        if not self.value_size:
            raise InvalidArgumentError("this sorter sorts keys only (value_size 0) but %s was "
                                       "given" % what)
        a = as_array(obj, what, stream)
        if n is None:
            n = a.n
        _need_length(a, n, what)
        if a.row_bytes != self.value_size and n:
            raise InvalidArgumentError("%s has %d bytes per element (dtype %s, shape %s); this "
                                       "sorter carries %d" % (what, a.row_bytes, a.dtype,
                                                              a.shape, self.value_size))
        if writable:
            _writable(a, what)
        return a

    def _moved(self, obj: DeviceArray, n: Optional[int], what: str, stream: Optional[int],
               writable: bool = False) -> Array:
        """_values for the arrays that interval_expand and interval_move move: required,
        whatever the sorter's value_size."""
        a = self._values(obj, n, what, stream, writable)
        if a is None:
            raise InvalidArgumentError("%s is required (a device array of value_size bytes per "
                                       "element)" % what)
        return a

    def _temp(self, temp: Optional[DeviceArray], stream: Optional[int], n: int,
              indices: bool = False) -> Tuple[Optional[int], int]:
        """temp's pointer and bytes for a run over n elements (as temp_size). An empty temp's
        pointer may be NULL, which the library reads as no temp (and then allocates): it is
        refused here as too small when the run needs any, as the library refuses others."""
        if temp is None:
            return None, 0
        t = as_array(temp, "temp", stream)
        size = t.n * t.row_bytes
        if not size:
            need = self.temp_size(n, indices)
            if need:
                raise InvalidArgumentError("temporary storage of 0 bytes is too small: %d "
                                           "needed" % need)
        return t.ptr, size

    # ------------------------------------------------------------ runs

    @overload
    def sort(self, keys: DeviceArray, values: None = None, *,
             temp: Optional[DeviceArray] = None, stream: StreamLike = None) -> DeviceArray: ...

    @overload
    def sort(self, keys: DeviceArray, values: DeviceArray, *,
             temp: Optional[DeviceArray] = None,
             stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]: ...

    def sort(self, keys: DeviceArray, values: Optional[DeviceArray] = None, *,
             temp: Optional[DeviceArray] = None,
             stream: StreamLike = None) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
        """Sorts keys (and values) in place, stably; returns keys (or (keys, values))."""
        s = stream_handle(stream)
        k = self._keys(keys, "keys", s, writable=True)
        v = self._values(values, k.n, "values", s, writable=True)
        tp, tb = self._temp(temp, s, k.n)
        self._check(lib.mj_sorter_sort(self._handle(), k.ptr, _ptr(v), k.n, tp, tb,
                                       call_stream(s, (k, v))))
        return keys if values is None else (keys, values)

    def argsort(self, keys: DeviceArray, out: DeviceArray, *, temp: Optional[DeviceArray] = None,
                stream: StreamLike = None) -> DeviceArray:
        """Writes to out the stable permutation that sorts keys (a sorter with value_size 4 or
        8, out's itemsize); returns out."""
        s = stream_handle(stream)
        k = self._keys(keys, "keys", s)
        o = self._indices(out, k.n, "out", s)
        tp, tb = self._temp(temp, s, k.n, indices=True)
        self._check(lib.mj_sorter_sort_indices(self._handle(), k.ptr, o.ptr, k.n, tp, tb,
                                               call_stream(s, (k, o))))
        return out

    def sort_with_indices(self, keys: DeviceArray, indices: DeviceArray, *,
                          temp: Optional[DeviceArray] = None,
                          stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]:
        """Sorts keys in place and writes to indices each sorted key's position in the input
        (a sorter with value_size 4 or 8, indices' itemsize), as torch.sort's (values,
        indices); returns (keys, indices)."""
        s = stream_handle(stream)
        k = self._keys(keys, "keys", s, writable=True)
        o = self._indices(indices, k.n, "indices", s)
        tp, tb = self._temp(temp, s, k.n)
        self._check(lib.mj_sorter_sort_with_indices(self._handle(), k.ptr, o.ptr, k.n, tp, tb,
                                                    call_stream(s, (k, o))))
        return keys, indices

    def _indices(self, out: DeviceArray, n: int, what: str, s: Optional[int]) -> Array:
        """out as the n indices of an index sort: this sorter's index width, writable."""
        o = as_array(out, what, s)
        if _index_size(o, what) != self.value_size:
            raise DtypeError("%s has %d-byte indices; this sorter writes %d" % (
                what, o.dtype.itemsize, self.value_size))
        _need_length(o, n, what)
        _writable(o, what)
        if o.dtype == np.int32 and n > 2**31 - 1:
            raise InvalidArgumentError("%d keys do not fit int32 indices: use int64" % n)
        return o

    @overload
    def merge(self, a: DeviceArray, b: DeviceArray, out: DeviceArray, *,
              a_values: Optional[DeviceArray] = None, b_values: Optional[DeviceArray] = None,
              out_values: None = None, temp: Optional[DeviceArray] = None,
              stream: StreamLike = None) -> DeviceArray: ...

    @overload
    def merge(self, a: DeviceArray, b: DeviceArray, out: DeviceArray, *,
              a_values: Optional[DeviceArray] = None, b_values: Optional[DeviceArray] = None,
              out_values: DeviceArray, temp: Optional[DeviceArray] = None,
              stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]: ...

    def merge(self, a: DeviceArray, b: DeviceArray, out: DeviceArray, *,
              a_values: Optional[DeviceArray] = None, b_values: Optional[DeviceArray] = None,
              out_values: Optional[DeviceArray] = None, temp: Optional[DeviceArray] = None,
              stream: StreamLike = None) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
        """Merges sorted a and b into out (a's first on ties); returns out (or (out,
        out_values))."""
        s = stream_handle(stream)
        ka, kb = self._keys(a, "a", s), self._keys(b, "b", s)
        ko = self._keys(out, "out", s, writable=True)
        _need_length(ko, ka.n + kb.n, "out")
        va = self._values(a_values, ka.n, "a_values", s)
        vb = self._values(b_values, kb.n, "b_values", s)
        vo = self._values(out_values, ko.n, "out_values", s, writable=True)
        tp, tb = self._temp(temp, s, ko.n)
        self._check(lib.mj_sorter_merge(self._handle(), ka.ptr, _ptr(va), ka.n, kb.ptr, _ptr(vb),
                                        kb.n, ko.ptr, _ptr(vo), tp, tb,
                                        call_stream(s, (ka, kb, ko))))
        return out if out_values is None else (out, out_values)

    @overload
    def segmented_sort(self, keys: DeviceArray, segments: DeviceArray, values: None = None, *,
                       kind: SegmentKind = "offsets", temp: Optional[DeviceArray] = None,
                       stream: StreamLike = None) -> DeviceArray: ...

    @overload
    def segmented_sort(self, keys: DeviceArray, segments: DeviceArray, values: DeviceArray, *,
                       kind: SegmentKind = "offsets", temp: Optional[DeviceArray] = None,
                       stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]: ...

    def segmented_sort(self, keys: DeviceArray, segments: DeviceArray,
                       values: Optional[DeviceArray] = None, *, kind: SegmentKind = "offsets",
                       temp: Optional[DeviceArray] = None, stream: StreamLike = None
                       ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
        """Sorts each segment of keys (and values) in place. kind: "offsets" (segments + 1
        CSR offsets, 4- or 8-byte), "heads" (segment starts), "flags" (one byte per key,
        non-zero at a start) or "flag_bits" (32-bit words, bit i % 32 of word i / 32)."""
        s = stream_handle(stream)
        k = self._keys(keys, "keys", s, writable=True)
        v = self._values(values, k.n, "values", s, writable=True)
        g = as_array(segments, "segments", s)
        seg = _lib.Segments()
        seg.kind = _choice(kind, _lib.SEGMENT_KINDS, "kind")
        seg.data = g.ptr
        if kind in ("offsets", "heads"):
            seg.index_size = _index_size(g, "segments")
            seg.count = g.n
        else:
            want = k.n if kind == "flags" else (k.n + 31) // 32 * 4
            if g.n * g.row_bytes < want:
                raise InvalidArgumentError("segments (%s) has %d bytes; %d keys need %d"
                                           % (kind, g.n * g.row_bytes, k.n, want))
        tp, tb = self._temp(temp, s, k.n)
        self._check(lib.mj_sorter_segmented_sort(self._handle(), k.ptr, _ptr(v), k.n,
                                                 ctypes.byref(seg), tp, tb,
                                                 call_stream(s, (k, v, g))))
        return keys if values is None else (keys, values)

    def reduce(self, x: DeviceArray, out: DeviceArray, *, temp: Optional[DeviceArray] = None,
               stream: StreamLike = None) -> DeviceArray:
        """Combines x with the operator into out (one element); returns out."""
        s = stream_handle(stream)
        a = self._keys(x, "x", s)
        o = self._keys(out, "out", s, writable=True)
        if o.n < 1:
            raise InvalidArgumentError("out needs one element")
        tp, tb = self._temp(temp, s, a.n)
        self._check(lib.mj_sorter_reduce(self._handle(), a.ptr, a.n, o.ptr, tp, tb,
                                         call_stream(s, (a, o))))
        return out

    def segmented_reduce(self, x: DeviceArray, offsets: DeviceArray, out: DeviceArray, *,
                         temp: Optional[DeviceArray] = None,
                         stream: StreamLike = None) -> DeviceArray:
        """Combines each segment of x with the operator into out: segment i is
        x[offsets[i]:offsets[i + 1]] (offsets: segments + 1 CSR offsets, 4- or 8-byte
        integers), the identity when empty; out holds one element a segment. Returns out."""
        s = stream_handle(stream)
        a = self._keys(x, "x", s)
        g = as_array(offsets, "offsets", s)
        seg = _lib.Segments()
        seg.kind = _lib.SEGMENT_KINDS["offsets"]
        seg.data = g.ptr
        seg.index_size = _index_size(g, "offsets")
        seg.count = g.n
        o = self._keys(out, "out", s, writable=True)
        _need_length(o, max(g.n - 1, 0), "out")
        tp, tb = self._temp(temp, s, a.n + g.n)
        self._check(lib.mj_sorter_segmented_reduce(self._handle(), a.ptr, a.n, ctypes.byref(seg),
                                                   o.ptr, tp, tb, call_stream(s, (a, g, o))))
        return out

    def scan(self, x: DeviceArray, out: DeviceArray, *, inclusive: bool = False,
             total: Optional[DeviceArray] = None, temp: Optional[DeviceArray] = None,
             stream: StreamLike = None) -> DeviceArray:
        """Scans x into out (out may be x); total (one element) gets the combination of all.
        Returns out."""
        s = stream_handle(stream)
        a = self._keys(x, "x", s)
        o = self._keys(out, "out", s, writable=True)
        _need_length(o, a.n, "out")
        t = None
        if total is not None:
            t = self._keys(total, "total", s, writable=True)
            if t.n < 1:
                raise InvalidArgumentError("total needs one element")
        tp, tb = self._temp(temp, s, a.n)
        self._check(lib.mj_sorter_scan(self._handle(), a.ptr, a.n, o.ptr,
                                       _lib.SCAN_KINDS["inclusive" if inclusive else "exclusive"],
                                       _ptr(t), tp, tb, call_stream(s, (a, o))))
        return out

    def sorted_search(self, a: DeviceArray, b: DeviceArray, *, bound: Bound = "lower",
                      a_indices: Optional[DeviceArray] = None,
                      a_matches: Optional[DeviceArray] = None,
                      a_counts: Optional[DeviceArray] = None,
                      b_indices: Optional[DeviceArray] = None,
                      b_matches: Optional[DeviceArray] = None,
                      match_counts: Optional[DeviceArray] = None,
                      temp: Optional[DeviceArray] = None,
                      stream: StreamLike = None) -> SearchResult:
        """Where each key of sorted a falls in sorted b and each of b in a (see
        mj_sorter_sorted_search); writes the outputs given (at least one; empty ones, for an
        empty a or b, are left as they are), returns them as a SearchResult."""
        s = stream_handle(stream)
        ka, kb = self._keys(a, "a", s), self._keys(b, "b", s)
        outs = _lib.SearchOutputs()
        outs.bound = _choice(bound, _lib.BOUNDS, "bound")
        given = dict(a_indices=a_indices, a_matches=a_matches, a_counts=a_counts,
                     b_indices=b_indices, b_matches=b_matches, match_counts=match_counts)
        if all(v is None for v in given.values()):
            raise InvalidArgumentError("sorted_search needs at least one output")
        index_size: Optional[int] = None
        writes = False
        for name, obj in given.items():
            if obj is None:
                continue
            o = as_array(obj, name, s)
            _writable(o, name)
            n = ka.n if name.startswith("a_") else kb.n
            if name in ("a_indices", "a_counts", "b_indices"):
                size = _index_size(o, name)
                if index_size is not None and index_size != size:
                    raise DtypeError("a_indices, a_counts and b_indices must have one index "
                                     "width (got %d and %d bytes)" % (index_size, size))
                index_size = size
                _need_length(o, n, name)
            elif name == "match_counts":
                if o.n * o.row_bytes < 16:
                    raise InvalidArgumentError("match_counts needs two uint64 (16 bytes)")
            elif o.row_bytes != 1 or o.n != n:
                raise InvalidArgumentError("%s needs %d one-byte elements (got %s of %s)"
                                           % (name, n, o.shape, o.dtype))
            setattr(outs, name, o.ptr)
            writes = writes or o.n * o.row_bytes > 0
        outs.index_size = index_size or 4
        tp, tb = self._temp(temp, s, ka.n + kb.n)
        if not writes:
            # Nothing to write, and the library would take the outputs' pointers, NULL where
            # empty, for no output at all.
            self._handle()                  # a closed sorter still says so
            return SearchResult(**given)
        self._check(lib.mj_sorter_sorted_search(self._handle(), ka.ptr, ka.n, kb.ptr, kb.n,
                                                ctypes.byref(outs), tp, tb,
                                                call_stream(s, (ka, kb))))
        return SearchResult(**given)

    @overload
    def load_balance(self, offsets: DeviceArray, num_items: int, objects: DeviceArray,
                     ranks: None = None, *, temp: Optional[DeviceArray] = None,
                     stream: StreamLike = None) -> DeviceArray: ...

    @overload
    def load_balance(self, offsets: DeviceArray, num_items: int, objects: DeviceArray,
                     ranks: DeviceArray, *, temp: Optional[DeviceArray] = None,
                     stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]: ...

    def load_balance(self, offsets: DeviceArray, num_items: int, objects: DeviceArray,
                     ranks: Optional[DeviceArray] = None, *,
                     temp: Optional[DeviceArray] = None, stream: StreamLike = None
                     ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
        """For each of num_items work items, its object (the last j with offsets[j] <= i) in
        objects, and its rank within it in ranks (optional). Returns objects (or (objects,
        ranks))."""
        s = stream_handle(stream)
        off = self._keys(offsets, "offsets", s)
        obj = self._keys(objects, "objects", s, writable=True)
        _need_length(obj, num_items, "objects")
        r = None
        if ranks is not None:
            r = self._keys(ranks, "ranks", s, writable=True)
            _need_length(r, num_items, "ranks")
        tp, tb = self._temp(temp, s, num_items + off.n)
        self._check(lib.mj_sorter_load_balance(self._handle(), off.ptr, off.n, num_items,
                                               obj.ptr, _ptr(r), tp, tb,
                                               call_stream(s, (off, obj))))
        return objects if ranks is None else (objects, ranks)

    def interval_expand(self, offsets: DeviceArray, num_items: int, values: DeviceArray,
                        out: DeviceArray, *, temp: Optional[DeviceArray] = None,
                        stream: StreamLike = None) -> DeviceArray:
        """out[i] = values[object of item i] for num_items work items (offsets as in
        load_balance; a sorter of the offsets' dtype with value_size the bytes of a value):
        each object's value repeated its count times. Returns out."""
        s = stream_handle(stream)
        off = self._keys(offsets, "offsets", s)
        v = self._moved(values, off.n, "values", s)
        o = self._moved(out, num_items, "out", s, writable=True)
        tp, tb = self._temp(temp, s, num_items + off.n)
        self._check(lib.mj_sorter_interval_expand(self._handle(), off.ptr, off.n, num_items,
                                                  v.ptr, o.ptr, tp, tb,
                                                  call_stream(s, (off, v, o))))
        return out

    def interval_move(self, offsets: DeviceArray, num_items: int, x: DeviceArray,
                      out: DeviceArray, *, gather: Optional[DeviceArray] = None,
                      scatter: Optional[DeviceArray] = None, temp: Optional[DeviceArray] = None,
                      stream: StreamLike = None) -> DeviceArray:
        """For interval j (items offsets[j] to offsets[j + 1], the last ending at num_items) and
        its item of rank r: out[scatter[j] + r] = x[gather[j] + r]; without gather the source
        is the item's own index i, without scatter the destination. gather and scatter have the
        offsets' dtype; x and out any length, value_size bytes per element. Items whose source
        or destination falls outside x or out are skipped. Returns out."""
        s = stream_handle(stream)
        off = self._keys(offsets, "offsets", s)
        g = None if gather is None else self._keys(gather, "gather", s)
        sc = None if scatter is None else self._keys(scatter, "scatter", s)
        for name, a in (("gather", g), ("scatter", sc)):
            if a is not None:
                _need_length(a, off.n, name)
        src = self._moved(x, None, "x", s)
        o = self._moved(out, None, "out", s, writable=True)
        tp, tb = self._temp(temp, s, num_items + off.n)
        if num_items and off.n and not (src.n and o.n):
            # An empty x or out: every item is skipped. The library would refuse its pointer,
            # NULL where empty (with no intervals it refuses the items: left to it).
            self._handle()                  # a closed sorter still says so
            return out
        self._check(lib.mj_sorter_interval_move(self._handle(), off.ptr, off.n, num_items,
                                                _ptr(g), _ptr(sc), src.ptr, src.n, o.ptr, o.n,
                                                tp, tb, call_stream(s, (off, src, o))))
        return out

    @overload
    def bulk_remove(self, keys: DeviceArray, indices: DeviceArray, out: DeviceArray,
                    values: Optional[DeviceArray] = None, out_values: None = None, *,
                    temp: Optional[DeviceArray] = None,
                    stream: StreamLike = None) -> DeviceArray: ...

    @overload
    def bulk_remove(self, keys: DeviceArray, indices: DeviceArray, out: DeviceArray,
                    values: Optional[DeviceArray], out_values: DeviceArray, *,
                    temp: Optional[DeviceArray] = None,
                    stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]: ...

    def bulk_remove(self, keys: DeviceArray, indices: DeviceArray, out: DeviceArray,
                    values: Optional[DeviceArray] = None,
                    out_values: Optional[DeviceArray] = None, *,
                    temp: Optional[DeviceArray] = None, stream: StreamLike = None
                    ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
        """Copies keys (and values) to out (out_values) without the elements at indices (4- or
        8-byte integers, ascending, distinct, each below len(keys)): out holds len(keys) -
        len(indices) elements, in order. Returns out (or (out, out_values))."""
        s = stream_handle(stream)
        k = self._keys(keys, "keys", s)
        ix = as_array(indices, "indices", s)
        index_size = _index_size(ix, "indices")
        if ix.n > k.n:
            raise InvalidArgumentError("%d indices to remove from %d keys" % (ix.n, k.n))
        o = self._keys(out, "out", s, writable=True)
        _need_length(o, k.n - ix.n, "out")
        v = self._values(values, k.n, "values", s)
        vo = self._values(out_values, o.n, "out_values", s, writable=True)
        tp, tb = self._temp(temp, s, k.n)
        self._check(lib.mj_sorter_bulk_remove(self._handle(), k.ptr, _ptr(v), k.n, ix.ptr, ix.n,
                                              index_size, o.ptr, _ptr(vo), tp, tb,
                                              call_stream(s, (k, ix, o))))
        return out if out_values is None else (out, out_values)

    @overload
    def bulk_insert(self, a: DeviceArray, positions: DeviceArray, b: DeviceArray,
                    out: DeviceArray, a_values: Optional[DeviceArray] = None,
                    b_values: Optional[DeviceArray] = None, out_values: None = None, *,
                    temp: Optional[DeviceArray] = None,
                    stream: StreamLike = None) -> DeviceArray: ...

    @overload
    def bulk_insert(self, a: DeviceArray, positions: DeviceArray, b: DeviceArray,
                    out: DeviceArray, a_values: Optional[DeviceArray],
                    b_values: Optional[DeviceArray], out_values: DeviceArray, *,
                    temp: Optional[DeviceArray] = None,
                    stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]: ...

    def bulk_insert(self, a: DeviceArray, positions: DeviceArray, b: DeviceArray,
                    out: DeviceArray, a_values: Optional[DeviceArray] = None,
                    b_values: Optional[DeviceArray] = None,
                    out_values: Optional[DeviceArray] = None, *,
                    temp: Optional[DeviceArray] = None, stream: StreamLike = None
                    ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
        """Inserts a (and a_values) into b (and b_values) into out: a[i] just before
        b[positions[i]] (4- or 8-byte integers, ascending, each at most len(b); len(b)
        appends), a's of equal position in their order. Returns out (or (out, out_values))."""
        s = stream_handle(stream)
        ka, kb = self._keys(a, "a", s), self._keys(b, "b", s)
        p = as_array(positions, "positions", s)
        index_size = _index_size(p, "positions")
        _need_length(p, ka.n, "positions")
        o = self._keys(out, "out", s, writable=True)
        _need_length(o, ka.n + kb.n, "out")
        va = self._values(a_values, ka.n, "a_values", s)
        vb = self._values(b_values, kb.n, "b_values", s)
        vo = self._values(out_values, o.n, "out_values", s, writable=True)
        tp, tb = self._temp(temp, s, ka.n + kb.n)
        self._check(lib.mj_sorter_bulk_insert(self._handle(), ka.ptr, _ptr(va), p.ptr, ka.n,
                                              index_size, kb.ptr, _ptr(vb), kb.n, o.ptr,
                                              _ptr(vo), tp, tb, call_stream(s, (ka, kb, o))))
        return out if out_values is None else (out, out_values)

    @overload
    def set_operation(self, op: SetOp, a: DeviceArray, b: DeviceArray, out: DeviceArray,
                      count: DeviceArray, a_values: Optional[DeviceArray] = None,
                      b_values: Optional[DeviceArray] = None, out_values: None = None, *,
                      temp: Optional[DeviceArray] = None,
                      stream: StreamLike = None) -> DeviceArray: ...

    @overload
    def set_operation(self, op: SetOp, a: DeviceArray, b: DeviceArray, out: DeviceArray,
                      count: DeviceArray, a_values: Optional[DeviceArray],
                      b_values: Optional[DeviceArray], out_values: DeviceArray, *,
                      temp: Optional[DeviceArray] = None,
                      stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]: ...

    def set_operation(self, op: SetOp, a: DeviceArray, b: DeviceArray, out: DeviceArray,
                      count: DeviceArray, a_values: Optional[DeviceArray] = None,
                      b_values: Optional[DeviceArray] = None,
                      out_values: Optional[DeviceArray] = None, *,
                      temp: Optional[DeviceArray] = None, stream: StreamLike = None
                      ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
        """The multiset operation op ("intersection", "union", "difference": a - b,
        "symmetric_difference", as the C++ standard's set algorithms) of sorted a and b (with
        their values) into out (and out_values), which hold at least the bound of op
        (mj_set_op_bound: min(len(a), len(b)) for the intersection, len(a) for the difference,
        len(a) + len(b) for the others); the number written goes to count (one uint64, device
        memory) in stream order, not read back. Returns out (or (out, out_values))."""
        s = stream_handle(stream)
        code = _choice(op, _lib.SET_OPS, "op")
        ka, kb = self._keys(a, "a", s), self._keys(b, "b", s)
        bound = lib.mj_set_op_bound(code, ka.n, kb.n)
        o = self._keys(out, "out", s, writable=True)
        _need_room(o, bound, "out")
        c = as_array(count, "count", s)
        _count_array(c, "count")
        va = self._values(a_values, ka.n, "a_values", s)
        vb = self._values(b_values, kb.n, "b_values", s)
        vo = self._values(out_values, None, "out_values", s, writable=True)
        _need_room(vo, bound, "out_values")
        tp, tb = self._temp(temp, s, ka.n + kb.n)
        self._check(lib.mj_sorter_set_op(self._handle(), code, ka.ptr, _ptr(va), ka.n, kb.ptr,
                                         _ptr(vb), kb.n, o.ptr, _ptr(vo), c.ptr, tp, tb,
                                         call_stream(s, (ka, kb, o, c))))
        return out if out_values is None else (out, out_values)

    @overload
    def select(self, kind: SelectKind, keys: DeviceArray, out: DeviceArray, count: DeviceArray,
               values: Optional[DeviceArray] = None, out_values: None = None, *,
               temp: Optional[DeviceArray] = None, stream: StreamLike = None) -> DeviceArray: ...

    @overload
    def select(self, kind: SelectKind, keys: DeviceArray, out: DeviceArray, count: DeviceArray,
               values: Optional[DeviceArray], out_values: DeviceArray, *,
               temp: Optional[DeviceArray] = None,
               stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]: ...

    def select(self, kind: SelectKind, keys: DeviceArray, out: DeviceArray, count: DeviceArray,
               values: Optional[DeviceArray] = None, out_values: Optional[DeviceArray] = None,
               *, temp: Optional[DeviceArray] = None, stream: StreamLike = None
               ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
        """The elements of keys (with their values) that kind keeps, in order, into out (and
        out_values), which hold at least len(keys): "if" those whose key satisfies the
        sorter's op, "unique" the first of each run of equivalent adjacent keys. The number
        kept goes to count (one uint64, device memory) in stream order, not read back.
        Returns out (or (out, out_values))."""
        s = stream_handle(stream)
        code = _choice(kind, _lib.SELECT_KINDS, "kind")
        k = self._keys(keys, "keys", s)
        o = self._keys(out, "out", s, writable=True)
        _need_room(o, k.n, "out")
        c = as_array(count, "count", s)
        _count_array(c, "count")
        v = self._values(values, k.n, "values", s)
        vo = self._values(out_values, None, "out_values", s, writable=True)
        _need_room(vo, k.n, "out_values")
        tp, tb = self._temp(temp, s, k.n)
        self._check(lib.mj_sorter_select(self._handle(), code, k.ptr, _ptr(v), k.n, o.ptr,
                                         _ptr(vo), c.ptr, tp, tb, call_stream(s, (k, o, c))))
        return out if out_values is None else (out, out_values)

    def reduce_by_key(self, keys: DeviceArray, values: DeviceArray, out_keys: DeviceArray,
                      out_values: DeviceArray, count: DeviceArray, *,
                      temp: Optional[DeviceArray] = None,
                      stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]:
        """Each run of equivalent adjacent keys to its first key (out_keys) and its values
        combined in order with the sorter's op (out_values); out_keys and out_values hold at
        least len(keys) elements, and the number of runs goes to count (one uint64, device
        memory) in stream order, not read back. Returns (out_keys, out_values)."""
        s = stream_handle(stream)
        k = self._keys(keys, "keys", s)
        v = self._values(values, k.n, "values", s)
        ok = self._keys(out_keys, "out_keys", s, writable=True)
        _need_room(ok, k.n, "out_keys")
        ov = self._values(out_values, None, "out_values", s, writable=True)
        _need_room(ov, k.n, "out_values")
        c = as_array(count, "count", s)
        _count_array(c, "count")
        tp, tb = self._temp(temp, s, k.n)
        self._check(lib.mj_sorter_reduce_by_key(self._handle(), k.ptr, _ptr(v), k.n, ok.ptr,
                                                _ptr(ov), c.ptr, tp, tb,
                                                call_stream(s, (k, ok, c))))
        return out_keys, out_values

    def _join_inputs(self, a: DeviceArray, b: DeviceArray, count: DeviceArray,
                     temp: Optional[DeviceArray], kind: JoinKind,
                     s: Optional[int]) -> Tuple[int, Array, Array, Array, Optional[int], int]:
        """What every join call checks first: the kind's code, the keys, the count array and
        the temporary storage's pointer and bytes."""
        code = _choice(kind, _lib.JOIN_KINDS, "kind")
        ka, kb = self._keys(a, "a", s), self._keys(b, "b", s)
        c = as_array(count, "count", s)
        _count_array(c, "count")
        tp, tb = self._temp(temp, s, ka.n + kb.n)
        return code, ka, kb, c, tp, tb

    def join_count(self, a: DeviceArray, b: DeviceArray, count: DeviceArray, *,
                   kind: JoinKind = "inner", temp: Optional[DeviceArray] = None,
                   stream: StreamLike = None) -> DeviceArray:
        """Writes the row count of the join of sorted key columns a and b (kind "inner",
        "left", "right" or "outer") to count (one uint64, device memory) in stream order, not
        read back. Returns count."""
        s = stream_handle(stream)
        code, ka, kb, c, tp, tb = self._join_inputs(a, b, count, temp, kind, s)
        self._check(lib.mj_sorter_join_count(self._handle(), code, ka.ptr, ka.n, kb.ptr, kb.n,
                                             c.ptr, tp, tb, call_stream(s, (ka, kb, c))))
        return count

    def join(self, a: DeviceArray, b: DeviceArray, a_rows: DeviceArray, b_rows: DeviceArray,
             count: DeviceArray, *, kind: JoinKind = "inner", temp: Optional[DeviceArray] = None,
             stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]:
        """The join's row pairs (a_rows[k], b_rows[k]) for k below len(a_rows) (4- or 8-byte
        integers, one width, one length: the capacity; NULL rows all ones), and the full row
        count to count (one uint64, device memory), in stream order: a count above the
        capacity means the rows past it were not written. Rows: for each row of a in order,
        its matches in b in order (left and outer: (i, NULL) for none), then (right and outer)
        (NULL, j) for each unmatched row of b. Returns (a_rows, b_rows)."""
        s = stream_handle(stream)
        code, ka, kb, c, tp, tb = self._join_inputs(a, b, count, temp, kind, s)
        ra, rb, index_size = _join_rows(a_rows, b_rows, s)
        self._check(lib.mj_sorter_join(self._handle(), code, ka.ptr, ka.n, kb.ptr, kb.n,
                                       index_size, ra.ptr, rb.ptr, ra.n, c.ptr, tp, tb,
                                       call_stream(s, (ka, kb, ra, rb, c))))
        return a_rows, b_rows

    def join_plan(self, a: DeviceArray, b: DeviceArray, count: DeviceArray,
                  temp: DeviceArray, *, kind: JoinKind = "inner",
                  stream: StreamLike = None) -> JoinPlan:
        """Writes the row count of the join to count as join_count does and returns a plan
        that join_rows writes the rows from without searching the keys again (the pair costs
        about what join alone does). The plan lives in temp (device memory of at least
        temp_size(len(a) + len(b)) bytes), which must be left to it until its last
        join_rows has run; the plan keeps a reference to temp."""
        s = stream_handle(stream)
        code, ka, kb, c, tp, tb = self._join_inputs(a, b, count, temp, kind, s)
        plan = JoinPlan(self, temp)
        self._check(lib.mj_sorter_join_plan(self._handle(), code, ka.ptr, ka.n, kb.ptr, kb.n,
                                            c.ptr, tp, tb, call_stream(s, (ka, kb, c)),
                                            ctypes.byref(plan._plan)))
        return plan

    def join_rows(self, plan: JoinPlan, a_rows: DeviceArray, b_rows: DeviceArray, *,
                  stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]:
        """The rows of the join `plan` counted, as join writes them for the plan's kind and
        keys (up to len(a_rows); 4- or 8-byte integers, one width, one length), from the plan
        alone: the keys are not read again, and no count is written. Queue it after the
        plan's call, in stream order. Returns (a_rows, b_rows)."""
        if not isinstance(plan, JoinPlan) or plan.sorter is not self:
            raise InvalidArgumentError("plan must be a JoinPlan from this sorter's join_plan")
        s = stream_handle(stream)
        ra, rb, index_size = _join_rows(a_rows, b_rows, s)
        p = plan._plan
        self._check(lib.mj_sorter_join_rows(self._handle(), ctypes.byref(p), index_size,
                                            ra.ptr, rb.ptr, ra.n, p.temp, p.temp_bytes,
                                            call_stream(s, (ra, rb))))
        return a_rows, b_rows


class JoinPlan:
    """A join counted by Sorter.join_plan, whose rows Sorter.join_rows writes without a second
    search: the library's plan record and the temporary storage that holds the plan."""

    def __init__(self, sorter: Sorter, temp: DeviceArray) -> None:
        self.sorter = sorter
        self.temp = temp
        self._plan = _lib.JoinPlan()

# ---------------------------------------------------------------- one-call functions
# Each finds (or builds once) its context's sorter and runs it; the library allocates the
# temporary storage in stream order.

def _sorter(context: Optional[Context], a: Array, kw: Mapping[str, Any]) -> Sorter:
    return _context(context, a).sorter(a.dtype, **kw)


def _order_kw(order: Optional[Order], less: Optional[str], type_name: str) -> Dict[str, Any]:
    return dict(order=order, less=less, type_name=type_name)


def _new(a: Array, n: int, dtype: DTypeLike, what: str) -> DeviceArray:
    """An output of n elements of dtype allocated like a; records as bytes (CuPy and PyTorch
    have no structured dtypes), which the run views as dtype."""
    dt = np.dtype(dtype)
    if dt.fields is None and (dt.kind in "biuf" or is_bfloat16(dt)):
        return empty_like(a, (n,), dt, what)
    return empty_like(a, (n * dt.itemsize,), np.uint8, what)


# dtype= in the functions below views the key arrays' memory (and outputs of the key type) as
# a 1-D array of that dtype (as numpy's .view), e.g. a CuPy byte array as records; sorters of
# records view byte arrays so by themselves.

class SortResult(NamedTuple):
    """sort(..., return_indices=True)'s result, as torch.sort's: the sorted
    keys and, for each, its index in the input (torch.return_types.sort has the same fields)."""
    values: DeviceArray
    indices: DeviceArray


def _sort_order(order: Optional[Order], descending: bool, less: Optional[str]) -> Order:
    """The order a sort runs in: order= (the package's own keyword) or descending= (numpy's
    and torch's), which must agree; descending= does not reverse a comparator."""
    if descending not in (True, False):
        raise InvalidArgumentError("descending=%r: True or False" % (descending,))
    if less is not None and descending:
        raise InvalidArgumentError("descending=True reverses a built-in order, not less=: write "
                                   "the comparator the other way round (swap a and b)")
    if order is None:
        return "descending" if descending else "ascending"
    if descending and _ORDER_ALIASES.get(order, order) != "descending":
        raise InvalidArgumentError("order=%r and descending=True disagree: give one of them"
                                   % (order,))
    return order


def _check_stable(stable: Optional[bool]) -> None:
    # torch's keyword: True, False or None. mergejit's sorts are stable whatever is asked.
    if stable not in (True, False, None):
        raise InvalidArgumentError("stable=%r: True, False or None (mergejit's sorts are "
                                   "always stable)" % (stable,))


def _like(a: Array, what: str) -> DeviceArray:
    """A new array like the array a, as the caller gave it (its shape and dtype; records as
    bytes when its library has no such dtype)."""
    dt = a.dtype
    if dt.fields is None and (dt.kind in "biuf" or is_bfloat16(dt)):
        return empty_like(a, a.shape, dt, what)
    return empty_like(a, (a.n * a.row_bytes,), np.uint8, what)


def _output(src: Array, src_obj: DeviceArray, out: Optional[DeviceArray], what: str,
            st: Optional[int], dtype: Optional[DTypeLike] = None) -> Tuple[DeviceArray, Array]:
    """The array a sort writes: out as given (viewed as dtype=, as src is), checked to have
    src's elements (dtype, count, bytes each) and to be writable, or a new one like src_obj.
    Returns (the object returned to the caller, its Array)."""
    if out is None:
        out = _like(as_array(src_obj, what, st), what)
    # In place: the input's Array again, not a second export (DLPack's is asked once a call).
    o = src if out is src_obj else as_array(out, what, st, dtype)
    if o.dtype != src.dtype or o.n != src.n or (o.row_bytes != src.row_bytes and src.n):
        raise InvalidArgumentError(
            "%s must be like its input: %d elements of %s, %d bytes each (got %d of %s, %d "
            "bytes each)" % (what, src.n, src.dtype, src.row_bytes, o.n, o.dtype, o.row_bytes))
    _writable(o, what)
    return out, o


def _copy_into(sorter: Sorter, src: Array, dst: Array, stream: int) -> None:
    """Queues src's bytes into dst (nothing when dst is src: the sort runs in place). Arrays
    that overlap otherwise are refused: the copy would read what it had written."""
    nbytes = src.n * src.row_bytes
    if dst.ptr == src.ptr or not nbytes:
        return
    if sorter.context.compile_only:
        raise UnsupportedError("a compile-only context runs nothing (its sorters are built for "
                               "sm_%d, not run): no copy into out, and no sort"
                               % sorter.context.target_sm)
    if src.ptr < dst.ptr + nbytes and dst.ptr < src.ptr + nbytes:
        raise InvalidArgumentError("out overlaps its input without being it: pass the input "
                                   "itself (in place) or memory apart from it")
    _driver.copy(sorter.context.device, dst.ptr, src.ptr, nbytes, stream)


def _pair(out: Optional[ArrayPair],
          what: str) -> Tuple[Optional[DeviceArray], Optional[DeviceArray]]:
    if out is None:
        return None, None
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise InvalidArgumentError("out= of %s: a pair (keys, values)" % what)
    return out[0], out[1]


@overload
def sort(keys: DeviceArray, *, out: Optional[DeviceArray] = None, descending: bool = False,
         stable: Optional[bool] = True, order: Optional[Order] = None, less: Optional[str] = None,
         locality: bool = False, return_indices: Literal[False] = False,
         dtype: Optional[DTypeLike] = None, type_name: str = "record", stream: StreamLike = None,
         context: Optional[Context] = None) -> DeviceArray: ...


@overload
def sort(keys: DeviceArray, *, out: Optional[ArrayPair] = None, descending: bool = False,
         stable: Optional[bool] = True, order: Optional[Order] = None, less: Optional[str] = None,
         locality: bool = False, return_indices: Literal[True],
         dtype: Optional[DTypeLike] = None, type_name: str = "record", stream: StreamLike = None,
         context: Optional[Context] = None) -> SortResult: ...


@overload
def sort(keys: DeviceArray, *, out: Union[DeviceArray, ArrayPair, None] = None,
         descending: bool = False, stable: Optional[bool] = True, order: Optional[Order] = None,
         less: Optional[str] = None, locality: bool = False, return_indices: bool,
         dtype: Optional[DTypeLike] = None, type_name: str = "record", stream: StreamLike = None,
         context: Optional[Context] = None) -> Union[DeviceArray, SortResult]: ...


def sort(keys: DeviceArray, *, out: Union[DeviceArray, ArrayPair, None] = None,
         descending: bool = False, stable: Optional[bool] = True, order: Optional[Order] = None,
         less: Optional[str] = None, locality: bool = False, return_indices: bool = False,
         dtype: Optional[DTypeLike] = None, type_name: str = "record", stream: StreamLike = None,
         context: Optional[Context] = None) -> Union[DeviceArray, SortResult]:
    """keys sorted, stably, into a new array like keys (keys are left as they are), as
    numpy.sort, cupy.sort and torch.sort; out=keys sorts in place, another out= (same length
    and dtype) receives the result. descending=True or order="descending" reverses a built-in
    order (floats: NaNs last either way); less= is a comparator (a CUDA expression over a and
    b) instead. stable= is accepted (True, False or None) as torch's: the sort is stable
    whatever it says. locality=True: a mergesort for nearly sorted keys.

    Returns the sorted array, or with return_indices=True a SortResult(values, indices) as
    torch.sort's (indices: int64, each sorted key's index in keys; out= is then a pair
    (values, indices))."""
    _check_stable(stable)
    order = _sort_order(order, descending, less)
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    primitive = "locality" if locality else "mergesort"
    kw = dict(_order_kw(order, less, type_name), primitive=primitive)
    if not return_indices:
        s = _sorter(context, k, kw)
        s._keys(k, "keys", st)          # the dtype and shape, before anything is allocated
        out, o = _output(k, keys, out, "out", st, dtype)
        strm = call_stream(st, (k, o))
        _copy_into(s, k, o, strm)
        s.sort(o, stream=strm)
        return out
    out_values, out_indices = _pair(out, "sort(return_indices=True)")
    ix = None
    if out_indices is not None:
        ix = as_array(out_indices, "out[1]", st)
        if ix.dtype not in (np.dtype(np.int32), np.dtype(np.int64)) or len(ix.shape) != 1:
            raise DtypeError("out[1] (the indices) must be a 1-D int32 or int64 array (got %s "
                             "of shape %s)" % (ix.dtype, ix.shape))
    # The library's sort with indices makes them as it sorts: a mergesort (locality's queue
    # has no such run; the order is the same).
    kw["primitive"] = "mergesort"
    s = _sorter(context, k, dict(kw, value_size=8 if ix is None else ix.dtype.itemsize))
    s._keys(k, "keys", st)
    out_values, o = _output(k, keys, out_values, "out[0]", st, dtype)
    if ix is None:
        out_indices = _new(k, k.n, np.int64, "out[1]")
        ix = as_array(out_indices, "out[1]", st)
    strm = call_stream(st, (k, o, ix))
    s._indices(ix, k.n, "out[1]", strm)
    _copy_into(s, k, o, strm)
    s.sort_with_indices(o, ix, stream=strm)
    return SortResult(out_values, out_indices)


def sort_by_key(keys: DeviceArray, values: DeviceArray, *, out: Optional[ArrayPair] = None,
                descending: bool = False, stable: Optional[bool] = True,
                order: Optional[Order] = None, less: Optional[str] = None,
                locality: bool = False, dtype: Optional[DTypeLike] = None,
                type_name: str = "record", stream: StreamLike = None,
                context: Optional[Context] = None) -> Tuple[DeviceArray, DeviceArray]:
    """keys and their values (any dtype, 1..64 bytes per key: trailing dimensions count) sorted
    by the keys, stably, into new arrays like them (the inputs are left as they are); out=(keys,
    values) sorts in place, another pair receives the result. Order keywords as sort's.
    Returns (keys, values)."""
    _check_stable(stable)
    order = _sort_order(order, descending, less)
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    v = as_array(values, "values", st)
    s = _sorter(context, k, dict(_order_kw(order, less, type_name),
                                 primitive="locality" if locality else "mergesort",
                                 value_size=v.row_bytes))
    s._keys(k, "keys", st)
    s._values(v, k.n, "values", st)
    out_keys, out_values = _pair(out, "sort_by_key")
    out_keys, ok = _output(k, keys, out_keys, "out[0]", st, dtype)
    out_values, ov = _output(v, values, out_values, "out[1]", st)
    strm = call_stream(st, (k, v, ok, ov))
    _copy_into(s, k, ok, strm)
    _copy_into(s, v, ov, strm)
    s.sort(ok, ov, stream=strm)
    return out_keys, out_values


def argsort(keys: DeviceArray, out: Optional[DeviceArray] = None, *, descending: bool = False,
            stable: Optional[bool] = True, order: Optional[Order] = None,
            less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
            type_name: str = "record", stream: StreamLike = None,
            context: Optional[Context] = None) -> DeviceArray:
    """The stable permutation that sorts keys (keys are left as they are), in out (4- or
    8-byte integers; default: a new int64 array like keys). Order keywords as sort's.
    Returns it."""
    _check_stable(stable)
    order = _sort_order(order, descending, less)
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    if out is None:
        out = _new(k, k.n, np.int64, "out")
    o = as_array(out, "out", st)
    s = _sorter(context, k, dict(_order_kw(order, less, type_name),
                                 value_size=_index_size(o, "out")))
    s.argsort(k, o, stream=stream)
    return out


@overload
def merge(a: DeviceArray, b: DeviceArray, out: Optional[DeviceArray] = None, *,
          a_values: None = None, b_values: None = None, out_values: None = None,
          order: Order = "ascending", less: Optional[str] = None,
          dtype: Optional[DTypeLike] = None, type_name: str = "record",
          stream: StreamLike = None, context: Optional[Context] = None) -> DeviceArray: ...


@overload
def merge(a: DeviceArray, b: DeviceArray, out: Optional[DeviceArray] = None, *,
          a_values: DeviceArray, b_values: DeviceArray,
          out_values: Optional[DeviceArray] = None, order: Order = "ascending",
          less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
          type_name: str = "record", stream: StreamLike = None,
          context: Optional[Context] = None) -> Tuple[DeviceArray, DeviceArray]: ...


def merge(a: DeviceArray, b: DeviceArray, out: Optional[DeviceArray] = None, *,
          a_values: Optional[DeviceArray] = None, b_values: Optional[DeviceArray] = None,
          out_values: Optional[DeviceArray] = None, order: Order = "ascending",
          less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
          type_name: str = "record", stream: StreamLike = None,
          context: Optional[Context] = None
          ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """Merges sorted a and b (with their values) into out (default: a new array like a;
    out_values like a_values, or b_values when a_values is empty). Either may be empty.
    Returns out, or (out, out_values) with values."""
    st = stream_handle(stream)
    ka, kb = as_array(a, "a", st, dtype), as_array(b, "b", st, dtype)
    n = ka.n + kb.n
    if out is None:
        out = _new(ka, n, ka.dtype, "out")
    ko = as_array(out, "out", st, dtype)
    va = _paired_values(a_values, b_values, st)
    if va is not None and out_values is None:
        out_values = empty_like(va, (n,) + va.shape[1:], va.dtype, "out_values")
    s = _sorter(context, ka, dict(_order_kw(order, less, type_name), primitive="merge",
                                  value_size=va.row_bytes if va is not None else 0))
    s.merge(ka, kb, ko, a_values=a_values, b_values=b_values, out_values=out_values,
            stream=stream)
    return out if out_values is None else (out, out_values)


@overload
def segmented_sort(keys: DeviceArray, segments: DeviceArray, values: None = None, *,
                   kind: SegmentKind = "offsets", out: Optional[DeviceArray] = None,
                   descending: bool = False, stable: Optional[bool] = True,
                   order: Optional[Order] = None, less: Optional[str] = None,
                   dtype: Optional[DTypeLike] = None, type_name: str = "record",
                   stream: StreamLike = None, context: Optional[Context] = None
                   ) -> DeviceArray: ...


@overload
def segmented_sort(keys: DeviceArray, segments: DeviceArray, values: DeviceArray, *,
                   kind: SegmentKind = "offsets", out: Optional[ArrayPair] = None,
                   descending: bool = False, stable: Optional[bool] = True,
                   order: Optional[Order] = None, less: Optional[str] = None,
                   dtype: Optional[DTypeLike] = None, type_name: str = "record",
                   stream: StreamLike = None, context: Optional[Context] = None
                   ) -> Tuple[DeviceArray, DeviceArray]: ...


def segmented_sort(keys: DeviceArray, segments: DeviceArray,
                   values: Optional[DeviceArray] = None, *, kind: SegmentKind = "offsets",
                   out: Union[DeviceArray, ArrayPair, None] = None, descending: bool = False,
                   stable: Optional[bool] = True, order: Optional[Order] = None,
                   less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
                   type_name: str = "record", stream: StreamLike = None,
                   context: Optional[Context] = None
                   ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """Each segment of keys (and values) sorted, stably, into new arrays like them (the inputs
    are left as they are); segments as in Sorter.segmented_sort (default: CSR offsets,
    segments + 1 of them). out=keys (or out=(keys, values)) sorts in place, other arrays
    receive the result. Order keywords as sort's. Returns keys (or (keys, values))."""
    _check_stable(stable)
    order = _sort_order(order, descending, less)
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    g = as_array(segments, "segments", st)
    v = None if values is None else as_array(values, "values", st)
    s = _sorter(context, k, dict(_order_kw(order, less, type_name), primitive="segsort",
                                 value_size=v.row_bytes if v is not None else 0))
    s._keys(k, "keys", st)
    ov: Optional[Array]
    if v is not None:
        s._values(v, k.n, "values", st)
        out_keys, out_values = _pair(out, "segmented_sort with values")
        out_values, ov = _output(v, values, out_values, "out[1]", st)
        what = "out[0]"
    else:
        if isinstance(out, (tuple, list)):
            raise InvalidArgumentError("out= of segmented_sort without values: one array")
        out_keys, ov, what = out, None, "out"
    out_keys, ok = _output(k, keys, out_keys, what, st, dtype)
    strm = call_stream(st, (k, ok, g))
    _copy_into(s, k, ok, strm)
    if v is not None and ov is not None:
        _copy_into(s, v, ov, strm)
    s.segmented_sort(ok, g, ov, kind=kind, stream=strm)
    return out_keys if values is None else (out_keys, out_values)


def reduce(x: DeviceArray, out: Optional[DeviceArray] = None, *, op: Optional[str] = None,
           identity: Optional[str] = None, dtype: Optional[DTypeLike] = None,
           type_name: str = "record", stream: StreamLike = None,
           context: Optional[Context] = None) -> DeviceArray:
    """x combined with op (default a + b) into out, a one-element device array (default: a
    new one like x); the identity for an empty x. Returns out."""
    st = stream_handle(stream)
    a = as_array(x, "x", st, dtype)
    if out is None:
        out = _new(a, 1, a.dtype, "out")
    s = _sorter(context, a, dict(primitive="reduce", op=op, identity=identity,
                                 type_name=type_name))
    s.reduce(a, as_array(out, "out", st, dtype), stream=stream)
    return out


def segmented_reduce(x: DeviceArray, offsets: DeviceArray, out: Optional[DeviceArray] = None, *,
                     op: Optional[str] = None, identity: Optional[str] = None,
                     dtype: Optional[DTypeLike] = None, type_name: str = "record",
                     stream: StreamLike = None, context: Optional[Context] = None
                     ) -> DeviceArray:
    """Each segment of x combined with op (default a + b, in order: op need not commute)
    into out, one element a segment (default: a new array like x): segment i is
    x[offsets[i]:offsets[i + 1]], offsets being segments + 1 CSR offsets (4- or 8-byte
    integers, on the device), the identity for an empty segment. Returns out."""
    st = stream_handle(stream)
    a = as_array(x, "x", st, dtype)
    g = as_array(offsets, "offsets", st)
    if out is None:
        out = _new(a, max(g.n - 1, 0), a.dtype, "out")
    s = _sorter(context, a, dict(primitive="segreduce", op=op, identity=identity,
                                 type_name=type_name))
    s.segmented_reduce(a, g, as_array(out, "out", st, dtype), stream=stream)
    return out


def scan(x: DeviceArray, out: Optional[DeviceArray] = None, *, op: Optional[str] = None,
         identity: Optional[str] = None, inclusive: bool = False,
         total: Optional[DeviceArray] = None, dtype: Optional[DTypeLike] = None,
         type_name: str = "record", stream: StreamLike = None,
         context: Optional[Context] = None) -> DeviceArray:
    """The exclusive (or inclusive) scan of x with op into out (default: a new array like x;
    out=x scans in place); total gets the combination of all. Returns out."""
    st = stream_handle(stream)
    a = as_array(x, "x", st, dtype)
    if out is None:
        out = _new(a, a.n, a.dtype, "out")
    if total is not None:
        total = as_array(total, "total", st, dtype)
    s = _sorter(context, a, dict(primitive="scan", op=op, identity=identity,
                                 type_name=type_name))
    s.scan(a, as_array(out, "out", st, dtype), inclusive=inclusive, total=total,
           stream=stream)
    return out


def sorted_search(a: DeviceArray, b: DeviceArray, *, bound: Bound = "lower",
                  order: Order = "ascending", less: Optional[str] = None,
                  dtype: Optional[DTypeLike] = None, type_name: str = "record",
                  stream: StreamLike = None, context: Optional[Context] = None,
                  **outputs: Optional[DeviceArray]) -> SearchResult:
    """Vectorized sorted search of sorted a in sorted b (and b in a). Outputs as keyword
    arguments (a_indices, a_matches, a_counts, b_indices, b_matches, match_counts); with none,
    a_indices is a new int64 array like a (numpy's searchsorted(b, a, side="left" for
    bound="lower", "right" for "upper"); empty for an empty a). Either may be empty: the
    other's indices are then 0, its matches and counts 0. Returns a SearchResult."""
    st = stream_handle(stream)
    ka, kb = as_array(a, "a", st, dtype), as_array(b, "b", st, dtype)
    if not any(v is not None for v in outputs.values()):
        outputs["a_indices"] = _new(ka, ka.n, np.int64, "a_indices")
    s = _sorter(context, ka, dict(_order_kw(order, less, type_name), primitive="search"))
    return s.sorted_search(ka, kb, bound=bound, stream=stream, **outputs)


@overload
def load_balance(offsets: DeviceArray, num_items: int, objects: Optional[DeviceArray] = None,
                 ranks: None = None, *, stream: StreamLike = None,
                 context: Optional[Context] = None) -> DeviceArray: ...


@overload
def load_balance(offsets: DeviceArray, num_items: int, objects: Optional[DeviceArray],
                 ranks: DeviceArray, *, stream: StreamLike = None,
                 context: Optional[Context] = None) -> Tuple[DeviceArray, DeviceArray]: ...


def load_balance(offsets: DeviceArray, num_items: int, objects: Optional[DeviceArray] = None,
                 ranks: Optional[DeviceArray] = None, *, stream: StreamLike = None,
                 context: Optional[Context] = None
                 ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """Load-balancing search over int32 or int64 offsets (the exclusive scan of the objects'
    counts; num_items their total): each item's object into objects (default: a new array
    like offsets) and its rank into ranks when given. Returns objects (or (objects, ranks))."""
    off = _index_offsets(offsets, stream_handle(stream))
    if objects is None:
        objects = _new(off, num_items, off.dtype, "objects")
    s = _sorter(context, off, dict(primitive="lbs"))
    return s.load_balance(off, num_items, objects, ranks, stream=stream)


def interval_expand(offsets: DeviceArray, num_items: int, values: DeviceArray,
                    out: Optional[DeviceArray] = None, *, stream: StreamLike = None,
                    context: Optional[Context] = None) -> DeviceArray:
    """Each object's value repeated its count times: out[i] = values[object of item i] for the
    num_items work items of int32 or int64 offsets (as in load_balance); values of 1 to 64
    bytes each (trailing dimensions count). out defaults to a new array like values. Returns
    out."""
    st = stream_handle(stream)
    off = _index_offsets(offsets, st)
    v = as_array(values, "values", st)
    if out is None:
        out = empty_like(v, (num_items,) + v.shape[1:], v.dtype, "out")
    s = _sorter(context, off, dict(primitive="expand", value_size=v.row_bytes))
    return s.interval_expand(off, num_items, v, out, stream=stream)


def interval_move(offsets: DeviceArray, num_items: int, x: DeviceArray,
                  out: Optional[DeviceArray] = None, *, gather: Optional[DeviceArray] = None,
                  scatter: Optional[DeviceArray] = None, stream: StreamLike = None,
                  context: Optional[Context] = None) -> DeviceArray:
    """Many variable-length copies at once: interval j covers the work items offsets[j] to
    offsets[j + 1] (int32 or int64 offsets, as in load_balance; the last ends at num_items),
    and its item of rank r copies out[scatter[j] + r] = x[gather[j] + r], the item's own
    index i standing in for an omitted gather or scatter (gather only: a gather; scatter
    only: a scatter). gather and scatter have the offsets' dtype. out defaults, without
    scatter, to a new array of num_items elements like x; with scatter pass it. Items whose
    source or destination falls outside x or out are skipped. Returns out."""
    st = stream_handle(stream)
    off = _index_offsets(offsets, st)
    src = as_array(x, "x", st)
    if out is None:
        if scatter is not None:
            raise InvalidArgumentError("interval_move with scatter needs out: the scatter "
                                       "decides its size")
        out = empty_like(src, (num_items,) + src.shape[1:], src.dtype, "out")
    s = _sorter(context, off, dict(primitive="move", value_size=src.row_bytes))
    return s.interval_move(off, num_items, src, out, gather=gather, scatter=scatter,
                           stream=stream)


@overload
def bulk_remove(keys: DeviceArray, indices: DeviceArray, values: None = None,
                out: Optional[DeviceArray] = None, out_values: None = None, *,
                dtype: Optional[DTypeLike] = None, type_name: str = "record",
                stream: StreamLike = None, context: Optional[Context] = None) -> DeviceArray: ...


@overload
def bulk_remove(keys: DeviceArray, indices: DeviceArray, values: DeviceArray,
                out: Optional[DeviceArray] = None, out_values: Optional[DeviceArray] = None, *,
                dtype: Optional[DTypeLike] = None, type_name: str = "record",
                stream: StreamLike = None, context: Optional[Context] = None
                ) -> Tuple[DeviceArray, DeviceArray]: ...


def bulk_remove(keys: DeviceArray, indices: DeviceArray, values: Optional[DeviceArray] = None,
                out: Optional[DeviceArray] = None, out_values: Optional[DeviceArray] = None, *,
                dtype: Optional[DTypeLike] = None, type_name: str = "record",
                stream: StreamLike = None, context: Optional[Context] = None
                ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """keys (and values) without the elements at indices (4- or 8-byte integers, ascending,
    distinct, each below len(keys)), into out (out_values): default new arrays like the
    inputs. Any dtype (moved as bytes). Returns out (or (out, out_values))."""
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    ix = as_array(indices, "indices", st)
    if ix.n > k.n:
        raise InvalidArgumentError("%d indices to remove from %d keys" % (ix.n, k.n))
    n = k.n - ix.n
    v = None if values is None else as_array(values, "values", st)
    if out is None:
        out = _new(k, n, k.dtype, "out")
    if v is not None and out_values is None:
        out_values = empty_like(v, (n,) + v.shape[1:], v.dtype, "out_values")
    s = _sorter(context, k, dict(primitive="remove", type_name=type_name,
                                 value_size=v.row_bytes if v is not None else 0))
    s.bulk_remove(k, ix, as_array(out, "out", st, dtype), v, out_values, stream=stream)
    return out if values is None else (out, out_values)


@overload
def bulk_insert(a: DeviceArray, positions: DeviceArray, b: DeviceArray, a_values: None = None,
                b_values: None = None, out: Optional[DeviceArray] = None,
                out_values: None = None, *, dtype: Optional[DTypeLike] = None,
                type_name: str = "record", stream: StreamLike = None,
                context: Optional[Context] = None) -> DeviceArray: ...


@overload
def bulk_insert(a: DeviceArray, positions: DeviceArray, b: DeviceArray, a_values: DeviceArray,
                b_values: DeviceArray, out: Optional[DeviceArray] = None,
                out_values: Optional[DeviceArray] = None, *, dtype: Optional[DTypeLike] = None,
                type_name: str = "record", stream: StreamLike = None,
                context: Optional[Context] = None) -> Tuple[DeviceArray, DeviceArray]: ...


def bulk_insert(a: DeviceArray, positions: DeviceArray, b: DeviceArray,
                a_values: Optional[DeviceArray] = None, b_values: Optional[DeviceArray] = None,
                out: Optional[DeviceArray] = None, out_values: Optional[DeviceArray] = None, *,
                dtype: Optional[DTypeLike] = None, type_name: str = "record",
                stream: StreamLike = None, context: Optional[Context] = None
                ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """b with a's elements inserted: a[i] just before b[positions[i]] (4- or 8-byte integers,
    ascending, each at most len(b); len(b) appends), a's of equal position in their order;
    values go together. out (out_values) default to new arrays like a (a_values, or b_values
    when a_values is empty). Any dtype (moved as bytes). Returns out (or (out,
    out_values))."""
    st = stream_handle(stream)
    ka, kb = as_array(a, "a", st, dtype), as_array(b, "b", st, dtype)
    n = ka.n + kb.n
    va = _paired_values(a_values, b_values, st)
    if out is None:
        out = _new(ka, n, ka.dtype, "out")
    if va is not None and out_values is None:
        out_values = empty_like(va, (n,) + va.shape[1:], va.dtype, "out_values")
    s = _sorter(context, ka, dict(primitive="insert", type_name=type_name,
                                  value_size=va.row_bytes if va is not None else 0))
    s.bulk_insert(ka, positions, kb, as_array(out, "out", st, dtype), a_values, b_values,
                  out_values, stream=stream)
    return out if va is None else (out, out_values)


@overload
def set_operation(op: SetOp, a: DeviceArray, b: DeviceArray, a_values: None = None,
                  b_values: None = None, *, out: Optional[DeviceArray] = None,
                  out_values: None = None, order: Order = "ascending",
                  less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
                  type_name: str = "record", stream: StreamLike = None,
                  context: Optional[Context] = None) -> DeviceArray: ...


@overload
def set_operation(op: SetOp, a: DeviceArray, b: DeviceArray, a_values: DeviceArray,
                  b_values: DeviceArray, *, out: Optional[DeviceArray] = None,
                  out_values: Optional[DeviceArray] = None, order: Order = "ascending",
                  less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
                  type_name: str = "record", stream: StreamLike = None,
                  context: Optional[Context] = None) -> Tuple[DeviceArray, DeviceArray]: ...


def set_operation(op: SetOp, a: DeviceArray, b: DeviceArray,
                  a_values: Optional[DeviceArray] = None,
                  b_values: Optional[DeviceArray] = None, *, out: Optional[DeviceArray] = None,
                  out_values: Optional[DeviceArray] = None, order: Order = "ascending",
                  less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
                  type_name: str = "record", stream: StreamLike = None,
                  context: Optional[Context] = None
                  ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """The multiset operation op of sorted a and b, as the C++ standard's set algorithms:
    "intersection", "union", "difference" (a - b) or "symmetric_difference"; the i-th copy of
    a key in a matches the i-th in b, and each element keeps its value (a matched pair a's).
    out (out_values) default to new arrays like a (a_values, or b_values when a_values is
    empty) of the operation's bound.
    Returns out trimmed to the count written (or (out, out_values) trimmed): the count is read
    back to the host in stream order, so this call waits for its stream."""
    st = stream_handle(stream)
    code = _choice(op, _lib.SET_OPS, "op")
    ka, kb = as_array(a, "a", st, dtype), as_array(b, "b", st, dtype)
    va = _paired_values(a_values, b_values, st)
    s = _sorter(context, ka, dict(_order_kw(order, less, type_name), primitive="setops",
                                  value_size=va.row_bytes if va is not None else 0))
    s._keys(kb, "b", st)            # a's and b's dtypes, before anything is allocated
    bound = lib.mj_set_op_bound(code, ka.n, kb.n)
    if out is None:
        out = _new(ka, bound, ka.dtype, "out")
    if va is not None and out_values is None:
        out_values = empty_like(va, (bound,) + va.shape[1:], va.dtype, "out_values")
    ko = as_array(out, "out", st, dtype)
    count = _new(ka, 1, np.int64, "count")
    strm = call_stream(st, (ka, kb, ko))
    s.set_operation(op, ka, kb, ko, count, a_values, b_values, out_values, stream=strm)
    n = _read_count(s, count, strm)
    keys = _trim(out, ko, n, st)
    return keys if out_values is None else (keys, out_values[:n])


def _select(kind: SelectKind, keys: DeviceArray, values: Optional[DeviceArray],
            out: Optional[DeviceArray], out_values: Optional[DeviceArray],
            kw: Mapping[str, Any], dtype: Optional[DTypeLike], stream: StreamLike,
            context: Optional[Context]) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """select and unique: the sorter of kw, new outputs like keys (and values) of len(keys)
    unless given, the count read back, the outputs trimmed to it."""
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    v = as_array(values, "values", st) if values is not None else None
    s = _sorter(context, k, dict(kw, primitive="select",
                                 value_size=v.row_bytes if v is not None else 0))
    if out is None:
        out = _new(k, k.n, k.dtype, "out")
    if v is not None and out_values is None:
        out_values = empty_like(v, (k.n,) + v.shape[1:], v.dtype, "out_values")
    ko = as_array(out, "out", st, dtype)
    count = _new(k, 1, np.int64, "count")
    strm = call_stream(st, (k, ko))
    s.select(kind, k, ko, count, values, out_values, stream=strm)
    n = _read_count(s, count, strm)
    kept = _trim(out, ko, n, st)
    return kept if out_values is None else (kept, out_values[:n])


@overload
def select(keys: DeviceArray, op: str, values: None = None, *,
           out: Optional[DeviceArray] = None, out_values: None = None,
           dtype: Optional[DTypeLike] = None, type_name: str = "record",
           stream: StreamLike = None, context: Optional[Context] = None) -> DeviceArray: ...


@overload
def select(keys: DeviceArray, op: str, values: DeviceArray, *,
           out: Optional[DeviceArray] = None, out_values: Optional[DeviceArray] = None,
           dtype: Optional[DTypeLike] = None, type_name: str = "record",
           stream: StreamLike = None, context: Optional[Context] = None
           ) -> Tuple[DeviceArray, DeviceArray]: ...


def select(keys: DeviceArray, op: str, values: Optional[DeviceArray] = None, *,
           out: Optional[DeviceArray] = None, out_values: Optional[DeviceArray] = None,
           dtype: Optional[DTypeLike] = None, type_name: str = "record",
           stream: StreamLike = None, context: Optional[Context] = None
           ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """The elements of keys (and their values) for which op, a CUDA boolean expression over
    `a` (const KEY &, e.g. "a > 0" or "a.weight != 0" for records), holds, in order (as
    cub::DeviceSelect::If). out (out_values) default to new arrays like keys (values) of
    len(keys). Returns out trimmed to the count kept (or (out, out_values) trimmed): the count
    is read back to the host in stream order, so this call waits for its stream."""
    if op is None:
        raise InvalidArgumentError("select needs op, a CUDA boolean expression over a")
    return _select("if", keys, values, out, out_values, dict(op=op, type_name=type_name), dtype,
                   stream, context)


@overload
def unique(keys: DeviceArray, values: None = None, *, out: Optional[DeviceArray] = None,
           out_values: None = None, order: Order = "ascending", less: Optional[str] = None,
           dtype: Optional[DTypeLike] = None, type_name: str = "record",
           stream: StreamLike = None, context: Optional[Context] = None) -> DeviceArray: ...


@overload
def unique(keys: DeviceArray, values: DeviceArray, *, out: Optional[DeviceArray] = None,
           out_values: Optional[DeviceArray] = None, order: Order = "ascending",
           less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
           type_name: str = "record", stream: StreamLike = None,
           context: Optional[Context] = None) -> Tuple[DeviceArray, DeviceArray]: ...


def unique(keys: DeviceArray, values: Optional[DeviceArray] = None, *,
           out: Optional[DeviceArray] = None, out_values: Optional[DeviceArray] = None,
           order: Order = "ascending", less: Optional[str] = None,
           dtype: Optional[DTypeLike] = None, type_name: str = "record",
           stream: StreamLike = None, context: Optional[Context] = None
           ) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """The first element of each run of adjacent equivalent keys (neither ordered before the
    other by order or less: floats are equivalent only with equal bits, so -0 and +0 differ),
    with its value, in order (as cub::DeviceSelect::Unique; sort first for distinct keys).
    Outputs and the count as select's."""
    return _select("unique", keys, values, out, out_values, _order_kw(order, less, type_name),
                   dtype, stream, context)


# The CUDA type of a value dtype that reduce_by_key names by itself.
_VALUE_TYPES = {"u1": "unsigned char", "i1": "signed char", "u2": "unsigned short",
                "i2": "short", "u4": "unsigned int", "i4": "int", "u8": "unsigned long long",
                "i8": "long long", "f4": "float", "f8": "double"}


def reduce_by_key(keys: DeviceArray, values: DeviceArray, *, op: Optional[str] = None,
                  identity: Optional[str] = None, value_type: Optional[str] = None,
                  value_type_source: Optional[str] = None,
                  out_keys: Optional[DeviceArray] = None,
                  out_values: Optional[DeviceArray] = None, order: Order = "ascending",
                  less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
                  type_name: str = "record", stream: StreamLike = None,
                  context: Optional[Context] = None) -> Tuple[DeviceArray, DeviceArray]:
    """Each run of equivalent adjacent keys (neither ordered before the other by order or
    less; built-in float orders: equal bits) to its first key and its values combined in
    order with op and identity (CUDA expressions over a and b of the value type; default
    a + b and 0; associative, need not be commutative), as CUB's ReduceByKey. The value type
    is the values' dtype (integers, float32, float64) unless value_type names another (with
    value_type_source defining it, e.g. for structured values). out_keys and out_values
    default to new arrays like keys and values of len(keys) elements.
    Returns (keys, values) trimmed to the number of runs: the count is read back to the host
    in stream order, so this call waits for its stream."""
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    v = as_array(values, "values", st)
    if value_type is None:
        value_type = _VALUE_TYPES.get(v.dtype.str[1:]) if v.row_bytes == v.dtype.itemsize \
            else None
        if value_type is None:
            raise InvalidArgumentError("values of dtype %s and shape %s need value_type= (and "
                                       "value_type_source= for a type of your own)"
                                       % (v.dtype, v.shape))
    s = _sorter(context, k, dict(_order_kw(order, less, type_name), primitive="reducebykey",
                                 value_size=v.row_bytes, op=op, identity=identity,
                                 value_type=value_type, value_type_source=value_type_source))
    if out_keys is None:
        out_keys = _new(k, k.n, k.dtype, "out_keys")
    if out_values is None:
        out_values = empty_like(v, (k.n,) + v.shape[1:], v.dtype, "out_values")
    ko = as_array(out_keys, "out_keys", st, dtype)
    count = _new(k, 1, np.int64, "count")
    strm = call_stream(st, (k, ko))
    s.reduce_by_key(k, v, ko, out_values, count, stream=strm)
    n = _read_count(s, count, strm)
    return _trim(out_keys, ko, n, st), out_values[:n]


def join(a: DeviceArray, b: DeviceArray, kind: JoinKind = "inner", *,
         index_dtype: DTypeLike = np.int64, order: Order = "ascending",
         less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
         type_name: str = "record", stream: StreamLike = None,
         context: Optional[Context] = None) -> Tuple[DeviceArray, DeviceArray]:
    """The relational join of sorted key columns a and b (kind "inner", "left", "right" or
    "outer"): (a_rows, b_rows), new arrays like a of index_dtype (4- or 8-byte integers) sized
    exactly: for each row i of a in order, (i, j) for each equivalent row j of b in order
    (left and outer: (i, NULL) when there is none), then, right and outer, (NULL, j) for each
    row j of b without a match. NULL is all ones: -1 in a signed index_dtype, its maximum in
    an unsigned one. The keys are searched once (Sorter.join_plan, then join_rows); the row
    count is read back to the host between the two, in stream order, so this call waits for
    its stream."""
    st = stream_handle(stream)
    _choice(kind, _lib.JOIN_KINDS, "kind")
    idt = np.dtype(index_dtype)
    if idt.kind not in "iu" or idt.itemsize not in (4, 8):
        raise DtypeError("index_dtype must be a 4- or 8-byte integer type (got %s)" % idt)
    ka, kb = as_array(a, "a", st, dtype), as_array(b, "b", st, dtype)
    s = _sorter(context, ka, dict(_order_kw(order, less, type_name), primitive="join"))
    s._keys(kb, "b", st)            # a's and b's dtypes, before anything is allocated
    count = _new(ka, 1, np.int64, "count")
    temp = _new(ka, s.temp_size(ka.n + kb.n), np.uint8, "temp")
    strm = call_stream(st, (ka, kb))
    plan = s.join_plan(ka, kb, count, temp, kind=kind, stream=strm)
    n = _read_count(s, count, strm)
    a_rows, b_rows = _new(ka, n, idt, "a_rows"), _new(ka, n, idt, "b_rows")
    if n:
        s.join_rows(plan, a_rows, b_rows, stream=strm)
    return a_rows, b_rows


def _index_offsets(offsets: DeviceArray, stream: Optional[int]) -> Array:
    off = as_array(offsets, "offsets", stream)
    if off.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise DtypeError("offsets must be int32 or int64 (got %s)" % off.dtype)
    return off


def _paired_values(a_values: Optional[DeviceArray], b_values: Optional[DeviceArray],
                   stream: Optional[int]) -> Optional[Array]:
    """The value array whose row (bytes, trailing shape) and dtype the output values take:
    a_values, or b_values when a_values is empty (an empty a's values say nothing of the
    rows: a (0,) array may go with b's (n, 3)); None without values. a_values and b_values
    come together."""
    if (a_values is None) != (b_values is None):
        raise InvalidArgumentError("a_values and b_values go together")
    if a_values is None:
        return None
    va = as_array(a_values, "a_values", stream)
    return va if va.n else as_array(b_values, "b_values", stream)


def _join_rows(a_rows: DeviceArray, b_rows: DeviceArray,
               stream: Optional[int]) -> Tuple[Array, Array, int]:
    """A join's row arrays checked (4- or 8-byte integers, one dtype, one length, writable),
    and their index size."""
    ra, rb = as_array(a_rows, "a_rows", stream), as_array(b_rows, "b_rows", stream)
    index_size = _index_size(ra, "a_rows")
    if ra.dtype != rb.dtype:
        raise DtypeError("a_rows and b_rows must have one dtype (got %s and %s)"
                         % (ra.dtype, rb.dtype))
    _need_length(rb, ra.n, "b_rows")
    _writable(ra, "a_rows")
    _writable(rb, "b_rows")
    return ra, rb, index_size


def _read_count(sorter: Sorter, count: DeviceArray, stream: int) -> int:
    """The count a run wrote to the device array `count`, waiting for the stream."""
    return _driver.read_u64(sorter.context.device, as_array(count, "count", stream).ptr, stream)


def _trim(obj: DeviceArray, viewed: Array, n: int, stream: Optional[int]) -> DeviceArray:
    """obj's first n elements (viewed: obj as the run saw it, maybe bytes viewed as records):
    a slice of obj, whose first dimension may count bytes rather than elements."""
    rows = as_array(obj, "out", stream).n
    per = rows // viewed.n if viewed.n else 1
    return obj[:n * per]
