# SPDX-License-Identifier: Apache-2.0
"""mergejit: GPU sorting of any dtype, structured ones included, with kernels generated and
compiled at run time (Modern GPU's merge-path algorithms, NVRTC, a disk cache).

Arrays are any object with __cuda_array_interface__ or __dlpack__ (CuPy, PyTorch, Numba,
cuda.core), read where they are (zero-copy); results go to new arrays of the inputs' library
unless out= names where (out=x: in place). Work is queued on the stream given (stream=: a
handle or an object with __cuda_stream__), else the array interface's stream, else PyTorch's
current stream for its tensors, else the legacy default stream; calls return once it is
queued.

    import cupy, mergejit
    x = cupy.random.rand(1 << 20).astype(cupy.float32)
    y = mergejit.sort(x)                              # a new array, ascending, NaNs last
    mergejit.sort(x, out=x, descending=True)          # in place
    values, indices = mergejit.sort(x, return_indices=True)     # as torch.sort

    rec = numpy.dtype([("x", "f4"), ("id", "u4")])
    y = mergejit.sort(records, less="a.x < b.x || (a.x == b.x && a.id > b.id)")
"""
from __future__ import annotations

from typing import Optional, Tuple

from . import _lib
from ._core import (Context, JoinPlan, SearchResult, Sorter, SortResult, argsort,
                    bulk_insert, bulk_remove, default_context, interval_expand, interval_move,
                    join, load_balance, merge, reduce, reduce_by_key, scan, segmented_reduce,
                    segmented_sort, select, set_operation, sort, sort_by_key, sorted_search,
                    unique)
from ._dtypes import KeyType, key_type, struct_source
from ._errors import (CacheError, CompileError, CudaError, DeviceMemoryError, DtypeError,
                      FileError, HostMemoryError, InvalidArgumentError, MergejitError,
                      NoCompilerError, NoDeviceError, NoDriverError, NotInBundleError,
                      RankTimeoutError, TooLargeError, UnsupportedError)
from ._typing import DeviceArray

__version__: str = _lib.lib.mj_version().decode()
library_path: str = _lib.PATH


def driver_version() -> int:
    """The CUDA driver's version (e.g. 13000), 0 without libcuda."""
    return int(_lib.lib.mj_driver_version())


def nvrtc_version() -> int:
    """NVRTC's version as major * 1000 + minor * 10, 0 without libnvrtc."""
    _lib.find_nvrtc()
    return int(_lib.lib.mj_nvrtc_version())


def nvrtc_location() -> Tuple[Optional[str], str]:
    """Where the library's NVRTC comes from: (file, or a soname the system's search opens, and
    where it was found), or (None, where it was looked for). $MERGEJIT_LIBNVRTC names the file
    outright; otherwise the nvidia-cuda-nvrtc wheel's folders on sys.path come first, then the
    system's search, $CUDA_PATH/lib64 and $CUDA_HOME/lib64."""
    return _lib.find_nvrtc()


__all__ = [
    "Context", "Sorter", "JoinPlan", "SearchResult", "SortResult", "default_context", "sort",
    "sort_by_key",
    "argsort", "merge", "segmented_sort", "reduce", "scan", "segmented_reduce", "sorted_search",
    "load_balance", "interval_expand", "interval_move", "bulk_remove", "bulk_insert",
    "set_operation", "select", "unique", "reduce_by_key", "join",
    "KeyType", "key_type", "struct_source", "driver_version", "nvrtc_version",
    "nvrtc_location", "DeviceArray",
    "MergejitError", "InvalidArgumentError", "DtypeError", "HostMemoryError", "NoDriverError",
    "NoDeviceError", "NoCompilerError", "CompileError", "DeviceMemoryError", "CudaError",
    "CacheError", "UnsupportedError", "TooLargeError", "FileError", "NotInBundleError",
    "RankTimeoutError",
]
