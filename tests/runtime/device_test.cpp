// runtime/device.h: device names, and the capabilities layers above ask for instead of a kind.
#include <gtest/gtest.h>

#include "runtime/device.h"
#include "runtime/errors.h"

namespace {

using namespace weft::runtime;

TEST(Device, ParsesAndNamesDevices) {
    EXPECT_EQ(parse_device("cpu").str(), "cpu");
    EXPECT_EQ(parse_device("cuda").str(), "cuda:0");
    EXPECT_EQ(parse_device("cuda:1").str(), "cuda:1");
    EXPECT_EQ(parse_device("sim").str(), "sim:h200");
    EXPECT_EQ(parse_device("sim:h100").str(), "sim:h100");
    try {
        parse_device("gpu");
        FAIL() << "no error";
    } catch (const RuntimeError& e) {
        EXPECT_STREQ(e.what(), "invalid device 'gpu': expected 'cpu', 'cuda[:N]' or 'sim[:ARCH]'");
    }
}

TEST(Device, GraphCaptureIsACudaCapability) {
    // The simulator and the CPU run recorded work again (runtime/replay.h); only CUDA makes a graph.
    EXPECT_FALSE(parse_device("cpu").supports(Capability::GraphCapture));
    EXPECT_FALSE(parse_device("sim:h200").supports(Capability::GraphCapture));
    EXPECT_TRUE(parse_device("cuda:0").supports(Capability::GraphCapture));
}

TEST(Device, OnlyCudaSharesMemoryWithOpenGL) {
    // The viewer's interop path (viewer/renderer.cpp): cpu and sim arrays are host memory already,
    // their snapshots are host vectors, and registering a GL buffer with them is an error.
    EXPECT_FALSE(parse_device("cpu").supports(Capability::GraphicsInterop));
    EXPECT_FALSE(parse_device("sim:h200").supports(Capability::GraphicsInterop));
    EXPECT_TRUE(parse_device("cuda:0").supports(Capability::GraphicsInterop));
    const Device sim = parse_device("sim:h200");
    if (!device_available(sim)) GTEST_SKIP() << "no sim device in this build";
    EXPECT_EQ(backend(sim).mark_queue(), nullptr) << "the sim device runs work as it is given: nothing to wait for";
    try {
        backend(sim).register_gl_buffer(7);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& e) {
        EXPECT_STREQ(e.what(),
                     "sim:h200: cannot share memory with OpenGL (buffer 7); its arrays are in host memory, upload "
                     "them instead");
    }
}

}  // namespace
