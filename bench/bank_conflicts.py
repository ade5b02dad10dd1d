#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bank_conflicts.py: the shared-memory bank conflicts of one merge tile, simulated.

A block merges two sorted runs held in shared memory (as mj_cta_merge and the second round of
mj_cta_merge4 do): each of NT threads finds its split at diagonal VT * t by a merge path
search, then merges VT outputs, reading one key a step. Every warp-wide load is scored in
wavefronts: 4-byte words, bank = word address mod 32, distinct words in one bank each cost a
wavefront (the same word is a broadcast). Prints, per kind of load, the instructions and the
wavefronts each costs on average, for random keys, with the keys laid out plainly and under a
few index maps (a layout must map tile position p to a word; the maps show that no static one
helps, since the addresses a warp reads differ by data-dependent amounts).

ncu on an H200 (u32 sort, 2^27 keys, mj_merge4) counted 2.26 wavefronts a shared load over
the whole pass, and 39% of the L1 data pipe's wavefronts as bank conflicts (docs/TUNING.md,
"What bounds the merges").

    python3 bench/bank_conflicts.py [--nt 256] [--vt 23] [--tiles 4] [--seed 1]
"""
import argparse
import random


def wavefronts(words):
    banks = {}
    for w in words:
        if w is not None:
            banks.setdefault(w % 32, set()).add(w)
    return max((len(s) for s in banks.values()), default=0)


def tile(nt, vt, rng, layout):
    nv = nt * vt
    a = sorted(rng.getrandbits(32) for _ in range(nv // 2))
    b = sorted(rng.getrandbits(32) for _ in range(nv - nv // 2))
    s, a_len, total = a + b, len(a), nv
    score = {"search": [0, 0], "merge": [0, 0]}
    for w in range(nt // 32):
        traces, splits = [], []
        for lane in range(32):
            diag = min(vt * (32 * w + lane), total)
            lo, hi, trace = max(0, diag - (total - a_len)), min(diag, a_len), []
            while lo < hi:
                mid = (lo + hi) // 2
                trace.append((a_len + diag - 1 - mid, mid))  # b's key, then a's
                if s[a_len + diag - 1 - mid] < s[mid]:
                    hi = mid
                else:
                    lo = mid + 1
            traces.append(trace)
            splits.append(lo)
        for k in range(max(len(t) for t in traces)):
            for j in range(2):
                words = [layout(t[k][j]) if k < len(t) else None for t in traces]
                score["search"][0] += wavefronts(words)
                score["search"][1] += 1
        heads = []
        for lane in range(32):
            diag = min(vt * (32 * w + lane), total)
            heads.append([splits[lane], a_len + diag - splits[lane]])
        for side in range(2):  # the two heads each thread reads first
            score["merge"][0] += wavefronts([layout(h[side]) for h in heads])
            score["merge"][1] += 1
        for _ in range(vt - 1):
            words = []
            for h in heads:
                ai, bi = h
                take_a = bi >= total or (ai < a_len and not s[bi] < s[ai])
                h[0 if take_a else 1] += 1
                words.append(layout(h[0] if take_a else h[1]))
            score["merge"][0] += wavefronts(words)
            score["merge"][1] += 1
    return score


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nt", type=int, default=256)
    p.add_argument("--vt", type=int, default=23)
    p.add_argument("--tiles", type=int, default=4)
    p.add_argument("--seed", type=int, default=1)
    o = p.parse_args()
    layouts = [("plain", lambda q: q), ("a word of padding every 32", lambda q: q + q // 32),
               ("xor of the row", lambda q: q ^ ((q // 32) & 31))]
    print("NT %d, VT %d, %d tiles of random 32-bit keys" % (o.nt, o.vt, o.tiles))
    for name, layout in layouts:
        rng = random.Random(o.seed)
        total = {"search": [0, 0], "merge": [0, 0]}
        for _ in range(o.tiles):
            for kind, (wf, n) in tile(o.nt, o.vt, rng, layout).items():
                total[kind][0] += wf
                total[kind][1] += n
        print("%-28s search: %.2f wavefronts a load; merge: %.2f" % (
            name, total["search"][0] / total["search"][1], total["merge"][0] / total["merge"][1]))


if __name__ == "__main__":
    main()
