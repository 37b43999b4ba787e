#!/usr/bin/env python3
"""gpusim/validation/repeat.py — sets two H200 runs of the same launches side by side: per
kernel, cycles (gpc__cycles_elapsed.max) and warp instructions of run B against run A, and the
range of the cycle changes. For the run-to-run spread (the same code twice) and for what a code
change did on the GPU.

    repeat.py A/ncu_weft.csv B/ncu_weft.csv > table.md"""
import sys

from compare import load_ncu, num


def main():
    a, b = load_ncu(sys.argv[1]), load_ncu(sys.argv[2])
    print("| kernel | cycles A | cycles B | change | warp inst A | warp inst B |")
    print("|---|---|---|---|---|---|")
    changes = []
    for x, y in zip(a, b):
        assert x["Kernel Name"] == y["Kernel Name"], (x["Kernel Name"], y["Kernel Name"])
        ca, cb = num(x["gpc__cycles_elapsed.max"]), num(y["gpc__cycles_elapsed.max"])
        changes.append((cb - ca) / ca)
        print(f"| {x['Kernel Name']} | {ca:,.0f} | {cb:,.0f} | {changes[-1]:+.1%} | {num(x['smsp__inst_executed.sum']):,.0f} | "
              f"{num(y['smsp__inst_executed.sum']):,.0f} |")
    print(f"\nCycle changes from {min(changes):+.1%} to {max(changes):+.1%} over {len(changes)} kernels.")


if __name__ == "__main__":
    main()
