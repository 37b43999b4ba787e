// compiler/launch_list.h: the persistent entry's source holds each module's forward code once, in
// a namespace of its own, with no entry points and no adjoints; one case per listed launch; the
// layout of its parameter block; and the kernels it refuses, by name. (That NVRTC compiles it and
// that it computes what the launches do is tests/runtime/launch_list_test.cpp's.)
#include <gtest/gtest.h>

#include <stdexcept>

#include "compiler/launch_list.h"

namespace {

using namespace weft::compiler;

const char* const kA = R"(import weft as wp

@wp.kernel
def scale(x: wp.array(dtype=wp.float32), s: wp.float32):
    i = wp.tid()
    x[i] = x[i] * s

@wp.kernel
def blockwise(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    wp.sync_threads()
    x[i] = 1.0

@wp.kernel
def shared_sum(x: wp.array(dtype=wp.float32)):
    i = wp.tid()
    buf = wp.shared_array(shape=(256,), dtype=wp.float32)
    buf[i % 256] = x[i]
)";

const char* const kB = R"(import weft as wp

@wp.kernel
def shift(a: wp.array2d(dtype=wp.vec3), b: wp.array2d(dtype=wp.vec3)):
    i, j = wp.tid()
    b[i, j] = a[i, j] + wp.vec3(1.0, 0.0, 0.0)
)";

size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}

TEST(LaunchList, SourceHoldsEachModuleOnceAndACasePerLaunch) {
    auto a = compile_module({{"a.py", kA, 0}}, {});
    auto b = compile_module({{"b.py", kB, 0}}, {});
    const KernelInfo* scale = a->find_kernel("scale");
    const KernelInfo* shift = b->find_kernel("shift");
    // Two cases of `scale` (two launches with different arguments), one of `shift`.
    const std::vector<ListedKernel> cases = {{a.get(), scale}, {b.get(), shift}, {a.get(), scale}};
    const std::string src = launch_list_source(cases, {0, 1, 2, 1, 0});
    EXPECT_EQ(count(src, "namespace wl0 {"), 1u);
    EXPECT_EQ(count(src, "namespace wl1 {"), 1u);
    EXPECT_EQ(count(src, "namespace wl2 {"), 0u) << "a module's code once, however many cases use it";
    EXPECT_EQ(count(src, "#include \"weft_native.h\""), 1u) << "the modules' own preambles are left out";
    EXPECT_EQ(count(src, "__global__"), 1u) << "no kernel entry but the list's";
    EXPECT_EQ(count(src, "scale_cuda"), 0u);
    EXPECT_EQ(count(src, "_body_backward"), 0u) << "forward code only";
    EXPECT_NE(src.find("extern \"C\" __global__ void weft_launch_list(const weft_list_params p, int first_step, int count, "
                       "unsigned int* barrier)"),
              std::string::npos);
    EXPECT_NE(src.find("static __constant__ int weft_list_sequence[5] = {0, 1, 2, 1, 0};"), std::string::npos);
    EXPECT_NE(src.find("case 0:  // scale"), std::string::npos);
    EXPECT_NE(src.find("case 1:  // shift"), std::string::npos);
    EXPECT_NE(src.find("case 2:  // scale"), std::string::npos);
    EXPECT_NE(src.find("wl1::shift_body<false>(ctx, p.bounds[1], p.c1)"), std::string::npos);
    EXPECT_NE(src.find("#line "), std::string::npos) << "the bodies keep their kernel-file lines";

    // The layout: three launch_bounds_t (32 bytes each), then each case's K_args at its alignment.
    const LaunchListLayout l = launch_list_layout(cases);
    ASSERT_EQ(l.args_offset.size(), 3u);
    EXPECT_EQ(l.bounds_offset, (std::vector<size_t>{0, 32, 64}));
    EXPECT_EQ(l.args_offset[0], 96u);
    EXPECT_EQ(l.args_offset[1], 96u + scale->args_size);
    EXPECT_EQ(l.args_offset[2], 96u + scale->args_size + shift->args_size);
    EXPECT_EQ(l.size, 96u + 2 * scale->args_size + shift->args_size);
    EXPECT_NE(src.find("static_assert(sizeof(weft_list_params) == " + std::to_string(l.size)), std::string::npos);
}

TEST(LaunchList, RefusesKernelsWhoseBlocksMustBeTheLaunchsOwn) {
    auto a = compile_module({{"a.py", kA, 0}}, {});
    EXPECT_EQ(launch_list_refusal(*a->find_kernel("scale")), "");
    EXPECT_EQ(launch_list_refusal(*a->find_kernel("blockwise")), "kernel 'blockwise' synchronises its block (wp.sync_threads)");
    EXPECT_EQ(launch_list_refusal(*a->find_kernel("shared_sum")), "kernel 'shared_sum' uses shared memory");
    try {
        launch_list_source({{a.get(), a->find_kernel("blockwise")}}, {0});
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "launch_list_source: kernel 'blockwise' synchronises its block (wp.sync_threads)");
    }
    EXPECT_THROW(launch_list_source({}, {0}), std::invalid_argument);
    try {
        launch_list_source({{a.get(), a->find_kernel("scale")}}, {0, 1});
        FAIL() << "expected an error";
    } catch (const std::invalid_argument& e) { EXPECT_STREQ(e.what(), "launch_list_source: step of case 1, of 1"); }
}

}  // namespace
