#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Python package's costs beside the C library's, on the GPU:

  overhead    host time per call of mergejit.sort on 2^10 u32 keys against the C library's
              mj_sorter_sort called directly through ctypes (the C call plus ctypes' own
              cost, about a microsecond), calls queued back to back; target: < 20 us above.
              Also the time per sort with a synchronization after each.
  throughput  2^24 random u32 keys (and f64 keys with u32 values): Gkeys/s of mergejit.sort
              and of the direct C call, best of the repetitions, each sort timed alone on
              fresh input (a device copy restores it before the timing starts); target: equal.
  frameworks  where PyTorch and CuPy can be imported: on the same 2^24 int32 and float32
              arrays of each, mergejit.sort, the C call and the framework's own sort
              (torch.sort(..., stable=True); CuPy's in-place ndarray.sort(), which cupy.sort
              runs on a copy), and for PyTorch int32 pairs (mergejit.sort_by_key against
              torch.sort's indices and a gather of the values), as Gkeys/s and ratios of the
              same run; the call overhead of mergejit.sort on their 2^10-key arrays against
              the C call on the same memory.
  build       a sorter's build time, cold (new context, empty cache: NVRTC), warm from the
              disk cache (new context, same cache) and warm from the context's memory, for
              u32, u64, f32 keys and u32 keys with u32 values.

Arrays come from libcuda through ctypes (python/tests/holders.py), so only numpy is needed;
PyTorch and CuPy only for their section, which says so and is left out without them.
Run on a GPU machine with the package importable (pip install ./python, or PYTHONPATH=python
with MERGEJIT_LIBRARY=build/libmergejit.so).

usage: bench/bench_python.py [--quick] [--json FILE]
"""
import argparse
import ctypes
import importlib
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


def best_per_call_us(fn, calls):
    """per_call_us's best of 5 (by the host time)."""
    return min((per_call_us(fn, calls) for _ in range(5)), key=lambda r: r[0])


def best_time(fn, restore, reps):
    """The shortest of reps runs of fn, each on fresh input (restore() puts it back, outside
    the timing), from a synchronized device to the end of its work; a first run warms up."""
    cu = cuda()
    best = float("inf")
    for i in range(reps + 1):
        restore()
        cu.sync()
        t = time.perf_counter()
        fn()
        cu.sync()
        if i:
            best = min(best, time.perf_counter() - t)
    return best


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
        mergejit.sort(keys, out=keys, context=ctx)

    def sorter_call():
        s.sort(keys)

    res = {}
    for name, fn in (("c", c_call), ("sorter", sorter_call), ("sort", py_call)):
        res[name] = best_per_call_us(fn, reps)
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

        if vdt:
            py = best_time(lambda: mergejit.sort_by_key(k, v, out=(k, v), context=ctx), restore,
                           reps)
            c = best_time(lambda: raw(s._h, k.ptr, v.ptr, n, None, 0, None), restore, reps)
        else:
            py = best_time(lambda: mergejit.sort(k, out=k, context=ctx), restore, reps)
            c = best_time(lambda: raw(s._h, k.ptr, None, n, None, 0, None), restore, reps)
        res[label] = {"python_gkeys": n / py / 1e9, "c_gkeys": n / c / 1e9,
                      "python_ms": py * 1e3, "c_ms": c * 1e3}
        print("throughput, 2^24 %-8s mergejit.sort %6.2f Gkeys/s (%.2f ms), C call %6.2f Gkeys/s "
              "(%.2f ms): ratio %.3f" % (label, n / py / 1e9, py * 1e3, n / c / 1e9, c * 1e3,
                                         c / py))
    out["throughput"] = res


# ---------------------------------------------------------------- CuPy and PyTorch

class _TorchSide:
    name, sort_label = "torch", "torch.sort(stable=True)"

    def __init__(self, torch):
        self.m = torch
        if not torch.cuda.is_available():
            raise RuntimeError("PyTorch sees no GPU")
        self.version = torch.__version__

    def array(self, host):
        return self.m.from_numpy(host).cuda()

    def copy(self, dst, src):
        dst.copy_(src)

    def ptr(self, x):
        return x.data_ptr()

    def sort(self, k):
        self.m.sort(k, stable=True)             # new sorted keys and int64 indices

    def sort_pairs(self, k, v):
        _, idx = self.m.sort(k, stable=True)    # what a sort_by_key is in PyTorch
        v[idx]


class _CupySide:
    name, sort_label = "cupy", "cupy ndarray.sort()"

    def __init__(self, cupy):
        self.m = cupy
        self.version = cupy.__version__
        cupy.cuda.runtime.getDeviceCount()

    def array(self, host):
        return self.m.asarray(host)

    def copy(self, dst, src):
        self.m.copyto(dst, src)

    def ptr(self, x):
        return x.data.ptr

    def sort(self, k):
        k.sort()                                # in place; cupy.sort(k) is a copy, then this

    sort_pairs = None


def _sides():
    sides = []
    for name, side in (("torch", _TorchSide), ("cupy", _CupySide)):
        try:
            sides.append(side(importlib.import_module(name)))
        except Exception as e:                  # not installed, or no GPU it can use
            print("frameworks: %s skipped (%s: %s)" % (name, type(e).__name__, e))
    return sides


def frameworks(ctx, reps, calls, out):
    """mergejit beside the frameworks' own sorts on the same 2^24 keys in the same run, and the
    call overhead of mergejit.sort on their arrays against the C call."""
    sides = _sides()
    if not sides:
        return
    n = 1 << 24
    rng = np.random.default_rng(3)
    hosts = {"int32": rng.integers(-1 << 31, 1 << 31, n).astype(np.int32),
             "float32": rng.standard_normal(n).astype(np.float32)}
    raw = _lib.lib.mj_sorter_sort
    res = out["frameworks"] = {}
    print("frameworks, 2^24 random keys, Gkeys/s, best of %d on the same arrays; the ratio is "
          "mergejit's throughput over the framework's:" % reps)
    for side in sides:
        r = res[side.name] = {"version": side.version}
        print("  %s %s" % (side.name, side.version))
        for label, host in hosts.items():
            src, k = side.array(host), side.array(host)
            s = ctx.sorter(host.dtype)

            def restore():
                side.copy(k, src)

            mj = best_time(lambda: mergejit.sort(k, out=k, context=ctx), restore, reps)
            c = best_time(lambda: raw(s._h, side.ptr(k), None, n, None, 0, None), restore, reps)
            fw = best_time(lambda: side.sort(k), restore, reps)
            r[label] = {"mergejit_gkeys": n / mj / 1e9, "c_gkeys": n / c / 1e9,
                        "framework_gkeys": n / fw / 1e9, "ratio": fw / mj}
            print("    %-13s mergejit.sort %6.2f   C call %6.2f   %s %6.2f   ratio %.3f"
                  % (label, n / mj / 1e9, n / c / 1e9, side.sort_label, n / fw / 1e9, fw / mj))
        if side.sort_pairs is not None:
            host_v = np.arange(n, dtype=np.int32)
            src, k = side.array(hosts["int32"]), side.array(hosts["int32"])
            src_v, v = side.array(host_v), side.array(host_v)

            def restore_pairs():
                side.copy(k, src)
                side.copy(v, src_v)

            mj = best_time(lambda: mergejit.sort_by_key(k, v, out=(k, v), context=ctx),
                           restore_pairs, reps)
            fw = best_time(lambda: side.sort_pairs(k, v), restore_pairs, reps)
            r["int32 pairs"] = {"mergejit_gkeys": n / mj / 1e9, "framework_gkeys": n / fw / 1e9,
                                "ratio": fw / mj}
            print("    %-13s mergejit.sort_by_key %6.2f   %s + gather %6.2f   ratio %.3f"
                  % ("int32 pairs", n / mj / 1e9, side.sort_label, n / fw / 1e9, fw / mj))
        small = side.array(hosts["int32"][:1 << 10])
        s, ptr = ctx.sorter(np.int32), side.ptr(small)
        c = best_per_call_us(lambda: raw(s._h, ptr, None, 1 << 10, None, 0, None), calls)
        py = best_per_call_us(lambda: mergejit.sort(small, out=small, context=ctx), calls)
        r["overhead_us"] = {"c": c[0], "sort": py[0]}
        print("    overhead, 2^10 int32 keys, us per call (queued): mergejit.sort on a %s array "
              "%.1f, C call %.1f: +%.1f us" % (side.name, py[0], c[0], py[0] - c[0]))


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
    frameworks(ctx, 3 if args.quick else 10, 400 if args.quick else 2000, out)
    build_latency(out)
    cuda().sync()
    ctx.close()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
