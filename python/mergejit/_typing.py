# SPDX-License-Identifier: Apache-2.0
"""The type aliases of the package's annotations.

Arrays are duck-typed: the package reads any object with __cuda_array_interface__ or
__dlpack__ (CuPy, PyTorch, Numba, cuda.core) and returns new arrays of the input's own library.
No protocol says both "either of two attributes" and "what comes back is the caller's own
cupy.ndarray or torch.Tensor", so DeviceArray is Any: annotations name it for the reader, and
a type checker neither refuses a caller's arrays nor loses the type of what comes back (it is
the caller's library's, and typed as that library types it). The arguments are checked at run
time (InvalidArgumentError, DtypeError, TypeError, each saying why).

Everything here is plain typing (3.8's): the package depends on nothing but numpy.
"""
from typing import TYPE_CHECKING, Any, Literal, Sequence

if TYPE_CHECKING:
    from numpy.typing import DTypeLike
else:  # numpy.typing is numpy 1.20's; at run time the alias only has to exist.
    DTypeLike = Any

DeviceArray = Any
"""A device array: an object with __cuda_array_interface__ (v2, v3) or __dlpack__ (a CuPy
array, a PyTorch tensor on the GPU, a Numba device array, ...), C-contiguous. Any, for the
reasons the module says."""

ArrayPair = Sequence[DeviceArray]
"""Two device arrays, (keys, values) or (values, indices): a tuple or a list."""

StreamLike = Any
"""A CUDA stream: a CUstream handle (int; 0 the legacy default stream), an object with
__cuda_stream__, a CuPy stream (.ptr) or a PyTorch stream (.cuda_stream); None: the call's
default (the array interface's stream, PyTorch's current one, else the legacy default)."""

Order = Literal["ascending", "descending", "asc", "desc"]
"""A built-in order's name."""

Bound = Literal["lower", "upper"]
"""sorted_search's bound: numpy.searchsorted's side "left" and "right"."""

SegmentKind = Literal["offsets", "heads", "flags", "flag_bits"]
"""How segmented_sort's segments are given."""

SetOp = Literal["intersection", "union", "difference", "symmetric_difference"]
"""A multiset operation of set_operation."""

JoinKind = Literal["inner", "left", "right", "outer"]
"""A relational join of join."""

SelectKind = Literal["if", "unique"]
"""What Sorter.select keeps."""

__all__ = ["DeviceArray", "ArrayPair", "StreamLike", "DTypeLike", "Order", "Bound",
           "SegmentKind", "SetOp", "JoinKind", "SelectKind"]
