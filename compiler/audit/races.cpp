// Shared-memory data races: two different threads of a block touch the same shared element
// between the same two barriers, and at least one of them writes (atomics against atomics are
// fine). The interpreter gives every shared access with per-thread element indices and its
// barrier interval, so the check is exact for every index it could evaluate (affine in
// thread_idx or not); accesses with unknown indices are skipped, never guessed.
//
// Witness: the two thread ids, the element, and both source lines. A race on a path the
// interpreter only perhaps took (an undecidable condition) is a warning, otherwise an error.
#include <map>
#include <set>
#include <tuple>

#include "compiler/audit/audit.h"

namespace weft::compiler::audit {

namespace {

struct Touch {
    int thread;
    size_t event;
    bool write, atomic, maybe;
};

std::string verb(const Touch& t) { return t.atomic ? "atomically updates" : t.write ? "writes" : "reads"; }

}  // namespace

std::vector<Finding> audit_races(const ir::Function&, const std::vector<Trace>& traces) {
    std::vector<Finding> out;
    std::set<std::tuple<int, int, int, int>> reported;  // (line a, col a, line b, col b)
    for (const Trace& tr : traces) {
        // (interval, array, symbol, element) -> touches
        std::map<std::tuple<int, const ir::Var*, uint32_t, int64_t>, std::vector<Touch>> cells;
        for (size_t e = 0; e < tr.accesses.size(); ++e) {
            const AccessEvent& ev = tr.accesses[e];
            if (!ev.shared) continue;
            for (int t = 0; t < static_cast<int>(ev.active.size()); ++t) {
                if (!ev.active[static_cast<size_t>(t)]) continue;
                int64_t el = 0;
                uint32_t sym = 0;
                if (!shared_element(ev, t, &el, &sym)) continue;
                cells[{ev.interval, ev.array, sym, el}].push_back(
                    {t, e, ev.write, ev.atomic, ev.maybe[static_cast<size_t>(t)] != 0});
            }
        }
        for (const auto& [key, touches] : cells) {
            const Touch* a = nullptr;
            const Touch* b = nullptr;
            for (size_t i = 0; i < touches.size() && !a; ++i)
                for (size_t j = 0; j < i; ++j) {
                    const Touch& x = touches[j];
                    const Touch& y = touches[i];
                    if (x.thread == y.thread || !(x.write || y.write) || (x.atomic && y.atomic)) continue;
                    a = &x, b = &y;
                    break;
                }
            if (!a) continue;
            const AccessEvent& ea = tr.accesses[a->event];
            const AccessEvent& eb = tr.accesses[b->event];
            auto k = std::make_tuple(ea.loc.line, ea.loc.col, eb.loc.line, eb.loc.col);
            if (reported.count(k)) continue;
            reported.insert(k);
            std::string name = ea.array->name;
            std::string cell = name + "[" + std::to_string(std::get<3>(key)) + "]";
            if (std::get<2>(key) != 0) cell = name + "[<uniform> + " + std::to_string(std::get<3>(key)) + "]";
            Finding f;
            f.check = Check::SharedRace;
            bool maybe = a->maybe || b->maybe;
            f.severity = maybe ? FindingSeverity::Warning : FindingSeverity::Error;
            f.loc = capture_loc(eb.loc);
            f.message = std::string(maybe ? "possible data race" : "data race") + " on shared array '" + name + "': threads " +
                        std::to_string(a->thread) + " and " + std::to_string(b->thread) + " access " + cell +
                        " with no wp.sync_threads() between them";
            f.notes.push_back({capture_loc(ea.loc), "thread " + std::to_string(a->thread) + " " + verb(*a) + " " + cell +
                                                        " at line " + std::to_string(ea.loc.display_line())});
            f.notes.push_back({capture_loc(eb.loc), "thread " + std::to_string(b->thread) + " " + verb(*b) + " " + cell +
                                                        " at line " + std::to_string(eb.loc.display_line())});
            f.notes.push_back(
                {{}, "block " + std::to_string(tr.block_idx) + ", barrier interval " + std::to_string(ea.interval)});
            add_call_notes(f, eb.call_sites.empty() ? ea.call_sites : eb.call_sites);
            out.push_back(std::move(f));
        }
    }
    return out;
}

}  // namespace weft::compiler::audit
