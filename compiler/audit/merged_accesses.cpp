// IR shared accesses merged as the machine code merged them (see merged_accesses.h).
#include "compiler/audit/merged_accesses.h"

#include <algorithm>

#include "compiler/audit/audit.h"

namespace weft::compiler::audit {

namespace {

// Byte address of thread t's access (relative to its symbol, which must be none); false if unknown.
bool byte_address(const AccessEvent& ev, int t, int64_t* addr) {
    int64_t el = 0;
    uint32_t sym = 0;
    if (!shared_element(ev, t, &el, &sym) || sym != 0) return false;
    *addr = static_cast<int64_t>(ev.array->shared_offset) + el * ev.elem_bytes + ev.offset_bytes;
    return true;
}

bool any(const Mask& m) { return std::find(m.begin(), m.end(), 1) != m.end(); }

}  // namespace

IssuedShared issued_shared_accesses(const Trace& trace, const CompiledShared* compiled) {
    IssuedShared out;
    std::vector<const AccessEvent*> evs;
    for (const AccessEvent& ev : trace.accesses)
        if (ev.shared) evs.push_back(&ev);
    std::vector<IssuedAccess> issued(evs.size());
    std::vector<uint8_t> absorbed(evs.size(), 0);
    for (size_t i = 0; i < evs.size(); ++i) issued[i].ev = *evs[i];
    auto inexact = [&](const AccessEvent& ev, const std::string& why) {
        if (out.inexact.empty()) out.inexact = "line " + std::to_string(ev.loc.display_line()) + ": " + why;
    };
    // Widths of the instructions of one kind on one line: {narrowest, widest}; {0, 0} if none.
    auto widths = [&](int line, bool store) {
        int lo = 0, hi = 0;
        for (const SharedOp* op : compiled->at(line, store)) {
            lo = lo == 0 ? op->width : std::min(lo, op->width);
            hi = std::max(hi, op->width);
        }
        return std::make_pair(lo, hi);
    };
    if (compiled && compiled->available) {
        for (size_t i = 0; i < evs.size(); ++i) {
            const AccessEvent& e = *evs[i];
            if (absorbed[i] || e.atomic || !any(e.active)) continue;
            auto [narrow, W] = widths(e.loc.line, e.write);
            const int w = e.width_bytes;
            if (W <= w) continue;
            if (narrow <= w) {
                inexact(e, "the machine code has both " + std::to_string(narrow) + "- and " + std::to_string(W) +
                               "-byte shared instructions here; predicted per access as written");
                continue;
            }
            if ((w != 1 && w != 2 && w != 4 && w != 8) || W % w != 0) {
                inexact(e, "a " + std::to_string(W) + "-byte instruction for " + std::to_string(w) + "-byte accesses");
                continue;
            }
            // Thread t's W-byte block and e's slot in it (the same for every thread).
            std::vector<int64_t> base(e.active.size(), 0);
            int64_t slot = -1;
            bool ok = true;
            for (size_t t = 0; t < e.active.size() && ok; ++t) {
                if (!e.active[t]) continue;
                int64_t a = 0;
                if (!byte_address(e, static_cast<int>(t), &a)) ok = false;
                int64_t s = ((a % W) + W) % W;
                if (slot >= 0 && s != slot) ok = false;
                slot = s, base[t] = a - s;
            }
            if (!ok || slot % w != 0) {
                inexact(e, "compiled as " + std::to_string(W) + "-byte accesses the audit cannot place");
                continue;
            }
            // The other slots of the block: accesses like e at base + slot' for every thread.
            std::vector<size_t> partners;
            std::vector<int> lines = {e.loc.line};
            for (int64_t s = 0; s < W && ok; s += w) {
                if (s == slot) continue;
                size_t best = evs.size();
                for (size_t j = 0; j < evs.size(); ++j) {
                    const AccessEvent& p = *evs[j];
                    if (j == i || absorbed[j] || p.atomic || p.array != e.array || p.write != e.write || p.width_bytes != w ||
                        p.interval != e.interval || p.active != e.active || p.maybe != e.maybe ||
                        std::find(partners.begin(), partners.end(), j) != partners.end())
                        continue;
                    bool fits = true;
                    for (size_t t = 0; t < e.active.size() && fits; ++t) {
                        int64_t a = 0;
                        if (e.active[t] && (!byte_address(p, static_cast<int>(t), &a) || a != base[t] + s)) fits = false;
                    }
                    auto [pn, pw] = widths(p.loc.line, p.write);
                    if (fits && (pn == 0 || (pn == W && pw == W))) {
                        auto dist = [&](size_t k) { return k > i ? k - i : i - k; };
                        if (best == evs.size() || dist(j) < dist(best)) best = j;
                    }
                }
                if (best == evs.size())
                    ok = false;
                else
                    partners.push_back(best), lines.push_back(evs[best]->loc.line);
            }
            if (!ok) {
                inexact(e, "compiled as " + std::to_string(W) +
                               "-byte accesses, but no accesses of the source fill the rest of them");
                continue;
            }
            IssuedAccess& m = issued[i];
            m.ev.width_bytes = W;
            m.ev.offset_bytes -= static_cast<int>(slot);
            m.elements = W / e.elem_bytes > 0 ? W / e.elem_bytes : 1;
            std::sort(lines.begin(), lines.end());
            m.lines = lines;
            for (const SharedOp* op : compiled->at(e.loc.line, e.write)) m.op = op->text;
            for (size_t j : partners) absorbed[j] = 1;
        }
    }
    for (size_t i = 0; i < evs.size(); ++i)
        if (!absorbed[i]) out.accesses.push_back(std::move(issued[i]));
    return out;
}

}  // namespace weft::compiler::audit
