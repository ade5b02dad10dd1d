#!/usr/bin/env python3
"""The Python package's costs beside the C library's, on the GPU:

  overhead    host time per call of mergejit.sort on 2^10 u32 keys against the C library's
              mj_sorter_sort called directly through ctypes (the C call plus ctypes' own
              cost, about a microsecond), calls queued back to back; target: < 20 us above.
              Also the time per sort with a synchronization after each.
  throughput  2^24 random u32 keys (and f64 keys with u32 values): Gkeys/s of mergejit.sort
              and of the direct C call, best of the repetitions, each sort timed alone on
              fresh input (a device copy restores it before the timing starts); target: equal.
  build       a sorter's build time, cold (new context, empty cache: NVRTC), warm from the
              disk cache (new context, same cache) and warm from the context's memory, for
              u32, u64, f32 keys and u32 keys with u32 values.

Arrays come from libcuda through ctypes (python/tests/holders.py), so only numpy is needed.
Run on a GPU machine with the package importable (pip install ./python, or PYTHONPATH=python
with MERGEJIT_LIBRARY=build/libmergejit.so).

usage: bench/bench_python.py [--quick] [--json FILE]
"""
import argparse
import ctypes
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                "tests"))
import mergejit  # noqa: E402
from holders import DeviceArray, cuda  # noqa: E402
from mergejit import _lib  # noqa: E402


def per_call_us(fn, calls):
    cu = cuda()
    fn()
    cu.sync()
    t = time.perf_counter()
    for _ in range(calls):
        fn()
    host = time.perf_counter() - t
    cu.sync()
    synced = time.perf_counter()
    for _ in range(calls // 4):
        fn()
        cu.sync()
    synced = time.perf_counter() - synced
    return host / calls * 1e6, synced / (calls // 4) * 1e6


def overhead(ctx, reps, out):
    n = 1 << 10
    keys = DeviceArray(np.random.default_rng(1).integers(0, 1 << 32, n, dtype=np.uint64)
                       .astype(np.uint32))
    s = ctx.sorter(np.uint32)
    h, ptr = s._h, keys.ptr
    raw = _lib.lib.mj_sorter_sort

    def c_call():
        st = raw(h, ptr, None, n, None, 0, None)
        if st:
            ctx._raise(st)

    def py_call():
        mergejit.sort(keys, context=ctx)

    def sorter_call():
        s.sort(keys)

    res = {}
    for name, fn in (("c", c_call), ("sorter", sorter_call), ("sort", py_call)):
        best = min((per_call_us(fn, reps) for _ in range(5)), key=lambda r: r[0])
        res[name] = best
    print("overhead, 2^10 u32 keys, us per call (host, queued) / per call with a sync after each:")
    for name, label in (("c", "C mj_sorter_sort via ctypes"), ("sorter", "mergejit.Sorter.sort"),
                        ("sort", "mergejit.sort")):
        host, synced = res[name]
        extra = "" if name == "c" else "   (+%.1f us over C)" % (host - res["c"][0])
        print("  %-30s %7.1f / %7.1f%s" % (label, host, synced, extra))
    out["overhead_us"] = {k: {"host": v[0], "synced": v[1]} for k, v in res.items()}
    ok = res["sort"][0] - res["c"][0] < 20
    print("  target < 20 us above the C call: %s" % ("met" if ok else "MISSED"))


def throughput(ctx, reps, out):
    cu = cuda()
    cu.lib.cuMemcpyDtoD_v2.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t]
    n = 1 << 24
    rng = np.random.default_rng(2)
    res = {}
    for label, kdt, vdt in (("u32", np.uint32, None), ("f64+u32", np.float64, np.uint32)):
        src_k = DeviceArray(rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(kdt)
                            if kdt == np.uint32 else rng.standard_normal(n).astype(kdt))
        k = DeviceArray.empty(n, kdt)
        v = DeviceArray.empty(n, vdt) if vdt else None
        s = ctx.sorter(kdt, value_size=np.dtype(vdt).itemsize if vdt else 0)
        raw = _lib.lib.mj_sorter_sort

        def restore():
            cu.check(cu.lib.cuMemcpyDtoD_v2(k.ptr, src_k.ptr, src_k.nbytes), "cuMemcpyDtoD")

        def timed(fn):
            best = float("inf")
            for _ in range(reps):
                restore()
                cu.sync()
                t = time.perf_counter()
                fn()
                cu.sync()
                best = min(best, time.perf_counter() - t)
            return best

        if vdt:
            py = timed(lambda: mergejit.sort_by_key(k, v, context=ctx))
            c = timed(lambda: raw(s._h, k.ptr, v.ptr, n, None, 0, None))
        else:
            py = timed(lambda: mergejit.sort(k, context=ctx))
            c = timed(lambda: raw(s._h, k.ptr, None, n, None, 0, None))
        res[label] = {"python_gkeys": n / py / 1e9, "c_gkeys": n / c / 1e9,
                      "python_ms": py * 1e3, "c_ms": c * 1e3}
        print("throughput, 2^24 %-8s mergejit.sort %6.2f Gkeys/s (%.2f ms), C call %6.2f Gkeys/s "
              "(%.2f ms): ratio %.3f" % (label, n / py / 1e9, py * 1e3, n / c / 1e9, c * 1e3,
                                         c / py))
    out["throughput"] = res


def build_latency(out):
    res = {}
    with tempfile.TemporaryDirectory() as cache:
        print("build latency (ms, wall in Python / the library's build_ms):")
        for label, dt, vs in (("u32", np.uint32, 0), ("u64", np.uint64, 0),
                              ("f32", np.float32, 0), ("u32 pairs", np.uint32, 4)):
            row = {}
            first = mergejit.Context(0, cache_dir=cache)
            for phase, ctx in (("cold", first), ("memory", first)):
                t = time.perf_counter()
                s = mergejit.Sorter(dt, value_size=vs, context=ctx)
                row[phase] = ((time.perf_counter() - t) * 1e3, s.build_ms, s.source)
                s.close()
            second = mergejit.Context(0, cache_dir=cache)
            t = time.perf_counter()
            s = mergejit.Sorter(dt, value_size=vs, context=second)
            row["disk"] = ((time.perf_counter() - t) * 1e3, s.build_ms, s.source)
            s.close()
            second.close()
            first.close()
            print("  %-10s " % label + "   ".join(
                "%s %8.2f / %8.2f (%s)" % (p, row[p][0], row[p][1], row[p][2])
                for p in ("cold", "disk", "memory")))
            res[label] = {p: {"wall_ms": row[p][0], "build_ms": row[p][1], "source": row[p][2]}
                          for p in row}
    out["build"] = res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repetitions")
    ap.add_argument("--json", help="write the numbers to this file")
    args = ap.parse_args()
    try:
        ctx = mergejit.Context(0)
    except (mergejit.NoDriverError, mergejit.NoDeviceError) as e:
        print("bench_python: no GPU (%s): nothing to measure" % e.message)
        return 0
    print("device: %s, mergejit %s, library %s" % (ctx.device_name, mergejit.__version__,
                                                   mergejit.library_path))
    out = {"device": ctx.device_name}
    overhead(ctx, 400 if args.quick else 2000, out)
    throughput(ctx, 3 if args.quick else 10, out)
    build_latency(out)
    cuda().sync()
    ctx.close()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
