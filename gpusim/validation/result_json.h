// gpusim/validation/result_json.h — one timed launch as the JSON line compare.py reads. Shared by
// the two simulator drivers: sim_validate.cpp (kernels.cu's PTX on gpusim directly) and
// bench/gpusim/weft_validate.cpp (Weft kernels on the sim device).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "gpusim/timing/timing.h"

namespace weft::gpusim::validation {

struct ResultLine {
  std::string id, kernel, group;  // kernel: the PTX entry name, as ncu lists it
  uint64_t sass_estimate = 0;     // estimate_sass_instructions (0: no ptxas)
  unsigned blocks = 0;
  double checksum = 0, wall_s = 0;
};

inline std::string result_json(const ResultLine& l, const TimingResult& r) {
  uint64_t wf_ld = 0, wf_st = 0, ideal_ld = 0, ideal_st = 0, sec_ld = 0, req_ld = 0, sec_st = 0, req_st = 0;
  for (size_t i = 0; i < r.per_instruction.size(); ++i) {
    const std::string& text = r.counts.per_instruction[i].text;
    const TimingCounters& t = r.per_instruction[i];
    const bool is_ld = text.rfind("ld", 0) == 0 || text.find(" ld.") != std::string::npos;
    (is_ld ? wf_ld : wf_st) += t.shared_wavefronts;
    (is_ld ? ideal_ld : ideal_st) += t.shared_ideal_wavefronts;
    // Local memory goes through the same path in gpusim, but ncu's *_mem_global_* metrics count
    // global accesses only (Weft's multi-dimensional tid spills the launch shape to local).
    if (text.find(".local") != std::string::npos) continue;
    (is_ld ? sec_ld : sec_st) += t.global_sectors;
    (is_ld ? req_ld : req_st) += t.global_requests;
  }
  const TimingCounters& T = r.total;
  char buf[2048];
  std::snprintf(
      buf, sizeof buf,
      "{\"id\": \"%s\", \"kernel\": \"%s\", \"group\": \"%s\", \"cycles\": %llu, \"warp_instructions\": %llu, \"issued\": %llu, "
      "\"thread_instructions\": %llu, \"shared_ld_wavefronts\": %llu, \"shared_st_wavefronts\": %llu, \"shared_ld_excess\": %llu, "
      "\"shared_st_excess\": %llu, \"global_ld_sectors\": %llu, \"global_ld_requests\": %llu, \"global_st_sectors\": %llu, "
      "\"global_st_requests\": %llu, \"l1_hit_rate\": %.4f, \"l2_hit_rate\": %.4f, \"registers\": %d, \"blocks_per_sm\": %d, "
      "\"limiter\": \"%s\", \"theoretical_occupancy\": %.4f, \"achieved_occupancy\": %.4f, \"ipc\": %.4f, \"dram_read_bytes\": %llu, "
      "\"stall_long_scoreboard\": %llu, \"stall_barrier\": %llu, \"stall_short_scoreboard\": %llu, \"sass_estimate\": %llu, "
      "\"blocks\": %u, \"checksum\": %.9g, \"wall_s\": %.3f}",
      l.id.c_str(), l.kernel.c_str(), l.group.c_str(), (unsigned long long)r.cycles, (unsigned long long)r.counts.total.warp_instructions,
      (unsigned long long)r.issued_instructions, (unsigned long long)r.counts.total.thread_instructions, (unsigned long long)wf_ld,
      (unsigned long long)wf_st, (unsigned long long)(wf_ld - ideal_ld), (unsigned long long)(wf_st - ideal_st), (unsigned long long)sec_ld,
      (unsigned long long)req_ld, (unsigned long long)sec_st, (unsigned long long)req_st,
      T.l1_hits + T.l1_misses ? double(T.l1_hits) / double(T.l1_hits + T.l1_misses) : 0.0,
      T.l2_hits + T.l2_misses ? double(T.l2_hits) / double(T.l2_hits + T.l2_misses) : 0.0, r.occupancy.registers_per_thread,
      r.occupancy.blocks_per_sm, occupancy_limit_name(r.occupancy.limiter), r.occupancy.theoretical, r.achieved_occupancy, r.ipc,
      (unsigned long long)r.dram_read_bytes, (unsigned long long)T.stall_cycles[int(Stall::LongScoreboard)],
      (unsigned long long)T.stall_cycles[int(Stall::Barrier)], (unsigned long long)T.stall_cycles[int(Stall::ShortScoreboard)],
      (unsigned long long)l.sass_estimate, l.blocks, l.checksum, l.wall_s);
  return buf;
}

}  // namespace weft::gpusim::validation
