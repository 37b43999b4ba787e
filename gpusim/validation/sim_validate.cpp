// gpusim/validation/sim_validate.cpp — runs the validation launches of cases.h on gpusim's
// timing model and prints one JSON object per launch (the figures compare.py sets against
// Nsight Compute's on the H200).
//
//   gpusim_validate KERNELS.ptx [--arch h200|FILE.json] [--group G] [--only ID] [--threads N]
//                   [--scheduler gto|lrr] [--sass-issue 0|1] [--sass-shared 0|1] [--sass-hoist 0|1]
//                   [--sass-counts 1]
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <span>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cases.h"
#include "result_json.h"
#include "gpusim/ptx/parse_ptx.h"
#include "gpusim/sass/sass_map.h"
#include "gpusim/arch/resolve_arch.h"
#include "gpusim/timing/policy_names.h"
#include "gpusim/timing/timing.h"

using namespace weft::gpusim;
using namespace weft::gpusim::validation;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s KERNELS.ptx [--arch NAME|FILE] [--group G] [--only ID] [--threads N] [--scheduler gto|lrr] [--sass-issue 0|1] [--sass-shared 0|1] [--sass-hoist 0|1] [--sass-counts 1]\n", argv[0]);
    return 2;
  }
  std::string arch_name = "h200", group, only, sched = "gto";
  int threads = 1;
  bool sass_issue = true;  // --sass-issue 0: one issue cycle per PTX instruction (the old model)
  bool sass_shared = true; // --sass-shared 0: shared accesses as the PTX writes them, not ptxas's merged LDS/STS
  bool sass_hoist = true;  // --sass-hoist 0: every load issues at its PTX position, not where ptxas scheduled it
  bool sass_counts = false; // --sass-counts 1: also print the estimate per SASS instruction (to set against ncu's source view)
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--arch") arch_name = v;
    else if (k == "--group") group = v;
    else if (k == "--only") only = v;
    else if (k == "--threads") threads = std::stoi(v);
    else if (k == "--scheduler") sched = v;
    else if (k == "--sass-issue") sass_issue = v != "0";
    else if (k == "--sass-shared") sass_shared = v != "0";
    else if (k == "--sass-hoist") sass_hoist = v != "0";
    else if (k == "--sass-counts") sass_counts = v != "0";
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      return 2;
    }
  }
  std::ifstream f(argv[1]);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string ptx = ss.str();
  const Module module = parse_ptx(ptx, "kernels.ptx");
  TimingOptions opt;
  opt.arch = resolve_arch(arch_name);
  opt.threads = threads;
  opt.scheduler = scheduler_by_name(sched);
  const auto regs = ptxas_resources(ptx, opt.arch);
  const SassMap sass = map_sass(ptx, opt.arch);
  for (const Case& c : all_cases()) {
    if (!group.empty() && c.group != group) continue;
    if (!only.empty() && c.id != only) continue;
    // 256-byte aligned like cudaMalloc's, so sectors per request match the GPU's.
    auto alloc = [](size_t n) { return static_cast<float*>(std::aligned_alloc(256, (std::max<size_t>(n, 1) * 4 + 255) / 256 * 256)); };
    float *in0 = alloc(c.in0), *in1 = alloc(c.in1), *outp = alloc(c.out);
    fill_inputs(in0, c.in0, 1);
    fill_inputs(in1, c.in1, 2);
    std::fill(outp, outp + std::max<size_t>(c.out, 1), 0.0f);
    std::span<float> out(outp, std::max<size_t>(c.out, 1));
    // The three buffers at fixed device addresses (global_memory.h), so the report does not
    // depend on where the host allocator put them.
    GlobalMemoryMap buffers;
    const uint64_t dev = uint64_t{0x7f} << 40, stride = uint64_t{1} << 32;
    buffers.add(reinterpret_cast<uint64_t>(in0), std::max<size_t>(c.in0, 1) * 4, "in0", dev);
    buffers.add(reinterpret_cast<uint64_t>(in1), std::max<size_t>(c.in1, 1) * 4, "in1", dev + stride);
    buffers.add(reinterpret_cast<uint64_t>(outp), std::max<size_t>(c.out, 1) * 4, "out", dev + 2 * stride);
    opt.launch.global_memory = &buffers;
    ParamPacker p;
    p.add(in0).add(in1).add(outp);
    p.add(c.n).add(c.p).add(c.q);
    // The sim device sets all three from the same sass_timing() (runtime/sim/sim_backend.cpp).
    SassTiming st = sass_timing(sass, module, c.kernel);
    opt.issue_weights.clear();
    opt.shared_issue.clear();
    opt.load_hoist.clear();
    if (sass_issue) opt.issue_weights = std::move(st.issue_weights);
    if (sass_shared) opt.shared_issue = std::move(st.shared_issue);
    if (sass_issue && sass_hoist) opt.load_hoist = std::move(st.load_hoist);
    opt.stall_site = std::move(st.stall_site);
    opt.registers_per_thread = regs.at(c.kernel).registers;
    opt.static_shared_bytes = regs.at(c.kernel).shared_bytes;
    const auto t0 = std::chrono::steady_clock::now();
    const TimingResult r = launch_timed(module, c.kernel, {c.gx, c.gy, 1}, {c.bx, c.by, 1}, p.bytes(), opt);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double checksum = 0;
    for (float v : out) checksum += v;
    ResultLine line{c.id, c.kernel, c.group, estimate_sass_instructions(sass, module, c.kernel, r.counts), c.gx * c.gy, checksum, wall};
    std::printf("%s\n", result_json(line, r).c_str());
    if (sass_counts) {
      std::printf("{\"id\": \"%s\", \"kernel\": \"%s\", \"sass_counts\": [", c.id.c_str(), c.kernel.c_str());
      const std::vector<double> per = estimate_sass_counts(sass, module, c.kernel, r.counts);
      for (size_t k = 0; k < per.size(); ++k) std::printf("%s%.1f", k ? ", " : "", per[k]);
      std::printf("], \"sass_lines\": [");
      const std::vector<SassInstruction>& words = sass.kernels.at(c.kernel).code;
      for (size_t k = 0; k < words.size(); ++k) std::printf("%s%d", k ? ", " : "", words[k].ptx_line);
      std::printf("]}\n");
    }
    std::free(in0);
    std::free(in1);
    std::free(outp);
    std::fflush(stdout);
  }
  return 0;
}
