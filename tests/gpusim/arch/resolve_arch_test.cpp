// tests/gpusim/arch/resolve_arch_test.cpp — what --arch means: a built-in file's name or the path
// of a file; the one message for an unknown name (did-you-mean, the known files).
#include <gtest/gtest.h>

#include "gpusim/arch/resolve_arch.h"

namespace weft::gpusim {
namespace {

std::string resolve_error(const std::string& arg) {
    try {
        resolve_arch(arg);
    } catch (const ArchError& e) { return e.what(); }
    return "";
}

TEST(ResolveArch, NamesAndPaths) {
    for (const std::string& n : builtin_arch_names()) EXPECT_EQ(resolve_arch(n).name, n);
    EXPECT_EQ(resolve_arch(std::string(GPUSIM_ARCH_DIR) + "/a100.json").name, "a100");
    EXPECT_EQ(resolve_arch("h100").sm_target(), "sm_90");
    EXPECT_TRUE(is_arch_path("x.json"));
    EXPECT_TRUE(is_arch_path("dir/h200"));
    EXPECT_FALSE(is_arch_path("h200"));
}

TEST(ResolveArch, UnknownNameSaysWhatIsKnown) {
    const std::string known =
        " known: a100, h100, h200, rtx4090, v100 (the files in gpusim/arch/), or the path of an architecture file (FILE.json)";
    EXPECT_EQ(resolve_error("h20"), "unknown architecture 'h20'; did you mean 'h200'?" + known);
    EXPECT_EQ(resolve_error("A100"), "unknown architecture 'A100'; did you mean 'a100'?" + known);
    EXPECT_EQ(resolve_error("sm_90"),
              "'sm_90' is a PTX target, not an architecture; --arch takes an architecture file: h100, h200 target sm_90");
    EXPECT_EQ(resolve_error("sm_12"), "unknown architecture 'sm_12';" + known);
    EXPECT_EQ(resolve_error("tpu"), "unknown architecture 'tpu';" + known);
    EXPECT_EQ(
        unknown_arch_message("h2000", {"mine", "h200"}),
        "unknown architecture 'h2000'; did you mean 'h200'? known: h200, mine (the files in gpusim/arch/), or the path of an "
        "architecture file (FILE.json)");
    EXPECT_EQ(resolve_error("/nonexistent/x.json"), "/nonexistent/x.json: error: cannot open architecture file");
}

}  // namespace
}  // namespace weft::gpusim
