#!/usr/bin/env python3
"""gpusim/validation/calibrate_dram.py — dram.loaded_latency for an architecture file, from the
loaded-latency microbenchmark of microbench.cu (micro.txt lines dram_loaded_latency_sN and
dram_loaded_bandwidth_sN: a cold pointer chase beside N streaming blocks).

    calibrate_dram.py MICRO_TXT [ARCH_JSON]

Prints the [utilisation, extra cycles] pairs to paste into ARCH_JSON's "dram" object
(default gpusim/arch/h200.json, whose dram.bandwidth_gbs and dram.latency are read):
    utilisation = the stream's bandwidth / dram.bandwidth_gbs (capped at 1)
    extra       = the chase's cycles per hop - the unloaded chase (N = 0), at least 0
The unloaded chase is latency_dram's figure (dram.latency). gpusim's own per-SM bandwidth
queue also delays an access at high utilisation; that wait is small beside the rise the chase
shows on GPUs (a few hundred cycles against a thousand), and is not subtracted: the curve is
what the chase measured. Points are sorted by utilisation; where two give the same
utilisation (the stream saturated) the larger latency is kept."""
import json
import re
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    arch_path = sys.argv[2] if len(sys.argv) > 2 else "gpusim/arch/h200.json"
    arch = json.load(open(arch_path))
    bw = float(arch["dram"]["bandwidth_gbs"])
    lat, gbs = {}, {}
    for line in open(sys.argv[1]):
        m = re.match(r"micro dram_loaded_(latency|bandwidth)_s(\d+) ([0-9.eE+-]+)", line)
        if m:
            (lat if m.group(1) == "latency" else gbs)[int(m.group(2))] = float(m.group(3))
    if 0 not in lat or len(lat) < 2:
        print(f"{sys.argv[1]}: no dram_loaded_latency_s0 and at least one loaded point; run microbench.cu first", file=sys.stderr)
        return 1
    base = lat[0]
    points = {}
    for n in sorted(lat):
        if n not in gbs:
            continue
        u = round(min(1.0, gbs[n] / bw), 3)
        extra = round(max(0.0, lat[n] - base), 1)
        points[u] = max(points.get(u, 0.0), extra)
    curve = sorted(points.items())
    if curve[0][0] != 0.0:
        curve.insert(0, (0.0, 0.0))
    # Latency must not fall as the load rises (noise between neighbours): keep the running max.
    out, top = [], 0.0
    for u, e in curve:
        top = max(top, e)
        out.append([u, top])
    print(f'"loaded_latency": {json.dumps(out)},')
    print(f"# unloaded chase {base:.1f} cycles (dram.latency {arch['dram']['latency']}); points (stream GB/s, chase cycles):", file=sys.stderr)
    for n in sorted(lat):
        print(f"#   N={n:5d}  {gbs.get(n, 0):8.1f} GB/s  {lat[n]:8.1f} cycles", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
