// tests/gpusim/ptx_harness.h — small helpers for writing gpusim tests.
//
// eval() runs one instruction sequence in a one-thread kernel: the inputs are 64-bit
// parameters loaded into %a, %b, %c, %d, the body writes %x (64-bit register; an instruction
// of a narrower type leaves its result in the low bits), and eval returns %x. The simulator
// does not check register types against instruction types, which keeps these tests short.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gpusim/exec/launch.h"
#include "gpusim/ptx/parse_ptx.h"

namespace weft::gpusim::testing {

inline constexpr const char* kHeader = ".version 8.0\n.target sm_90\n.address_size 64\n";

inline uint64_t eval(const std::string& body, std::vector<uint64_t> args = {}) {
    args.resize(4, 0);
    const std::string ptx =
        std::string(kHeader) +
        ".visible .entry k(.param .u64 out, .param .b64 pa, .param .b64 pb, .param .b64 pc, .param .b64 pd)\n{\n"
        "  .reg .b64 %o, %a, %b, %c, %d, %x, %y;\n  .reg .pred %p, %q;\n"
        "  ld.param.u64 %o, [out];\n  ld.param.b64 %a, [pa];\n  ld.param.b64 %b, [pb];\n"
        "  ld.param.b64 %c, [pc];\n  ld.param.b64 %d, [pd];\n  mov.b64 %x, 0;\n" +
        body + "\n  st.global.b64 [%o], %x;\n  ret;\n}\n";
    const Module m = parse_ptx(ptx, "eval.ptx");
    uint64_t out = 0;
    ParamPacker p;
    p.add(&out);
    for (uint64_t a : args) p.add(a);
    launch(m, "k", {1, 1, 1}, {1, 1, 1}, p.bytes());
    return out;
}

inline uint64_t f32(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
inline uint64_t f64(double d) {
    uint64_t b;
    std::memcpy(&b, &d, 8);
    return b;
}
inline float as_f32(uint64_t b) {
    const uint32_t x = static_cast<uint32_t>(b);
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}
inline double as_f64(uint64_t b) {
    double d;
    std::memcpy(&d, &b, 8);
    return d;
}

inline std::string read_file(const std::string& path) {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

// The text of a PtxError thrown by parsing `ptx`, or "" if it parsed.
inline std::string parse_error(const std::string& ptx) {
    try {
        parse_ptx(ptx, "bad.ptx");
    } catch (const PtxError& e) { return e.what(); }
    return "";
}

}  // namespace weft::gpusim::testing
