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
launch's grid-stride loop) count like any other.

The machine code the GPU ran (NVRTC's) need not be the code gpusim maps (ptxas on the same PTX):
the two SASS sequences are aligned by their mnemonics (SIM.jsonl's 12-bit opcodes, named through
the cuobjdump listings of earlier H200 runs, `--opcodes`; ncu's own disassembly), and an H200
instruction takes the source line of the gpusim instruction it is aligned with. An instruction
with no counterpart is 'unmapped'. `--no-align` pairs them by position (the old rule).

`--stalls` adds, per kernel, the shares of ncu's stall-reason columns (stall_no_inst: instruction
cache misses, stall_imc: constant cache misses, stall_long_sb / stall_short_sb: scoreboard waits,
...) in its samples: what the docs' "prologue" figures of the short kernels are read off."""
import csv, difflib, glob, gzip, json, os, re, sys

ROOT = os.path.dirname(os.path.abspath(__file__))
DEFAULT_LISTINGS = sorted(glob.glob(os.path.join(ROOT, "../../bench/results/gpusim-h200/*/sass.txt.gz"))) + \
    sorted(glob.glob(os.path.join(ROOT, "../../bench/results/gpusim-h200/*/expanded_sass.txt")))
LISTING_LINE = re.compile(r"/\*[0-9a-f]{4}\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*)[^;]*;\s*/\* 0x([0-9a-f]{16}) \*/")


def opcode_names(paths):
    """{12-bit opcode: mnemonic} and {low 9 bits: mnemonic} from cuobjdump -sass listings (the
    low 9 bits name the operation, the top 3 its operand form; both unambiguous in the listings)."""
    full, low = {}, {}
    for p in paths:
        text = gzip.open(p, "rt").read() if p.endswith(".gz") else open(p).read()
        for m in LISTING_LINE.finditer(text):
            lo = int(m.group(3), 16)
            full[lo & 0xFFF] = m.group(2)
            low[lo & 0x1FF] = m.group(2)
    return full, low


def ncu_mnemonic(source):
    """'@!P0  BRA 0x...' -> 'BRA'; 'LDG.E R1, ...' -> 'LDG'."""
    words = source.split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0].split(".")[0] if words else "?"


def align(sim_ops, hw_ops):
    """H200 instruction index -> gpusim instruction index: the matching runs of the two mnemonic
    sequences, and runs replaced one for one (an opcode the listings never named, '?20a', against
    the H200's 'FSET': the same instruction)."""
    mapping = {}
    sm = difflib.SequenceMatcher(None, sim_ops, hw_ops, autojunk=False)
    for tag, a1, a2, b1, b2 in sm.get_opcodes():
        if tag == "equal" or (tag == "replace" and a2 - a1 == b2 - b1):
            for k in range(b2 - b1):
                mapping[b1 + k] = a1 + k
    return mapping


def load_ncu(path):
    """{kernel: [samples per SASS instruction, summed over launches]}, launches per kernel,
    {kernel: [mnemonic per SASS instruction]} and {kernel: {stall column: samples}}."""
    samples, launches, kernel, header, mnemonics, stalls = {}, {}, None, None, {}, {}
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
        ops = mnemonics.setdefault(kernel, [])
        if len(s) <= idx:
            s.extend([0.0] * (idx + 1 - len(s)))
            ops.extend(["?"] * (idx + 1 - len(ops)))
        s[idx] += float(v)
        ops[idx] = ncu_mnemonic(rec.get("Source", ""))
        reasons = stalls.setdefault(kernel, {})
        for col, value in rec.items():
            if col.startswith("stall_") and "Not Issued" not in col and value.replace(",", "") not in ("", "0"):
                reasons[col] = reasons.get(col, 0.0) + float(value.replace(",", ""))
        idx += 1
    return samples, launches, mnemonics, stalls


def main():
    args = sys.argv[1:]
    top = 5
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    listings = DEFAULT_LISTINGS
    if "--opcodes" in args:
        i = args.index("--opcodes")
        listings = args[i + 1].split(",")
        del args[i:i + 2]
    by_position = "--no-align" in args
    if by_position:
        args.remove("--no-align")
    show_stalls = "--stalls" in args
    if show_stalls:
        args.remove("--stalls")
    full, low = opcode_names(listings)
    sim = [json.loads(l) for l in open(args[0]) if l.strip()]
    ncu, ncu_launches, ncu_ops, ncu_stalls = load_ncu(args[1])
    aligned_total, hw_total = 0, 0
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
        if by_position or "ops" not in k:
            index = {i: i for i in range(len(ncu[name]))}
        else:
            sim_ops = [full.get(o, low.get(o & 0x1FF, f"?{o:03x}")) for o in k["ops"]]
            index = align(sim_ops, ncu_ops[name])
        aligned_total += sum(1 for i in range(len(ncu[name])) if i in index and index[i] < len(k["sass"]))
        hw_total += len(ncu[name])
        for i, v in enumerate(ncu[name]):
            j = index.get(i)
            where = k["sass"][j] if j is not None and j < len(k["sass"]) else None
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
    out.append(f"H200 SASS instructions paired with gpusim's ({'by position' if by_position else 'aligned by mnemonic'}): "
               f"{aligned_total} of {hw_total}.")
    if show_stalls:
        out.append("")
        out.append("Stall reasons, share of the H200's samples (ncu's stall_* columns):")
        for k in sim:
            reasons = ncu_stalls.get(k["kernel"], {})
            total = sum(reasons.values())
            if total:
                top_reasons = sorted(reasons, key=lambda r: -reasons[r])[:6]
                out.append(f"- {k['kernel']}: " + ", ".join(f"{r[6:]} {reasons[r] / total:.0%}" for r in top_reasons))
    print("\n".join(out))


if __name__ == "__main__":
    main()
