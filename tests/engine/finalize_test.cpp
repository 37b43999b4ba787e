// engine/finalize.cpp: the semi-implicit solver's per-particle spring lists (engine/model.h) that
// finalize() lays out: a grid gets the
// column-by-column (ELL) layout, a hub-and-spokes model (one particle with many springs) keeps
// CSR, and both layouts give the same bits as each other.
#include <cstring>

#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

TEST(SpringLayout, GridsUseEllHubsUseCsrAndBothGiveTheSameBits) {
    REQUIRE_CPU();
    ModelBuilder g(-9.81f);
    SpringGridDef d;
    d.dim_x = d.dim_z = 10;
    g.add_spring_grid(d);
    Model grid = g.finalize("cpu");
    EXPECT_EQ(grid.particle_spring_width, 12) << "an interior particle of add_spring_grid has 12 springs";

    ModelBuilder h(-9.81f);
    h.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 0.0f, 0.05f);  // the fixed hub
    for (int k = 0; k < 40; ++k) {
        float a = 0.157f * float(k);
        h.add_particle(Vec3(std::cos(a), 1.0f, std::sin(a)), Vec3::Zero(), 0.1f, 0.05f);
        h.add_spring(0, k + 1, 100.0f, 1.0f, 0.9f);
    }
    Model hub = h.finalize("cpu");
    EXPECT_EQ(hub.particle_spring_width, 0) << "40 x 41 padded entries for 80: CSR";

    SemiImplicitIntegrator integ;
    auto ell = host_vec3(rollout(grid, integ, 50, 1e-3f).particle_q);
    grid.particle_spring_width = 0;  // force the CSR kernel on the same model
    auto csr = host_vec3(rollout(grid, integ, 50, 1e-3f).particle_q);
    ASSERT_EQ(ell.size(), csr.size());
    EXPECT_EQ(std::memcmp(ell.data(), csr.data(), ell.size() * sizeof(ell[0])), 0);
    auto q = host_vec3(rollout(hub, integ, 50, 1e-3f).particle_q);
    for (const auto& p : q) EXPECT_TRUE(std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]));
}

}  // namespace
