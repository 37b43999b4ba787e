// tests/gpusim/timing/policy_names_test.cpp — the built-in policies by name: every listed name
// makes the policy of that name, and an unknown name lists the known ones.
#include <gtest/gtest.h>

#include "gpusim/errors.h"
#include "gpusim/timing/policy_names.h"

namespace weft::gpusim {
namespace {

std::string error_of(void (*f)()) {
    try {
        f();
    } catch (const SimError& e) { return e.what(); }
    return "";
}

TEST(PolicyNames, EveryNameMakesThatPolicy) {
    EXPECT_EQ(scheduler_names(), (std::vector<std::string>{"gto", "lrr", "two-level", "latency-hiding"}));
    for (const std::string& n : scheduler_names()) EXPECT_EQ(scheduler_by_name(n)()->name(), n);
    EXPECT_EQ(shared_model_names(), (std::vector<std::string>{"nvidia-banks-h200", "nvidia-banks-doc"}));
    for (const std::string& n : shared_model_names()) EXPECT_EQ(shared_model_by_name(n)->name(), n);
    EXPECT_EQ(cache_policy_names(), (std::vector<std::string>{"lru", "fifo"}));
    for (const std::string& n : cache_policy_names()) EXPECT_EQ(cache_policy_by_name(n)->name(), n);
}

TEST(PolicyNames, UnknownNamesListTheKnownOnes) {
    EXPECT_EQ(error_of([] { scheduler_by_name("fifo"); }),
              "unknown warp scheduler 'fifo'; known: gto, lrr, two-level, latency-hiding");
    EXPECT_EQ(error_of([] { shared_model_by_name("x"); }),
              "unknown shared-memory model 'x'; known: nvidia-banks-h200, nvidia-banks-doc");
    EXPECT_EQ(error_of([] { cache_policy_by_name("mru"); }), "unknown cache policy 'mru'; known: lru, fifo");
}

}  // namespace
}  // namespace weft::gpusim
