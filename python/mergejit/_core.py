"""Contexts, sorters and the one-call functions over libmergejit.so."""
import ctypes
import os
import threading
from collections import namedtuple

import numpy as np

from . import _lib
from ._arrays import as_array, call_stream, empty_like, stream_handle
from ._dtypes import key_type
from ._errors import DtypeError, InvalidArgumentError, error_for

lib = _lib.lib

_SOURCES = ("nvrtc", "disk", "memory", "bundle", "bundle-ptx")
_PRIMITIVE_ALIASES = {"sort": "mergesort", "segmented_sort": "segsort", "locality_sort": "locality",
                      "load_balance": "lbs", "sorted_search": "search"}
_ORDER_ALIASES = {"asc": "ascending", "desc": "descending"}


def _text(b):
    return b.decode("utf-8", "replace") if b else ""


def _path(p):
    return None if p is None else os.fsencode(p)


class Context:
    """A mergejit context on one device: the disk cache, tuning file and bundle it reads, and
    the sorters it has built (the one-call functions keep theirs here, built once).

    device: CUDA ordinal. cache_dir, tuning_file, bundle: as mj_context_options (None: the
    environment's or the default; "" for tuning_file and bundle: none). disk_cache=False keeps
    kernels in memory only. compile_only=True needs no driver nor device: sorters are built
    for target_sm (default 90) but cannot run. bundle_fallback=True compiles what the bundle
    lacks. Work launched through the context must be finished before close()."""

    def __init__(self, device=0, *, cache_dir=None, tuning_file=None, bundle=None,
                 disk_cache=True, compile_only=False, target_sm=None, bundle_fallback=False):
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
        self._h = None
        st = lib.mj_context_create(ctypes.byref(opts), ctypes.byref(handle))
        if st:
            message = _text(lib.mj_context_last_error(handle))
            lib.mj_context_destroy(handle)
            raise error_for(_text(lib.mj_status_name(st)), message)
        self._h = handle.value
        self.device = device
        self.compile_only = compile_only
        self._sorters = {}
        self._lock = threading.Lock()

    def _handle(self):
        if self._h is None:
            raise InvalidArgumentError("the context is closed")
        return self._h

    def _raise(self, st):
        raise error_for(_text(lib.mj_status_name(st)),
                        _text(lib.mj_context_last_error(self._h)))

    @property
    def target_sm(self):
        return lib.mj_context_target_sm(self._handle())

    @property
    def cache_dir(self):
        return _text(lib.mj_context_cache_dir(self._handle()))

    @property
    def device_name(self):
        return _text(lib.mj_context_device_name(self._handle()))

    @property
    def tuning_file(self):
        return _text(lib.mj_context_tuning_file(self._handle()))

    @property
    def bundle(self):
        return _text(lib.mj_context_bundle(self._handle()))

    def sorter(self, dtype, **kw):
        """The context's sorter for these arguments (those of Sorter), built on first use."""
        key = (np.dtype(dtype),) + tuple(sorted(kw.items()))
        s = self._sorters.get(key)
        if s is None:
            with self._lock:
                s = self._sorters.get(key)
                if s is None:
                    s = self._sorters[key] = Sorter(dtype, context=self, **kw)
        return s

    def close(self):
        """Destroys the context's sorters and the context. Sorters made by the caller on it
        must not be used afterwards."""
        if self._h is None:
            return
        for s in self._sorters.values():
            s.close()
        self._sorters.clear()
        lib.mj_context_destroy(self._h)
        self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_h", None) is not None and lib is not None:
            self.close()

    def __repr__(self):
        if self._h is None:
            return "<mergejit.Context closed>"
        what = "compile-only sm_%d" % self.target_sm if self.compile_only else \
            "device %d (%s)" % (self.device, self.device_name)
        return "<mergejit.Context %s, cache %r>" % (what, self.cache_dir or None)


_defaults = {}
_defaults_lock = threading.Lock()


def default_context(device=0):
    """The context the functions use when given none: one per device, made on first use with
    the environment's settings (MERGEJIT_CACHE_DIR, MERGEJIT_TUNING, MERGEJIT_BUNDLE)."""
    ctx = _defaults.get(device)
    if ctx is None:
        with _defaults_lock:
            ctx = _defaults.get(device)
            if ctx is None:
                ctx = _defaults[device] = Context(device)
    return ctx


def _array_device(a):
    if a.device is not None:
        return a.device
    dev = getattr(a.obj, "device", None)
    for attr in ("id", "index"):  # CuPy, PyTorch
        v = getattr(dev, attr, None)
        if isinstance(v, int):
            return v
    return 0


def _context(context, a):
    return context if context is not None else default_context(_array_device(a))


def _choice(value, table, what):
    v = _ORDER_ALIASES.get(value, value) if table is _lib.ORDERS else value
    if v not in table:
        raise InvalidArgumentError("%s=%r: one of %s" % (what, value, ", ".join(sorted(table))))
    return table[v]


def _ptr(a):
    return a.ptr if a is not None else None


def _index_size(a, what):
    if a.dtype.kind not in "iu" or a.dtype.itemsize not in (4, 8) or len(a.shape) != 1:
        raise DtypeError("%s must be a 1-D array of 4- or 8-byte integers (got %s of shape %s)"
                         % (what, a.dtype, a.shape))
    return a.dtype.itemsize


def _need_length(a, n, what):
    if a.n != n:
        raise InvalidArgumentError("%s has %d elements, expected %d" % (what, a.n, n))


def _writable(a, what):
    if a.readonly:
        raise InvalidArgumentError("%s is read-only, and this call writes to it" % what)


SearchResult = namedtuple("SearchResult",
                          "a_indices a_matches a_counts b_indices b_matches match_counts")


class Sorter:
    """Kernels built once for one primitive, key dtype and order (or comparator), run many
    times. Building compiles with NVRTC or loads from the disk cache, the context's memory or
    its bundle.

    dtype: the key (element) dtype: a numpy built-in (bool sorts as uint8; bfloat16 from
    ml_dtypes) or a structured dtype, which becomes `struct <type_name> {...}` in CUDA.
    primitive: "mergesort", "locality", "merge", "segsort", "reduce", "scan", "search", "lbs".
    order: "ascending" or "descending" (floats: NaNs last in both), or less: a CUDA boolean
    expression over `a` and `b` (const KEY &), required for structured dtypes.
    value_size: bytes of the value carried with each key (0: none; 4 or 8 for argsort).
    op, identity: reduce and scan (CUDA expressions; default a + b and 0).
    tile: (nt, vt) or (nt, vt, bs_nt), for experiments; default the context's choice."""

    def __init__(self, dtype, *, primitive="mergesort", order="ascending", less=None,
                 value_size=0, op=None, identity=None, type_name="record", tile=None,
                 context=None):
        self._h = None
        self.context = context if context is not None else default_context()
        self.dtype = np.dtype(dtype)
        self.key = key_type(self.dtype, type_name)
        self.primitive = _PRIMITIVE_ALIASES.get(primitive, primitive)
        if self.primitive not in _lib.PRIMITIVES:
            raise InvalidArgumentError("primitive=%r: one of %s" % (
                primitive, ", ".join(sorted(_lib.PRIMITIVES))))
        self.value_size = value_size
        d = _lib.SortDesc()
        d.primitive = _lib.PRIMITIVES[self.primitive]
        d.key = _lib.KEY_KINDS[self.key.kind]
        d.order = _choice(order, _lib.ORDERS, "order")
        d.less = less.encode() if less is not None else None
        d.op = op.encode() if op is not None else None
        d.identity = identity.encode() if identity is not None else None
        if self.key.kind == "custom":
            d.type_name = self.key.type_name.encode()
            d.type_source = self.key.type_source.encode()
            d.type_size = self.key.size
            d.type_align = self.key.align
        d.value_size = value_size
        if tile is not None:
            if len(tile) not in (2, 3):
                raise InvalidArgumentError("tile=%r: (nt, vt) or (nt, vt, bs_nt)" % (tile,))
            d.nt, d.vt = tile[0], tile[1]
            d.bs_nt = tile[2] if len(tile) == 3 else 0
        handle = ctypes.c_void_p()
        st = lib.mj_sorter_create(self.context._handle(), ctypes.byref(d), ctypes.byref(handle))
        if st:
            self.context._raise(st)
        self._h = handle.value

    # ------------------------------------------------------------ facts

    @property
    def source(self):
        """How the kernels were obtained: "nvrtc", "disk", "memory", "bundle", or "bundle-ptx"
        (the bundle's PTX, compiled by the driver for a GPU newer than its cubins)."""
        return _SOURCES[lib.mj_sorter_source(self._handle())]

    @property
    def build_ms(self):
        return lib.mj_sorter_build_ms(self._handle())

    @property
    def tile(self):
        nt, vt = ctypes.c_int(), ctypes.c_int()
        lib.mj_sorter_tile(self._handle(), ctypes.byref(nt), ctypes.byref(vt))
        return nt.value, vt.value

    @property
    def resources(self):
        """(registers, spill bytes) as ptxas reported them; -1 each when unknown."""
        r, sp = ctypes.c_int(), ctypes.c_long()
        lib.mj_sorter_resources(self._handle(), ctypes.byref(r), ctypes.byref(sp))
        return r.value, sp.value

    def temp_size(self, n, indices=False):
        """Bytes of temporary storage a run over n elements needs (see mj_sorter_temp_size)."""
        out = ctypes.c_size_t()
        self._check(lib.mj_sorter_temp_size(self._handle(), n, int(indices), ctypes.byref(out)))
        return out.value

    def close(self):
        if self._h is not None and self.context._h is not None:
            lib.mj_sorter_destroy(self._h)
        self._h = None

    def __del__(self):
        if getattr(self, "_h", None) is not None and lib is not None:
            self.close()

    def __repr__(self):
        return "<mergejit.Sorter %s of %s, value_size %d>" % (self.primitive, self.dtype,
                                                             self.value_size)

    # ------------------------------------------------------------ helpers

    def _handle(self):
        if self._h is None or self.context._h is None:
            raise InvalidArgumentError("the sorter (or its context) is closed")
        return self._h

    def _check(self, st):
        if st:
            self.context._raise(st)

    def _keys(self, obj, what, stream, writable=False):
        a = as_array(obj, what, stream)
        if a.dtype == np.uint8 and self.key.kind == "custom":
            a = as_array(a, what, stream, self.dtype)       # bytes: viewed as the records
        if a.dtype != self.dtype and key_type(a.dtype, self.key.type_name) != self.key:
            raise DtypeError("%s has dtype %s; this sorter was built for %s"
                             % (what, a.dtype, self.dtype))
        if len(a.shape) != 1:
            raise InvalidArgumentError("%s must be 1-D (got shape %s); for rows use "
                                       "segmented_sort" % (what, a.shape))
        if writable:
            _writable(a, what)
        return a

    def _values(self, obj, n, what, stream, writable=False):
        """The value array for n keys: required exactly when the sorter carries values."""
        if obj is None:
            if self.value_size:
                raise InvalidArgumentError("this sorter carries %d-byte values: %s is required"
                                           % (self.value_size, what))
            return None
        if not self.value_size:
            raise InvalidArgumentError("this sorter sorts keys only (value_size 0) but %s was "
                                       "given" % what)
        a = as_array(obj, what, stream)
        _need_length(a, n, what)
        if a.row_bytes != self.value_size and n:
            raise InvalidArgumentError("%s has %d bytes per element (dtype %s, shape %s); this "
                                       "sorter carries %d" % (what, a.row_bytes, a.dtype,
                                                              a.shape, self.value_size))
        if writable:
            _writable(a, what)
        return a

    @staticmethod
    def _temp(temp, stream):
        if temp is None:
            return None, 0
        t = as_array(temp, "temp", stream)
        return t.ptr, t.n * t.row_bytes

    # ------------------------------------------------------------ runs

    def sort(self, keys, values=None, *, temp=None, stream=None):
        """Sorts keys (and values) in place, stably; returns keys (or (keys, values))."""
        s = stream_handle(stream)
        k = self._keys(keys, "keys", s, writable=True)
        v = self._values(values, k.n, "values", s, writable=True)
        tp, tb = self._temp(temp, s)
        self._check(lib.mj_sorter_sort(self._handle(), k.ptr, _ptr(v), k.n, tp, tb,
                                       call_stream(s, (k, v))))
        return keys if values is None else (keys, values)

    def argsort(self, keys, out, *, temp=None, stream=None):
        """Writes to out the stable permutation that sorts keys (a sorter with value_size 4 or
        8, out's itemsize); returns out."""
        s = stream_handle(stream)
        k = self._keys(keys, "keys", s)
        o = as_array(out, "out", s)
        if _index_size(o, "out") != self.value_size:
            raise DtypeError("out has %d-byte indices; this sorter writes %d" % (
                o.dtype.itemsize, self.value_size))
        _need_length(o, k.n, "out")
        _writable(o, "out")
        if o.dtype == np.int32 and k.n > 2**31 - 1:
            raise InvalidArgumentError("%d keys do not fit int32 indices: use int64" % k.n)
        tp, tb = self._temp(temp, s)
        self._check(lib.mj_sorter_sort_indices(self._handle(), k.ptr, o.ptr, k.n, tp, tb,
                                               call_stream(s, (k, o))))
        return out

    def merge(self, a, b, out, *, a_values=None, b_values=None, out_values=None, temp=None,
              stream=None):
        """Merges sorted a and b into out (a's first on ties); returns out (or (out,
        out_values))."""
        s = stream_handle(stream)
        ka, kb = self._keys(a, "a", s), self._keys(b, "b", s)
        ko = self._keys(out, "out", s, writable=True)
        _need_length(ko, ka.n + kb.n, "out")
        va = self._values(a_values, ka.n, "a_values", s)
        vb = self._values(b_values, kb.n, "b_values", s)
        vo = self._values(out_values, ko.n, "out_values", s, writable=True)
        tp, tb = self._temp(temp, s)
        self._check(lib.mj_sorter_merge(self._handle(), ka.ptr, _ptr(va), ka.n, kb.ptr, _ptr(vb),
                                        kb.n, ko.ptr, _ptr(vo), tp, tb,
                                        call_stream(s, (ka, kb, ko))))
        return out if out_values is None else (out, out_values)

    def segmented_sort(self, keys, segments, values=None, *, kind="offsets", temp=None,
                       stream=None):
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
        tp, tb = self._temp(temp, s)
        self._check(lib.mj_sorter_segmented_sort(self._handle(), k.ptr, _ptr(v), k.n,
                                                 ctypes.byref(seg), tp, tb,
                                                 call_stream(s, (k, v, g))))
        return keys if values is None else (keys, values)

    def reduce(self, x, out, *, temp=None, stream=None):
        """Combines x with the operator into out (one element); returns out."""
        s = stream_handle(stream)
        a = self._keys(x, "x", s)
        o = self._keys(out, "out", s, writable=True)
        if o.n < 1:
            raise InvalidArgumentError("out needs one element")
        tp, tb = self._temp(temp, s)
        self._check(lib.mj_sorter_reduce(self._handle(), a.ptr, a.n, o.ptr, tp, tb,
                                         call_stream(s, (a, o))))
        return out

    def scan(self, x, out, *, inclusive=False, total=None, temp=None, stream=None):
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
        tp, tb = self._temp(temp, s)
        self._check(lib.mj_sorter_scan(self._handle(), a.ptr, o.ptr, a.n,
                                       _lib.SCAN_KINDS["inclusive" if inclusive else "exclusive"],
                                       _ptr(t), tp, tb, call_stream(s, (a, o))))
        return out

    def sorted_search(self, a, b, *, bound="lower", a_indices=None, a_matches=None,
                      a_counts=None, b_indices=None, b_matches=None, match_counts=None,
                      temp=None, stream=None):
        """Where each key of sorted a falls in sorted b and each of b in a (see
        mj_sorter_sorted_search); writes the outputs given (at least one), returns them as a
        SearchResult."""
        s = stream_handle(stream)
        ka, kb = self._keys(a, "a", s), self._keys(b, "b", s)
        outs = _lib.SearchOutputs()
        outs.bound = _choice(bound, _lib.BOUNDS, "bound")
        given = dict(a_indices=a_indices, a_matches=a_matches, a_counts=a_counts,
                     b_indices=b_indices, b_matches=b_matches, match_counts=match_counts)
        if all(v is None for v in given.values()):
            raise InvalidArgumentError("sorted_search needs at least one output")
        index_size = None
        for name, obj in given.items():
            if obj is None:
                continue
            o = as_array(obj, name, s)
            _writable(o, name)
            n = ka.n if name.startswith("a_") else kb.n
            if name in ("a_indices", "a_counts", "b_indices"):
                size = _index_size(o, name)
                if index_size not in (None, size):
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
        outs.index_size = index_size or 4
        tp, tb = self._temp(temp, s)
        self._check(lib.mj_sorter_sorted_search(self._handle(), ka.ptr, ka.n, kb.ptr, kb.n,
                                                ctypes.byref(outs), tp, tb,
                                                call_stream(s, (ka, kb))))
        return SearchResult(**given)

    def load_balance(self, offsets, num_items, objects, ranks=None, *, temp=None, stream=None):
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
        tp, tb = self._temp(temp, s)
        self._check(lib.mj_sorter_load_balance(self._handle(), off.ptr, off.n, num_items,
                                               obj.ptr, _ptr(r), tp, tb,
                                               call_stream(s, (off, obj))))
        return objects if ranks is None else (objects, ranks)


# ---------------------------------------------------------------- one-call functions
# Each finds (or builds once) its context's sorter and runs it; the library allocates the
# temporary storage in stream order.

def _sorter(context, a, kw):
    return _context(context, a).sorter(a.dtype, **kw)


def _order_kw(order, less, type_name):
    return dict(order=order, less=less, type_name=type_name)


def _new(a, n, dtype, what):
    """An output of n elements of dtype allocated like a; records as bytes (CuPy and PyTorch
    have no structured dtypes), which the run views as dtype."""
    dt = np.dtype(dtype)
    if dt.fields is None and dt.kind in "biuf":
        return empty_like(a, (n,), dt, what)
    return empty_like(a, (n * dt.itemsize,), np.uint8, what)


# dtype= in the functions below views the key arrays' memory (and outputs of the key type) as
# a 1-D array of that dtype (as numpy's .view), e.g. a CuPy byte array as records; sorters of
# records view byte arrays so by themselves.

def sort(keys, *, order="ascending", less=None, locality=False, dtype=None,
         type_name="record", stream=None, context=None):
    """Sorts keys in place, stably (locality=True: a mergesort for nearly sorted keys).
    Returns keys."""
    k = as_array(keys, "keys", stream_handle(stream), dtype)
    s = _sorter(context, k, dict(_order_kw(order, less, type_name),
                                 primitive="locality" if locality else "mergesort"))
    s.sort(k, stream=stream)
    return keys


def sort_by_key(keys, values, *, order="ascending", less=None, locality=False, dtype=None,
                type_name="record", stream=None, context=None):
    """Sorts keys and their values (any dtype, 1..64 bytes per key: trailing dimensions count)
    in place, stably. Returns (keys, values)."""
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    v = as_array(values, "values", st)
    s = _sorter(context, k, dict(_order_kw(order, less, type_name),
                                 primitive="locality" if locality else "mergesort",
                                 value_size=v.row_bytes))
    s.sort(k, v, stream=stream)
    return keys, values


def argsort(keys, out=None, *, order="ascending", less=None, dtype=None, type_name="record",
            stream=None, context=None):
    """The stable permutation that sorts keys (keys are left as they are), in out (4- or
    8-byte integers; default: a new int64 array like keys). Returns it."""
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    if out is None:
        out = _new(k, k.n, np.int64, "out")
    o = as_array(out, "out", st)
    s = _sorter(context, k, dict(_order_kw(order, less, type_name),
                                 value_size=_index_size(o, "out")))
    s.argsort(k, o, stream=stream)
    return out


def merge(a, b, out=None, *, a_values=None, b_values=None, out_values=None, order="ascending",
          less=None, dtype=None, type_name="record", stream=None, context=None):
    """Merges sorted a and b (with their values) into out (default: a new array like a).
    Returns out, or (out, out_values) with values."""
    st = stream_handle(stream)
    ka, kb = as_array(a, "a", st, dtype), as_array(b, "b", st, dtype)
    n = ka.n + kb.n
    if out is None:
        out = _new(ka, n, ka.dtype, "out")
    ko = as_array(out, "out", st, dtype)
    value_size = 0
    if a_values is not None or b_values is not None:
        if a_values is None or b_values is None:
            raise InvalidArgumentError("a_values and b_values go together")
        va = as_array(a_values, "a_values", st)
        value_size = va.row_bytes
        if out_values is None:
            out_values = empty_like(va, (n,) + va.shape[1:], va.dtype, "out_values")
    s = _sorter(context, ka, dict(_order_kw(order, less, type_name), primitive="merge",
                                  value_size=value_size))
    s.merge(ka, kb, ko, a_values=a_values, b_values=b_values, out_values=out_values,
            stream=stream)
    return out if out_values is None else (out, out_values)


def segmented_sort(keys, segments, values=None, *, kind="offsets", order="ascending", less=None,
                   dtype=None, type_name="record", stream=None, context=None):
    """Sorts each segment of keys (and values) in place; segments as in Sorter.segmented_sort
    (default: CSR offsets, segments + 1 of them). Returns keys (or (keys, values))."""
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    v = None if values is None else as_array(values, "values", st)
    s = _sorter(context, k, dict(_order_kw(order, less, type_name), primitive="segsort",
                                 value_size=v.row_bytes if v is not None else 0))
    s.segmented_sort(k, segments, v, kind=kind, stream=stream)
    return keys if values is None else (keys, values)


def reduce(x, out=None, *, op=None, identity=None, dtype=None, type_name="record", stream=None,
           context=None):
    """x combined with op (default a + b) into out, a one-element device array (default: a
    new one like x). Returns out."""
    st = stream_handle(stream)
    a = as_array(x, "x", st, dtype)
    if out is None:
        out = _new(a, 1, a.dtype, "out")
    s = _sorter(context, a, dict(primitive="reduce", op=op, identity=identity,
                                 type_name=type_name))
    s.reduce(a, as_array(out, "out", st, dtype), stream=stream)
    return out


def scan(x, out=None, *, op=None, identity=None, inclusive=False, total=None, dtype=None,
         type_name="record", stream=None, context=None):
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


def sorted_search(a, b, *, bound="lower", order="ascending", less=None, dtype=None,
                  type_name="record", stream=None, context=None, **outputs):
    """Vectorized sorted search of sorted a in sorted b (and b in a). Outputs as keyword
    arguments (a_indices, a_matches, a_counts, b_indices, b_matches, match_counts); with none,
    a_indices is a new int64 array like a (numpy's searchsorted(b, a, side="left" for
    bound="lower", "right" for "upper")). Returns a SearchResult."""
    st = stream_handle(stream)
    ka, kb = as_array(a, "a", st, dtype), as_array(b, "b", st, dtype)
    if not any(v is not None for v in outputs.values()):
        outputs["a_indices"] = _new(ka, ka.n, np.int64, "a_indices")
    s = _sorter(context, ka, dict(_order_kw(order, less, type_name), primitive="search"))
    return s.sorted_search(ka, kb, bound=bound, stream=stream, **outputs)


def load_balance(offsets, num_items, objects=None, ranks=None, *, stream=None, context=None):
    """Load-balancing search over int32 or int64 offsets (the exclusive scan of the objects'
    counts; num_items their total): each item's object into objects (default: a new array
    like offsets) and its rank into ranks when given. Returns objects (or (objects, ranks))."""
    off = as_array(offsets, "offsets", stream_handle(stream))
    if off.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise DtypeError("offsets must be int32 or int64 (got %s)" % off.dtype)
    if objects is None:
        objects = _new(off, num_items, off.dtype, "objects")
    s = _sorter(context, off, dict(primitive="lbs"))
    return s.load_balance(off, num_items, objects, ranks, stream=stream)
