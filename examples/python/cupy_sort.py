# SPDX-License-Identifier: Apache-2.0
"""mergejit with CuPy: float keys sorted descending, then records of a structured dtype sorted
by a comparator and ranked by another, each checked against numpy's stable sort.

    python3 cupy_sort.py [n]

Without CuPy, a driver or a GPU it still checks what runs on the CPU (the record's CUDA struct,
and the comparator compiled by NVRTC for sm_90 in a compile-only context), says what it
skipped, and exits 0."""
import sys

import numpy
import mergejit

REC = numpy.dtype([("x", "f4"), ("id", "u4")])
LESS = "a.x < b.x || (a.x == b.x && a.id > b.id)"     # x up, then id down


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


def gpu_sorts(cupy, n):
    x = cupy.random.rand(n, dtype=cupy.float32)
    host = x.get()
    want = numpy.sort(host)[::-1]
    y = mergejit.sort(x, descending=True)               # a new array, stable, NaNs last
    assert numpy.array_equal(y.get(), want) and numpy.array_equal(x.get(), host)
    print("sorted %d float32 keys, descending" % n)

    host = numpy.zeros(n, REC)
    host["x"] = numpy.random.randint(0, 10, n)
    host["id"] = numpy.arange(n)
    records = cupy.asarray(host.view(numpy.uint8))      # CuPy has no structured dtypes: bytes
    mergejit.sort(records, out=records, dtype=REC, less=LESS)   # in place
    order = mergejit.argsort(records, dtype=REC, less="a.id < b.id")   # a new int64 array
    want = host[numpy.lexsort((-host["id"].astype(numpy.int64), host["x"]))]
    got = records.get().view(REC)
    assert got.tobytes() == want.tobytes()
    assert numpy.array_equal(order.get(), numpy.argsort(want["id"], kind="stable"))
    print("sorted %d records by a comparator, and ranked them by id" % n)


def main(argv):
    n = int(argv[1]) if len(argv) > 1 else 1 << 20
    if n <= 0:
        sys.exit("usage: cupy_sort.py [n > 0]")
    cpu_checks()
    try:
        import cupy
    except ImportError:
        print("skipped: the GPU sorts (CuPy is not installed)")
        return 0
    try:
        mergejit.default_context()
    except (mergejit.NoDriverError, mergejit.NoDeviceError) as e:
        print("skipped: the GPU sorts (no GPU: %s)" % e.message)
        return 0
    gpu_sorts(cupy, n)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
