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
#include "gpusim/parse_ptx.h"
#include "gpusim/sass_map.h"
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
  opt.arch = arch_name.find(".json") != std::string::npos ? load_arch(arch_name) : builtin_arch(arch_name);
  opt.threads = threads;
  opt.scheduler = sched == "lrr" ? lrr_scheduler() : gto_scheduler();
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
    opt.registers_per_thread = regs.at(c.kernel).registers;
    opt.static_shared_bytes = regs.at(c.kernel).shared_bytes;
    const auto t0 = std::chrono::steady_clock::now();
    const TimingResult r = launch_timed(module, c.kernel, {c.gx, c.gy, 1}, {c.bx, c.by, 1}, p.bytes(), opt);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t wf_ld = 0, wf_st = 0, ideal_ld = 0, ideal_st = 0, sec_ld = 0, req_ld = 0, sec_st = 0, req_st = 0;
    for (size_t i = 0; i < r.per_instruction.size(); ++i) {
      const std::string& text = r.counts.per_instruction[i].text;
      const TimingCounters& t = r.per_instruction[i];
      const bool is_ld = text.rfind("ld", 0) == 0 || text.find(" ld.") != std::string::npos;
      (is_ld ? wf_ld : wf_st) += t.shared_wavefronts;
      (is_ld ? ideal_ld : ideal_st) += t.shared_ideal_wavefronts;
      (is_ld ? sec_ld : sec_st) += t.global_sectors;
      (is_ld ? req_ld : req_st) += t.global_requests;
    }
    const TimingCounters& T = r.total;
    double checksum = 0;
    for (float v : out) checksum += v;
    std::printf(
        "{\"id\": \"%s\", \"kernel\": \"%s\", \"group\": \"%s\", \"cycles\": %llu, \"warp_instructions\": %llu, \"issued\": %llu, "
        "\"thread_instructions\": %llu, \"shared_ld_wavefronts\": %llu, \"shared_st_wavefronts\": %llu, \"shared_ld_excess\": %llu, "
        "\"shared_st_excess\": %llu, \"global_ld_sectors\": %llu, \"global_ld_requests\": %llu, \"global_st_sectors\": %llu, "
        "\"global_st_requests\": %llu, \"l1_hit_rate\": %.4f, \"l2_hit_rate\": %.4f, \"registers\": %d, \"blocks_per_sm\": %d, "
        "\"limiter\": \"%s\", \"theoretical_occupancy\": %.4f, \"achieved_occupancy\": %.4f, \"ipc\": %.4f, \"dram_read_bytes\": %llu, "
        "\"stall_long_scoreboard\": %llu, \"stall_barrier\": %llu, \"stall_short_scoreboard\": %llu, \"sass_estimate\": %llu, "
        "\"blocks\": %u, \"checksum\": %.6g, \"wall_s\": %.3f}\n",
        c.id.c_str(), c.kernel.c_str(), c.group.c_str(), (unsigned long long)r.cycles, (unsigned long long)r.counts.total.warp_instructions,
        (unsigned long long)r.issued_instructions, (unsigned long long)r.counts.total.thread_instructions, (unsigned long long)wf_ld,
        (unsigned long long)wf_st, (unsigned long long)(wf_ld - ideal_ld), (unsigned long long)(wf_st - ideal_st), (unsigned long long)sec_ld,
        (unsigned long long)req_ld, (unsigned long long)sec_st, (unsigned long long)req_st,
        T.l1_hits + T.l1_misses ? double(T.l1_hits) / double(T.l1_hits + T.l1_misses) : 0.0,
        T.l2_hits + T.l2_misses ? double(T.l2_hits) / double(T.l2_hits + T.l2_misses) : 0.0, r.occupancy.registers_per_thread,
        r.occupancy.blocks_per_sm, occupancy_limit_name(r.occupancy.limiter), r.occupancy.theoretical, r.achieved_occupancy, r.ipc,
        (unsigned long long)r.dram_read_bytes, (unsigned long long)T.stall_cycles[int(Stall::LongScoreboard)],
        (unsigned long long)T.stall_cycles[int(Stall::Barrier)], (unsigned long long)T.stall_cycles[int(Stall::ShortScoreboard)],
        (unsigned long long)estimate_sass_instructions(sass, module, c.kernel, r.counts), c.gx * c.gy, checksum, wall);
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
