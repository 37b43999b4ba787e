// Shared-memory requests of an access (see shared_requests.h). The cost is gpusim's rule; only
// the mapping from indices to lane addresses lives here.
#include "compiler/audit/shared_requests.h"

#include "compiler/audit/audit.h"

namespace weft::compiler::audit {

std::vector<SharedRequest> warp_requests(const AccessEvent& ev, int warp, const std::vector<int>* shape) {
    SharedRequest base;
    uint32_t sym0 = 0;
    bool first = true;
    for (int lane = 0; lane < kWarpSize; ++lane) {
        int t = warp * kWarpSize + lane;
        if (t >= static_cast<int>(ev.active.size()) || !ev.active[static_cast<size_t>(t)]) continue;
        int64_t el = 0;
        uint32_t sym = 0;
        if (!shared_element(ev, t, &el, &sym, shape)) return {};
        if (first)
            sym0 = sym, first = false;
        else if (sym != sym0)
            return {};  // lanes relative to different unknowns: no known distance
        // Shared addresses are 32-bit on the GPU; an invalid (negative) index wraps as it would
        // there, and bank arithmetic only needs the address modulo 128.
        int64_t a = static_cast<int64_t>(ev.array->shared_offset) + el * ev.elem_bytes + ev.offset_bytes;
        base.addr[static_cast<size_t>(lane)] = static_cast<uint32_t>(a);
        base.active |= 1u << lane;
    }
    if (base.active == 0) return {};
    int w = ev.width_bytes;
    std::vector<SharedRequest> out;
    // The hardware moves 8 and 16 bytes per lane only from addresses aligned to that width; a
    // misaligned element (a vec2 field at offset 4 of a struct) is moved a word at a time.
    bool aligned = true;
    for (int lane = 0; lane < kWarpSize; ++lane)
        if ((base.active >> lane & 1) && w > 0 && base.addr[static_cast<size_t>(lane)] % static_cast<uint32_t>(w) != 0)
            aligned = false;
    if (w == 1 || w == 2 || w == 4 || ((w == 8 || w == 16) && aligned)) {
        base.width = static_cast<uint32_t>(w);
        out.push_back(base);
    } else if (w % 4 == 0) {
        for (int k = 0; k < w / 4; ++k) {
            SharedRequest part = base;
            part.width = 4;
            for (auto& a : part.addr) a += static_cast<uint32_t>(4 * k);
            out.push_back(part);
        }
    }
    return out;
}

BankCost request_cost(const SharedRequest& r, BankRule rule) {
    return gpusim::shared_bank_cost(r.addr.data(), r.active, r.width, rule);
}

}  // namespace weft::compiler::audit
