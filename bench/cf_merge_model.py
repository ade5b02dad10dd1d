#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cf_merge_model.py: a merge tile whose shared-memory reads have no bank conflicts, modelled.

The mergesort's kernels are bound by the L1 data pipe, over half of whose shared-load
wavefronts are bank conflicts of the serial merge's and the searches' data-dependent reads
(docs/TUNING.md, "What bounds the merges"; bench/bank_conflicts.py). This models the design
proposed for the merge step (issue 45) and checks it, before any kernel is written:

- Layout: run A ascending at tile words [0, a_len); run B reversed after it, so that B[q] is
  at word NV - 1 - q (NV = NT * VT). Full tiles only: a tile's last thread, whose window ends
  at the tile's count, would need B to end at a word congruent to that count (mod VT), and
  every other thread at a multiple of VT. A launch's one partial tile keeps the serial merge.
- Thread t of the tile merges the outputs [VT t, VT t + VT): A[p_t, p_t+1) and
  B[q_t, q_t+1) (merge path splits, q = diagonal - p). Its window, A ascending then B
  descending, is bitonic, and its k-th element sits at a word congruent to p_t + k (mod VT).
  So in load round i (0 .. VT - 1) every thread reads the element of its window at a word
  congruent to i (mod VT), into register i. A warp's windows cover 32 VT consecutive words
  modulo 32 VT (B's part continues A's there, since NV and the warp's end diagonal are
  multiples of 32 VT), so the 32 words of a round are distinct modulo 32 VT and, being
  congruent modulo VT, distinct modulo 32 when VT is odd: one wavefront a load.
- Registers then hold the window rotated by p_t (mod VT). A barrel shift by p_t (log2 VT
  stages of selects) undoes the rotation; the bitonic sequence is sorted by Batcher's
  bitonic merger of 32 with the window at its top and minus infinity below, whose
  compare-exchanges with a pad never swap and are left out (48 remain for VT 23, and no
  register holds a pad), comparing (key, tile position) so that ties keep A first.

The model checks, for random full tiles (runs of any lengths, keys random or repeated), that every round's
loads are conflict-free and that every thread's outputs equal a stable merge's, and prints the
wavefronts a load against the serial merge's (bench/bank_conflicts.py's count) and the
register work a thread does per merge. Exit status 1 on a conflict or a wrong output.

    python3 bench/cf_merge_model.py [--nt 256] [--vt 23] [--tiles 8] [--seed 1]
"""
import argparse
import random
import sys

import bank_conflicts


def merge_path(s, a_len, total, diag):
    lo, hi = max(0, diag - (total - a_len)), min(diag, a_len)
    while lo < hi:
        mid = (lo + hi) // 2
        if s[a_len + diag - 1 - mid] < s[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


def bitonic_merge(window):
    """Batcher's bitonic merger of 32, ascending, on the window (up then down, at most 32
    elements) placed at the top positions [32 - len, 32) behind virtual pads of minus infinity:
    a pad at the lower end of a compare-exchange never moves, so only the pairs of two window
    elements are done (for VT 23, 48 of the 80), a fixed set the compiler unrolls."""
    first = 32 - len(window)
    seq = [None] * first + list(window)
    cas = 0
    half = 16
    while half:
        for i in range(first, 32):
            if i & half == 0:
                cas += 1
                if seq[i + half] < seq[i]:
                    seq[i], seq[i + half] = seq[i + half], seq[i]
        half //= 2
    return seq[first:], cas


def tile(nt, vt, rng, repeats):
    """One full tile; returns (wavefronts, loads, wrong outputs, compare-exchanges a thread)."""
    total = nt * vt
    a_len = rng.randint(0, total)
    key = (lambda: rng.randrange(repeats)) if repeats else (lambda: rng.getrandbits(32))
    a = sorted(key() for _ in range(a_len))
    b = sorted(key() for _ in range(total - a_len))
    s = a + b  # tile positions: a at [0, a_len), b at [a_len, total)
    want = sorted(range(total), key=lambda j: (s[j], j))  # stable: A first on ties
    word = lambda j: j if j < a_len else total - 1 - (j - a_len)  # noqa: E731 (B reversed)
    wf = loads = wrong = cas = 0
    for w in range(nt // 32):
        windows = []
        for lane in range(32):
            t = 32 * w + lane
            d0, d1 = vt * t, vt * t + vt
            p0, p1 = merge_path(s, a_len, total, d0), merge_path(s, a_len, total, d1)
            # the window's k-th tile position: A ascending, then B descending
            win = list(range(p0, p1)) + [a_len + q for q in reversed(range(d0 - p0, d1 - p1))]
            windows.append((p0, d0, win))
        regs = [[None] * vt for _ in range(32)]
        for i in range(vt):
            words = []
            for lane, (p0, _, win) in enumerate(windows):
                k = (i - p0) % vt
                if k < len(win):
                    j = win[k]
                    assert word(j) % vt == i % vt
                    regs[lane][i] = j
                    words.append(word(j))
            if words:
                wf += bank_conflicts.wavefronts(words)
                loads += 1
        for lane, (p0, d0, win) in enumerate(windows):
            if not win:
                continue
            unrotated = [regs[lane][(k + p0) % vt] for k in range(len(win))]
            assert unrotated == win
            out, c = bitonic_merge([(s[j], j) for j in unrotated])
            cas = max(cas, c)
            got = [j for _, j in out]
            wrong += got != want[d0:d0 + len(win)]
    return wf, loads, wrong, cas


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nt", type=int, default=256)
    p.add_argument("--vt", type=int, default=23)
    p.add_argument("--tiles", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    o = p.parse_args()
    if o.vt % 2 == 0 or o.vt > 32 or o.nt % 32:
        sys.exit("cf_merge_model: VT must be odd and at most 32, NT a multiple of 32")
    rng = random.Random(o.seed)
    wf = loads = wrong = cas = 0
    for n in range(o.tiles):
        # random keys, and keys repeated often (ties across A and B, runs of equal keys)
        res = tile(o.nt, o.vt, rng, 64 if n % 2 else 0)
        wf, loads, wrong, cas = wf + res[0], loads + res[1], wrong + res[2], max(cas, res[3])
    base = {"search": [0, 0], "merge": [0, 0]}
    brng = random.Random(o.seed)
    for _ in range(max(1, o.tiles // 2)):
        for kind, (w, n) in bank_conflicts.tile(o.nt, o.vt, brng, lambda q: q).items():
            base[kind][0] += w
            base[kind][1] += n
    stages = (o.vt - 1).bit_length()
    print("NT %d, VT %d, %d full tiles, runs of random lengths, keys random or repeated" % (
        o.nt, o.vt, o.tiles))
    print("conflict-free loads: %.3f wavefronts a load over %d loads (serial merge: %.2f, "
          "searches: %.2f)" % (wf / loads, loads, base["merge"][0] / base["merge"][1],
                               base["search"][0] / base["search"][1]))
    print("a thread's register merge: %d loads, %d selects to undo the rotation (%d stages; "
          "twice with positions), %d compare-exchanges on (key, position), no pads held" % (
              o.vt, stages * o.vt, stages, cas))
    print("outputs: %s" % ("every thread's equal to a stable merge's" if not wrong else
                           "%d threads wrong" % wrong))
    return 1 if wrong or wf != loads else 0


if __name__ == "__main__":
    sys.exit(main())
