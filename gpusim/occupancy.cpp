// gpusim/occupancy.cpp — the occupancy calculator and the ptxas resource report (occupancy.h).
#include "gpusim/occupancy.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

namespace weft::gpusim {

const char* occupancy_limit_name(OccupancyLimit l) {
  switch (l) {
    case OccupancyLimit::Warps: return "warps";
    case OccupancyLimit::Blocks: return "blocks";
    case OccupancyLimit::Registers: return "registers";
    case OccupancyLimit::SharedMemory: return "shared_memory";
  }
  return "?";
}

namespace {
int round_up(int v, int unit) { return (v + unit - 1) / unit * unit; }
}  // namespace

Occupancy compute_occupancy(const ArchSpec& a, int threads, int regs, uint32_t shared) {
  Occupancy o;
  o.threads_per_block = threads;
  o.registers_per_thread = regs;
  o.shared_per_block = shared;
  if (threads < 1 || threads > a.max_threads_per_block)
    throw OccupancyError("block of " + std::to_string(threads) + " threads: " + a.name + " allows 1.." + std::to_string(a.max_threads_per_block));
  if (regs > a.max_registers_per_thread)
    throw OccupancyError(std::to_string(regs) + " registers per thread: " + a.name + " allows at most " + std::to_string(a.max_registers_per_thread));
  if (shared > static_cast<uint32_t>(a.shared_per_block_max))
    throw OccupancyError(std::to_string(shared) + " bytes of shared memory per block: " + a.name + " allows at most " +
                         std::to_string(a.shared_per_block_max));
  o.warps_per_block = (threads + 31) / 32;
  o.limit_warps = a.max_warps_per_sm / o.warps_per_block;
  o.limit_blocks = a.max_blocks_per_sm;
  if (regs <= 0) {
    o.limit_registers = a.max_blocks_per_sm;
  } else {
    const int per_warp = round_up(regs * 32, a.register_alloc_unit);
    const int per_sub = a.registers_per_sm / a.schedulers_per_sm;
    const int warps = (per_sub / per_warp) * a.schedulers_per_sm;
    o.limit_registers = per_warp * o.warps_per_block > a.max_registers_per_block ? 0 : warps / o.warps_per_block;
  }
  const int per_block_smem = round_up(static_cast<int>(shared) + a.shared_reserved_per_block, a.shared_alloc_unit);
  o.limit_shared = shared == 0 && a.shared_reserved_per_block == 0 ? a.max_blocks_per_sm : a.shared_per_sm_max / per_block_smem;
  o.blocks_per_sm = o.limit_warps;
  o.limiter = OccupancyLimit::Warps;
  auto consider = [&](int v, OccupancyLimit l) {
    if (v < o.blocks_per_sm) {
      o.blocks_per_sm = v;
      o.limiter = l;
    }
  };
  consider(o.limit_blocks, OccupancyLimit::Blocks);
  consider(o.limit_registers, OccupancyLimit::Registers);
  consider(o.limit_shared, OccupancyLimit::SharedMemory);
  o.active_warps_per_sm = o.blocks_per_sm * o.warps_per_block;
  o.theoretical = static_cast<double>(o.active_warps_per_sm) / a.max_warps_per_sm;
  // The driver picks the smallest carveout that holds the resident blocks' shared memory.
  const int need = shared == 0 ? 0 : o.blocks_per_sm * per_block_smem;
  o.shared_carveout_bytes = a.shared_per_sm_max;
  for (int kb : a.shared_carveouts_kb)
    if (kb * 1024 >= need) {
      o.shared_carveout_bytes = std::min(o.shared_carveout_bytes, kb * 1024);
    }
  o.l1_bytes = a.l1_shared_bytes - o.shared_carveout_bytes;
  return o;
}

std::map<std::string, KernelResources> ptxas_resources(const std::string& ptx, const ArchSpec& arch, const std::string& ptxas) {
  char in_path[] = "/tmp/gpusim-ptxas-XXXXXX";
  const int fd = mkstemp(in_path);
  if (fd < 0) throw OccupancyError("ptxas_resources: cannot create a temporary file");
  close(fd);
  const std::string ptx_path = std::string(in_path) + ".ptx", log_path = std::string(in_path) + ".log";
  std::rename(in_path, ptx_path.c_str());
  {
    std::ofstream f(ptx_path, std::ios::binary);
    f << ptx;
  }
  const std::string sm = "sm_" + std::to_string(arch.cc_major) + std::to_string(arch.cc_minor);
  const std::string cmd = "'" + ptxas + "' -v -arch=" + sm + " '" + ptx_path + "' -o /dev/null > '" + log_path + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  std::stringstream log;
  {
    std::ifstream f(log_path);
    log << f.rdbuf();
  }
  std::remove(ptx_path.c_str());
  std::remove(log_path.c_str());
  if (rc != 0) throw OccupancyError("ptxas failed (" + cmd + "):\n" + log.str());
  std::map<std::string, KernelResources> out;
  std::string line, current;
  static const std::regex entry_re("Compiling entry function '([^']+)'");
  static const std::regex used_re("Used ([0-9]+) registers");
  static const std::regex smem_re("([0-9]+) bytes smem");
  static const std::regex stack_re("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, ([0-9]+) bytes spill loads");
  while (std::getline(log, line)) {
    std::smatch m;
    if (std::regex_search(line, m, entry_re)) {
      current = m[1];
      out[current];
    } else if (!current.empty() && std::regex_search(line, m, used_re)) {
      out[current].registers = std::stoi(m[1]);
      if (std::regex_search(line, m, smem_re)) out[current].shared_bytes = static_cast<uint32_t>(std::stoul(m[1]));
    } else if (!current.empty() && std::regex_search(line, m, stack_re)) {
      out[current].stack_bytes = static_cast<uint32_t>(std::stoul(m[1]));
      out[current].spill_stores = static_cast<uint32_t>(std::stoul(m[2]));
      out[current].spill_loads = static_cast<uint32_t>(std::stoul(m[3]));
    }
  }
  return out;
}

}  // namespace weft::gpusim
