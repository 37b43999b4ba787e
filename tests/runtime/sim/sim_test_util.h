// tests/runtime/sim/sim_test_util.h: what the sim device's tests share: the bank-conflict kernel
// file, reading a file, and running the `weft` binary.
#pragma once

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>

namespace weft {

inline const std::string kKernels = std::string(WEFT_SOURCE_DIR) + "/tests/runtime/sim/kernels/bank_conflict.py";

inline std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

struct Cmd {
    int code = 0;
    std::string out;
};

inline Cmd weft(const std::string& args) {
    std::string cmd = std::string(WEFT_BINARY) + " " + args + " 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    Cmd r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) r.out.append(buf, n);
    r.code = WEXITSTATUS(pclose(f));
    return r;
}

}  // namespace weft
