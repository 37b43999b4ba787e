// tests/gpusim/arch/arch_test.cpp — the architecture files and their loader: every built-in
// loads, errors name the file, line, column and dotted key, the loaded-latency curve.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "gpusim/arch/arch.h"

namespace weft::gpusim {
namespace {

std::string arch_error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ArchError& e) { return e.what(); }
    return "";
}

TEST(Arch, BuiltinsLoad) {
    for (const std::string& n : builtin_arch_names()) {
        const ArchSpec a = builtin_arch(n);
        EXPECT_EQ(a.name, n);
        EXPECT_GT(a.sm_count, 0);
    }
    const ArchSpec h = builtin_arch("h200");
    EXPECT_EQ(h.sm_count, 132);
    EXPECT_EQ(h.max_warps_per_sm, 64);
    EXPECT_EQ(h.shared_per_sm_max, 233472);
    EXPECT_EQ(h.l2_bytes, 62914560);
    EXPECT_EQ(builtin_arch_names(),
              (std::vector<std::string>{"a100", "h100", "h200", "rtx4090", "v100"}));  // every gpusim/arch/*.json, sorted
    EXPECT_EQ(h.sm_target(), "sm_90");
    EXPECT_EQ(builtin_arch("a100").sm_target(), "sm_80");
}

std::string arch_error(const std::string& text) {
    try {
        parse_arch(text, "x.json");
    } catch (const ArchError& e) { return e.what(); }
    return "";
}

TEST(Arch, ErrorsNameTheKey) {
    EXPECT_EQ(arch_error("{\"name\": 3}"), "x.json:1:10: error: 'name': expected a string, found a number");
    EXPECT_EQ(arch_error("{\"name\": \"g\"}"), "x.json:1:1: error: 'compute_capability': missing key");
    EXPECT_EQ(arch_error("[]"), "x.json:1:1: error: the file must hold a JSON object");
    EXPECT_NE(arch_error("{").find("x.json:1:2: error:"), std::string::npos);
    // The real file with one value spoiled, one key misspelt, one key missing.
    const std::string path = std::string(GPUSIM_ARCH_DIR) + "/h200.json";
    EXPECT_EQ(load_arch(path).name, "h200");
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string good = ss.str();
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string t = good;
        t.replace(t.find(from), from.size(), to);
        return t;
    };
    EXPECT_NE(arch_error(replaced("\"size_bytes\": 62914560", "\"size_bytes\": \"60MB\""))
                  .find("'l2.size_bytes': expected a number, found a string"),
              std::string::npos);
    EXPECT_NE(arch_error(replaced("\"hit_latency\": 281", "\"hit_latncy\": 281")).find("'l2.hit_latency': missing key"),
              std::string::npos);
    EXPECT_NE(arch_error(replaced("\"count\": 132", "\"count\": 132, \"cont\": 1")).find("'sm.cont': unknown key"),
              std::string::npos);
    EXPECT_NE(arch_error(replaced("\"count\": 132", "\"count\": -4")).find("'sm.count': value -4 is outside [1, 1024]"),
              std::string::npos);
    EXPECT_EQ(arch_error(replaced("\"count\": 132", "\"count\": 132, \"_note\": \"comments are fine\"")), "");
    EXPECT_EQ(arch_error_of([] { builtin_arch("h2000"); }),
              "unknown architecture 'h2000'; did you mean 'h200'? known: a100, h100, h200, rtx4090, v100 (the files in "
              "gpusim/arch/), or the path of "
              "an architecture file (FILE.json)");

    // dram.loaded_latency: [utilisation, extra cycles] pairs, utilisation increasing in [0, 1].
    const std::string ll = "\"loaded_latency\": [[0.0, 0.0], [0.465, 36.1], [0.825, 114.5], [1.0, 1508.9]]";
    EXPECT_EQ(arch_error(replaced(ll, "\"loaded_latency\": [[0, 0], [0.5, 100], [1, 900]]")), "");
    EXPECT_NE(
        arch_error(replaced(ll, "\"loaded_latency\": [[0.5, 0], [0.5, 10]]")).find("'dram.loaded_latency': x must increase"),
        std::string::npos);
    EXPECT_NE(
        arch_error(replaced(ll, "\"loaded_latency\": [[0, 0], [1.5, 10]]")).find("'dram.loaded_latency': expected x in [0, 1]"),
        std::string::npos);
    EXPECT_NE(arch_error(replaced(ll, "\"loaded_latency\": [0, 0]")).find("'dram.loaded_latency': expected an [x, y] pair"),
              std::string::npos);
    EXPECT_NE(arch_error(replaced(ll, "\"loaded_latency\": []")).find("'dram.loaded_latency': expected a non-empty array"),
              std::string::npos);
}

// The loaded-latency curve is piecewise linear, held flat outside its points.
TEST(Arch, DramLoadedLatencyInterpolates) {
    ArchSpec a = builtin_arch("h200");
    a.dram_loaded_latency = {{0.2, 10}, {0.6, 50}, {1.0, 450}};
    EXPECT_DOUBLE_EQ(a.dram_extra_latency(0.0), 10);
    EXPECT_DOUBLE_EQ(a.dram_extra_latency(0.4), 30);
    EXPECT_DOUBLE_EQ(a.dram_extra_latency(0.8), 250);
    EXPECT_DOUBLE_EQ(a.dram_extra_latency(1.0), 450);
    EXPECT_DOUBLE_EQ(a.dram_extra_latency(2.0), 450);
    // h200: run 3's loaded-latency chase (calibrate_dram.py); the others are not measured.
    EXPECT_DOUBLE_EQ(builtin_arch("h200").dram_extra_latency(1.0), 1508.9);
    for (const char* name : {"h100", "a100", "rtx4090", "v100"}) EXPECT_EQ(builtin_arch(name).dram_extra_latency(1.0), 0) << name;
}

}  // namespace
}  // namespace weft::gpusim
