#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Build latency of a merge sorter: mergejit beside NVIDIA's cuda.compute (the cuda-cccl
package's run-time JIT of CUB), on the GPU.

For each case (u32, u64, f32 and f64 keys; u32 keys with u32 values; f64 keys with u64 values,
descending) and each library, R rounds of two new processes: the first with an empty cache
("cold": mergejit's disk cache, cuda.compute's precompiled-header cache), the second with the
cache the first left ("disk"); inside the first, the same sorter made a second time ("memory").
A build is timed from the call that makes the sorter through its first sort of 1000 keys and
a synchronization, so that nothing compiled or loaded lazily escapes the clock; importing the
package and creating the device context are done before it. The medians are printed with the
ratio cuda.compute / mergejit (above 1: mergejit builds faster).

cuda.compute's side needs the package importable (pip install cuda-cccl[minimal-sysctk13] for a
CUDA 13 toolkit, or its cu12 flavour) and is left out, with a line saying so, without it.
mergejit's needs its package (pip install ./python, or PYTHONPATH=python with
MERGEJIT_LIBRARY=build/libmergejit.so). Arrays come from libcuda through ctypes
(python/tests/holders.py).

usage: bench/bench_jit_compare.py [--reps R] [--json FILE]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "python", "tests")

# name: (key dtype, value dtype or None, descending)
CASES = {
    "u32": ("uint32", None, False),
    "u64": ("uint64", None, False),
    "f32": ("float32", None, False),
    "f64": ("float64", None, False),
    "u32+u32": ("uint32", "uint32", False),
    "f64+u64 desc": ("float64", "uint64", True),
}
N = 1000


def child(lib, case, cache):
    """One process: the case's first build, then the same sorter again; JSON on stdout."""
    import numpy as np
    sys.path.insert(0, TESTS)
    from holders import DeviceArray, cuda

    kt, vt, desc = CASES[case]
    rng = np.random.default_rng(1)
    host = (rng.random(N) * 1e6).astype(kt)
    keys = DeviceArray(host)
    vals = DeviceArray(np.arange(N).astype(vt)) if vt else None
    cuda().sync()

    if lib == "mergejit":
        import mergejit
        ctx = mergejit.Context(0, cache_dir=cache)

        def build():
            s = mergejit.Sorter(np.dtype(kt), value_size=np.dtype(vt).itemsize if vt else 0,
                                order="descending" if desc else "ascending", context=ctx)
            s.sort(keys, vals)
            cuda().sync()
            return s
    else:
        os.environ["CCCL_PCH_CACHE_DIR"] = cache
        import cuda.compute as cc
        out_k = DeviceArray.empty((N,), kt)
        out_v = DeviceArray.empty((N,), vt) if vt else None
        op = cc.OpKind.GREATER if desc else cc.OpKind.LESS

        def build():
            s = cc.make_merge_sort(d_in_keys=keys, d_in_values=vals, d_out_keys=out_k,
                                   d_out_values=out_v, op=op)
            n = s(temp_storage=None, d_in_keys=keys, d_in_values=vals, d_out_keys=out_k,
                  d_out_values=out_v, num_items=N, op=op)
            temp = DeviceArray.empty((max(n, 1),), "uint8")
            s(temp_storage=temp, d_in_keys=keys, d_in_values=vals, d_out_keys=out_k,
              d_out_values=out_v, num_items=N, op=op)
            cuda().sync()
            return s

    times = []
    for _ in range(2):
        t = time.perf_counter()
        build()
        times.append((time.perf_counter() - t) * 1e3)
    # The sort was right (a build that sorted nothing would be fast and wrong).
    got = (keys if lib == "mergejit" else out_k).get()
    want = np.sort(host)[::-1] if desc else np.sort(host)
    if not np.array_equal(got, want):
        raise SystemExit("%s %s: the sort is wrong" % (lib, case))
    print(json.dumps({"first": times[0], "again": times[1]}))


def run_child(lib, case, cache):
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", lib, case, cache],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: exit %d\n%s%s" % (lib, case, r.returncode, r.stdout,
                                                     r.stderr))
    return json.loads(r.stdout.strip().splitlines()[-1])


def has_cuda_compute():
    r = subprocess.run([sys.executable, "-c", "import cuda.compute"], capture_output=True,
                       text=True)
    return r.returncode == 0, (r.stderr.strip().splitlines() or ["?"])[-1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reps", type=int, default=3, help="rounds of fresh caches (default 3)")
    ap.add_argument("--json", help="write the numbers to this file")
    ap.add_argument("--child", nargs=3, metavar=("LIB", "CASE", "CACHE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(*args.child)
        return 0
    libs = ["mergejit"]
    ok, why = has_cuda_compute()
    if ok:
        libs.append("cuda.compute")
    else:
        print("cuda.compute not importable (%s): mergejit alone" % why)
    print("build latency, ms (median of %d; build and a first sort of %d keys):" % (args.reps, N))
    print("%-14s %-13s %9s %9s %9s" % ("case", "library", "cold", "disk", "memory"))
    out = {}
    for case in CASES:
        row = {}
        for lib in libs:
            cold, disk, memory = [], [], []
            for _ in range(args.reps):
                with tempfile.TemporaryDirectory() as cache:
                    a = run_child(lib, case, cache)
                    b = run_child(lib, case, cache)
                cold.append(a["first"])
                memory.append(a["again"])
                disk.append(b["first"])
            row[lib] = {k: statistics.median(v) for k, v in
                        (("cold", cold), ("disk", disk), ("memory", memory))}
            m = row[lib]
            print("%-14s %-13s %9.1f %9.1f %9.2f" % (case, lib, m["cold"], m["disk"],
                                                      m["memory"]))
        if len(row) == 2:
            a, b = row["mergejit"], row["cuda.compute"]
            print("%-14s %-13s %9.1fx %8.1fx %8.1fx" % (
                case, "ratio", b["cold"] / a["cold"], b["disk"] / a["disk"],
                b["memory"] / a["memory"]))
        out[case] = row
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
