// tape/testing.h: gradient regression tests in GoogleTest, on the mechanism of `weft gradcheck`
// (tape/gradient_check.h): the Tape's gradients against central finite differences, and against
// golden values kept in the test's source (docs/gradient-testing.md).
//
//   tape::Tape t;  { runtime::ScopedRecorder rec(&t); run_forward(); }  t.backward(loss);
//   tape::CheckedParam k;
//   k.name = "stiffness";
//   k.array = model.spring_stiffness;
//   k.adjoint = tape::read_scalars(*model.spring_stiffness.grad());
//   EXPECT_TRUE(tape::testing::gradients_close([&] { return forward_loss(); }, loss_value, {k},
//                                             options, tape::testing::golden({{"stiffness", {0.0338123}}})));
//
// The failure message holds the finite-difference table (tape/gradient_check.h), the golden diff
// table, and the values of this run written as a golden literal to paste when a change of the
// gradients is intended (the C++ counterpart of `weft gradcheck --update`). Header-only: it is
// used by test binaries, which link GoogleTest; the library weft_tape does not.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <optional>
#include <sstream>

#include "tape/gradient_check.h"

namespace weft::tape::testing {

// A golden without a loss value: {{"name", {values...}}, ...}.
inline GradientValues golden(std::map<std::string, std::vector<double>> gradients) {
    GradientValues g;
    g.has_loss = false;
    for (auto& [name, v] : gradients) g.gradients[name].values = std::move(v);
    return g;
}
// A golden with the loss value too.
inline GradientValues golden(double loss, std::map<std::string, std::vector<double>> gradients) {
    GradientValues g = golden(std::move(gradients));
    g.loss = loss;
    g.has_loss = true;
    return g;
}

// This run's values as a golden(...) literal.
inline std::string golden_literal(const GradientCheckResult& r, const std::vector<CheckedParam>& params, bool with_loss) {
    std::ostringstream os;
    os.precision(6);
    os << "tape::testing::golden(";
    if (with_loss) os << r.loss << ", ";
    os << "{";
    for (size_t i = 0; i < params.size(); ++i) {
        os << (i ? ", " : "") << "{\"" << params[i].name << "\", {";
        for (size_t k = 0; k < params[i].adjoint.size(); ++k) os << (k ? ", " : "") << params[i].adjoint[k];
        os << "}}";
    }
    os << "})";
    return os.str();
}

// Passes when every checked entry agrees with finite differences and, with a golden, every
// parameter the golden names (and its loss, if it has one) is within golden_rtol of it
// (compare_golden). A parameter the golden lacks is a failure: goldens are written on purpose.
inline ::testing::AssertionResult gradients_close(const std::function<double()>& loss, double loss_value,
                                                  const std::vector<CheckedParam>& params,
                                                  const GradientCheckOptions& options = {},
                                                  const std::optional<GradientValues>& golden_values = std::nullopt,
                                                  double golden_rtol = 1e-3) {
    GradientCheckResult r = check_gradients(loss, loss_value, params, options);
    std::string golden_table;
    bool golden_ok = true;
    if (golden_values) {
        GradientValues now;
        now.loss = loss_value;
        now.has_loss = golden_values->has_loss;
        for (const auto& p : params) now.gradients[p.name] = {p.adjoint, p.labels};
        GoldenComparison c = compare_golden(now, *golden_values, golden_rtol);
        golden_ok = c.passed;
        golden_table = c.table;
    }
    if (r.passed && golden_ok) return ::testing::AssertionSuccess();
    ::testing::AssertionResult fail = ::testing::AssertionFailure();
    fail << "gradients " << (r.passed ? "agree with finite differences" : "disagree with finite differences") << "\n"
         << format_gradient_check(r) << golden_table << "this run, as a golden (paste it if the change is intended):\n  "
         << golden_literal(r, params, golden_values && golden_values->has_loss) << "\n";
    return fail;
}

}  // namespace weft::tape::testing
