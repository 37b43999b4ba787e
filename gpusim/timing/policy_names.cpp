// gpusim/timing/policy_names.cpp — the tables behind policy_names.h.
#include "gpusim/timing/policy_names.h"

#include "gpusim/errors.h"

namespace weft::gpusim {

namespace {

template <typename T>
struct Named {
    const char* name;
    T (*make)();
};

const Named<SchedulerFactory> kSchedulers[] = {
    {"gto", [] { return gto_scheduler(); }},
    {"lrr", [] { return lrr_scheduler(); }},
    {"two-level", [] { return two_level_scheduler(); }},
    {"latency-hiding", [] { return latency_hiding_scheduler(); }},
};

const Named<std::shared_ptr<const SharedMemoryModel>> kSharedModels[] = {
    {"nvidia-banks-h200",
     [] { return std::shared_ptr<const SharedMemoryModel>(std::make_shared<NvidiaBankModel>(BankRule::kH200Measured)); }},
    {"nvidia-banks-doc",
     [] { return std::shared_ptr<const SharedMemoryModel>(std::make_shared<NvidiaBankModel>(BankRule::kNsightDoc)); }},
};

const Named<std::shared_ptr<const CachePolicy>> kCachePolicies[] = {
    {"lru", [] { return std::shared_ptr<const CachePolicy>(std::make_shared<LruCachePolicy>()); }},
    {"fifo", [] { return std::shared_ptr<const CachePolicy>(std::make_shared<FifoCachePolicy>()); }},
};

template <typename T, size_t N>
std::vector<std::string> names(const Named<T> (&table)[N]) {
    std::vector<std::string> out;
    for (const auto& row : table) out.emplace_back(row.name);
    return out;
}

template <typename T, size_t N>
T by_name(const Named<T> (&table)[N], std::string_view name, const char* what) {
    for (const auto& row : table)
        if (name == row.name) return row.make();
    std::string list;
    for (const auto& row : table) list += (list.empty() ? "" : ", ") + std::string(row.name);
    throw SimError("unknown " + std::string(what) + " '" + std::string(name) + "'; known: " + list);
}

}  // namespace

std::vector<std::string> scheduler_names() { return names(kSchedulers); }
std::vector<std::string> shared_model_names() { return names(kSharedModels); }
std::vector<std::string> cache_policy_names() { return names(kCachePolicies); }

SchedulerFactory scheduler_by_name(std::string_view name) { return by_name(kSchedulers, name, "warp scheduler"); }
std::shared_ptr<const SharedMemoryModel> shared_model_by_name(std::string_view name) {
    return by_name(kSharedModels, name, "shared-memory model");
}
std::shared_ptr<const CachePolicy> cache_policy_by_name(std::string_view name) {
    return by_name(kCachePolicies, name, "cache policy");
}

}  // namespace weft::gpusim
