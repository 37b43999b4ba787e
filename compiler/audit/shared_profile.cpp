// Predicted shared-memory counters of a launch (see shared_profile.h).
#include "compiler/audit/shared_profile.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <tuple>

#include "compiler/audit/audit.h"
#include "compiler/audit/merged_accesses.h"
#include "compiler/audit/shared_requests.h"

namespace weft::compiler::audit {

SharedProfile shared_profile(const ir::Function& k, const LaunchModel& launch, const CompiledShared* compiled) {
    SharedProfile p;
    p.from_machine_code = compiled && compiled->available;
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
        // (array, thread, element) -> barrier interval of the thread's last store there.
        std::map<std::tuple<const ir::Var*, int, int64_t>, int> stored;
        auto forget = [&](const ir::Var* a, int t) {
            auto it = stored.lower_bound({a, t, INT64_MIN});
            while (it != stored.end() && std::get<0>(it->first) == a && std::get<1>(it->first) == t) it = stored.erase(it);
        };
        IssuedShared issued = issued_shared_accesses(tr, compiled);
        if (!issued.inexact.empty()) inexact(issued.inexact);
        for (const IssuedAccess& ia : issued.accesses) {
            const AccessEvent& ev = ia.ev;
            // Which lanes read back what they stored themselves in this interval (a merged
            // access covers `elements` consecutive elements from its first byte).
            std::vector<uint8_t> own(ev.active.size(), 0);
            for (int t = 0; t < static_cast<int>(ev.active.size()); ++t) {
                if (!ev.active[static_cast<size_t>(t)]) continue;
                int64_t el = 0;
                uint32_t sym = 0;
                bool known = shared_element(ev, t, &el, &sym) && sym == 0;
                if (known && ia.elements > 1)
                    el += ev.offset_bytes / ev.elem_bytes - (ev.offset_bytes < 0 && ev.offset_bytes % ev.elem_bytes ? 1 : 0);
                if (ev.atomic || (ev.write && !known)) {
                    forget(ev.array, t);
                } else if (ev.write) {
                    for (int k2 = 0; k2 < ia.elements; ++k2) stored[{ev.array, t, el + k2}] = ev.interval;
                } else if (known) {
                    bool all = true;
                    for (int k2 = 0; k2 < ia.elements; ++k2) {
                        auto it = stored.find({ev.array, t, el + k2});
                        all = all && it != stored.end() && it->second == ev.interval;
                    }
                    own[static_cast<size_t>(t)] = all;
                }
            }
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
                bool forwarded = !ev.write;
                for (int l = 0; l < kWarpSize && forwarded; ++l) {
                    size_t t = static_cast<size_t>(w * kWarpSize + l);
                    if (t < ev.active.size() && ev.active[t] && !own[t]) forwarded = false;
                }
                if (!ia.lines.empty()) p.merged_requests += static_cast<int64_t>(rs.size());
                for (const SharedRequest& r : rs) {
                    BankCost cost = request_cost(r);
                    for (SharedCounters* x : {&c, forwarded ? &p.forwarded : nullptr}) {
                        if (!x) continue;
                        x->requests += 1;
                        x->wavefronts += cost.wavefronts;
                        x->ideal += cost.ideal;
                    }
                }
            }
        }
    }
    return p;
}

}  // namespace weft::compiler::audit
