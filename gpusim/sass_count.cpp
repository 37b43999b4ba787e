// gpusim/sass_count.cpp — how often each SASS instruction of a kernel ran, from gpusim's PTX
// execution counts, ptxas's line table and the machine code's basic blocks (sass_cfg.h).
//
// Every instruction of a SASS basic block runs equally often, so the estimate is one count per
// SASS block. Each block gets it, in this order, from:
//   1. its own PTX lines: lines whose SASS all sits in this block ("private" lines). Their PTX
//      instructions ran as often as the block, except where ptxas hoisted one out of a loop or
//      if-converted a branch (a PTX instruction behind a forward branch that has no SASS runs,
//      predicated, as often as that branch). The count covering most of the block's SASS
//      instructions wins (ties: the larger).
//   2. a subroutine (ptxas's 64-bit division, reached by CALL) runs as often as the blocks
//      that call it: the slow path of a 64-bit `rem` that the PTX bypasses for operands that
//      fit 32 bits (nvcc writes the test into the PTX) runs 0 times when its PTX never ran.
//   3. unrolled loops (a PTX loop body whose lines sit in several SASS blocks): from the
//      per-lane trip counts gpusim recorded (LaunchResult::loops), see piece_counts().
//   4. flow: a block with one predecessor that has one successor runs as often as it, a join of
//      such predecessors as their sum, the other side of a two-way branch whose one side is
//      known (and has no other predecessor) as the difference.
//   5. anything left: the old per-line estimate (the PTX executions of the line divided by the
//      unroll factor of its PTX block), instruction by instruction.
#include "gpusim/sass_cfg.h"
#include "gpusim/sass_map.h"

#include <algorithm>
#include <map>
#include <set>

namespace weft::gpusim {

namespace {

const KernelSass& kernel_code(const SassMap& map, const std::string& kernel) {
  auto it = map.kernels.find(kernel);
  if (it == map.kernels.end()) throw SassMapError("ptxas made no code for kernel '" + kernel + "'");
  return it->second;
}

}  // namespace

std::vector<double> estimate_sass_counts(const SassMap& map, const Module& module, const std::string& kernel, const LaunchResult& counts) {
  const KernelSass& ks = kernel_code(map, kernel);
  const auto& code = module.instructions();
  const std::vector<double> w = sass_weights(map, module, kernel);
  const uint64_t warps = counts.grid.count() * ((counts.block.count() + 31) / 32);

  // PTX executions per instruction; if-converted forward branches (no SASS of their own) make
  // the code they skip run as often as they do.
  std::vector<uint64_t> runs(code.size(), 0);
  for (const InstructionCounters& ic : counts.per_instruction) runs[static_cast<size_t>(ic.index)] = ic.counts.warp_instructions;
  for (size_t i = 0; i < code.size(); ++i) {
    const Instr& in = code[i];
    if (in.op != Op::Bra || runs[i] == 0 || in.target <= static_cast<int32_t>(i) || ks.per_ptx_line.count(in.ptx_line)) continue;
    if (module.instruction_text(static_cast<int32_t>(i)).find('@') == std::string::npos) continue;
    for (size_t j = i + 1; j < static_cast<size_t>(in.target) && j < code.size(); ++j) runs[j] = std::max(runs[j], runs[i]);
  }
  // Per PTX line: the instruction on it (nvcc writes one per line; else the most executed).
  std::map<int32_t, int32_t> instr_of_line;
  for (size_t i = 0; i < code.size(); ++i) {
    auto [it, fresh] = instr_of_line.emplace(code[i].ptx_line, static_cast<int32_t>(i));
    if (!fresh && runs[i] > runs[static_cast<size_t>(it->second)]) it->second = static_cast<int32_t>(i);
  }

  const SassCfg g = build_sass_cfg(ks.code);
  const size_t nb = g.blocks.size();
  std::vector<double> x(nb, -1.0);

  // Which blocks each PTX line's SASS sits in.
  std::map<int32_t, std::set<int32_t>> blocks_of_line;
  for (size_t s = 0; s < ks.code.size(); ++s)
    if (ks.code[s].ptx_line > 0 && !g.blocks[static_cast<size_t>(g.block_of[s])].subroutine) blocks_of_line[ks.code[s].ptx_line].insert(g.block_of[s]);

  // 1. Private lines.
  for (size_t b = 0; b < nb; ++b) {
    const SassBlock& blk = g.blocks[b];
    if (blk.subroutine) continue;
    std::map<uint64_t, int> votes;
    for (int32_t s = blk.begin; s < blk.end; ++s) {
      const int32_t line = ks.code[static_cast<size_t>(s)].ptx_line;
      auto il = instr_of_line.find(line);
      if (line <= 0 || il == instr_of_line.end() || blocks_of_line[line].size() != 1) continue;
      ++votes[runs[static_cast<size_t>(il->second)]];
    }
    int best = 0;
    for (const auto& [n, v] : votes)
      if (v >= best) {
        best = v;
        x[b] = static_cast<double>(n);
      }
  }
  if (nb > 0 && x[0] < 0) x[0] = static_cast<double>(warps);

  // 4. Flow, to a fixed point.
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 0; b < nb; ++b) {
      if (x[b] >= 0 || g.blocks[b].subroutine) continue;
      const SassBlock& blk = g.blocks[b];
      // Predecessors that lead only here.
      bool all = !blk.pred.empty();
      double sum = 0;
      for (int32_t p : blk.pred) {
        if (x[p] < 0 || g.blocks[p].succ.size() != 1) {
          all = false;
          break;
        }
        sum += x[p];
      }
      if (all) {
        x[b] = sum;
        changed = true;
        continue;
      }
      // The other side of a two-way branch.
      if (blk.pred.size() == 1) {
        const SassBlock& p = g.blocks[blk.pred[0]];
        if (x[blk.pred[0]] >= 0 && p.succ.size() == 2) {
          const int32_t other = p.succ[0] == static_cast<int32_t>(b) ? p.succ[1] : p.succ[0];
          if (x[other] >= 0 && g.blocks[other].pred.size() == 1) {
            x[b] = std::max(0.0, x[blk.pred[0]] - x[other]);
            changed = true;
            continue;
          }
        }
      }
      // A block whose one successor is reached only from it.
      if (blk.succ.size() == 1 && x[blk.succ[0]] >= 0 && g.blocks[blk.succ[0]].pred.size() == 1) {
        x[b] = x[blk.succ[0]];
        changed = true;
      }
    }
  }
  // 2. Subroutines: as often as the blocks that call them (each call site adds its count to
  // the blocks its subroutine reaches).
  for (size_t c = 0; c < nb; ++c) {
    const SassControl& ctl = g.control[static_cast<size_t>(g.blocks[c].end - 1)];
    if (ctl.flow != SassFlow::Call || g.blocks[c].subroutine || ctl.target < 0 || ctl.target >= static_cast<int64_t>(ks.code.size())) continue;
    const double calls = std::max(0.0, x[c]);
    std::vector<bool> seen(nb, false);
    std::vector<int32_t> stack{g.block_of[static_cast<size_t>(ctl.target)]};
    while (!stack.empty()) {
      const int32_t b = stack.back();
      stack.pop_back();
      if (seen[b] || !g.blocks[b].subroutine) continue;
      seen[b] = true;
      x[b] = std::max(0.0, x[b]) + calls;
      for (int32_t s : g.blocks[b].succ) stack.push_back(s);
    }
  }

  // 5. Per instruction; what flow left unknown keeps the per-line estimate.
  std::vector<double> out(ks.code.size(), 0.0);
  for (size_t s = 0; s < ks.code.size(); ++s) {
    const double xb = x[static_cast<size_t>(g.block_of[s])];
    if (xb >= 0) {
      out[s] = xb;
      continue;
    }
    const int32_t line = ks.code[s].ptx_line;
    auto il = instr_of_line.find(line);
    if (il == instr_of_line.end()) {
      out[s] = static_cast<double>(warps);  // the prologue
      continue;
    }
    const size_t i = static_cast<size_t>(il->second);
    auto pl = ks.per_ptx_line.find(line);
    const double per_line = pl == ks.per_ptx_line.end() ? 1.0 : pl->second;
    out[s] = per_line > 0 ? static_cast<double>(runs[i]) * w[i] / per_line : 0.0;
  }
  return out;
}

uint64_t estimate_sass_instructions(const SassMap& map, const Module& module, const std::string& kernel, const LaunchResult& counts) {
  double total = 0;
  for (double c : estimate_sass_counts(map, module, kernel, counts)) total += c;
  return static_cast<uint64_t>(total + 0.5);
}

}  // namespace weft::gpusim
