// tests/runtime/cuda/cuda_driver_prototypes_test.cpp: every driver entry point is asked for in the
// version whose prototype Weft calls it with. No GPU needed.
//
// cuGetProcAddress(name, version) returns the newest version of `name` not newer than `version`.
// When NVIDIA adds a _v2 with other parameters without remapping the plain name in cuda.h (CUDA
// 13.0: cuCtxSynchronize(void) -> cuCtxSynchronize_v2(CUcontext)), asking for CUDA_VERSION calls
// the new function through the old prototype: on the H200 that read a garbage context and failed
// with CUDA_ERROR_CONTEXT_IS_DESTROYED. The reference here is the toolkit's cudaTypedefs.h, which
// has one PFN_<name>_v<version> typedef per version of each function: the typedef a request
// resolves to must take as many parameters as the prototype in the table.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "runtime/cuda/cuda_driver.h"

namespace weft::runtime {
namespace {

struct Typedef {
    int version;
    int arity;
};

// PFN_<base>_v<version> typedefs of cudaTypedefs.h (not the _ptsz/_ptds stream variants).
std::map<std::string, std::vector<Typedef>> read_typedefs() {
    std::ifstream f(WEFT_CUDA_INCLUDE_DIR "/cudaTypedefs.h");
    std::stringstream ss;
    ss << f.rdbuf();
    const std::string text = ss.str();
    std::map<std::string, std::vector<Typedef>> out;
    const std::regex re(R"(typedef\s+CUresult\s+\(CUDAAPI\s+\*PFN_(\w+?)_v(\d+)(_ptsz|_ptds)?\)\s*\(([^;]*)\)\s*;)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) {
        const std::smatch& m = *it;
        if (m[3].matched) continue;
        std::string params = m[4].str();
        params.erase(0, params.find_first_not_of(" \t\n"));
        params.erase(params.find_last_not_of(" \t\n") + 1);
        int arity = 0;
        if (!params.empty() && params != "void") {
            arity = 1;
            int depth = 0;
            for (char c : params) {
                if (c == '(') ++depth;
                if (c == ')') --depth;
                if (c == ',' && depth == 0) ++arity;
            }
        }
        out[m[1].str()].push_back({std::stoi(m[2].str()), arity});
    }
    return out;
}

TEST(CudaDriverPrototypes, EveryEntryPointResolvesToAVersionWithItsArity) {
    auto typedefs = read_typedefs();
    ASSERT_GT(typedefs.size(), 100u) << "cudaTypedefs.h not found or not parsed under " WEFT_CUDA_INCLUDE_DIR;
    auto entries = cuda_entry_points();
    ASSERT_GT(entries.size(), 40u);
    for (const CudaEntryPoint& e : entries) {
        auto it = typedefs.find(e.base);
        ASSERT_NE(it, typedefs.end()) << e.base << " has no PFN typedef in cudaTypedefs.h";
        const Typedef* best = nullptr;
        for (const Typedef& t : it->second)
            if (t.version <= e.version && (!best || t.version > best->version)) best = &t;
        ASSERT_NE(best, nullptr) << e.base << ": no version at or below " << e.version;
        EXPECT_EQ(best->arity, e.arity) << e.base << " asked for at version " << e.version << " resolves to PFN_" << e.base
                                        << "_v" << best->version << " with " << best->arity
                                        << " parameters, but Weft calls it with " << e.arity;
    }
}

TEST(CudaDriverPrototypes, CtxSynchronizeIsPinnedBelowTheContextTakingVersion) {
    EXPECT_EQ(cuda_entry_point_version("cuCtxSynchronize"), 2000);
    EXPECT_EQ(cuda_entry_point_version("cuMemAlloc"), CUDA_VERSION);
}

}  // namespace
}  // namespace weft::runtime
