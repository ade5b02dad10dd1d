# SPDX-License-Identifier: Apache-2.0
"""Sorting across GPUs with one process a GPU, started by torchrun:

    torchrun --nproc_per_node=2 examples/python/torchrun_sort.py [n]

Each rank makes n random int32 keys (many repeats) with their global positions as int64 values,
sorts them with every other rank through mergejit.distributed (a communicator over the default
process group), and checks what it got: its part sorted and stable (equal keys with rising
positions), ordered after the previous rank's part, and the ranks together holding every key
(counts and sums all-reduced). Prints one line a rank; exits 1 when a check fails.
"""
import os
import sys
import time

import torch
import torch.distributed as dist

import mergejit.distributed as md


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
    local = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, ranks = dist.get_rank(), dist.get_world_size()

    g = torch.Generator(device="cuda").manual_seed(1234 + rank)
    keys = torch.randint(0, 1 << 20, (n,), dtype=torch.int32, device="cuda", generator=g)
    positions = torch.arange(n, dtype=torch.int64, device="cuda") + rank * n

    with md.Communicator.from_process_group() as comm:
        md.sort(keys, positions, comm=comm)             # the first call builds the kernels
        torch.cuda.synchronize()
        dist.barrier()
        t0 = time.perf_counter()
        out_keys, out_pos = md.sort(keys, positions, comm=comm)
        torch.cuda.synchronize()
        ms = (time.perf_counter() - t0) * 1e3

        # Sorted and stable here: keys rise, and positions rise among equal keys.
        k64 = out_keys.long()
        ok = bool(torch.all((k64[1:] > k64[:-1]) |
                            ((k64[1:] == k64[:-1]) & (out_pos[1:] > out_pos[:-1]))))
        # Ordered after the rank before: every rank's (first, last) (key, position).
        count = out_keys.numel()
        edge = torch.tensor([k64[0], out_pos[0], k64[-1], out_pos[-1], 1] if count else
                            [0, 0, 0, 0, 0], dtype=torch.int64, device="cuda")
        edges = [torch.empty_like(edge) for _ in range(ranks)]
        dist.all_gather(edges, edge)
        prev = [e for e in edges[:rank] if e[4]]
        if count and prev:
            p = prev[-1]
            ok &= bool(p[2] < edge[0] or (p[2] == edge[0] and p[3] < edge[1]))
        # Every key somewhere: counts and sums of keys and positions as the inputs'.
        sums = torch.stack([torch.tensor(count, device="cuda"), k64.sum(), out_pos.sum(),
                            torch.tensor(n, device="cuda"), keys.long().sum(), positions.sum()])
        dist.all_reduce(sums)
        ok &= bool(torch.equal(sums[:3], sums[3:]))

    print("rank %d of %d: %d keys in, %d out, %s, %.2f ms" % (
        rank, ranks, n, count, "sorted and checked" if ok else "CHECK FAILED", ms), flush=True)
    dist.destroy_process_group()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
