// engine/integrator_options.h: options resolved against an integrator's specs: defaults filled
// in, and every mistake an error naming the integrator and the option.
#include <gtest/gtest.h>

#include "engine/integrator_options.h"
#include "runtime/errors.h"

namespace {

using namespace weft;
using namespace weft::engine;

const std::vector<OptionSpec> kSpecs = {
    {"iterations", OptionSpec::Type::Integer, 2, 1, 1000, false, "iterations"},
    {"relaxation", OptionSpec::Type::Number, 0.9, 0.0, 2.0, true, "relaxation"},
};

std::string error_of(const IntegratorOptions& o) {
    try {
        resolve_options("solver", kSpecs, o);
    } catch (const runtime::RuntimeError& e) { return e.what(); }
    return "(no error)";
}

TEST(IntegratorOptions, DefaultsFillWhatIsNotGiven) {
    IntegratorOptions o = resolve_options("solver", kSpecs, {{"relaxation", 1.0}});
    EXPECT_EQ(o.integer("iterations"), 2);
    EXPECT_EQ(o.number("relaxation"), 1.0);
    EXPECT_EQ(o.values().size(), 2u);
}

TEST(IntegratorOptions, MistakesNameTheOption) {
    EXPECT_EQ(error_of({{"relaxaton", 1.0}}), "integrator 'solver' has no option 'relaxaton' (did you mean 'relaxation'?)");
    EXPECT_EQ(error_of({{"zzzzzz", 1.0}}),
              "integrator 'solver' has no option 'zzzzzz'; its options are 'iterations', 'relaxation'");
    EXPECT_EQ(error_of({{"iterations", 2.5}}), "integrator 'solver': option 'iterations' must be an integer, got 2.5");
    EXPECT_EQ(error_of({{"iterations", 1001}}), "integrator 'solver': option 'iterations' must be in [1, 1000], got 1001");
    EXPECT_EQ(error_of({{"relaxation", 0}}), "integrator 'solver': option 'relaxation' must be in (0, 2], got 0");
    EXPECT_EQ(option_range(kSpecs[1]), "(0, 2]");
    try {
        IntegratorOptions().number("iterations");
        FAIL() << "no error";
    } catch (const runtime::RuntimeError& e) { EXPECT_STREQ(e.what(), "integrator option 'iterations' is not set"); }
}

}  // namespace
