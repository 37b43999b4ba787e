// tape/gradient_check.h and tape/testing.h: a kernel with a wrong custom adjoint is caught
// against central differences (and the right one passes), a golden that moved is reported with
// its diff table, entries are sampled as documented, and the GoogleTest helper's message holds
// the tables and a golden literal to paste.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/recorder.h"
#include "tape/gradient_check.h"
#include "tape/tape.h"
#include "tape/testing.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using namespace weft::test;
using runtime::Array;

// loss = sum_i cube(x_i) * w_i, with cube's adjoint right (3 v^2) or wrong (2 v^2).
const char* kEnergy = R"(
@wp.func
def cube(v: float) -> float:
    return v * v * v

@wp.func
def bad_cube(v: float) -> float:
    return v * v * v

@wp.func_grad(bad_cube)
def bad_cube_grad(v: float, adj_ret: float) -> float:
    return 2.0 * v * v * adj_ret

@wp.kernel
def energy(x: wp.array(dtype=float), w: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, cube(x[i]) * w[i])

@wp.kernel
def bad_energy(x: wp.array(dtype=float), w: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, bad_cube(x[i]) * w[i])
)";

struct Energy {
    std::shared_ptr<runtime::Module> m = module_of(kEnergy, "energy.py");
    std::string kernel;
    Array x = array_of(compiler::float32_type(), std::vector<float>{0.5f, -1.0f, 1.5f, 2.0f});
    Array w = array_of(compiler::float32_type(), std::vector<float>{1.0f, 0.5f, -2.0f, 0.25f});
    Array loss = Array::zeros(compiler::float32_type(), {1}, runtime::Device{}, true);

    explicit Energy(std::string k) : kernel(std::move(k)) {
        x.set_requires_grad(true);
        w.set_requires_grad(true);
    }
    double forward() {
        loss.zero_unrecorded();
        run(m, kernel, {4}, {arg(x), arg(w), arg(loss)});
        return values_of<float>(loss)[0];
    }
    // The loss, with x.grad and w.grad from the Tape.
    double backward() {
        tape::Tape t;
        double l;
        {
            runtime::ScopedRecorder rec(&t);
            loss.zero();
            run(m, kernel, {4}, {arg(x), arg(w), arg(loss)});
        }
        l = values_of<float>(loss)[0];
        t.backward(loss);
        return l;
    }
    std::vector<tape::CheckedParam> params() {
        tape::CheckedParam px, pw;
        px.name = "x";
        px.array = x;
        px.adjoint = tape::read_scalars(*x.grad());
        pw.name = "w";
        pw.array = w;
        pw.adjoint = tape::read_scalars(*w.grad());
        return {px, pw};
    }
};

TEST(GradientCheck, RightCustomAdjointPassesWrongOneIsCaught) {
    REQUIRE_CPU();
    tape::GradientCheckOptions o;
    o.eps = 1e-3;
    {
        Energy e("energy");
        double l = e.backward();
        tape::GradientCheckResult r = tape::check_gradients([&] { return e.forward(); }, l, e.params(), o);
        EXPECT_TRUE(r.passed) << tape::format_gradient_check(r);
        ASSERT_EQ(r.params.size(), 2u);
        EXPECT_EQ(r.params[0].entries.size(), 4u) << "a small parameter is checked entirely";
        // the reference: d/dx_i = 3 x_i^2 w_i
        EXPECT_NEAR(r.params[0].entries[2].adjoint, 3 * 1.5 * 1.5 * -2.0, 1e-5);
        EXPECT_NEAR(r.params[0].entries[2].fd, 3 * 1.5 * 1.5 * -2.0, 1e-2);
    }
    Energy e("bad_energy");
    double l = e.backward();
    tape::GradientCheckResult r = tape::check_gradients([&] { return e.forward(); }, l, e.params(), o);
    EXPECT_FALSE(r.passed);
    EXPECT_FALSE(r.params[0].passed) << "x goes through the wrong adjoint";
    EXPECT_TRUE(r.params[1].passed) << "w does not";
    for (const auto& entry : r.params[0].entries) {
        EXPECT_NEAR(entry.adjoint / entry.fd, 2.0 / 3.0, 1e-2) << entry.label;
        EXPECT_TRUE(entry.smooth) << "a cubic is smooth at eps: the adjoint is to blame";
    }
    std::string table = tape::format_gradient_check(r);
    EXPECT_NE(table.find("d loss / d x: 4 of 4 entries checked"), std::string::npos) << table;
    EXPECT_NE(table.find("4 disagree"), std::string::npos) << table;
    EXPECT_NE(table.find("x[2]"), std::string::npos) << table;
    EXPECT_NE(table.find("<- disagrees"), std::string::npos) << table;
    EXPECT_NE(table.find("d loss / d w: 4 of 4 entries checked"), std::string::npos) << table;
}

// A kink inside the step: |x| at 0 (a clamp, a contact switching) gives finite differences that
// change with eps, which the check names instead of blaming the adjoint.
TEST(GradientCheck, FiniteDifferencesThatChangeWithEpsAreNamed) {
    Array x = Array::zeros(compiler::float64_type(), {1}, runtime::Device{});
    double v = 1e-3;
    x.copy_from_host(&v, 8);
    auto loss = [&] {
        double h;
        x.copy_to_host(&h, 8);
        return std::abs(h - 1e-3 + 4e-3) + h;  // kink at h = -3e-3, inside [x - eps, x + eps] but not [x - eps/2, ...]
    };
    tape::CheckedParam p;
    p.name = "x";
    p.array = x;
    p.adjoint = {1.6};  // near neither: off by 0.2 from fd(h), the same as fd(h) and fd(h/2) differ
    p.eps = 5e-3;
    tape::GradientCheckOptions o;
    o.loss_precision = 2.2e-16;
    tape::GradientCheckResult r = tape::check_gradients(loss, loss(), {p}, o);
    ASSERT_EQ(r.params[0].entries.size(), 1u);
    const auto& e = r.params[0].entries[0];
    EXPECT_FALSE(e.passed);
    EXPECT_FALSE(e.smooth) << e.fd << " " << e.fd_half;
    EXPECT_NEAR(e.fd, 1.8, 1e-9);       // (2 (x + eps - kink) + 0) / 2 eps: the kink is crossed
    EXPECT_NEAR(e.fd_half, 2.0, 1e-9);  // the step stays on one side
    EXPECT_NE(tape::format_gradient_check(r).find("<- fd not smooth"), std::string::npos);
}

TEST(GradientCheck, SamplesSpreadEntriesAndTheLargest) {
    std::vector<double> adj(100, 0.0);
    adj[37] = 5.0;
    adj[81] = -9.0;
    std::vector<size_t> s = tape::sample_entries(adj, 6);
    EXPECT_EQ(s.size(), 6u);
    EXPECT_TRUE(std::is_sorted(s.begin(), s.end()));
    EXPECT_NE(std::find(s.begin(), s.end(), 37u), s.end());
    EXPECT_NE(std::find(s.begin(), s.end(), 81u), s.end());
    EXPECT_EQ(s.front(), 0u);
    EXPECT_EQ(tape::sample_entries(std::vector<double>(5, 1.0), 8).size(), 5u) << "a small parameter: every entry";
}

TEST(GradientCheck, GoldenThatMovedIsADiffTable) {
    tape::GradientValues golden = tape::testing::golden(1.5, {{"k", {1.0, 2.0, 0.0}}, {"v", {3.0}}});
    tape::GradientValues now = golden;
    EXPECT_TRUE(tape::compare_golden(now, golden, 1e-3).passed);
    // k[0] within rtol; k[1] moved; k[2] moved from 0 by less than the floor rtol * 1e-3 * max|k| = 2e-6
    now.gradients["k"].values = {1.0005, 2.01, 1e-6};
    now.gradients["k"].labels = {"k[0]", "k[1]", "k[2]"};
    now.loss = 1.6;
    tape::GoldenComparison c = tape::compare_golden(now, golden, 1e-3);
    EXPECT_FALSE(c.passed);
    ASSERT_EQ(c.moved.size(), 2u);
    EXPECT_EQ(c.moved[0].param, "loss");
    EXPECT_EQ(c.moved[1].label, "k[1]");
    EXPECT_NE(c.table.find("golden: 2 values moved beyond rtol 0.001:"), std::string::npos) << c.table;
    EXPECT_NE(c.table.find("k[1]"), std::string::npos) << c.table;
    EXPECT_NE(c.table.find("2.01"), std::string::npos) << c.table;

    tape::GradientValues extra = golden;
    extra.gradients["new"].values = {1.0};
    extra.gradients["v"].values = {3.0, 4.0};
    c = tape::compare_golden(extra, golden, 1e-3);
    ASSERT_EQ(c.problems.size(), 2u);
    EXPECT_EQ(c.problems[0], "the golden file has no gradient for 'new' (run with --update to add it)");
    EXPECT_EQ(c.problems[1], "'v' has 2 entries, the golden 1 (the scene changed; run with --update)");

    std::string what = tape::describe_golden_update(&golden, now, 1e-3);
    EXPECT_NE(what.find("changed: loss 1.5 -> 1.6"), std::string::npos) << what;
    EXPECT_NE(what.find("changed: d loss / d k: 1 of 3 entries (largest relative change 0.005)"), std::string::npos) << what;
    EXPECT_EQ(what.find("d loss / d v"), std::string::npos) << "v did not move: " << what;
    EXPECT_EQ(tape::describe_golden_update(&golden, golden, 1e-3), "  unchanged (within rtol 0.001)\n");
    EXPECT_NE(tape::describe_golden_update(nullptr, golden, 1e-3).find("new: d loss / d k (3 entries)"), std::string::npos);
}

// tape/testing.h: passes on the right adjoint and its golden; fails with both tables and a
// golden literal when the golden moved.
TEST(GradientCheck, GoogleTestHelper) {
    REQUIRE_CPU();
    Energy e("energy");
    double l = e.backward();
    tape::GradientCheckOptions o;
    o.eps = 1e-3;
    auto params = e.params();
    // d/dx_i = 3 x_i^2 w_i, d/dw_i = x_i^3: the golden written from the analytic gradient
    tape::GradientValues right = tape::testing::golden({{"x", {0.75, 1.5, -13.5, 3.0}}, {"w", {0.125, -1.0, 3.375, 8.0}}});
    EXPECT_TRUE(tape::testing::gradients_close([&] { return e.forward(); }, l, params, o, right));
    tape::GradientValues moved = right;
    moved.gradients["w"].values[3] = 8.5;
    ::testing::AssertionResult r = tape::testing::gradients_close([&] { return e.forward(); }, l, params, o, moved);
    ASSERT_FALSE(r);
    std::string msg = r.message();
    EXPECT_NE(msg.find("gradients agree with finite differences"), std::string::npos) << msg;
    EXPECT_NE(msg.find("golden: 1 value moved beyond rtol 0.001:"), std::string::npos) << msg;
    EXPECT_NE(msg.find("w[3]"), std::string::npos) << msg;
    EXPECT_NE(msg.find("tape::testing::golden({{\"x\", {0.75, 1.5, -13.5, 3}}, {\"w\", {0.125, -1, 3.375, 8}}})"),
              std::string::npos)
        << msg;
}

}  // namespace
