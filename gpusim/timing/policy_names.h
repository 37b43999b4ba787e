// gpusim/timing/policy_names.h — the built-in policies of policies.h by name: the one list that
// tools (the sim device's settings, `weft sim --scheduler`) take names from and print in their
// errors. A new built-in policy is one row here.
//
//   warp schedulers       gto (default), lrr, two-level, latency-hiding
//   shared-memory models  nvidia-banks-h200 (default), nvidia-banks-doc
//   cache policies        lru (default), fifo
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gpusim/timing/policies.h"

namespace weft::gpusim {

std::vector<std::string> scheduler_names();  // in the order above
std::vector<std::string> shared_model_names();
std::vector<std::string> cache_policy_names();

// The policy called `name`. Throws SimError: "unknown warp scheduler 'fifo'; known: gto, lrr,
// two-level, latency-hiding" (and likewise "shared-memory model", "cache policy").
SchedulerFactory scheduler_by_name(std::string_view name);
std::shared_ptr<const SharedMemoryModel> shared_model_by_name(std::string_view name);
std::shared_ptr<const CachePolicy> cache_policy_by_name(std::string_view name);

}  // namespace weft::gpusim
