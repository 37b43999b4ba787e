// tests/gpusim/arch_test.cpp — the JSON reader, the architecture files and their loader, the
// occupancy calculator and the shared-memory bank rule.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "gpusim/arch.h"
#include "gpusim/bank_model.h"
#include "gpusim/json_reader.h"
#include "gpusim/occupancy.h"

namespace weft::gpusim {
namespace {

std::string json_error(const std::string& text) {
  try {
    parse_json(text, "t.json");
  } catch (const JsonError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonReader, ParsesValuesAndEscapes) {
  const JsonValue v = parse_json(R"({"a": [1, -2.5e3, true, null], "s": "x\"\u00e9\ud83d\ude00"})", "t");
  ASSERT_EQ(v.kind, JsonValue::Kind::Object);
  EXPECT_EQ(v.find("a")->array[1].number, -2500);
  EXPECT_EQ(v.find("s")->string, "x\"\xc3\xa9\xf0\x9f\x98\x80");
}

TEST(JsonReader, ErrorsCarryLineAndColumn) {
  EXPECT_EQ(json_error("{\n  \"a\": tru\n}"), "t.json:2:8: error: unexpected character 't'");
  EXPECT_EQ(json_error("{\"a\": 1, \"a\": 2}"), "t.json:1:10: error: duplicate key 'a'");
  EXPECT_EQ(json_error("[1, 2"), "t.json:1:6: error: expected ']'");
  EXPECT_EQ(json_error("\"abc"), "t.json:1:5: error: unterminated string");
  EXPECT_EQ(json_error("01"), "t.json:1:2: error: unexpected text after the JSON value");
  EXPECT_NE(json_error(std::string(100, '[') + std::string(100, ']')).find("nesting deeper than 64"), std::string::npos);
  EXPECT_NE(json_error("\"\\ud800\"").find("unpaired surrogate"), std::string::npos);
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
  EXPECT_EQ(builtin_arch_names().size(), 5u);
}

std::string arch_error(const std::string& text) {
  try {
    parse_arch(text, "x.json");
  } catch (const ArchError& e) {
    return e.what();
  }
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
  EXPECT_NE(arch_error(replaced("\"size_bytes\": 62914560", "\"size_bytes\": \"60MB\"")).find("'l2.size_bytes': expected a number, found a string"),
            std::string::npos);
  EXPECT_NE(arch_error(replaced("\"hit_latency\": 281", "\"hit_latncy\": 281")).find("'l2.hit_latency': missing key"), std::string::npos);
  EXPECT_NE(arch_error(replaced("\"count\": 132", "\"count\": 132, \"cont\": 1")).find("'sm.cont': unknown key"), std::string::npos);
  EXPECT_NE(arch_error(replaced("\"count\": 132", "\"count\": -4")).find("'sm.count': value -4 is outside [1, 1024]"), std::string::npos);
  EXPECT_EQ(arch_error(replaced("\"count\": 132", "\"count\": 132, \"_note\": \"comments are fine\"")), "");
  EXPECT_THROW(builtin_arch("h300"), ArchError);

  // dram.loaded_latency: [utilisation, extra cycles] pairs, utilisation increasing in [0, 1].
  const std::string ll = "\"loaded_latency\": [[0.0, 0.0], [0.465, 36.1], [0.825, 114.5], [1.0, 1508.9]]";
  EXPECT_EQ(arch_error(replaced(ll, "\"loaded_latency\": [[0, 0], [0.5, 100], [1, 900]]")), "");
  EXPECT_NE(arch_error(replaced(ll, "\"loaded_latency\": [[0.5, 0], [0.5, 10]]")).find("'dram.loaded_latency': x must increase"), std::string::npos);
  EXPECT_NE(arch_error(replaced(ll, "\"loaded_latency\": [[0, 0], [1.5, 10]]")).find("'dram.loaded_latency': expected x in [0, 1]"), std::string::npos);
  EXPECT_NE(arch_error(replaced(ll, "\"loaded_latency\": [0, 0]")).find("'dram.loaded_latency': expected an [x, y] pair"), std::string::npos);
  EXPECT_NE(arch_error(replaced(ll, "\"loaded_latency\": []")).find("'dram.loaded_latency': expected a non-empty array"), std::string::npos);
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

// Figures checked against Nsight Compute's launch__occupancy_limit_* on the H200
// (bench/results/gpusim-h200/ncu_kernels.csv) and the CUDA occupancy calculator's rules.
TEST(Occupancy, H200Limits) {
  const ArchSpec h = builtin_arch("h200");
  Occupancy o = compute_occupancy(h, 256, 18, 0);
  EXPECT_EQ(o.limit_warps, 8);
  EXPECT_EQ(o.limit_registers, 10);
  EXPECT_EQ(o.limit_blocks, 32);
  EXPECT_EQ(o.blocks_per_sm, 8);
  EXPECT_DOUBLE_EQ(o.theoretical, 1.0);
  o = compute_occupancy(h, 256, 28, 4096);
  EXPECT_EQ(o.limit_registers, 8);
  EXPECT_EQ(o.limit_shared, 45);  // 233472 / (4096 + 1024)
  o = compute_occupancy(h, 128, 64, 0);
  EXPECT_EQ(o.limit_registers, 8);  // 64*32 = 2048 regs/warp, 8 warps per sub-partition, 32 warps / 4
  EXPECT_EQ(o.limiter, OccupancyLimit::Registers);
  EXPECT_DOUBLE_EQ(o.theoretical, 0.5);
  o = compute_occupancy(h, 1024, 16, 100 * 1024);
  EXPECT_EQ(o.limit_shared, 2);
  EXPECT_EQ(o.blocks_per_sm, 2);
  EXPECT_EQ(o.shared_carveout_bytes, 228 * 1024);
  o = compute_occupancy(h, 32, 16, 0);
  EXPECT_EQ(o.blocks_per_sm, 32);
  EXPECT_EQ(o.limiter, OccupancyLimit::Blocks);
  EXPECT_THROW(compute_occupancy(h, 2048, 16, 0), OccupancyError);
  EXPECT_THROW(compute_occupancy(h, 256, 300, 0), OccupancyError);
  EXPECT_THROW(compute_occupancy(h, 256, 16, 300000), OccupancyError);
}

TEST(Occupancy, PtxasResources) {
  const ArchSpec h = builtin_arch("h200");
  const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                          ".visible .entry k(.param .u64 p)\n{\n .reg .b64 %rd<3>;\n .shared .align 4 .b8 s[512];\n"
                          " ld.param.u64 %rd1, [p];\n mov.u64 %rd2, s;\n st.global.u64 [%rd1], %rd2;\n ret;\n}\n";
  const auto r = ptxas_resources(ptx, h);
  ASSERT_EQ(r.count("k"), 1u);
  EXPECT_GT(r.at("k").registers, 0);
  EXPECT_EQ(r.at("k").shared_bytes, 512u);
  EXPECT_THROW(ptxas_resources("not ptx", h), OccupancyError);
}

uint32_t wavefronts(int bytes, int stride_elems, int group = 1, BankRule rule = BankRule::kH200Measured) {
  uint32_t addr[32];
  for (int l = 0; l < 32; ++l) addr[l] = static_cast<uint32_t>((l / group) * stride_elems * bytes);
  return shared_bank_cost(addr, 0xffffffffu, static_cast<uint32_t>(bytes), rule).wavefronts;
}

TEST(BankModel, StridesAndBroadcasts) {
  EXPECT_EQ(wavefronts(4, 1), 1u);
  EXPECT_EQ(wavefronts(4, 2), 2u);
  EXPECT_EQ(wavefronts(4, 32), 32u);
  EXPECT_EQ(wavefronts(4, 33), 1u);
  EXPECT_EQ(wavefronts(4, 1, 32), 1u);  // broadcast
  EXPECT_EQ(wavefronts(8, 1), 2u);
  EXPECT_EQ(wavefronts(8, 16), 32u);
  EXPECT_EQ(wavefronts(16, 1), 4u);
  EXPECT_EQ(wavefronts(16, 2), 8u);
  // Where the two phase rules differ (the H200 sweep: 1 and 2 wavefronts).
  EXPECT_EQ(wavefronts(8, 1, 2), 1u);
  EXPECT_EQ(wavefronts(8, 1, 2, BankRule::kNsightDoc), 2u);
  EXPECT_EQ(wavefronts(16, 1, 32), 2u);
  EXPECT_EQ(wavefronts(16, 1, 32, BankRule::kNsightDoc), 4u);
  // Inactive lanes cost nothing; excess = wavefronts - ideal.
  uint32_t addr[32] = {};
  for (int l = 0; l < 32; ++l) addr[l] = static_cast<uint32_t>(l * 128);
  const BankCost c = shared_bank_cost(addr, 0x0000000fu, 4);
  EXPECT_EQ(c.wavefronts, 4u);
  EXPECT_EQ(c.excess(), 3u);
  EXPECT_EQ(shared_bank_cost(addr, 0, 4).wavefronts, 0u);
}

}  // namespace
}  // namespace weft::gpusim
