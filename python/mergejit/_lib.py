# SPDX-License-Identifier: Apache-2.0
"""ctypes declarations of include/mergejit.h (the parts the package uses).

libmergejit.so opens libcuda and libnvrtc itself, so loading it needs neither. The library is
found at $MERGEJIT_LIBRARY when set (a build tree's library, for the tests), else beside this
file, where `pip install` puts it.
"""
import ctypes
import os

c_int, c_uint, c_size_t, c_void_p, c_char_p = (ctypes.c_int, ctypes.c_uint, ctypes.c_size_t,
                                              ctypes.c_void_p, ctypes.c_char_p)


def _library_path():
    path = os.environ.get("MERGEJIT_LIBRARY")
    if path:
        return path
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "libmergejit.so")


class ContextOptions(ctypes.Structure):
    _fields_ = [("device", c_int), ("cache_dir", c_char_p), ("flags", c_uint),
                ("target_sm", c_int), ("tuning_file", c_char_p), ("bundle", c_char_p)]


class SortDesc(ctypes.Structure):
    _fields_ = [("primitive", c_int), ("key", c_int), ("order", c_int), ("less", c_char_p),
                ("type_name", c_char_p), ("type_source", c_char_p), ("type_size", c_size_t),
                ("type_align", c_size_t), ("value_size", c_size_t), ("nt", c_int),
                ("vt", c_int), ("bs_nt", c_int), ("op", c_char_p), ("identity", c_char_p),
                ("merge4_log2", c_int), ("value_type", c_char_p),
                ("value_type_source", c_char_p)]


class Segments(ctypes.Structure):
    _fields_ = [("kind", c_int), ("data", c_void_p), ("count", c_size_t),
                ("index_size", c_size_t)]


class SearchOutputs(ctypes.Structure):
    _fields_ = [("bound", c_int), ("index_size", c_size_t), ("a_indices", c_void_p),
                ("a_matches", c_void_p), ("a_counts", c_void_p), ("b_indices", c_void_p),
                ("b_matches", c_void_p), ("match_counts", c_void_p)]


# The ABI constants of mergejit.h that are flags or two-way choices. Primitives and key kinds
# are looked up by name (mj_primitive_parse, mj_key_kind_parse), since their lists grow.
CONTEXT_NO_DISK_CACHE = 1 << 0
CONTEXT_COMPILE_ONLY = 1 << 1
CONTEXT_BUNDLE_FALLBACK = 1 << 2
ORDERS = {"ascending": 0, "descending": 1}
BOUNDS = {"lower": 0, "upper": 1}
SCAN_KINDS = {"exclusive": 0, "inclusive": 1}
SEGMENT_KINDS = {"flags": 0, "flag_bits": 1, "heads": 2, "offsets": 3}
JOIN_KINDS = {"inner": 0, "left": 1, "right": 2, "outer": 3}
SET_OPS = {"intersection": 0, "union": 1, "difference": 2, "symmetric_difference": 3}
SELECT_KINDS = {"if": 0, "unique": 1}

_CTX, _SORTER = c_void_p, c_void_p
_PROTOTYPES = {
    "mj_status_name": (c_char_p, [c_int]),
    "mj_version": (c_char_p, []),
    "mj_context_options_init": (None, [ctypes.POINTER(ContextOptions)]),
    "mj_context_create": (c_int, [ctypes.POINTER(ContextOptions), ctypes.POINTER(c_void_p)]),
    "mj_context_destroy": (None, [_CTX]),
    "mj_context_last_error": (c_char_p, [_CTX]),
    "mj_context_target_sm": (c_int, [_CTX]),
    "mj_context_cache_dir": (c_char_p, [_CTX]),
    "mj_context_device_name": (c_char_p, [_CTX]),
    "mj_context_tuning_file": (c_char_p, [_CTX]),
    "mj_context_bundle": (c_char_p, [_CTX]),
    "mj_key_kind_parse": (c_int, [c_char_p]),
    "mj_key_kind_name": (c_char_p, [c_int]),
    "mj_primitive_parse": (c_int, [c_char_p]),
    "mj_sorter_create": (c_int, [_CTX, ctypes.POINTER(SortDesc), ctypes.POINTER(c_void_p)]),
    "mj_sorter_destroy": (None, [_SORTER]),
    "mj_sorter_source": (c_int, [_SORTER]),
    "mj_sorter_build_ms": (ctypes.c_double, [_SORTER]),
    "mj_sorter_tile": (None, [_SORTER, ctypes.POINTER(c_int), ctypes.POINTER(c_int)]),
    "mj_sorter_resources": (None, [_SORTER, ctypes.POINTER(c_int),
                                   ctypes.POINTER(ctypes.c_long)]),
    "mj_sorter_temp_size": (c_int, [_SORTER, c_size_t, c_int, ctypes.POINTER(c_size_t)]),
    "mj_sorter_sort": (c_int, [_SORTER, c_void_p, c_void_p, c_size_t, c_void_p, c_size_t,
                               c_void_p]),
    "mj_sorter_sort_indices": (c_int, [_SORTER, c_void_p, c_void_p, c_size_t, c_void_p,
                                       c_size_t, c_void_p]),
    "mj_sorter_merge": (c_int, [_SORTER, c_void_p, c_void_p, c_size_t, c_void_p, c_void_p,
                                c_size_t, c_void_p, c_void_p, c_void_p, c_size_t, c_void_p]),
    "mj_sorter_segmented_sort": (c_int, [_SORTER, c_void_p, c_void_p, c_size_t,
                                         ctypes.POINTER(Segments), c_void_p, c_size_t,
                                         c_void_p]),
    "mj_sorter_reduce": (c_int, [_SORTER, c_void_p, c_size_t, c_void_p, c_void_p, c_size_t,
                                 c_void_p]),
    "mj_sorter_segmented_reduce": (c_int, [_SORTER, c_void_p, c_size_t, ctypes.POINTER(Segments),
                                           c_void_p, c_void_p, c_size_t, c_void_p]),
    "mj_sorter_scan": (c_int, [_SORTER, c_void_p, c_void_p, c_size_t, c_int, c_void_p,
                               c_void_p, c_size_t, c_void_p]),
    "mj_sorter_sorted_search": (c_int, [_SORTER, c_void_p, c_size_t, c_void_p, c_size_t,
                                        ctypes.POINTER(SearchOutputs), c_void_p, c_size_t,
                                        c_void_p]),
    "mj_sorter_load_balance": (c_int, [_SORTER, c_void_p, c_size_t, c_size_t, c_void_p,
                                       c_void_p, c_void_p, c_size_t, c_void_p]),
    "mj_sorter_interval_expand": (c_int, [_SORTER, c_void_p, c_size_t, c_size_t, c_void_p,
                                          c_void_p, c_void_p, c_size_t, c_void_p]),
    "mj_sorter_interval_move": (c_int, [_SORTER, c_void_p, c_size_t, c_size_t, c_void_p,
                                        c_void_p, c_void_p, c_size_t, c_void_p, c_size_t,
                                        c_void_p, c_size_t, c_void_p]),
    "mj_sorter_bulk_remove": (c_int, [_SORTER, c_void_p, c_void_p, c_size_t, c_void_p,
                                      c_size_t, c_size_t, c_void_p, c_void_p, c_void_p,
                                      c_size_t, c_void_p]),
    "mj_sorter_bulk_insert": (c_int, [_SORTER, c_void_p, c_void_p, c_void_p, c_size_t,
                                      c_size_t, c_void_p, c_void_p, c_size_t, c_void_p,
                                      c_void_p, c_void_p, c_size_t, c_void_p]),
    "mj_sorter_join_count": (c_int, [_SORTER, c_int, c_void_p, c_size_t, c_void_p, c_size_t,
                                     c_void_p, c_void_p, c_size_t, c_void_p]),
    "mj_sorter_join": (c_int, [_SORTER, c_int, c_void_p, c_size_t, c_void_p, c_size_t,
                               c_size_t, c_void_p, c_void_p, c_size_t, c_void_p, c_void_p,
                               c_size_t, c_void_p]),
    "mj_sorter_reduce_by_key": (c_int, [_SORTER, c_void_p, c_void_p, c_size_t, c_void_p,
                                        c_void_p, c_void_p, c_void_p, c_size_t, c_void_p]),
    "mj_set_op_bound": (c_size_t, [c_int, c_size_t, c_size_t]),
    "mj_sorter_set_op": (c_int, [_SORTER, c_int, c_void_p, c_void_p, c_size_t, c_void_p,
                                 c_void_p, c_size_t, c_void_p, c_void_p, c_void_p, c_void_p,
                                 c_size_t, c_void_p]),
    "mj_sorter_select": (c_int, [_SORTER, c_int, c_void_p, c_void_p, c_size_t, c_void_p,
                                 c_void_p, c_void_p, c_void_p, c_size_t, c_void_p]),
    "mj_driver_version": (c_int, []),
    "mj_nvrtc_version": (c_int, []),
}


def _load():
    path = _library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError(
            "mergejit: cannot load %s (%s); install the package with `pip install ./python`, "
            "or set MERGEJIT_LIBRARY to a built libmergejit.so" % (path, e)) from None
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


lib = _load()
PATH = _library_path()


PRIMITIVES = {n: lib.mj_primitive_parse(n.encode())
              for n in ("mergesort", "merge", "segsort", "locality", "reduce", "scan", "lbs",
                        "expand", "search", "remove", "insert", "move", "join", "setops",
                        "select", "segreduce", "reducebykey")}
KEY_KINDS = {n: lib.mj_key_kind_parse(n.encode())
             for n in ("u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f16", "bf16",
                       "f32", "f64", "custom")}
