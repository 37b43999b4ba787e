// engine/integrator_registry.h: integrators by name. This file is a test binary of its own that
// names no integrator class and includes no integrator header, so it also shows that the
// built-in integrators are linked from the static weft_engine wherever the registry is (the
// failure mode of self-registering objects in static libraries; see engine/integrators.def).
#include <gtest/gtest.h>

#include "engine/integrator_registry.h"
#include "runtime/errors.h"

namespace {

using namespace weft;
using namespace weft::engine;

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const runtime::RuntimeError& e) { return e.what(); }
    return "(no error)";
}

TEST(IntegratorRegistry, BuiltInIntegratorsAreLinkedAndListed) {
    std::vector<std::string> names = integrator_names();
    EXPECT_EQ(names, (std::vector<std::string>{"featherstone", "mpm", "semi_implicit", "smoke", "xpbd"}));
    for (const auto& name : names) EXPECT_EQ(create_integrator(name)->name(), name);
}

TEST(IntegratorRegistry, UnknownNamesAndOptionsAreErrorsWithDidYouMean) {
    EXPECT_EQ(error_of([] { create_integrator("xbpd"); }),
              "unknown integrator 'xbpd' (did you mean 'xpbd'?); the integrators are 'featherstone', 'mpm', 'semi_implicit', "
              "'smoke', 'xpbd'");
    EXPECT_EQ(error_of([] { integrator_info("semi_implict"); }),
              "unknown integrator 'semi_implict' (did you mean 'semi_implicit'?); the integrators are 'featherstone', 'mpm', "
              "'semi_implicit', "
              "'smoke', 'xpbd'");
    EXPECT_EQ(error_of([] { create_integrator("fem"); }),
              "unknown integrator 'fem'; the integrators are 'featherstone', 'mpm', 'semi_implicit', 'smoke', 'xpbd'");
    EXPECT_EQ(error_of([] {
                  create_integrator("xpbd", {{"iteratons", 3}});
              }),
              "integrator 'xpbd' has no option 'iteratons' (did you mean 'iterations'?)");
    EXPECT_EQ(error_of([] {
                  create_integrator("semi_implicit", {{"iterations", 3}});
              }),
              "integrator 'semi_implicit' has no option 'iterations'; its options are 'angular_damping'");
    EXPECT_EQ(error_of([] {
                  create_integrator("xpbd", {{"iterations", 0}});
              }),
              "integrator 'xpbd': option 'iterations' must be in [1, 1000], got 0");
}

TEST(IntegratorRegistry, OptionsReachTheIntegrator) {
    const IntegratorInfo& info = integrator_info("xpbd");
    ASSERT_EQ(info.options.size(), 10u);  // the particles' three, then the rigid bodies' (Warp's keywords)
    EXPECT_EQ(info.options[0].name, "iterations");
    EXPECT_EQ(info.options[1].name, "relaxation");
    EXPECT_EQ(info.options[2].name, "contact_relaxation");
    EXPECT_EQ(info.options[9].name, "rigid_contact_margin");
    ASSERT_EQ(integrator_info("semi_implicit").options.size(), 1u);
    EXPECT_EQ(integrator_info("semi_implicit").options[0].name, "angular_damping");
    EXPECT_EQ(integrator_info("semi_implicit").options[0].default_value, 0.05);
}

// An integrator added at run time (as a plugin would): it is listed, made by name, and its
// name cannot be taken twice.
class Hold : public Integrator {
public:
    explicit Hold(const IntegratorOptions& o) : scale(float(o.number("scale"))) {}
    const IntegratorInfo& info() const override { return info_of(); }
    void simulate(const Model&, const State&, State&, float, const Control*) override {}
    std::vector<Renderable> renderables(const Model& m) const override { return model_renderables(m); }
    static const IntegratorInfo& info_of() {
        static const IntegratorInfo i = [] {
            IntegratorInfo x;
            x.name = "test_hold";
            x.summary = "does nothing";
            x.options = {{"scale", OptionSpec::Type::Number, 1.0, 0.0, 10.0, false, "a number"}};
            return x;
        }();
        return i;
    }
    float scale;
};

TEST(IntegratorRegistry, RegisterAddsOneByName) {
    register_integrator({Hold::info_of(), [](const IntegratorOptions& o) { return std::make_unique<Hold>(o); }});
    auto names = integrator_names();
    EXPECT_NE(std::find(names.begin(), names.end(), "test_hold"), names.end());
    auto it = create_integrator("test_hold", {{"scale", 2.5}});
    EXPECT_EQ(dynamic_cast<Hold&>(*it).scale, 2.5f);
    EXPECT_EQ(dynamic_cast<Hold&>(*create_integrator("test_hold")).scale, 1.0f);
    EXPECT_EQ(error_of([] {
                  register_integrator({Hold::info_of(), [](const IntegratorOptions& o) { return std::make_unique<Hold>(o); }});
              }),
              "register_integrator: an integrator named 'test_hold' is already registered");
    EXPECT_EQ(error_of([] {
                  register_integrator({IntegratorInfo{}, nullptr});
              }),
              "register_integrator: the integrator has no name");
}

}  // namespace
