# SPDX-License-Identifier: Apache-2.0
"""Device arrays from __cuda_array_interface__ (v2, v3) or __dlpack__, used in place, and the
stream a call runs on."""
from __future__ import annotations

import ctypes
import sys
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from ._errors import DtypeError, InvalidArgumentError, MergejitError
from ._typing import DeviceArray, DTypeLike, StreamLike


class Array:
    """What a call needs of a device array: its address, element count, dtype, bytes per
    element (the product of the trailing dimensions), the stream its interface names (None
    when it names none) and the object itself (kept alive for the call)."""

    __slots__ = ("obj", "ptr", "n", "dtype", "row_bytes", "shape", "readonly", "stream",
                 "device")
    obj: DeviceArray
    ptr: int
    n: int
    dtype: np.dtype[Any]
    row_bytes: int
    shape: Tuple[int, ...]
    readonly: bool
    stream: Optional[int]
    device: Optional[int]

    def __init__(self, obj: DeviceArray, ptr: int, shape: Tuple[int, ...], dtype: np.dtype[Any],
                 readonly: bool, stream: Optional[int], device: Optional[int]) -> None:
        self.obj, self.ptr, self.shape, self.dtype = obj, ptr, shape, dtype
        self.readonly, self.stream, self.device = readonly, stream, device
        self.n = shape[0] if shape else 1
        row = 1
        for d in shape[1:]:
            row *= d
        self.row_bytes = row * dtype.itemsize


_typestr_cache: Dict[str, np.dtype[Any]] = {}


def _cai_dtype(cai: Mapping[str, Any]) -> np.dtype[Any]:
    descr = cai.get("descr")
    typestr = cai["typestr"]
    if descr is None or (len(descr) == 1 and not descr[0][0]):
        dt = _typestr_cache.get(typestr)
        if dt is None:
            dt = _typestr_cache[typestr] = np.dtype(typestr)
        return dt
    key = repr(descr)
    dt = _typestr_cache.get(key)
    if dt is None:
        # descr lists padding as nameless fields, which np.dtype(descr) refuses.
        from numpy.lib import format as npy_format
        # (typed by numpy 2, not by older ones)
        descr_to_dtype: Callable[[Any], np.dtype[Any]] = npy_format.descr_to_dtype
        dt = _typestr_cache[key] = descr_to_dtype(descr)
    return dt


def _check_contiguous(shape: Tuple[int, ...], strides: Optional[Sequence[int]], itemsize: int,
                      what: str) -> None:
    if strides is None or 0 in shape:
        return
    expect = itemsize
    for dim, stride in zip(reversed(shape), reversed(strides)):
        if dim != 1 and stride != expect:
            raise InvalidArgumentError(
                "%s is not C-contiguous (shape %s, strides %s bytes): mergejit works in place "
                "on contiguous arrays; pass a contiguous copy (e.g. cupy.ascontiguousarray)"
                % (what, tuple(shape), tuple(strides)))
        expect *= dim


def _from_cai(obj: DeviceArray, cai: Mapping[str, Any], what: str) -> Array:
    version = cai.get("version", 0)
    if version < 2:
        raise InvalidArgumentError("%s: __cuda_array_interface__ version %s, mergejit reads "
                                   "version 2 and 3" % (what, version))
    if cai.get("mask") is not None:
        raise InvalidArgumentError("%s is a masked array: mergejit takes no masks" % what)
    shape = tuple(cai["shape"])
    dtype = _cai_dtype(cai)
    _check_contiguous(shape, cai.get("strides"), dtype.itemsize, what)
    ptr, readonly = cai["data"]
    return Array(obj, ptr or 0, shape, dtype, bool(readonly), cai.get("stream"), None)


# DLPack's C structs (dlpack.h, ABI of 0.x, the unversioned "dltensor" capsule).
class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


_DL_CUDA, _DL_CUDA_MANAGED = 2, 13
_DL_CODES = {0: "i", 1: "u", 2: "f", 6: "b"}
_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dl_dtype(t: _DLTensor, what: str) -> np.dtype[Any]:
    code, bits, lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
    if lanes != 1:
        raise DtypeError("%s: DLPack dtype with %d lanes: mergejit takes one lane" % (what, lanes))
    if code == 4 and bits == 16:
        try:
            import ml_dtypes
        except ImportError:
            raise DtypeError("%s holds bfloat16, which numpy knows only through the ml_dtypes "
                             "package: install it" % what) from None
        bf16: np.dtype[Any] = np.dtype(ml_dtypes.bfloat16)
        return bf16
    kind = _DL_CODES.get(code)
    if kind is None or bits % 8:
        raise DtypeError("%s: DLPack dtype code %d with %d bits is not one mergejit sorts"
                         % (what, code, bits))
    return np.dtype("?" if kind == "b" else "%s%d" % (kind, bits // 8))


def _not_on_gpu(obj: Any, what: str, device_type: Optional[int] = None) -> MergejitError:
    """The error for an array outside device memory, saying how to move it there: a NumPy
    array (or a CPU tensor) is the usual one."""
    if isinstance(obj, np.ndarray):
        return InvalidArgumentError(
            "%s: this is a NumPy array in host memory, and mergejit works on GPU arrays; move "
            "it with cupy.asarray(%s) or torch.as_tensor(%s, device='cuda')" % (what, what, what))
    mod = type(obj).__module__.split(".")[0]
    if mod == "torch":
        return InvalidArgumentError(
            "%s: this is a PyTorch tensor in host memory (device %s), and mergejit works on GPU "
            "arrays; move it with %s.cuda() or torch.as_tensor(%s, device='cuda')"
            % (what, getattr(obj, "device", "cpu"), what, what))
    return InvalidArgumentError(
        "%s: this is a %s.%s in host memory (DLPack device type %s), and mergejit works on GPU "
        "arrays; move it with cupy.asarray(%s) or torch.as_tensor(%s, device='cuda')"
        % (what, mod, type(obj).__name__, device_type, what, what))


def _from_dlpack(obj: DeviceArray, stream: Optional[int], what: str) -> Array:
    dev = getattr(obj, "__dlpack_device__", None)
    if dev is not None:
        dtype_, _ = dev()
        if dtype_ not in (_DL_CUDA, _DL_CUDA_MANAGED):
            raise _not_on_gpu(obj, what, dtype_)
    # The producer orders its pending work before the consumer's stream: 1 is CUDA's legacy
    # default stream (0 is not allowed in the protocol).
    capsule = obj.__dlpack__(stream=stream or 1)
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    if t.device.device_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise _not_on_gpu(obj, what, t.device.device_type)
    dtype = _dl_dtype(t, what)
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = None
    if t.strides:
        strides = tuple(t.strides[i] * dtype.itemsize for i in range(t.ndim))
    _check_contiguous(shape, strides, dtype.itemsize, what)
    ptr = (t.data or 0) + t.byte_offset
    # The capsule is dropped unconsumed: its destructor releases the producer's export, while
    # obj itself keeps the memory alive for the call.
    return Array(obj, ptr, shape, dtype, False, None, t.device.device_id)


def _interface(obj: Any) -> Optional[Mapping[str, Any]]:
    try:
        return getattr(obj, "__cuda_array_interface__", None)
    except Exception:
        # PyTorch refuses the interface for some tensors (bfloat16) that DLPack carries.
        if hasattr(obj, "__dlpack__"):
            return None
        raise


def as_array(obj: Union[DeviceArray, Array], what: str, stream: Optional[int] = None,
             dtype: Optional[DTypeLike] = None) -> Array:
    """The Array for obj; dtype views its memory as a 1-D array of that dtype."""
    if isinstance(obj, np.ndarray):
        # Before any protocol: numpy's DLPack says only "CPU", and older numpys have none.
        raise _not_on_gpu(obj, what)
    cai = None if isinstance(obj, Array) else _interface(obj)
    if isinstance(obj, Array):
        a = obj
    elif cai is not None:
        a = _from_cai(obj, cai, what)
        if a.dtype.kind == "V" and a.dtype.fields is None and hasattr(obj, "__dlpack__"):
            # An opaque typestr ("<V2": PyTorch's and CuPy's bfloat16) names no type; DLPack
            # does. The work stays on the interface's stream, which the export is told.
            consumer = stream if stream is not None else a.stream
            a = _from_dlpack(obj, consumer, what)
            a.stream = consumer
    elif hasattr(obj, "__dlpack__"):
        a = _from_dlpack(obj, stream, what)
    else:
        raise TypeError("%s: %s is not a GPU array (it has neither __cuda_array_interface__ "
                        "nor __dlpack__): make one with cupy.asarray(x) or "
                        "torch.as_tensor(x, device='cuda')" % (what, type(obj).__name__))
    if dtype is not None:
        dt = np.dtype(dtype)
        if dt != a.dtype:
            # numpy's .view(dtype) of the whole (contiguous) array, flattened: CuPy and
            # PyTorch have no structured dtypes, so records often travel as bytes.
            total = a.n * a.row_bytes if a.shape else a.dtype.itemsize
            if total % dt.itemsize:
                raise DtypeError("%s: its %d bytes are not a whole number of dtype=%s elements "
                                 "(%d bytes each)" % (what, total, dt, dt.itemsize))
            a.shape, a.n, a.dtype, a.row_bytes = (total // dt.itemsize,), total // dt.itemsize, \
                dt, dt.itemsize
    return a


def stream_handle(stream: StreamLike) -> Optional[int]:
    """A CUstream handle (int) from an int, an object with __cuda_stream__ (cuda.core's
    protocol: (version, handle)), a CuPy stream (.ptr) or a PyTorch stream (.cuda_stream)."""
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        value = proto() if callable(proto) else proto
        return int(value[1])
    for attr in ("cuda_stream", "ptr", "handle"):
        value = getattr(stream, attr, None)
        if isinstance(value, int):
            return value
    raise TypeError("stream=%r: give a CUstream handle (int) or a stream object with "
                    "__cuda_stream__" % (stream,))


def call_stream(stream: Optional[int], arrays: Iterable[Optional[Array]]) -> int:
    """The stream of a call: stream= (already a handle), else the first array interface that
    names one, else the current stream of PyTorch for its tensors, else 0, the legacy default
    stream."""
    if stream is not None:
        return stream
    for a in arrays:
        if a is not None and a.stream is not None:
            return a.stream
    torch = sys.modules.get("torch")
    if torch is not None:
        for a in arrays:
            if a is not None and isinstance(a.obj, torch.Tensor) and a.obj.is_cuda:
                return int(torch.cuda.current_stream(a.obj.device).cuda_stream)
    return 0


def empty_like(a: Array, shape: Tuple[int, ...], dtype: DTypeLike, what: str) -> DeviceArray:
    """A new device array from the library that made `a` (CuPy, PyTorch, Numba): mergejit has
    no allocator of its own. Other arrays need the output passed in."""
    obj = a.obj
    mod = type(obj).__module__.split(".")[0]
    dt = np.dtype(dtype)
    if mod == "cupy":
        import cupy
        with obj.device:
            return cupy.empty(shape, dtype=dt)
    if mod == "torch":
        import torch
        tdt = getattr(torch, dt.name, None)
        if tdt is None:
            raise InvalidArgumentError("%s: pass it as an argument (no PyTorch dtype for %s)"
                                       % (what, dt))
        return torch.empty(shape, dtype=tdt, device=obj.device)
    if mod == "numba":
        from numba import cuda
        return cuda.device_array(shape, dtype=dt)
    raise InvalidArgumentError(
        "%s: pass it as an argument (mergejit allocates outputs only like CuPy, PyTorch and "
        "Numba arrays, and this is a %s)" % (what, type(obj).__name__))
