# SPDX-License-Identifier: Apache-2.0
"""python -m mergejit info | demo [n]

info: the package's version and library, the CUDA driver and NVRTC it found, and the device
the default context opens (or why none). demo: n random float32 keys (default 2^20) sorted on
device 0 through CuPy or PyTorch, whichever imports, checked against numpy's sort and timed;
without either, or without a GPU, it says what it skipped and exits 0."""
from __future__ import annotations

import sys
import time
from types import ModuleType
from typing import List, Optional, Tuple

import numpy

import mergejit


def info() -> int:
    print("mergejit %s (%s)" % (mergejit.__version__, mergejit.library_path))
    drv, nv = mergejit.driver_version(), mergejit.nvrtc_version()
    where, how = mergejit.nvrtc_location()
    print("driver:  %s" % ("%d.%d" % (drv // 1000, drv % 1000 // 10) if drv else "not found"))
    if nv:
        print("nvrtc:   %d.%d (%s, from %s)" % (nv // 1000, nv % 1000 // 10, where, how))
    elif where:
        print("nvrtc:   not usable (%s, from %s)" % (where, how))
    else:
        print("nvrtc:   not found (%s)" % how)
    try:
        ctx = mergejit.default_context()
    except mergejit.NoDriverError as e:
        print("device 0: none: no CUDA driver here, so no GPU work (%s)" % e.message)
        return 0
    except mergejit.NoDeviceError as e:
        print("device 0: none: the driver sees no CUDA device 0 (%s)" % e.message)
        return 0
    except mergejit.MergejitError as e:
        print("device 0: unavailable (%s: %s)" % (e.status, e.message))
        return 0
    print("device 0: %s, sm_%d" % (ctx.device_name, ctx.target_sm))
    print("cache:   %s" % ctx.cache_dir)
    return 0


def _framework() -> Optional[Tuple[str, ModuleType]]:
    """(name, module) of the first of CuPy and PyTorch that imports and sees a GPU, or None."""
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            return "cupy", cupy
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            return "torch", torch
    except Exception:
        pass
    return None


def demo(n: int) -> int:
    fw = _framework()
    if fw is None:
        print("skipped: the demo sorts on a GPU through CuPy or PyTorch, and neither sees one")
        return 0
    name, m = fw
    host = numpy.random.default_rng(1).standard_normal(n).astype(numpy.float32)
    x = m.asarray(host) if name == "cupy" else m.as_tensor(host, device="cuda")
    mergejit.sort(x, out=x)                            # builds the sorter: the first call
    x = m.asarray(host) if name == "cupy" else m.as_tensor(host, device="cuda")
    sync = m.cuda.Device().synchronize if name == "cupy" else m.cuda.synchronize
    sync()
    start = time.perf_counter()
    mergejit.sort(x, out=x)                            # in place, as the C demo sorts
    sync()
    ms = (time.perf_counter() - start) * 1e3
    got = x.get() if name == "cupy" else x.cpu().numpy()
    ok = numpy.array_equal(got, numpy.sort(host))
    print("sorted %d float32 keys (%s) in %.3f ms: %s" % (n, name, ms,
                                                        "match numpy" if ok else "MISMATCH"))
    return 0 if ok else 1


def main(argv: List[str]) -> int:
    usage = "usage: python -m mergejit info | demo [n]"
    if not argv or argv[0] in ("-h", "--help"):
        print(usage)
        return 0 if argv else 2
    if argv[0] == "info" and len(argv) == 1:
        return info()
    if argv[0] == "demo" and len(argv) <= 2:
        try:
            n = int(argv[1]) if len(argv) == 2 else 1 << 20
        except ValueError:
            n = 0
        if n < 1:
            print("%s (n: a positive count, not %r)" % (usage, argv[1]), file=sys.stderr)
            return 2
        return demo(n)
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
