#!/usr/bin/env python3
"""gpusim/validation/hot_lines.py: do gpusim and Nsight Compute agree on where a kernel's time
goes, line by line? (issue 21: the viewer's frame profile ranks source lines by gpusim's cycles.)

    hot_lines.py SIM.jsonl NCU.csv [--top 5] > table.md

SIM.jsonl: bench/gpusim/engine_hot_lines on sim:h200 (warp-cycles per source line per kernel, and
each SASS instruction's source line); NCU.csv: the same launches on the H200 under
`ncu --section SourceCounters --page source --print-source sass --csv` (scripts/h200-heldout),
one table of SASS instructions per launch. ncu's warp stall samples (all samples: issued and not)
per SASS instruction are summed per source line through SIM.jsonl's map, over the kernel's
launches, and set against gpusim's warp-cycles: the top-N lines of each, and how many of ncu's
top N are in gpusim's top N. Lines gpusim attributes to the runtime's own headers (array.h: the
launch's grid-stride loop) count like any other."""
import csv, json, sys


def load_ncu(path):
    """{kernel: [samples per SASS instruction, summed over launches]} and launches per kernel."""
    samples, launches, kernel, header = {}, {}, None, None
    for row in csv.reader(open(path)):
        if not row:
            continue
        if row[0] == "Kernel Name":
            kernel, header = row[1], None
            launches[kernel] = launches.get(kernel, 0) + 1
            continue
        if row[0] == "Address":
            header, idx = row, 0
            continue
        if header is None or kernel is None or len(row) < len(header):
            continue
        rec = dict(zip(header, row))  # rows in address order: the kernel's instructions from its first
        v = rec.get("Warp Stall Sampling (All Samples)", "0").replace(",", "") or "0"
        s = samples.setdefault(kernel, [])
        if len(s) <= idx:
            s.extend([0.0] * (idx + 1 - len(s)))
        s[idx] += float(v)
        idx += 1
    return samples, launches


def main():
    args = sys.argv[1:]
    top = 5
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    sim = [json.loads(l) for l in open(args[0]) if l.strip()]
    ncu, ncu_launches = load_ncu(args[1])
    out = [f"| kernel | launches (gpusim / H200) | H200 samples | top {top} lines, H200 (share) | top {top} lines, gpusim (share) | agree |",
           "|---|---|---|---|---|---|"]
    agree_total, possible_total, kernels_ok = 0, 0, 0
    for k in sim:
        name = k["kernel"]
        if name not in ncu:
            out.append(f"| {name} | {k['launches']} / 0 | - | not profiled by ncu | | |")
            continue
        per_line = {}
        unmapped = 0.0
        for i, v in enumerate(ncu[name]):
            where = k["sass"][i] if i < len(k["sass"]) else None
            if where is None:
                unmapped += v
                continue
            key = f"{where[0].split('/')[-1]}:{where[1]}"
            per_line[key] = per_line.get(key, 0.0) + v
        total_h = sum(per_line.values()) + unmapped
        sim_lines = {f"{f.split('/')[-1]}:{l}": c for f, l, c in k["lines"] if c > 0}
        total_s = sum(sim_lines.values())
        h_top = sorted(per_line, key=lambda x: -per_line[x])[:top]
        s_top = sorted(sim_lines, key=lambda x: -sim_lines[x])[:top]
        n = min(top, len([x for x in per_line if per_line[x] > 0]), len(s_top))
        common = len(set(h_top[:n]) & set(s_top[:n]))
        agree_total += common
        possible_total += n
        kernels_ok += common >= min(4, n)
        fmt_h = ", ".join(f"{x} ({per_line[x] / total_h:.0%})" for x in h_top[:n]) if total_h else "-"
        fmt_s = ", ".join(f"{x} ({sim_lines[x] / total_s:.0%})" for x in s_top[:n]) if total_s else "-"
        out.append(f"| {name} | {k['launches']} / {ncu_launches[name]} | {total_h:,.0f} ({unmapped / total_h if total_h else 0:.0%} unmapped) | "
                   f"{fmt_h} | {fmt_s} | {common} of {n} |")
    out.append("")
    out.append(f"Kernels whose top lines agree in at least 4 of {top} (or all, for kernels with fewer lines): {kernels_ok} of "
               f"{len([k for k in sim if k['kernel'] in ncu])}; lines in common {agree_total} of {possible_total}.")
    print("\n".join(out))


if __name__ == "__main__":
    main()
