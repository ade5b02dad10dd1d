# SPDX-License-Identifier: Apache-2.0
"""Sorting across GPUs over NCCL, one process a GPU (torchrun, mpirun, or any launcher):
every process holds a shard of the keys; afterwards rank r holds a sorted run, every key of
rank r ordered before every key of rank r + 1, stably across ranks (equal keys keep their order
in the shards taken in rank order). The C library's mj_multi_sort (docs/c-api.md, "Sorting
across GPUs").

The communicator is mergejit's own, made through the NCCL library that mergejit opens
($MERGEJIT_NCCL, else libnccl.so.2 as dlopen finds it; PyTorch's is in its nvidia/nccl/lib):

    import torch.distributed as dist, mergejit.distributed as md
    dist.init_process_group("nccl")                      # torchrun's environment
    comm = md.Communicator.from_process_group()          # the group hands over NCCL's id
    keys = md.sort(shard, comm=comm)                     # this rank's part of the sorted whole

or, without torch.distributed, md.unique_id() on one process, its 128 bytes handed to the
others as the launcher can (mpi4py's bcast, a file), and Communicator(ranks, rank, id) on each.
Every rank must call sort (with the same dtype and order) for every sort: it is collective.
"""
from __future__ import annotations

import ctypes
import os
from typing import Any, Dict, Optional, Tuple, Union, overload

import numpy as np

from . import _driver, _lib
from ._arrays import as_array, call_stream, empty_like, stream_handle
from ._core import Context, _check_stable, _new, _sort_order, default_context, sort_desc
from ._dtypes import key_type
from ._errors import InvalidArgumentError, UnsupportedError, error_for
from ._lib import lib
from ._typing import DeviceArray, DTypeLike, Order, StreamLike

__all__ = ["Communicator", "unique_id", "sort", "nccl_version"]


def nccl_version() -> int:
    """NCCL's version as the library found it (22809 for 2.28.9), or 0 without NCCL."""
    return int(lib.mj_nccl_version())


def unique_id() -> bytes:
    """A new NCCL unique id (128 bytes), made by one process and handed to every rank."""
    buf = ctypes.create_string_buffer(_lib.MULTI_ID_BYTES)
    err = ctypes.create_string_buffer(1024)
    st = lib.mj_multi_id_create(buf, err, len(err))
    if st:
        raise error_for(lib.mj_status_name(st).decode(), err.value.decode(errors="replace"))
    return buf.raw


def _local_device(rank: int) -> int:
    """The device of a rank that names none: $LOCAL_RANK (torchrun's, and the
    OMPI_COMM_WORLD_LOCAL_RANK of Open MPI), else the rank, modulo the devices."""
    for var in ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"):
        if os.environ.get(var, "").isdigit():
            local = int(os.environ[var])
            break
    else:
        local = rank
    count = _driver.device_count()
    return local % count if count else local


class Communicator:
    """This process's rank of an NCCL communicator for mergejit's sorts across GPUs.

    Communicator(ranks, rank, uid): made with ncclCommInitRank over uid (unique_id() of one
    process); collective: returns when every rank has made its own. device: this rank's GPU
    (default: context's device when context is given, else $LOCAL_RANK or the rank, modulo the
    devices). Communicator.from_process_group(group) makes one over a torch.distributed group
    (any backend: it only carries the id). Communicator.from_handle(handle, context) wraps an
    ncclComm_t that the caller made with the same NCCL library and keeps owning.

    timeout: seconds each collective step of a sort waits for the other ranks before it aborts
    the communicator and raises RankTimeoutError (0: for ever; default 600 s or
    $MERGEJIT_MULTI_TIMEOUT). close() destroys a communicator made here (after every sort's
    work is finished)."""

    def __init__(self, ranks: int, rank: int, uid: bytes, *, device: Optional[int] = None,
                 context: Optional[Context] = None, timeout: Optional[float] = None) -> None:
        self._h: Optional[int] = None
        self._owned = True
        if not isinstance(uid, (bytes, bytearray)) or len(uid) != _lib.MULTI_ID_BYTES:
            raise InvalidArgumentError("uid must be the %d bytes of unique_id() (got %r)"
                                       % (_lib.MULTI_ID_BYTES, type(uid).__name__))
        self.context = self._context_for(rank, device, context)
        self.rank, self.ranks, self.timeout = rank, ranks, timeout
        self._sorters: Dict[Tuple[Any, ...], int] = {}
        handle = ctypes.c_void_p()
        buf = ctypes.create_string_buffer(bytes(uid), _lib.MULTI_ID_BYTES)
        st = lib.mj_multi_comm_create(self.context._handle(), buf, ranks, rank,
                                      ctypes.byref(handle))
        if st:
            self.context._raise(st)
        self._h = handle.value

    @staticmethod
    def _context_for(rank: int, device: Optional[int], context: Optional[Context]) -> Context:
        if context is not None:
            if device is not None and device != context.device:
                raise InvalidArgumentError("device=%d but context is on device %d"
                                           % (device, context.device))
            return context
        return default_context(_local_device(rank) if device is None else device)

    @classmethod
    def from_process_group(cls, group: Any = None, *, device: Optional[int] = None,
                           context: Optional[Context] = None,
                           timeout: Optional[float] = None) -> Communicator:
        """A communicator over the ranks of a torch.distributed process group (None: the
        default group): its rank 0 makes the id, the group broadcasts it. device default:
        torch.cuda.current_device() (set it to the rank's GPU first, as torchrun programs do)."""
        import torch
        import torch.distributed as dist
        if not dist.is_initialized():
            raise InvalidArgumentError("torch.distributed is not initialised: call "
                                       "dist.init_process_group first")
        rank, ranks = dist.get_rank(group), dist.get_world_size(group)
        if device is None and context is None:
            device = torch.cuda.current_device()
        box = [unique_id() if rank == 0 else None]
        src = dist.get_global_rank(group, 0) if group is not None else 0
        dist.broadcast_object_list(box, src=src, group=group)
        uid = box[0]
        assert isinstance(uid, bytes)
        return cls(ranks, rank, uid, device=device, context=context, timeout=timeout)

    @classmethod
    def from_handle(cls, handle: int, context: Context, *,
                    timeout: Optional[float] = None) -> Communicator:
        """Wraps the caller's ncclComm_t (an int), made with the NCCL library mergejit opens,
        on context's device; close() leaves it to the caller."""
        self = cls.__new__(cls)
        self._h, self._owned, self.context, self.timeout = int(handle), False, context, timeout
        self._sorters = {}
        self.rank, self.ranks = -1, 0
        m = self._sorter(np.dtype(np.uint32), "ascending", None, "record", 0)
        r, n = ctypes.c_int(), ctypes.c_int()
        lib.mj_multi_sorter_rank(m, ctypes.byref(r), ctypes.byref(n))
        self.rank, self.ranks = r.value, n.value
        return self

    @property
    def handle(self) -> int:
        """The ncclComm_t, as an int."""
        if self._h is None:
            raise InvalidArgumentError("the communicator is closed")
        return self._h

    def _sorter(self, dtype: np.dtype[Any], order: Order, less: Optional[str], type_name: str,
                value_size: int) -> int:
        key = (dtype, order, less, type_name, value_size)     # numpy dtypes hash by value
        m = self._sorters.get(key)
        if m is not None:
            return m
        d = sort_desc(key_type(dtype, type_name), "mergesort", order=order, less=less,
                      value_size=value_size)
        out = ctypes.c_void_p()
        st = lib.mj_multi_sorter_create(self.context._handle(), ctypes.byref(d), self.handle,
                                        ctypes.byref(out))
        if st:
            self.context._raise(st)
        assert out.value is not None
        if self.timeout is not None:
            st = lib.mj_multi_sorter_set_timeout(out.value, float(self.timeout))
            if st:
                lib.mj_multi_sorter_destroy(out.value)
                self.context._raise(st)
        self._sorters[key] = out.value
        return out.value

    def close(self) -> None:
        """Destroys the sorters made for this communicator and, when made here, the
        communicator (the sorts' work must be finished)."""
        for m in self._sorters.values():
            lib.mj_multi_sorter_destroy(m)
        self._sorters.clear()
        if self._h is not None and self._owned:
            arr = (ctypes.c_void_p * 1)(self._h)
            lib.mj_multi_comms_destroy(1, arr)
        self._h = None

    def __enter__(self) -> Communicator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<mergejit.distributed.Communicator rank %d of %d on device %d>" % (
            self.rank, self.ranks, self.context.device)


@overload
def sort(keys: DeviceArray, values: None = None, *, comm: Communicator,
         descending: bool = False, stable: Optional[bool] = True, order: Optional[Order] = None,
         less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
         type_name: str = "record", stream: StreamLike = None) -> DeviceArray: ...


@overload
def sort(keys: DeviceArray, values: DeviceArray, *, comm: Communicator,
         descending: bool = False, stable: Optional[bool] = True, order: Optional[Order] = None,
         less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
         type_name: str = "record",
         stream: StreamLike = None) -> Tuple[DeviceArray, DeviceArray]: ...


def sort(keys: DeviceArray, values: Optional[DeviceArray] = None, *, comm: Communicator,
         descending: bool = False, stable: Optional[bool] = True, order: Optional[Order] = None,
         less: Optional[str] = None, dtype: Optional[DTypeLike] = None,
         type_name: str = "record",
         stream: StreamLike = None) -> Union[DeviceArray, Tuple[DeviceArray, DeviceArray]]:
    """Collective: this rank's shard of keys (and values, any dtype, 1..64 bytes a key) sorted
    with every other rank's. Returns new arrays like the inputs holding this rank's part of the
    sorted whole (their length is this rank's count, known when the call returns); the inputs
    are left as they are. Order keywords as mergejit.sort's. Blocks until every rank has agreed
    on the counts; the exchange and merge are then queued on the stream."""
    _check_stable(stable)
    order = _sort_order(order, descending, less)
    st = stream_handle(stream)
    k = as_array(keys, "keys", st, dtype)
    if len(k.shape) != 1:
        raise InvalidArgumentError("keys must be 1-D (got shape %s)" % (k.shape,))
    v = as_array(values, "values", st) if values is not None else None
    if v is not None and v.n != k.n:
        raise InvalidArgumentError("values has %d elements for %d keys" % (v.n, k.n))
    if k.device is not None and k.device != comm.context.device:
        raise InvalidArgumentError("keys are on device %d, the communicator's rank on device %d"
                                   % (k.device, comm.context.device))
    if comm.context.compile_only:
        raise UnsupportedError("a compile-only context sorts nothing")
    vs = v.row_bytes if v is not None else 0
    m = comm._sorter(k.dtype, order, less, type_name, vs)
    strm = call_stream(st, (k, v))
    dev = comm.context.device
    # Phase 1 sorts in place: on copies, so that the inputs stay as they are.
    kc = as_array(empty_like(k, (k.n * k.row_bytes,), np.uint8, "keys"), "keys", st)
    vc = as_array(empty_like(v, (v.n * v.row_bytes,), np.uint8, "values"), "values", st) \
        if v is not None else None
    _driver.copy(dev, kc.ptr, k.ptr, k.n * k.row_bytes, strm)
    if v is not None and vc is not None:
        _driver.copy(dev, vc.ptr, v.ptr, v.n * v.row_bytes, strm)
    count = ctypes.c_size_t()
    rc = lib.mj_multi_sort_plan(m, kc.ptr, vc.ptr if vc is not None else None, k.n,
                                ctypes.byref(count), strm)
    if rc:
        comm.context._raise(rc)
    n = count.value
    out_k = _new(k, n, k.dtype, "keys")         # records (and unknown dtypes) as bytes
    out_v = empty_like(v, (n,) + v.shape[1:], v.dtype, "values") if v is not None else None
    ok = as_array(out_k, "out keys", st)
    ov = as_array(out_v, "out values", st) if out_v is not None else None
    rc = lib.mj_multi_sort_finish(m, ok.ptr if n else None,
                                  ov.ptr if ov is not None and n else None, strm)
    if rc:
        comm.context._raise(rc)
    # The copies must live until the queued exchange has read them.
    _driver.sync(dev, strm)
    del kc, vc
    return out_k if out_v is None else (out_k, out_v)
