// The grid of grid-stride launches (runtime/cuda/grid_policy.h): chosen per kernel from the bytes
// its threads stream, unless a fixed number of waves is set. No GPU needed.
#include <gtest/gtest.h>

#include "runtime/cuda/grid_policy.h"
#include "runtime/module.h"

namespace {

using namespace weft::runtime;

const char* kKernels = R"(
import weft as wp

@wp.kernel
def saxpy(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a * x[i] + y[i]

@wp.kernel
def fill(y: wp.array(dtype=float), a: float):
    i = wp.tid()
    y[i] = a

@wp.kernel
def particles(x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    x[i] = x[i] + v[i] * dt

@wp.kernel
def copy3(x: wp.array(dtype=float), y: wp.array(dtype=float), z: wp.array(dtype=float), w: wp.array(dtype=float), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = x[i] + y[i] + z[i] + w[i]
)";

TEST(GridPolicy, StreamedBytesCountOneElementOfEachArrayRead) {
    auto m = Module::compile({{"grid.py", kKernels}});
    EXPECT_EQ(streamed_bytes_per_thread(m->kernel("saxpy").info()), 8u);       // x and y: 4 + 4
    EXPECT_EQ(streamed_bytes_per_thread(m->kernel("fill").info()), 0u);        // y is only written
    EXPECT_EQ(streamed_bytes_per_thread(m->kernel("particles").info()), 24u);  // x, v: vec3 + vec3
    EXPECT_EQ(streamed_bytes_per_thread(m->kernel("copy3").info()), 16u);      // four floats read
}

TEST(GridPolicy, AutoCapsLightKernelsOnlyAndFixedSettingsApplyToAll) {
    auto m = Module::compile({{"grid.py", kKernels}});
    const auto& saxpy = m->kernel("saxpy").info();
    const auto& particles = m->kernel("particles").info();
    const auto& copy3 = m->kernel("copy3").info();
    EXPECT_EQ(grid_waves_for(saxpy, kGridWavesAuto), kAutoWaves);
    EXPECT_EQ(grid_waves_for(particles, kGridWavesAuto), 0);  // the full grid
    EXPECT_EQ(grid_waves_for(copy3, kGridWavesAuto), 0);      // at the threshold: full grid
    EXPECT_EQ(grid_waves_for(saxpy, 0), 0);
    EXPECT_EQ(grid_waves_for(particles, 3), 3);
    EXPECT_EQ(grid_waves_for(saxpy, -7), 0);  // any other negative value: the full grid
}

}  // namespace
