// tests/engine/featherstone_device_test.cpp: the Featherstone integrator on a CUDA device against
// the same PTX on the simulator (sim:h200): a floating box with a hinged and a ball-jointed limb
// falling onto the ground, 3 semi-implicit steps (the simulator runs every launch's PTX, about 2 s
// a launch here: 40 RK4 steps and then 12 Euler ones ran past the device call's limits). Skipped
// without a GPU (and without NVRTC).
#include <gtest/gtest.h>

#include "engine/featherstone.h"
#include "runtime/device.h"
#include "tests/engine/engine_test_util.h"

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

namespace {

ModelBuilder moving_limbed_box() {
    ModelBuilder b = limbed_box();
    b.joint_qd = {0.5f, 0.0f, 1.0f, 0.2f, 0.0f, 0.0f, 2.0f, 1.0f, 0.0f, -1.0f};
    return b;
}

}  // namespace

TEST(Featherstone, CudaStepsMatchTheSimulator) {
    if (!runtime::device_available(runtime::parse_device("cuda:0"))) GTEST_SKIP() << "no CUDA device";
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no NVRTC";
    Model mc = moving_limbed_box().finalize("cuda:0"), ms = moving_limbed_box().finalize("sim:h200");
    FeatherstoneIntegrator a, z;
    auto rc = bodies_of(rollout(mc, a, 3, 1e-3f));
    auto rs = bodies_of(rollout(ms, z, 3, 1e-3f));
    ASSERT_EQ(rc.size(), 3u);
    for (size_t k = 0; k < rc.size(); ++k) {
        EXPECT_LT((rc[k].p - rs[k].p).norm(), 1e-5) << k;
        EXPECT_LT((rc[k].w - rs[k].w).norm(), 1e-4 * (1 + rc[k].w.norm())) << k;
    }
}
