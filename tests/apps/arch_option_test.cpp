// apps/arch_option.cpp: --arch names an architecture file (gpusim/arch/*.json) or the path of one,
// and an unknown name is one message, with a did-you-mean and the list of files, in compile, audit
// and sim (sim only where the build has the simulator).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/apps/weft_cli.h"

namespace {

using namespace weft::test;

TEST(Cli, UnknownArchIsOneMessageInEveryCommand) {
    const std::string message =
        "--arch: unknown architecture 'h20'; did you mean 'h200'? known: a100, h100, h200, rtx4090, v100 (the files in "
        "gpusim/arch/), "
        "or the path of an architecture file (FILE.json)";
    std::vector<std::pair<std::string, std::string>> commands = {{"compile", kExample}, {"audit", kExample}};
#if WEFT_TEST_HAS_NVRTC
    commands.push_back({"sim", kExample + " --kernel saxpy --dim 8"});
#endif
    for (const auto& [command, rest] : commands) {
        CliResult r = run_weft(command + " " + rest + " --arch h20");
        EXPECT_EQ(r.code, 2) << command << "\n" << r.out;
        EXPECT_NE(r.out.find("weft " + command + ": " + message), std::string::npos) << r.out;
    }
}

}  // namespace
