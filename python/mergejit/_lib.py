# SPDX-License-Identifier: Apache-2.0
"""ctypes declarations of include/mergejit.h (the parts the package uses), and where NVRTC is.

libmergejit.so opens libcuda and libnvrtc itself, so loading it needs neither. The library is
found at $MERGEJIT_LIBRARY when set (a build tree's library, for the tests), else beside this
file, where `pip install` puts it.
"""
from __future__ import annotations

import ctypes
import os
import sys
import threading
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

c_int, c_uint, c_size_t, c_void_p, c_char_p = (ctypes.c_int, ctypes.c_uint, ctypes.c_size_t,
                                              ctypes.c_void_p, ctypes.c_char_p)


def _library_path() -> str:
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


class JoinPlan(ctypes.Structure):
    _fields_ = [("sorter", c_void_p), ("kind", c_int), ("a_count", c_size_t),
                ("b_count", c_size_t), ("temp", c_void_p), ("temp_bytes", c_size_t),
                ("stamp", ctypes.c_uint)]


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
_PROTOTYPES: Dict[str, Tuple[Any, List[Any]]] = {
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
    "mj_sorter_sort_with_indices": (c_int, [_SORTER, c_void_p, c_void_p, c_size_t, c_void_p,
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
    "mj_sorter_scan": (c_int, [_SORTER, c_void_p, c_size_t, c_void_p, c_int, c_void_p,
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
    "mj_sorter_join_plan": (c_int, [_SORTER, c_int, c_void_p, c_size_t, c_void_p, c_size_t,
                                    c_void_p, c_void_p, c_size_t, c_void_p,
                                    ctypes.POINTER(JoinPlan)]),
    "mj_sorter_join_rows": (c_int, [_SORTER, ctypes.POINTER(JoinPlan), c_size_t, c_void_p,
                                    c_void_p, c_size_t, c_void_p, c_size_t, c_void_p]),
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
    # Sorting across GPUs (mergejit.distributed).
    "mj_nccl_version": (c_int, []),
    "mj_multi_id_create": (c_int, [c_void_p, c_char_p, c_size_t]),
    "mj_multi_comm_create": (c_int, [_CTX, c_void_p, c_int, c_int, ctypes.POINTER(c_void_p)]),
    "mj_multi_comms_destroy": (None, [c_int, ctypes.POINTER(c_void_p)]),
    "mj_multi_sorter_create": (c_int, [_CTX, ctypes.POINTER(SortDesc), c_void_p,
                                       ctypes.POINTER(c_void_p)]),
    "mj_multi_sorter_destroy": (None, [c_void_p]),
    "mj_multi_sorter_rank": (None, [c_void_p, ctypes.POINTER(c_int), ctypes.POINTER(c_int)]),
    "mj_multi_sorter_set_timeout": (c_int, [c_void_p, ctypes.c_double]),
    "mj_multi_sort_plan": (c_int, [c_void_p, c_void_p, c_void_p, c_size_t,
                                   ctypes.POINTER(c_size_t), c_void_p]),
    "mj_multi_sort_finish": (c_int, [c_void_p, c_void_p, c_void_p, c_void_p]),
}
MULTI_ID_BYTES = 128


def _load() -> ctypes.CDLL:
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


# ---------------------------------------------------------------- NVRTC
# The library opens NVRTC once, on first use, from $MERGEJIT_LIBNVRTC when set, else by its
# sonames through the system's search (LD_LIBRARY_PATH, ld.so.cache). pip users often have it
# elsewhere: the nvidia-cuda-nvrtc wheel (CUDA 13: site-packages/nvidia/cu13/lib; CUDA 12,
# nvidia-cuda-nvrtc-cu12: site-packages/nvidia/cuda_nvrtc/lib) or a toolkit named by
# $CUDA_PATH or $CUDA_HOME. Before the library's first use of NVRTC the package looks, in this
# order: $MERGEJIT_LIBNVRTC (the library's own), the wheel's folders on sys.path, the system's
# search, $CUDA_PATH/lib64, $CUDA_HOME/lib64; a file found outside the system's search is
# handed to the library by setting MERGEJIT_LIBNVRTC in this process's environment.

NVRTC_SONAMES = ("libnvrtc.so.13", "libnvrtc.so.12")
# (folder under a sys.path entry, file names), in the order looked at.
NVRTC_WHEEL_DIRS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    (os.path.join("nvidia", "cu13", "lib"), ("libnvrtc.so.13",)),
    (os.path.join("nvidia", "cuda_nvrtc", "lib"), ("libnvrtc.so.12", "libnvrtc.so.13")))


def nvrtc_candidates(environ: Optional[Mapping[str, str]] = None,
                     path: Optional[Sequence[str]] = None
                     ) -> Tuple[List[Tuple[str, str]], List[Tuple[str, str]]]:
    """The NVRTC files to try before the system's search and after it, as two lists of
    (file, where): the nvidia-cuda-nvrtc wheels' folders on path (default sys.path), then
    $CUDA_PATH/lib64 and $CUDA_HOME/lib64 of environ (default os.environ). Files that exist
    only."""
    environ = os.environ if environ is None else environ
    path = sys.path if path is None else path
    before: List[Tuple[str, str]] = []
    after: List[Tuple[str, str]] = []
    for entry in path:
        for sub, names in NVRTC_WHEEL_DIRS:
            for name in names:
                f = os.path.join(entry or ".", sub, name)
                if os.path.isfile(f):
                    before.append((os.path.abspath(f), "the nvidia-cuda-nvrtc wheel"))
    for var in ("CUDA_PATH", "CUDA_HOME"):
        root = environ.get(var)
        if root:
            for name in NVRTC_SONAMES + ("libnvrtc.so",):
                f = os.path.join(root, "lib64", name)
                if os.path.isfile(f):
                    after.append((os.path.abspath(f), "$%s" % var))
    return before, after


_nvrtc_lock = threading.Lock()
_nvrtc_found: Optional[Tuple[Optional[str], str]] = None


def _system_nvrtc() -> Optional[str]:
    """The soname the system's search opens (the library opens the same), or None."""
    for name in NVRTC_SONAMES:
        try:
            ctypes.CDLL(name)
            return name
        except OSError:
            continue
    return None


def find_nvrtc() -> Tuple[Optional[str], str]:
    """Where the library's NVRTC comes from, as (file or soname, where) or (None, reason);
    called before the library's first use of NVRTC (a context, nvrtc_version()), it sets
    MERGEJIT_LIBNVRTC to a file found outside the system's search. Decided once a process."""
    global _nvrtc_found
    with _nvrtc_lock:
        if _nvrtc_found is not None:
            return _nvrtc_found
        found: Tuple[Optional[str], str]
        env = os.environ.get("MERGEJIT_LIBNVRTC")
        if env:
            found = (env, "$MERGEJIT_LIBNVRTC")
        else:
            before, after = nvrtc_candidates()
            system = None if before else _system_nvrtc()
            if before:
                found = before[0]
            elif system:
                found = (system, "the system's library search")
            elif after:
                found = after[0]
            else:
                found = (None, "not in the nvidia-cuda-nvrtc wheel's folders on sys.path, "
                               "the system's library search (%s), $CUDA_PATH/lib64 nor "
                               "$CUDA_HOME/lib64: pip install nvidia-cuda-nvrtc, or set "
                               "MERGEJIT_LIBNVRTC to the file" % ", ".join(NVRTC_SONAMES))
            if found[0] and found[0] != system:
                os.environ["MERGEJIT_LIBNVRTC"] = found[0]
        _nvrtc_found = found
        return found


PRIMITIVES: Dict[str, int] = {
    n: lib.mj_primitive_parse(n.encode())
    for n in ("mergesort", "merge", "segsort", "locality", "reduce", "scan", "lbs", "expand",
              "search", "remove", "insert", "move", "join", "setops", "select", "segreduce",
              "reducebykey")}
KEY_KINDS: Dict[str, int] = {
    n: lib.mj_key_kind_parse(n.encode())
    for n in ("u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f16", "bf16", "f32", "f64",
              "custom")}
