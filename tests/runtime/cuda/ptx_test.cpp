// tests/runtime/cuda/ptx_test.cpp: PTX generation (runtime/cuda/ptx.h), which needs no GPU.
//
// examples/saxpy.py must give PTX for sm_90 with an entry per kernel, a .file table naming the
// .py file as the module spelled it, .loc lines at the kernels' statements, no fused
// multiply-add in saxpy (--fmad=false, for agreement with the CPU device), and a cache hit the
// second time. A malformed architecture is a RuntimeError that says what was expected.
#include <regex>
#include <set>

#include "cuda_test_support.h"
#include "runtime/cuda/ptx.h"
#include "runtime/errors.h"
#include "runtime/module_cache.h"

namespace weft::runtime {
namespace {

using namespace testing;

// The body of `.entry name(...) { ... }` in a PTX text.
std::string entry_body(const std::string& ptx, const std::string& name) {
    size_t at = ptx.find(".entry " + name);
    if (at == std::string::npos) return "";
    size_t open = ptx.find('{', at);
    int depth = 0;
    for (size_t i = open; i < ptx.size(); ++i) {
        if (ptx[i] == '{') ++depth;
        if (ptx[i] == '}' && --depth == 0) return ptx.substr(open, i - open + 1);
    }
    return "";
}

TEST(CudaPtx, SaxpyExampleForSm90) {
    auto m = saxpy_module();
    const std::string ptx = generate_ptx(m->compiled(), "sm_90");
    EXPECT_NE(ptx.find(".target sm_90"), std::string::npos);
    for (const char* k : {"saxpy_cuda", "rotate_cuda", "block_sum_cuda"})
        EXPECT_NE(ptx.find(".entry " + std::string(k)), std::string::npos) << k;

    // .file N "examples/saxpy.py": the name as the module spelled it, not an absolute path.
    std::smatch match;
    ASSERT_TRUE(std::regex_search(ptx, match, std::regex("\\.file\\s+(\\d+)\\s+\"examples/saxpy\\.py\""))) << ptx.substr(0, 2000);
    const std::string file_id = match[1];

    // Lines of saxpy.py that .loc points at inside saxpy's entry: y[i] = axpy(...) is line 15, and
    // axpy's body (inlined) line 9.
    const std::string body = entry_body(ptx, "saxpy_cuda");
    ASSERT_FALSE(body.empty());
    std::set<int> lines;
    std::regex loc("\\.loc\\s+" + file_id + "\\s+(\\d+)\\s+\\d+");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), loc); it != std::sregex_iterator(); ++it)
        lines.insert(std::stoi((*it)[1]));
    EXPECT_TRUE(lines.count(15)) << "no .loc at examples/saxpy.py:15 in saxpy_cuda";
    EXPECT_TRUE(lines.count(9)) << "no .loc at examples/saxpy.py:9 (axpy) in saxpy_cuda";
    for (int l : lines) EXPECT_LE(l, 45) << "a .loc beyond the end of saxpy.py";

    // --fmad=false: a * x + y stays a rounded multiply and a rounded add.
    EXPECT_EQ(body.find("fma.rn.f32"), std::string::npos) << body;
    EXPECT_NE(body.find("mul.rn.f32"), std::string::npos) << body;

    // block_sum synchronises its block.
    EXPECT_NE(entry_body(ptx, "block_sum_cuda").find("bar.sync"), std::string::npos);
}

TEST(CudaPtx, SecondGenerationIsACacheHit) {
    auto m = saxpy_module();
    const std::string first = generate_ptx(m->compiled(), "sm_90");
    const long hits = cache_stats().hits;
    const std::string second = generate_ptx(m->compiled(), "sm_90");
    EXPECT_EQ(first, second);
    EXPECT_GT(cache_stats().hits, hits);
}

TEST(CudaPtx, OtherArchitectures) {
    auto m = test_module();
    EXPECT_NE(generate_ptx(m->compiled(), "sm_80").find(".target sm_80"), std::string::npos);
    const std::string ptx = generate_ptx(m->compiled(), "sm_90");
    for (const char* k : {"fill_2d_cuda", "histogram_cuda", "apply_params_cuda", "integrate_cuda"})
        EXPECT_NE(ptx.find(".entry " + std::string(k)), std::string::npos) << k;
    EXPECT_NE(ptx.find("tests/runtime/cuda/test_kernels.py"), std::string::npos);
}

// The names of every `.entry` in a PTX text.
std::vector<std::string> entry_names(const std::string& ptx) {
    std::vector<std::string> names;
    std::regex entry("\\.entry\\s+([A-Za-z_0-9]+)");
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), entry); it != std::sregex_iterator(); ++it)
        names.push_back((*it)[1]);
    return names;
}

// Programmatic dependent launch (runtime/cuda/README.md): for sm_90 every entry, forward and
// backward, waits for the grids ahead of it (griddepcontrol.wait) before its first memory access;
// for sm_80 the PTX has no griddepcontrol at all (the instruction needs sm_90).
TEST(CudaPtx, EntriesWaitForPriorGridsOnSm90Only) {
    auto m = saxpy_module();
    EXPECT_NE(m->compiled().gen.cpp.find("asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");"), std::string::npos);
    const std::string ptx = generate_ptx(m->compiled(), "sm_90");
    const std::vector<std::string> entries = entry_names(ptx);
    size_t backward = 0;
    for (const std::string& e : entries) backward += e.find("_backward") != std::string::npos;
    EXPECT_GE(entries.size(), 3u);
    EXPECT_GE(backward, 1u) << "saxpy.py has differentiable kernels: their backward entries must wait too";
    const std::regex memory("\\b(ld|ldu|st|atom|red)\\.(?!param\\b)");  // any access but kernel parameters
    for (const std::string& e : entries) {
        const std::string body = entry_body(ptx, e);
        const size_t wait = body.find("griddepcontrol.wait;");
        ASSERT_NE(wait, std::string::npos) << e << ":\n" << body;
        EXPECT_EQ(body.find("griddepcontrol.wait;", wait + 1), std::string::npos) << e << ": one wait per entry";
        std::smatch first;
        if (std::regex_search(body, first, memory))
            EXPECT_LT(wait, static_cast<size_t>(first.position(0))) << e << ": memory accessed before the wait: " << first.str(0);
    }
    const std::string ptx80 = generate_ptx(m->compiled(), "sm_80");
    EXPECT_NE(ptx80.find(".target sm_80"), std::string::npos);
    EXPECT_EQ(entry_names(ptx80), entries);
    EXPECT_EQ(ptx80.find("griddepcontrol"), std::string::npos);
}

// The two halves the cuda and sim devices load (runtime/module.h, "Backward code on first use"):
// the forward half has exactly the forward entries of the whole, the backward half exactly its
// backward entries, and each compiles on its own. A module without backward entries has no
// backward half, and its forward half is the whole.
TEST(CudaPtx, ForwardAndBackwardHalvesHoldTheirEntriesOnly) {
    auto m = saxpy_module();
    const compiler::GeneratedSource& gen = m->compiled().gen;
    const std::vector<std::string> all = entry_names(generate_ptx(m->compiled(), "sm_90"));
    std::set<std::string> forward_expected, backward_expected;
    for (const std::string& e : all) (e.find("_backward") != std::string::npos ? backward_expected : forward_expected).insert(e);
    ASSERT_FALSE(backward_expected.empty());
    const std::vector<std::string> forward = entry_names(generate_ptx(m->compiled(), "sm_90", compiler::CodePart::Forward));
    const std::vector<std::string> backward = entry_names(generate_ptx(m->compiled(), "sm_90", compiler::CodePart::Backward));
    EXPECT_EQ(std::set<std::string>(forward.begin(), forward.end()), forward_expected);
    EXPECT_EQ(std::set<std::string>(backward.begin(), backward.end()), backward_expected);
    // The forward half carries no adjoint code at all, the backward half no forward entry.
    EXPECT_LT(gen.forward_cpp.size(), gen.cpp.size());
    EXPECT_EQ(gen.forward_cpp.find("_backward"), std::string::npos);
    EXPECT_EQ(gen.backward_cpp.find("saxpy_cuda("), std::string::npos);
    EXPECT_NE(gen.backward_cpp.find("saxpy_cuda_backward("), std::string::npos);

    auto plain = Module::compile({{"halves.py",
                                   "import warp as wp\n"
                                   "@wp.kernel(enable_backward=False)\n"
                                   "def scale(x: wp.array(dtype=float)):\n"
                                   "    i = wp.tid()\n"
                                   "    x[i] = x[i] * 2.0\n",
                                   0}});
    EXPECT_TRUE(plain->compiled().gen.backward_cpp.empty());
    EXPECT_EQ(&plain->compiled().gen.source(compiler::CodePart::Forward), &plain->compiled().gen.cpp);
    try {
        generate_ptx(plain->compiled(), "sm_90", compiler::CodePart::Backward);
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("the module has no backward code to compile"), std::string::npos) << e.what();
    }
}

TEST(CudaPtx, MalformedArchitectureIsAPlainError) {
    auto m = saxpy_module();
    try {
        generate_ptx(m->compiled(), "hopper");
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("'hopper' is not of the form sm_NN"), std::string::npos) << e.what();
    }
}

TEST(CudaPtx, NoGpuMeansACleanUnavailableDevice) {
    if (cuda_device_available(0)) GTEST_SKIP() << "this machine has a GPU";
    EXPECT_FALSE(device_available(cuda0()));
    try {
        backend(cuda0());
        FAIL() << "expected RuntimeError";
    } catch (const RuntimeError& e) { EXPECT_NE(std::string(e.what()).find("cuda:0"), std::string::npos) << e.what(); }
}

}  // namespace
}  // namespace weft::runtime
