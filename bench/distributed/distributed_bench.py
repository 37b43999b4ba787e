"""wp.distributed benchmark: the time of each collective by array size, with the payload bytes its
counters report, and the time of one data-parallel optimisation iteration of
examples/sim_distributed_chain.py (strong scaling: a fixed set of worlds split over the ranks;
weak scaling: a fixed number of worlds per rank).

    PYTHONPATH=build/python mpirun -np 2 /usr/bin/python3 bench/distributed/distributed_bench.py
    PYTHONPATH=build/python /usr/bin/python3 bench/distributed/distributed_bench.py          # one rank

Each time is the median over --repeat calls of the slowest rank's time (ranks start each call
together, after a barrier). Rank 0 prints a Markdown table; bench/results/distributed-*.md keep
them with the command and the machine.
"""
import argparse
import os
import sys
import time

import numpy as np

import weft as wp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples"))
import sim_distributed_chain as chain  # noqa: E402


def timed(fn, repeat):
    """Median over `repeat` calls of the slowest rank's seconds."""
    from mpi4py import MPI
    times = []
    for _ in range(repeat):
        wp.distributed.barrier()
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        times.append(MPI.COMM_WORLD.allreduce(dt, op=MPI.MAX))
    return float(np.median(times))


def collectives(sizes, repeat, device):
    R = wp.distributed.world_size()
    rows = []
    for nbytes in sizes:
        n = nbytes // 4
        a = wp.zeros(n, dtype=wp.float32, device=device)
        per_rank = wp.zeros((n // 3 // R, 3), dtype=wp.float32, device=device)  # this rank's share of n bytes of rows
        cases = [("all_reduce", lambda: wp.distributed.all_reduce(a)),
                 ("all_reduce deterministic", lambda: wp.distributed.all_reduce(a, deterministic=True)),
                 ("broadcast", lambda: wp.distributed.broadcast(a)),
                 ("gather_reduce (n bytes of rows in all)", lambda: wp.distributed.gather_reduce(per_rank))]
        for name, fn in cases:
            fn()  # warm-up
            seconds = timed(fn, repeat)
            payload = wp.distributed.stats()["last"]["bytes"]
            rows.append((name, nbytes, seconds, payload, wp.distributed.backend(device)))
    return rows


def iterations(worlds, repeat, device):
    """Seconds of one optimisation iteration (forward, backward, gather_reduce, update) over `worlds`
    worlds split across the ranks."""
    R, r = wp.distributed.world_size(), wp.distributed.rank()
    first, count = chain.my_worlds(r, R, worlds)
    chains = chain.Chains(first, count, device)
    v = np.zeros(3, dtype=np.float32)

    def one():
        _, rows = chains.loss_and_gradient(v)
        wp.distributed.gather_reduce(rows)

    one()  # compiles
    return timed(one, repeat)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sizes", default="1024,65536,1048576,16777216", help="array sizes in bytes")
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument("--worlds", type=int, default=16, help="strong scaling: worlds over all ranks")
    p.add_argument("--worlds-per-rank", type=int, default=8, help="weak scaling: worlds per rank")
    args = p.parse_args()
    wp.distributed.init()
    wp.config.num_threads = 1
    device = wp.distributed.device()
    R = wp.distributed.world_size()
    table = collectives([int(s) for s in args.sizes.split(",")], args.repeat, device)
    strong = iterations(args.worlds, max(3, args.repeat // 3), device)
    weak = iterations(args.worlds_per_rank * R, max(3, args.repeat // 3), device)
    if wp.distributed.rank() == 0:
        print(f"ranks: {R}, device: {device}, one CPU thread per rank\n")
        print("| collective | array bytes | path | median ms (slowest rank) | payload bytes (rank 0) | payload GB/s |")
        print("|---|---:|---|---:|---:|---:|")
        for name, nbytes, seconds, payload, path in table:
            print(f"| {name} | {nbytes} | {path} | {seconds * 1e3:.3f} | {payload} | {payload / seconds / 1e9:.2f} |")
        print()
        print(f"| optimisation iteration ({chain.CHAIN}-particle chains, {chain.STEPS} steps) | worlds | ms |")
        print("|---|---:|---:|")
        print(f"| strong: {args.worlds} worlds over {R} rank(s) | {args.worlds} | {strong * 1e3:.1f} |")
        print(f"| weak: {args.worlds_per_rank} worlds per rank | {args.worlds_per_rank * R} | {weak * 1e3:.1f} |")


if __name__ == "__main__":
    main()
