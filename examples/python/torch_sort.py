# SPDX-License-Identifier: Apache-2.0
"""mergejit with PyTorch: int64 keys sorted with their values on the tensors' current stream,
and records of a structured dtype (a byte tensor viewed as the dtype) sorted by a comparator,
each checked against torch.sort or numpy's stable sort.

    python3 torch_sort.py [n]

Without PyTorch, a driver or a GPU it still checks what runs on the CPU (the record's CUDA
struct, and the comparator compiled by NVRTC for sm_90 in a compile-only context), says what
it skipped, and exits 0."""
import sys

import numpy
import mergejit

REC = numpy.dtype([("key", "i8"), ("weight", "f4"), ("tag", "u2")], align=True)  # 16 bytes
LESS = "a.key < b.key || (a.key == b.key && a.weight < b.weight)"


def cpu_checks():
    """What needs no GPU: the struct mergejit declares for REC, and the comparator compiling."""
    source, size, align = mergejit.struct_source(REC)
    print("%s(%d bytes, aligned to %d)" % (source, size, align))
    if mergejit.nvrtc_version() == 0:
        print("skipped: the compile check (libnvrtc not found)")
        return
    with mergejit.Context(compile_only=True, target_sm=90, disk_cache=False,
                          tuning_file="") as ctx:
        mergejit.Sorter(REC, less=LESS, context=ctx)
    print("the comparator compiles for sm_90")


def gpu_sorts(torch, n):
    keys = torch.randint(0, 1000, (n,), dtype=torch.int64, device="cuda")
    values = torch.arange(n, dtype=torch.int32, device="cuda")
    want_keys, want_values = torch.sort(keys, stable=True)
    got_keys, got_values = mergejit.sort_by_key(keys, values)   # new tensors, stable
    assert torch.equal(got_keys, want_keys) and torch.equal(got_values.long(), want_values)
    sorted_keys, indices = mergejit.sort(keys, descending=True, return_indices=True)
    want_keys, want_indices = torch.sort(keys, descending=True, stable=True)
    assert torch.equal(sorted_keys, want_keys) and torch.equal(indices, want_indices)
    print("sorted %d int64 keys with int32 values, and with their indices, as "
          "torch.sort(stable=True)" % n)

    host = numpy.zeros(n, REC)
    host["key"] = numpy.random.randint(0, 100, n)
    host["weight"] = numpy.random.rand(n)
    host["tag"] = numpy.arange(n) % 65536
    records = torch.as_tensor(host.view(numpy.uint8), device="cuda")   # bytes, zero padding
    mergejit.sort(records, out=records, dtype=REC, less=LESS)          # in place
    got = records.cpu().numpy().view(REC)
    want = host[numpy.lexsort((host["weight"], host["key"]))]
    assert got.tobytes() == want.tobytes()             # records move as bytes, padding too
    print("sorted %d 16-byte records by a comparator" % n)


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 1 << 20
    if n <= 0:
        sys.exit("usage: torch_sort.py [n > 0]")
    cpu_checks()
    try:
        import torch
    except ImportError:
        print("skipped: the GPU sorts (PyTorch is not installed)")
        return 0
    if not torch.cuda.is_available():
        print("skipped: the GPU sorts (torch.cuda.is_available() is False)")
        return 0
    gpu_sorts(torch, n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
