# SPDX-License-Identifier: Apache-2.0
"""mergejit.distributed: its refusals (CPU), one rank of one on the GPU against numpy, and two
processes under torchrun (examples/python/torchrun_sort.py) where there are two GPUs, PyTorch
and NCCL. NCCL is the one mergejit opens ($MERGEJIT_NCCL, else libnccl.so.2)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import mergejit
import mergejit.distributed as md

EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                       "python", "torchrun_sort.py")


def _uid():
    try:
        return md.unique_id()
    except mergejit.UnsupportedError as e:
        pytest.skip("no NCCL: %s" % e.message)
    except mergejit.CudaError as e:       # NCCL found no network interface for its bootstrap
        assert "ncclGetUniqueId" in e.message
        pytest.skip(e.message)


def test_unique_id_is_128_fresh_bytes():
    a, b = _uid(), _uid()
    assert isinstance(a, bytes) and len(a) == 128 and a != b
    assert md.nccl_version() >= 2700


def test_bad_ids_are_refused_before_any_device_work():
    for bad in (b"", b"x" * 127, "x" * 128, None):
        with pytest.raises(mergejit.InvalidArgumentError, match="128 bytes"):
            md.Communicator(1, 0, bad)


def test_timeout_error_is_a_timeout():
    assert issubclass(mergejit.RankTimeoutError, TimeoutError)
    assert issubclass(mergejit.RankTimeoutError, mergejit.MergejitError)


@pytest.fixture(scope="module")
def one_rank(gpu):
    uid = _uid()
    with md.Communicator(1, 0, uid, context=gpu, timeout=60) as comm:
        yield comm


def test_one_rank_sorts_as_numpy(one_rank):
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(5)
    for n in (0, 1, 1000, 300007):
        host = rng.integers(0, 1000, n).astype(np.uint32)
        keys = cupy.asarray(host)
        out = md.sort(keys, comm=one_rank)
        assert np.array_equal(cupy.asnumpy(out), np.sort(host, kind="stable"))
        assert np.array_equal(cupy.asnumpy(keys), host)          # the input is left as it was
        vals = cupy.arange(n, dtype=cupy.int64)
        ok, ov = md.sort(keys, vals, comm=one_rank, descending=True)
        order = np.argsort(-host.astype(np.int64), kind="stable")
        assert np.array_equal(cupy.asnumpy(ok), host[order])
        assert np.array_equal(cupy.asnumpy(ov), order)


def test_one_rank_refuses_bad_arguments(one_rank):
    cupy = pytest.importorskip("cupy")
    keys = cupy.zeros(10, dtype=cupy.float32)
    with pytest.raises(mergejit.InvalidArgumentError, match="values has 9 elements"):
        md.sort(keys, cupy.zeros(9, dtype=cupy.int32), comm=one_rank)
    with pytest.raises(mergejit.InvalidArgumentError, match="1-D"):
        md.sort(cupy.zeros((2, 5), dtype=cupy.float32), comm=one_rank)


def _two_gpus():
    try:
        import torch
    except ImportError:
        return "no PyTorch"
    if torch.cuda.device_count() < 2:
        return "fewer than 2 GPUs"
    if not shutil.which("torchrun"):
        return "no torchrun"
    return None


@pytest.mark.skipif(_two_gpus() is not None, reason=str(_two_gpus()))
def test_two_processes_under_torchrun(cache_dir):
    _uid()
    env = dict(os.environ, MERGEJIT_CACHE_DIR=cache_dir, NCCL_NVLS_ENABLE="0",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run(["torchrun", "--nproc_per_node=2", EXAMPLE, "1000003"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout
    lines = [line for line in r.stdout.splitlines() if "sorted and checked" in line]
    assert len(lines) == 2, r.stdout


def test_a_callers_communicator_is_wrapped_not_owned(one_rank, gpu):
    cupy = pytest.importorskip("cupy")
    wrapped = md.Communicator.from_handle(one_rank.handle, gpu, timeout=60)
    assert (wrapped.rank, wrapped.ranks) == (0, 1)
    host = np.random.default_rng(9).integers(-50, 50, 10007).astype(np.int64)
    out = md.sort(cupy.asarray(host), comm=wrapped)
    assert np.array_equal(cupy.asnumpy(out), np.sort(host, kind="stable"))
    wrapped.close()                                   # the caller's communicator stays
    out = md.sort(cupy.asarray(host), comm=one_rank, descending=True)
    assert np.array_equal(cupy.asnumpy(out), -np.sort(-host, kind="stable"))


def test_one_rank_sorts_records_and_bfloat16(one_rank):
    cupy = pytest.importorskip("cupy")
    rec = np.dtype([("x", "f4"), ("id", "u4")])
    host = np.zeros(5003, rec)
    host["x"] = np.random.default_rng(3).integers(0, 50, host.size)
    host["id"] = np.arange(host.size)
    out = md.sort(cupy.asarray(host.view(np.uint8)), comm=one_rank, dtype=rec,
                  less="a.x < b.x")
    assert out.dtype == cupy.uint8 and out.size == host.nbytes
    want = host[np.argsort(host["x"], kind="stable")]
    assert (cupy.asnumpy(out).view(rec) == want).all()
    pytest.importorskip("ml_dtypes")                 # bfloat16 needs it
    torch = pytest.importorskip("torch")
    t = torch.randn(4001, device="cuda").to(torch.bfloat16)
    got = md.sort(t, comm=one_rank)
    assert got.dtype == torch.bfloat16 and torch.equal(got, torch.sort(t, stable=True).values)
