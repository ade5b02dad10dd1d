# SPDX-License-Identifier: Apache-2.0
"""Array holders for the tests: device memory from libcuda through ctypes, shown to mergejit as
__cuda_array_interface__ (DeviceArray) or as a DLPack capsule (DLPackArray), and fake ones
(FakeArray) with made-up addresses for the CPU tests, which never reach the device; and a Gate
that holds a stream's work back until the test opens it."""
import ctypes
import threading

import numpy as np


class FakeArray:
    """A __cuda_array_interface__ with any fields; nothing behind the pointer."""

    def __init__(self, shape, dtype, ptr=0x7F0000000000, strides=None, readonly=False,
                 stream=None, version=3, mask=None):
        dt = np.dtype(dtype)
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": dt.str, "data": (ptr, readonly),
            "version": version, "strides": strides, "descr": dt.descr,
        }
        if stream is not None:
            self.__cuda_array_interface__["stream"] = stream
        if mask is not None:
            self.__cuda_array_interface__["mask"] = mask


# ---------------------------------------------------------------- libcuda

class _Cuda:
    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.check(self.lib.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev),
                   "cuDevicePrimaryCtxRetain")
        u64p = ctypes.POINTER(ctypes.c_uint64)
        for name, args in (("cuMemAlloc_v2", [u64p, ctypes.c_size_t]),
                           ("cuMemcpyHtoD_v2", [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t]),
                           ("cuMemcpyDtoH_v2", [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]),
                           ("cuMemFree_v2", [ctypes.c_uint64]),
                           ("cuStreamDestroy_v2", [ctypes.c_void_p]),
                           ("cuMemHostAlloc", [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t,
                                               ctypes.c_uint]),
                           ("cuMemHostGetDevicePointer_v2", [u64p, ctypes.c_void_p, ctypes.c_uint]),
                           ("cuMemFreeHost", [ctypes.c_void_p]),
                           ("cuStreamWaitValue32_v2", [ctypes.c_void_p, ctypes.c_uint64,
                                                       ctypes.c_uint32, ctypes.c_uint])):
            getattr(self.lib, name).argtypes = args

    def check(self, r, what):
        if r != 0:
            raise RuntimeError("%s failed: CUresult %d" % (what, r))

    def current(self):
        # Every call from the tests' thread runs in the device's primary context, as mergejit's.
        self.check(self.lib.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    def sync(self):
        self.current()
        self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")

    def stream(self):
        s = ctypes.c_void_p()
        self.current()
        self.check(self.lib.cuStreamCreate(ctypes.byref(s), 1), "cuStreamCreate")  # non-blocking
        return s.value


_cuda = None


def cuda():
    global _cuda
    if _cuda is None:
        _cuda = _Cuda()
    return _cuda


class DeviceArray:
    """Device memory from cuMemAlloc holding a copy of a numpy array, shown through
    __cuda_array_interface__ v3 (with `stream` when given)."""

    def __init__(self, host, stream=None):
        host = np.ascontiguousarray(host)
        self.shape, self.dtype = host.shape, host.dtype
        self.nbytes = host.nbytes
        cu = cuda()
        cu.current()
        p = ctypes.c_uint64()
        cu.check(cu.lib.cuMemAlloc_v2(ctypes.byref(p), max(self.nbytes, 1)), "cuMemAlloc")
        self.ptr = p.value
        if self.nbytes:
            cu.check(cu.lib.cuMemcpyHtoD_v2(self.ptr, host.ctypes.data, self.nbytes),
                     "cuMemcpyHtoD")
        # A copy from pageable memory may return before its DMA ends, and work on a
        # non-blocking stream would not wait for it.
        cu.sync()
        self.stream = stream
        self.owner = None           # the array a view was taken of (views free nothing)

    @classmethod
    def empty(cls, shape, dtype, stream=None):
        return cls(np.zeros(shape, dtype), stream)

    def __getitem__(self, key):
        """A view of the first n rows, for key [:n] only (how the package trims outputs)."""
        if not isinstance(key, slice) or key.start not in (None, 0) or key.step not in (None, 1):
            raise TypeError("DeviceArray takes [:n] only")
        rows = self.shape[0]
        n = rows if key.stop is None else max(0, min(key.stop, rows))
        v = object.__new__(DeviceArray)
        v.shape, v.dtype, v.ptr, v.stream = (n,) + self.shape[1:], self.dtype, self.ptr, self.stream
        v.nbytes = self.nbytes // rows * n if rows else 0
        v.owner = self
        return v

    @property
    def __cuda_array_interface__(self):
        cai = {"shape": self.shape, "typestr": self.dtype.str, "descr": self.dtype.descr,
               "data": (self.ptr, False), "version": 3, "strides": None}
        if self.stream is not None:
            cai["stream"] = self.stream
        return cai

    def get(self):
        cu = cuda()
        cu.sync()
        host = np.empty(self.shape, self.dtype)
        if self.nbytes:
            cu.check(cu.lib.cuMemcpyDtoH_v2(host.ctypes.data, self.ptr, self.nbytes),
                     "cuMemcpyDtoH")
        return host

    def __del__(self):
        if _cuda is not None and self.ptr and self.owner is None:
            _cuda.sync()
            _cuda.lib.cuMemFree_v2(self.ptr)
            self.ptr = 0


class Gate:
    """Holds back the work queued on streams until open(): hold(stream) queues a wait
    (cuStreamWaitValue32) on a word of pinned host memory, which open() sets. Work queued behind
    it cannot have run, so a test can tell a call that queued its work from one that waited for
    its stream, and work on the right stream from work on another. A timer opens the gate after
    `limit` seconds, so that a call which waits for a held stream fails its test (.timed_out)
    rather than hanging it. Use it in a with block: leaving opens the gate and waits for the
    device before the word is freed."""

    def __init__(self, limit=30.0):
        cu = cuda()
        cu.current()
        host = ctypes.c_void_p()
        cu.check(cu.lib.cuMemHostAlloc(ctypes.byref(host), 4, 0x3),     # portable, mapped
                 "cuMemHostAlloc")
        self.host = host.value
        self.word = ctypes.c_uint32.from_address(self.host)
        self.word.value = 0
        dev = ctypes.c_uint64()
        cu.check(cu.lib.cuMemHostGetDevicePointer_v2(ctypes.byref(dev), self.host, 0),
                 "cuMemHostGetDevicePointer")
        self.dev = dev.value
        self.timed_out = False
        self._timer = threading.Timer(limit, self._time_out)
        self._timer.daemon = True
        self._timer.start()

    def _time_out(self):
        self.timed_out = True
        self.open()

    def hold(self, stream):
        """Queues the wait on stream (a handle); raises NotImplementedError where the device has
        no stream memory operations."""
        cu = cuda()
        cu.current()
        r = cu.lib.cuStreamWaitValue32_v2(stream, self.dev, 1, 0)   # 0: until the word >= 1
        if r:
            raise NotImplementedError("cuStreamWaitValue32 failed: CUresult %d" % r)

    def open(self):
        self.word.value = 1

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._timer.cancel()
        self.open()
        cuda().sync()
        cuda().lib.cuMemFreeHost(self.host)


# ---------------------------------------------------------------- DLPack

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64),
                ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_DL_CODES = {"i": 0, "u": 1, "f": 2, "b": 6}


class DLPackArray:
    """A DLPack producer over an address (a DeviceArray's, or a fake one): its capsule has no
    deleter, the holder keeps the tensor description alive. The last stream asked for is kept
    in .asked_stream."""

    def __init__(self, ptr, shape, dtype, device_type=2, strides=None, byte_offset=0,
                 owner=None, code=None):
        dt = np.dtype(dtype)
        self.owner = owner
        self._shape = (ctypes.c_int64 * len(shape))(*shape)
        self._strides = (ctypes.c_int64 * len(shape))(*strides) if strides else None
        self._t = _DLManagedTensor(
            ptr, _DLDevice(device_type, 0), len(shape),
            _DLDataType(_DL_CODES[dt.kind] if code is None else code, dt.itemsize * 8, 1),
            self._shape,
            self._strides, byte_offset, None, None)
        self.device_type = device_type
        self.asked_stream = "never"

    @classmethod
    def over(cls, device_array):
        return cls(device_array.ptr, device_array.shape, device_array.dtype, owner=device_array)

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, stream=None):
        self.asked_stream = stream
        return _capsule_new(ctypes.addressof(self._t), b"dltensor", None)
