# SPDX-License-Identifier: Apache-2.0
"""The device transfers the package makes itself, each in stream order: a count read back to the
host on the stream of the run that wrote it (set_operation and join size their outputs with it),
and a device-to-device copy and a zero fill (the sorts that return a new array copy their input
into it first); and a stream's wait and the device count (mergejit.distributed).

libcuda is opened here through ctypes on first use only (the file $MERGEJIT_LIBCUDA names, as
the library does, else libcuda.so.1), so importing the package and compile-only contexts still
need no driver. The copy runs in the device's primary context,
the one the library and the CUDA runtime (CuPy, PyTorch, Numba) use.
"""
from __future__ import annotations

import ctypes
import os
import threading
from typing import Any, Dict, Optional

from ._errors import CudaError, NoDriverError

_lock = threading.Lock()
_cu: Optional[ctypes.CDLL] = None
# device ordinal -> its primary context, retained for the process's life
_primary: Dict[int, Optional[int]] = {}


def _check(cu: ctypes.CDLL, r: int, what: str) -> None:
    if r:
        name = ctypes.c_char_p()
        cu.cuGetErrorName(r, ctypes.byref(name))
        raise CudaError("%s failed: %s" % (what, (name.value or b"CUresult %d" % r).decode()))


def _driver() -> ctypes.CDLL:
    global _cu
    with _lock:
        if _cu is None:
            path = os.environ.get("MERGEJIT_LIBCUDA") or "libcuda.so.1"
            try:
                cu = ctypes.CDLL(path)
            except OSError as e:
                raise NoDriverError("cannot load %s (%s)" % (path, e)) from None
            vp, u64, sz = ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t
            for name, args in (("cuInit", [ctypes.c_uint]),
                               ("cuGetErrorName", [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]),
                               ("cuDeviceGet", [ctypes.POINTER(ctypes.c_int), ctypes.c_int]),
                               ("cuDevicePrimaryCtxRetain", [ctypes.POINTER(vp), ctypes.c_int]),
                               ("cuCtxPushCurrent_v2", [vp]),
                               ("cuCtxPopCurrent_v2", [ctypes.POINTER(vp)]),
                               ("cuMemcpyDtoHAsync_v2", [vp, u64, sz, vp]),
                               ("cuMemcpyDtoDAsync_v2", [u64, u64, sz, vp]),
                               ("cuMemsetD8Async", [u64, ctypes.c_ubyte, sz, vp]),
                               ("cuStreamSynchronize", [vp]),
                               ("cuDeviceGetCount", [ctypes.POINTER(ctypes.c_int)])):
                getattr(cu, name).argtypes = args
                getattr(cu, name).restype = ctypes.c_int
            _check(cu, cu.cuInit(0), "cuInit")
            _cu = cu
        return _cu


def _context(cu: ctypes.CDLL, device: int) -> Optional[int]:
    with _lock:
        ctx = _primary.get(device)
        if ctx is None:
            dev, handle = ctypes.c_int(), ctypes.c_void_p()
            _check(cu, cu.cuDeviceGet(ctypes.byref(dev), device), "cuDeviceGet")
            _check(cu, cu.cuDevicePrimaryCtxRetain(ctypes.byref(handle), dev),
                   "cuDevicePrimaryCtxRetain")
            ctx = _primary[device] = handle.value
        return ctx


def read_u64(device: int, ptr: int, stream: int) -> int:
    """The uint64 at device address ptr, copied in stream order: the host waits for the stream
    (all work queued on it so far) and then returns the value."""
    cu = _driver()
    _check(cu, cu.cuCtxPushCurrent_v2(_context(cu, device)), "cuCtxPushCurrent")
    try:
        host = ctypes.c_uint64()
        _check(cu, cu.cuMemcpyDtoHAsync_v2(ctypes.byref(host), ptr, 8, stream),
               "cuMemcpyDtoHAsync (reading the count back)")
        _check(cu, cu.cuStreamSynchronize(stream), "cuStreamSynchronize")
    finally:
        cu.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
    return host.value


def _async(device: int, what: str, fn: str, *args: Any) -> None:
    cu = _driver()
    _check(cu, cu.cuCtxPushCurrent_v2(_context(cu, device)), "cuCtxPushCurrent")
    try:
        _check(cu, getattr(cu, fn)(*args), what)
    finally:
        cu.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))


def copy(device: int, dst: int, src: int, nbytes: int, stream: int) -> None:
    """Queues a copy of nbytes from device address src to dst on stream; returns at once."""
    if nbytes:
        _async(device, "cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2", dst, src, nbytes, stream)


def zero(device: int, dst: int, nbytes: int, stream: int) -> None:
    """Queues nbytes of zeros at device address dst on stream; returns at once."""
    if nbytes:
        _async(device, "cuMemsetD8Async", "cuMemsetD8Async", dst, 0, nbytes, stream)


def sync(device: int, stream: int) -> None:
    """Waits for the work queued on stream so far."""
    _async(device, "cuStreamSynchronize", "cuStreamSynchronize", stream)


def device_count() -> int:
    """The number of CUDA devices (0 when the driver has none)."""
    cu = _driver()
    n = ctypes.c_int()
    return n.value if cu.cuDeviceGetCount(ctypes.byref(n)) == 0 else 0
