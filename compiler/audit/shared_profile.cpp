// Predicted shared-memory counters of a launch (see shared_profile.h).
#include "compiler/audit/shared_profile.h"

#include <algorithm>

#include "compiler/audit/shared_requests.h"

namespace weft::compiler::audit {

SharedProfile shared_profile(const ir::Function& k, const LaunchModel& launch) {
    SharedProfile p;
    int64_t blocks = launch.block_count();
    if (blocks < 0) {
        p.exact = false;
        p.why = "the launch size is unknown (no --dim)";
        return p;
    }
    p.blocks = blocks;
    auto inexact = [&](const std::string& why) {
        if (p.exact) p.exact = false, p.why = why;
    };
    if (blocks > kMaxProfiledBlocks) inexact("only the first " + std::to_string(kMaxProfiledBlocks) + " blocks were simulated");
    for (int64_t b = 0; b < std::min(blocks, kMaxProfiledBlocks); ++b) {
        Trace tr = simulate_block(k, launch, b);
        int warps = (tr.block_dim + kWarpSize - 1) / kWarpSize;
        for (const AccessEvent& ev : tr.accesses) {
            if (!ev.shared) continue;
            std::string line = std::to_string(ev.loc.display_line());
            if (std::find(ev.maybe.begin(), ev.maybe.end(), 1) != ev.maybe.end())
                inexact("line " + line + ": some threads reach the access only perhaps (an undecided condition or loop)");
            for (int w = 0; w < warps; ++w) {
                bool any = false;
                for (int l = 0; l < kWarpSize; ++l) {
                    size_t t = static_cast<size_t>(w * kWarpSize + l);
                    any = any || (t < ev.active.size() && ev.active[t]);
                }
                if (!any) continue;
                if (ev.atomic) {
                    ++p.atomic_requests;
                    continue;
                }
                std::vector<SharedRequest> rs = warp_requests(ev, w);
                if (rs.empty()) {
                    inexact("line " + line + ": an index the audit cannot evaluate");
                    continue;
                }
                SharedCounters& c = ev.write ? p.store : p.load;
                for (const SharedRequest& r : rs) {
                    BankCost cost = request_cost(r);
                    c.requests += 1;
                    c.wavefronts += cost.wavefronts;
                    c.ideal += cost.ideal;
                }
            }
        }
    }
    return p;
}

}  // namespace weft::compiler::audit
