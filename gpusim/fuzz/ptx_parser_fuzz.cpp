// gpusim/fuzz/ptx_parser_fuzz.cpp — libFuzzer target: parse_ptx must either return a Module or
// throw PtxError for any input; anything else (a crash, a sanitizer report, another exception)
// is a bug. A parsed module's kernels are also launched on one tiny block with a small
// instruction budget, where SimError is the only acceptable failure. Built with -DWEFT_FUZZ=ON
// and clang; run with scripts/fuzz-ptx.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "gpusim/exec/launch.h"
#include "gpusim/ptx/parse_ptx.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace weft::gpusim;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const Module m = parse_ptx(text, "fuzz.ptx");
        for (const Function& f : m.functions()) {
            if (!f.is_entry || !f.has_body || f.param_bytes > 4096) continue;
            // Parameters of zeros: pointers are null, so global accesses fail cleanly with SimError.
            std::vector<std::byte> params(f.param_bytes);
            LaunchOptions opts;
            opts.max_warp_instructions = 20000;
            opts.stack_bytes = 1024;
            try {
                launch(m, f.name, {1, 1, 1}, {33, 1, 1}, params, opts);
            } catch (const SimError&) {}
        }
    } catch (const PtxError&) {}
    return 0;
}
