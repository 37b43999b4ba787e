#!/usr/bin/env python3
"""Helper of scripts/audit-h200 (the bash driver): the plan, the inputs, and the comparison table.

  audit-h200.py plan CORPUS_DIR OUT           -> OUT/plan.tsv (one line per kernel) and OUT/inputs/*.npz
  audit-h200.py table OUT                     -> OUT/table.md (predicted vs measured), printed too

Standard library only (the GPU machine has python3 but maybe not numpy).

plan.tsv columns: name, file, kernel, launch dims ("64" or "64,64"; the file's --dim, except that
a file calling wp.sync_threads() is launched in whole blocks, as wp.launch requires: --dim 100 with
blocks of 64 runs 128 threads, which is what the audit models too), inputs (npz path or "-"), audit options,
shared (0/1), expected check ids (comma list or "-"), tools (comma list of ncu, racecheck, memcheck,
synccheck), launch argument ("NAME=VALUE" for `weft launch --arg`, or "-"), the file ncu profiles
(a variant, or "-": the file itself). An int parameter the
file gives no --arg for is launched with `weft launch`'s default, 3, and audited with --arg NAME=3. Which tool runs on which kernel:
  ncu        every kernel that declares a wp.shared_array (the bank-conflict comparison), except
             those seeded with barrier-divergence (undefined behaviour on the GPU; synccheck's job)
  racecheck  every shared-memory kernel that is not barrier-divergent: seeded races must be
             reported, the clean look-alikes must not be
  memcheck   every kernel seeded with a bounds error, and the clean bounds/func look-alikes
  synccheck  every kernel seeded with barrier-divergence, and the clean barrier look-alikes

A seeded out-of-bounds shared access faults on the GPU, so ncu measures nothing for it. A corpus file
may state `# measure-with: OLD => NEW`, a text substitution that keeps the access in bounds without
moving it (a shared array one element longer at its end: every address, hence every bank, stays the
same); ncu then profiles that variant (OUT/variants/), the audit predicts the variant's counts too,
and the table says whether they equal the original's prediction.
"""
import csv
import json
import os
import re
import struct
import sys
import zipfile

# --- plan --------------------------------------------------------------------------------------

DTYPES = {  # kernel-language dtype -> (npy descr, components)
    "float": ("<f4", 1), "wp.float32": ("<f4", 1), "wp.float64": ("<f8", 1), "int": ("<i4", 1),
    "wp.int32": ("<i4", 1), "wp.uint32": ("<u4", 1), "wp.int64": ("<i8", 1), "wp.vec3": ("<f4", 3), "wp.vec4": ("<f4", 4),
    "wp.vec4d": ("<f8", 4),
}


def npy_bytes(descr, shape, values):
    """A .npy file (format 1.0) holding `values` (flat, row-major) with `shape`."""
    dims = ", ".join("%d" % s for s in shape) + ("," if len(shape) == 1 else "")
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (descr, dims)
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    fmt = {"<f4": "f", "<f8": "d", "<i4": "i", "<u4": "I", "<i8": "q"}[descr]
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + struct.pack("<%d%s" % (len(values), fmt), *values)


def fill(descr, count, components):
    """The pattern `weft launch` fills generated arrays with (apps/cmd_launch.cpp)."""
    out = []
    for i in range(count):
        for c in range(components):
            if descr in ("<i4", "<u4", "<i8"):
                out.append((i + c) % 7)
            else:
                out.append(0.5 * ((i + c) % 17) - 2.0)
    return out


def parse_corpus_file(path):
    text = open(path).read()
    opts = ""
    variant = None
    for line in text.splitlines():
        if line.startswith("# measure-with:"):
            old, new = (x.strip() for x in line[len("# measure-with:"):].split("=>"))
            if old not in text:
                raise SystemExit("%s: measure-with: '%s' is not in the file" % (path, old))
            variant = text.replace(old, new)
    for line in text.splitlines():
        if line.startswith("# audit:"):
            opts = line[len("# audit:"):].strip()
    expected = set()
    for line in text.splitlines():
        m = re.search(r"\S.*# expect:(.*)$", line)
        if m:
            expected.update(x.strip() for x in m.group(1).split(","))
    kernels = []  # (name, parameter text, block_dim or None), the parameter list read up to its balanced ")"
    for m in re.finditer(r"@wp\.kernel([^\n]*)\n\s*def (\w+)\(", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        block = re.search(r"block_dim\s*=\s*(\d+)", m.group(1))
        kernels.append((m.group(2), text[m.end():i - 1], int(block.group(1)) if block else None))
    return text, opts, expected, kernels, variant


def launch_dims(path, dims, block):
    """The --dim `weft launch` gets for a kernel that calls wp.sync_threads(): the stated launch
    rounded up to whole blocks of `block`, the launch wp.launch accepts for it and the one the
    audit models (every thread of the last block runs such a kernel; compiler/audit/bounds.cpp)."""
    extents = [int(x) for x in dims.split(",")]
    size = 1
    for e in extents:
        size *= e
    if size % block == 0:
        return dims
    if len(extents) > 1:
        raise SystemExit("%s: a barrier kernel's launch %s is not a whole number of blocks of %d, and a launch of "
                         "several dimensions cannot be rounded up to one" % (path, dims, block))
    return str((size + block - 1) // block * block)


def option_values(opts, name):
    toks = opts.split()
    return [toks[i + 1] for i in range(len(toks) - 1) if toks[i] == name]


def plan(corpus, out):
    os.makedirs(os.path.join(out, "inputs"), exist_ok=True)
    rows = []
    for fname in sorted(os.listdir(corpus)):
        if not fname.endswith(".py"):
            continue
        path = os.path.join(corpus, fname)
        text, opts, expected, kernels, variant = parse_corpus_file(path)
        dims = option_values(opts, "--dim")
        if not dims:
            continue  # no launch stated: nothing to run
        shared = "wp.shared_array" in text
        barrier = "barrier-divergence" in expected
        name = fname[:-3]
        measure = "-"
        if variant is not None:
            os.makedirs(os.path.join(out, "variants"), exist_ok=True)
            measure = os.path.join(out, "variants", fname)
            open(measure, "w").write(variant)
        tools = []
        if shared and not barrier:
            tools += ["ncu", "racecheck"]
        if "bounds" in expected or (name.startswith("clean_") and ("bounds" in name or "func" in name)):
            tools.append("memcheck")
        if barrier or name.startswith("clean_barrier") or name.startswith("clean_func_barrier"):
            tools.append("synccheck")
        for kernel, params, block_dim in kernels:
            launch = dims[0]
            if "wp.sync_threads()" in text:
                block = int((option_values(opts, "--block-dim") or [block_dim or 256])[0])
                launch = launch_dims(path, launch, block)
            inputs = "-"
            shapes = dict(s.split("=", 1) for s in option_values(opts, "--shape"))
            if shapes:
                npz = os.path.join(out, "inputs", "%s.%s.npz" % (name, kernel))
                with zipfile.ZipFile(npz, "w") as z:
                    for pname, extents in shapes.items():
                        m = re.search(r"\b%s\s*:\s*wp\.array(?:2d)?\(dtype=([\w.]+)\)" % re.escape(pname), params)
                        if not m or m.group(1) not in DTYPES:
                            raise SystemExit("%s: cannot tell the dtype of '%s' for its --shape" % (path, pname))
                        descr, comps = DTYPES[m.group(1)]
                        shape = [int(x) for x in extents.split("x")]
                        count = 1
                        for s in shape:
                            count *= s
                        z.writestr(pname + ".npy", npy_bytes(descr, shape + ([comps] if comps > 1 else []), fill(descr, count, comps)))
                inputs = npz
            stated = dict(a.split("=", 1) for a in option_values(opts, "--arg"))
            if len(stated) > 1:
                raise SystemExit("%s: weft launch takes one --arg; the file states %d" % (path, len(stated)))
            audit_opts = opts
            for pname in re.findall(r"\b(\w+)\s*:\s*int\b", params):
                if pname not in stated:
                    audit_opts += " --arg %s=3" % pname
            launch_arg = "%s=%s" % next(iter(stated.items())) if stated else "-"
            rows.append([name, path, kernel, launch, inputs, audit_opts, "1" if shared else "0",
                         ",".join(sorted(expected)) or "-", ",".join(tools) or "-", launch_arg, measure])
    with open(os.path.join(out, "plan.tsv"), "w") as f:
        for r in rows:
            f.write("\t".join(r) + "\n")
    print("%d kernels planned (%d for ncu, %d racecheck, %d memcheck, %d synccheck)" % (
        len(rows), sum("ncu" in r[8] for r in rows), sum("racecheck" in r[8] for r in rows),
        sum("memcheck" in r[8] for r in rows), sum("synccheck" in r[8] for r in rows)))


# --- table -------------------------------------------------------------------------------------

METRICS = {
    "ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "ld_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "st_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "ld_inst": "smsp__sass_inst_executed_op_shared_ld.sum",
    "st_inst": "smsp__sass_inst_executed_op_shared_st.sum",
}


def read_ncu_csv(path, kernel):
    """Metric values of the launch of `kernel` in an `ncu --csv --page raw` log, or None."""
    if not os.path.exists(path):
        return None
    lines = [l for l in open(path, errors="replace").read().splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    header = next((r for r in rows if r and r[0] == "ID"), None)
    if not header:
        return None
    col = {h: i for i, h in enumerate(header)}
    knames = col.get("Kernel Name")
    for r in rows:
        if r is header or len(r) != len(header) or not r[0].isdigit():
            continue
        if knames is not None and not r[knames].startswith(kernel + "_cuda"):
            continue
        vals = {}
        for key, metric in METRICS.items():
            if metric in col:
                try:
                    vals[key] = int(float(r[col[metric]].replace(",", "")))
                except ValueError:
                    vals[key] = None
        return vals
    return None


def read_sim(path):
    """(shared requests, wavefronts, excess) of a `weft sim --report json` output, or None."""
    try:
        t = json.load(open(path))["timing"]["total"]
        return t["shared_requests"], t["shared_wavefronts"], t["shared_excess_wavefronts"]
    except (OSError, ValueError, KeyError):
        return None


def sanitizer_summary(path):
    """(errors, text) from a compute-sanitizer log: the ERROR SUMMARY count and the first report."""
    if not os.path.exists(path):
        return None, "not run"
    text = open(path, errors="replace").read()
    m = re.search(r"ERROR SUMMARY: (\d+) error", text)
    hazards = re.search(r"RACECHECK SUMMARY: (\d+) hazard", text)
    n = int(m.group(1)) if m else None
    if hazards:
        n = max(n or 0, int(hazards.group(1)))
    first = re.search(r"=+ (Error|Warning|Invalid|Barrier error|Race reported)[^\n]*", text)
    if "timed out" in text[-200:]:
        return n, "timed out"
    return n, first.group(0).strip("= ") if first else ""


def table(out):
    plan_rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(out, "plan.tsv"))]
    md = ["# weft audit vs the H200", ""]
    md.append("Predicted by `weft audit --counts` (gpusim's bank model over every block of the launch);")
    md.append("measured by Nsight Compute on cuda:0 (`--clock-control none`). Requests = SASS shared")
    md.append("instructions executed (warp level); conflicts = excess wavefronts.")
    md.append("")
    md.append("gpusim = `weft sim` on the PTX NVRTC makes (ld+st+atomic requests, wavefronts, excess).")
    md.append("")
    md.append("| kernel | exact | ld req pred/meas | ld wavefronts pred/meas | ld conflicts pred/meas | st req pred/meas | st wavefronts pred/meas | st conflicts pred/meas | gpusim req/wavefronts/excess | audit = gpusim | verdict |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|")
    n_ok = n_ncu = n_sim = n_sim_ok = 0
    n_variant = 0
    for name, path, kernel, dims, inputs, opts, shared, expected, tools, launch_arg, measure in plan_rows:
        if "ncu" not in tools.split(","):
            continue
        n_ncu += 1

        def counts(suffix):
            cpath = os.path.join(out, "audit", name + suffix)
            if os.path.exists(cpath):
                for k in json.load(open(cpath))["kernels"]:
                    if k["kernel"] == kernel:
                        return k
            return None
        pred = counts(".counts.json")
        variant_note = ""
        if measure != "-":
            # ncu profiled the in-bounds variant: compare with the variant's prediction, and say
            # whether it is the original's (the same addresses, so it must be).
            vpred = counts(".measured.counts.json")
            same = vpred is not None and pred is not None and all(vpred[op] == pred[op] for op in ("ld", "st"))
            n_variant += 1
            variant_note = " (measured on the variant `%s`; its prediction %s the original's)" % (
                os.path.basename(measure), "equals" if same else "DIFFERS FROM")
            pred = vpred
        meas = read_ncu_csv(os.path.join(out, "ncu", "%s.%s.csv" % (name, kernel)), kernel)

        def pm(p, m):
            return "%s / %s" % ("-" if p is None else p, "-" if m is None else m)
        p = pred or {"ld": {}, "st": {}, "exact": False}
        m = meas or {}
        cells = []
        for op in ("ld", "st"):
            pr = p[op]
            cells.append(pm(pr.get("requests"), m.get(op + "_inst")))
            cells.append(pm(pr.get("wavefronts"), m.get(op + "_wavefronts")))
            excess = None if not pr else pr["wavefronts"] - pr["ideal"]
            cells.append(pm(excess, m.get(op + "_conflicts")))
        sim = read_sim(os.path.join(out, "sim", "%s.%s.json" % (name, kernel)))
        sim_cell, sim_same = "-", "-"
        err = os.path.join(out, "sim", "%s.%s.err" % (name, kernel))
        if not sim and os.path.exists(err) and os.path.getsize(err):
            first = open(err, errors="replace").read().strip().splitlines()[0]
            sim_cell = "stopped: " + first.replace("|", "/")[:100]
        if sim and pred and not pred["exact"]:
            sim_cell, sim_same = "%d / %d / %d" % sim, "n/a (prediction inexact)"
        elif sim and pred:
            n_sim += 1
            req = pred["ld"]["requests"] + pred["st"]["requests"] + pred["atomic_requests"]
            wav = pred["ld"]["wavefronts"] + pred["st"]["wavefronts"]
            exc = wav - pred["ld"]["ideal"] - pred["st"]["ideal"]
            sim_cell = "%d / %d / %d" % sim
            fw = pred.get("ld_forwarded", {"requests": 0, "wavefronts": 0, "ideal": 0})
            fwd = (req - fw["requests"], wav - fw["wavefronts"], exc - fw["wavefronts"] + fw["ideal"])
            if pred["atomic_requests"]:
                same = sim[0] == req
                sim_same = "requests yes (atomics' wavefronts not predicted)" if same else "NO"
            elif sim == (req, wav, exc):
                same, sim_same = True, "yes"
            elif fw["requests"] and sim == fwd:
                same, sim_same = True, "yes, after store-to-load forwarding (%d loads)" % fw["requests"]
            else:
                same = False
                sim_same = ("NO: %d requests predicted" % req) if sim[0] != req else "NO: wavefronts differ"
            n_sim_ok += same
        cells += [sim_cell, sim_same]
        if not meas:
            verdict = "not measured"
        else:
            fw = p.get("ld_forwarded") or {"requests": 0, "wavefronts": 0}
            ld_w, ld_r = m.get("ld_wavefronts"), m.get("ld_inst")
            fwd_ok = bool(fw["requests"]) and ld_w == p["ld"].get("wavefronts", 0) - fw["wavefronts"] and \
                ld_r == p["ld"].get("requests", 0) - fw["requests"]
            same_w = (fwd_ok or p["ld"].get("wavefronts") == ld_w) and p["st"].get("wavefronts") == m.get("st_wavefronts")
            same_r = (fwd_ok or p["ld"].get("requests") == ld_r) and p["st"].get("requests") == m.get("st_inst")
            verdict = ("match after store-to-load forwarding" if fwd_ok else "match") if same_w and same_r else ("wavefronts match, requests differ" if same_w
                                                          else "requests differ (compiler merged/removed accesses)" if not same_r
                                                          else "MISMATCH")
            n_ok += same_w
        md.append("| %s (%s) | %s | %s | %s |" % (name, kernel, "yes" if p.get("exact") else "no: " + p.get("why", ""),
                                                  " | ".join(cells), verdict + variant_note))
    md.append("")
    md.append("Audit = gpusim on %d of %d kernels simulated. H200 wavefronts equal the audit's on %d of %d shared-memory kernels." % (
        n_sim_ok, n_sim, n_ok, n_ncu))
    md.append("")
    md.append("## compute-sanitizer")
    md.append("")
    md.append("gpusim = `weft sim` on the same kernel (barrier kernels only): whether the simulator's barriers deadlock.")
    md.append("")
    md.append("| kernel | audit expects | tool | reports | first report | verdict | gpusim |")
    md.append("|---|---|---|---|---|---|---|")
    sim_barrier = sim_barrier_ok = 0
    want = {"racecheck": "shared-race", "memcheck": "bounds", "synccheck": "barrier-divergence"}
    confirmed = total = 0
    for name, path, kernel, dims, inputs, opts, shared, expected, tools, launch_arg, measure in plan_rows:
        for tool in tools.split(","):
            if tool not in want:
                continue
            total += 1
            n, first = sanitizer_summary(os.path.join(out, tool, "%s.%s.log" % (name, kernel)))
            seeded = want[tool] in expected.split(",")
            if n is None:
                verdict = "not run" if first == "not run" else "no summary (" + (first or "crash?") + ")"
            elif seeded:
                verdict = "confirmed" if n > 0 else "MISSED by the tool"
            else:
                verdict = "clean, agrees" if n == 0 else "FLAGGED (audit says clean)"
            confirmed += verdict in ("confirmed", "clean, agrees")
            g = "-"
            if tool == "synccheck":
                serr = os.path.join(out, "sim", "%s.%s.err" % (name, kernel))
                text = open(serr, errors="replace").read() if os.path.exists(serr) else ""
                if "barrier deadlock" in text:
                    g = "deadlock"
                elif read_sim(os.path.join(out, "sim", "%s.%s.json" % (name, kernel))):
                    g = "completes"
                if g != "-":
                    sim_barrier += 1
                    sim_barrier_ok += (g == "deadlock") == seeded
            md.append("| %s (%s) | %s | %s | %s | %s | %s | %s |" % (name, kernel, expected, tool, "-" if n is None else n,
                                                                  first.replace("|", "/")[:90], verdict, g))
    md.append("")
    md.append("Sanitizer agrees with the audit on %d of %d runs. gpusim's barriers agree with the audit on %d of %d barrier kernels." % (
        confirmed, total, sim_barrier_ok, sim_barrier))
    open(os.path.join(out, "table.md"), "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "plan":
        plan(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
    else:
        sys.exit(__doc__)
