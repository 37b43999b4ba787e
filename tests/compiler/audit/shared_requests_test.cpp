// compiler/audit/shared_requests: the audit's shared-memory requests, costed by gpusim's bank
// model (gpusim/arch/bank_model.h, the one implementation both use), against wavefront counts worked
// out by hand from NVIDIA's rule (32 banks of 4 bytes, same-word broadcast). For a stride of s
// elements, every lane active:
//   4-byte:  lane l uses word s*l; gcd(s, 32) lanes share each bank          -> gcd(s, 32)
//   8-byte:  lane l uses words 2sl, 2sl+1; per bank 2 * gcd(s, 16) words       -> 2 * gcd(s, 16)
//   16-byte: per half-warp (H200) or quarter-warp (documented), 4 * gcd(s, 8)  -> 4 * gcd(s, 8)
// The tables below are those numbers written out, not computed with gcd. The accesses come from
// kernels run through the audit's interpreter, so the index -> address mapping is tested too.
#include <gtest/gtest.h>

#include "compiler/audit/audit.h"
#include "compiler/audit/shared_requests.h"
#include "compiler/driver.h"

namespace weft::compiler::audit {
namespace {

// index s-1 for stride s = 1..33
const int k4[33] = {1, 2, 1, 4, 1, 2, 1, 8, 1, 2, 1, 4, 1, 2, 1, 16, 1, 2, 1, 4, 1, 2, 1, 8, 1, 2, 1, 4, 1, 2, 1, 32, 1};
const int k8[33] = {2, 4, 2, 8, 2, 4, 2, 16, 2, 4, 2, 8, 2, 4, 2, 32, 2, 4, 2, 8, 2, 4, 2, 16, 2, 4, 2, 8, 2, 4, 2, 32, 2};
const int k16[33] = {4, 8, 4, 16, 4, 8, 4, 32, 4, 8, 4, 16, 4, 8, 4, 32, 4, 8, 4, 16, 4, 8, 4, 32, 4, 8, 4, 16, 4, 8, 4, 32, 4};

// The requests of warp 0 for the first shared access of kernel `k` in `src`.
struct Kern {
    std::shared_ptr<CompiledModule> m;
    Trace trace;
    std::vector<SharedRequest> requests(size_t access = 0, int warp = 0) const {
        size_t seen = 0;
        for (const auto& ev : trace.accesses)
            if (ev.shared && seen++ == access) return warp_requests(ev, warp);
        return {};
    }
};

Kern run(const std::string& body, const std::string& dtype = "float", int elems = 2048, int block = 32) {
    std::string src =
        "import weft as wp\n@wp.struct\nclass P:\n    a: float\n    v: wp.vec2\n"
        "@wp.kernel(block_dim=" +
        std::to_string(block) +
        ")\ndef k(x: wp.array(dtype=float)):\n"
        "    s = wp.shared_array(shape=(" +
        std::to_string(elems) + ",), dtype=" + dtype +
        ")\n"
        "    t = wp.thread_idx()\n" +
        body;
    DiagnosticEngine diags;
    Kern r;
    r.m = analyze_module({{"shared_requests_test.py", src, 0}}, {}, diags);
    EXPECT_FALSE(diags.has_errors()) << diags.format_all() << src;
    if (diags.has_errors()) return r;
    LaunchModel launch;
    launch.dims = {block};
    launch.block_dim = block;
    r.trace = simulate_block(*r.m->ir->find("k"), launch, 0);
    return r;
}

int wavefronts(const std::vector<SharedRequest>& rs, BankRule rule = BankRule::kH200Measured) {
    int w = 0;
    for (const auto& r : rs) w += static_cast<int>(request_cost(r, rule).wavefronts);
    return w;
}

TEST(SharedRequests, FourByteStrides) {
    for (int s = 1; s <= 33; ++s) {
        Kern r = run("    s[" + std::to_string(s) + " * t] = 1.0\n");
        auto rs = r.requests();
        ASSERT_EQ(rs.size(), 1u);
        EXPECT_EQ(rs[0].width, 4u);
        EXPECT_EQ(rs[0].active, 0xffffffffu);
        EXPECT_EQ(rs[0].addr[3], 12u * static_cast<uint32_t>(s));
        EXPECT_EQ(wavefronts(rs), k4[s - 1]) << "stride " << s;
        EXPECT_EQ(request_cost(rs[0]).ideal, 1u);
    }
}

TEST(SharedRequests, EightAndSixteenByteStridesUnderBothRules) {
    for (int s = 1; s <= 33; ++s) {
        Kern d = run("    s[" + std::to_string(s) + " * t] = wp.float64(1.0)\n", "wp.float64");
        Kern v = run("    s[" + std::to_string(s) + " * t] = wp.vec4(1.0)\n", "wp.vec4");
        for (BankRule rule : {BankRule::kH200Measured, BankRule::kNsightDoc}) {
            EXPECT_EQ(wavefronts(d.requests(), rule), k8[s - 1]) << "float64 stride " << s;
            EXPECT_EQ(wavefronts(v.requests(), rule), k16[s - 1]) << "vec4 stride " << s;
        }
        EXPECT_EQ(d.requests()[0].width, 8u);
        EXPECT_EQ(v.requests()[0].width, 16u);
        EXPECT_EQ(request_cost(d.requests()[0]).ideal, 2u);
        EXPECT_EQ(request_cost(v.requests()[0]).ideal, 4u);
    }
}

TEST(SharedRequests, BroadcastFollowsTheH200) {
    // Every lane on one address: one wavefront per phase holding data. The H200 serves the whole
    // warp's 8-byte request in one phase (1 wavefront; the documented rule says 2) and 16-byte
    // requests per half-warp (2; documented 4). gpusim's sweep measured this on the H200.
    EXPECT_EQ(wavefronts(run("    s[0] = 1.0\n").requests()), 1);
    EXPECT_EQ(wavefronts(run("    s[0] = wp.float64(1.0)\n", "wp.float64").requests()), 1);
    EXPECT_EQ(wavefronts(run("    s[0] = wp.vec4(1.0)\n", "wp.vec4").requests()), 2);
    EXPECT_EQ(wavefronts(run("    s[0] = wp.float64(1.0)\n", "wp.float64").requests(), BankRule::kNsightDoc), 2);
    EXPECT_EQ(wavefronts(run("    s[0] = wp.vec4(1.0)\n", "wp.vec4").requests(), BankRule::kNsightDoc), 4);
    // Pairs of lanes on one word: 16 words in 16 banks.
    EXPECT_EQ(wavefronts(run("    s[t // 2] = 1.0\n").requests()), 1);
}

TEST(SharedRequests, InactiveLanesAndPartialWarps) {
    Kern r = run("    if t < 2:\n        s[128 * t] = 1.0\n");
    auto rs = r.requests();
    ASSERT_EQ(rs.size(), 1u);
    EXPECT_EQ(rs[0].active, 0x3u);
    EXPECT_EQ(wavefronts(rs), 2);  // lanes 0 and 1: words 0 and 128, both bank 0
    EXPECT_EQ(request_cost(rs[0]).excess(), 1u);
    // A block of 48 threads: warp 1 has 16 lanes.
    Kern p = run("    s[t] = 1.0\n", "float", 64, 48);
    EXPECT_EQ(p.requests(0, 1)[0].active, 0xffffu);
    EXPECT_TRUE(p.requests(0, 2).empty());
}

TEST(SharedRequests, OddWidthsAndMisalignedElementsGoAWordAtATime) {
    // vec3: 12 bytes per lane, three 4-byte requests 4 bytes apart.
    auto v3 = run("    s[t] = wp.vec3(1.0)\n", "wp.vec3").requests();
    ASSERT_EQ(v3.size(), 3u);
    EXPECT_EQ(v3[1].addr[2], 28u);
    EXPECT_EQ(v3[2].width, 4u);
    // A vec2 field at byte 4 of a 12-byte struct is not 8-byte aligned: two 4-byte requests.
    auto f = run("    x[0] = s[t].v[0]\n    s[t].v = wp.vec2(1.0, 2.0)\n", "P").requests(1);
    ASSERT_EQ(f.size(), 2u);
    EXPECT_EQ(f[0].width, 4u);
    EXPECT_EQ(f[0].addr[1], 16u);
    // The same field in a struct whose stride keeps it aligned would be one 8-byte request.
    auto d = run("    s[t] = wp.float64(1.0)\n", "wp.float64").requests();
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].width, 8u);
}

TEST(SharedRequests, UnknownAddressesGiveNoRequest) { EXPECT_TRUE(run("    s[int(x[t])] = 1.0\n").requests().empty()); }

}  // namespace
}  // namespace weft::compiler::audit
