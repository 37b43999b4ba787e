// tests/apps/weft_cli.h: runs the `weft` binary of this build as a user would (a shell command,
// stderr joined to stdout) for the command-line tests of tests/apps/.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace weft::test {

struct CliResult {
    int code;         // exit status (-1: did not exit)
    std::string out;  // stdout and stderr
};

inline CliResult run_weft(const std::string& args) {
    std::string cmd = std::string(WEFT_BINARY) + " " + args + " 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    std::string out;
    char buf[1024];
    while (f && fgets(buf, sizeof buf, f)) out += buf;
    int status = f ? pclose(f) : -1;
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The example module the tests run: three kernels (saxpy, rotate, block_sum) and a func.
inline const std::string kExample = std::string(WEFT_SOURCE_DIR) + "/examples/saxpy.py";

}  // namespace weft::test
