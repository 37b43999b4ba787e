// gpusim/timing/policies.h — the replaceable parts of the timing model, as small interfaces
// with built-in implementations.
//
// [SECTION] WarpSchedulerPolicy   which eligible warp a scheduler issues (LRR, GTO built in)
// [SECTION] SharedMemoryModel     wavefronts of a shared-memory request (NVIDIA's bank rule)
//
// A policy object is used by one SM sub-partition at a time; the timing model asks the
// factory in TimingOptions for one per scheduler, so policies may keep state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "gpusim/bank_model.h"

namespace weft::gpusim {

// ---------------------------------------------------------------------------------------------
// [SECTION] WarpSchedulerPolicy
// A warp as a scheduler sees it: `slot` indexes the scheduler's warp list (stable while the
// warp lives), `age` grows with the order warps were launched on the SM (lower = older).
struct SchedulerCandidate {
  int32_t slot = 0;
  uint64_t age = 0;
};

class WarpSchedulerPolicy {
 public:
  virtual ~WarpSchedulerPolicy() = default;
  // `eligible` is non-empty and sorted by slot. Returns the index into `eligible` to issue.
  virtual size_t pick(std::span<const SchedulerCandidate> eligible) = 0;
  // Called after the picked warp issued.
  virtual void issued(const SchedulerCandidate& c) { (void)c; }
  virtual const char* name() const = 0;
};

// Loose round-robin: the first eligible warp after the one that issued last.
class LooseRoundRobinPolicy final : public WarpSchedulerPolicy {
 public:
  size_t pick(std::span<const SchedulerCandidate> eligible) override {
    for (size_t i = 0; i < eligible.size(); ++i)
      if (eligible[i].slot > last_) return i;
    return 0;
  }
  void issued(const SchedulerCandidate& c) override { last_ = c.slot; }
  const char* name() const override { return "lrr"; }

 private:
  int32_t last_ = -1;
};

// Greedy-then-oldest: keep issuing the same warp while it is eligible, else the oldest.
class GreedyThenOldestPolicy final : public WarpSchedulerPolicy {
 public:
  size_t pick(std::span<const SchedulerCandidate> eligible) override {
    size_t oldest = 0;
    for (size_t i = 0; i < eligible.size(); ++i) {
      if (eligible[i].slot == last_ && eligible[i].age == last_age_) return i;
      if (eligible[i].age < eligible[oldest].age) oldest = i;
    }
    return oldest;
  }
  void issued(const SchedulerCandidate& c) override {
    last_ = c.slot;
    last_age_ = c.age;
  }
  const char* name() const override { return "gto"; }

 private:
  int32_t last_ = -1;
  uint64_t last_age_ = 0;
};

using SchedulerFactory = std::function<std::unique_ptr<WarpSchedulerPolicy>()>;
inline SchedulerFactory lrr_scheduler() { return [] { return std::make_unique<LooseRoundRobinPolicy>(); }; }
inline SchedulerFactory gto_scheduler() { return [] { return std::make_unique<GreedyThenOldestPolicy>(); }; }

// ---------------------------------------------------------------------------------------------
// [SECTION] SharedMemoryModel
class SharedMemoryModel {
 public:
  virtual ~SharedMemoryModel() = default;
  // addr[lane] for lanes in `active` (byte offsets in the block's shared memory); `bytes` per lane.
  virtual BankCost cost(const uint32_t addr[32], uint32_t active, uint32_t bytes) const = 0;
  virtual const char* name() const = 0;
};

// The default: shared_bank_cost of bank_model.h (32 banks x 4 bytes, broadcast, phases),
// with the H200-measured phase rule unless told otherwise.
class NvidiaBankModel final : public SharedMemoryModel {
 public:
  explicit NvidiaBankModel(BankRule rule = BankRule::kH200Measured) : rule_(rule) {}
  BankCost cost(const uint32_t addr[32], uint32_t active, uint32_t bytes) const override { return shared_bank_cost(addr, active, bytes, rule_); }
  const char* name() const override { return rule_ == BankRule::kH200Measured ? "nvidia-banks-h200" : "nvidia-banks-doc"; }

 private:
  BankRule rule_;
};

}  // namespace weft::gpusim
