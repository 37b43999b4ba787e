// Barrier divergence: wp.sync_threads() must be reached by every thread of the block or by none
// (CUDA's rule for __syncthreads). The interpreter records, for each barrier it executes, which
// threads of the block reach it; a thread that does not is the witness, with the path that took
// it away (the condition that is false for it, the return or break it took). A barrier under a
// condition the interpreter could not decide but which varies between threads is reported too:
// whether it hangs depends on data, which is no better.
//
// Also here: the sync graph (--dot), the barrier intervals of block 0 and the shared accesses in
// each, because it is the same structure seen from the barriers' side.
#include <map>
#include <set>
#include <sstream>

#include "compiler/audit/audit.h"

namespace weft::compiler::audit {

namespace {

std::string threads_text(const std::vector<int>& ts) {
    std::string s;
    size_t shown = std::min<size_t>(ts.size(), 4);
    for (size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + std::to_string(ts[i]);
    if (ts.size() > shown) s += ", ... (" + std::to_string(ts.size()) + " threads)";
    return s;
}

}  // namespace

std::vector<Finding> audit_barriers(const ir::Function&, const std::vector<Trace>& traces) {
    std::vector<Finding> out;
    std::set<const ir::Stmt*> reported;
    for (const Trace& tr : traces) {
        for (const SyncEvent& ev : tr.syncs) {
            if (reported.count(ev.stmt)) continue;
            Finding f;
            f.check = Check::BarrierDivergence;
            f.severity = FindingSeverity::Error;
            f.loc = capture_loc(ev.loc);
            if (!ev.missing.empty()) {
                f.message = "wp.sync_threads() is reached by " + std::to_string(ev.reached) + " of the " +
                            std::to_string(ev.live) + " threads of block " + std::to_string(tr.block_idx) +
                            "; the others never arrive";
                std::string path = ev.why.empty() ? "does not reach it" : ev.why;
                f.notes.push_back({capture_loc(ev.why_loc),
                                   "thread " + std::to_string(ev.missing.front()) + " skips it: " + path +
                                       (ev.why_loc.valid() ? " (line " + std::to_string(ev.why_loc.display_line()) + ")" : "")});
                f.notes.push_back({{}, "threads that skip it: " + threads_text(ev.missing)});
            } else if (ev.unknown_cond.valid()) {
                f.message = "wp.sync_threads() under a condition that may differ between threads of a block";
                f.notes.push_back({capture_loc(ev.unknown_cond),
                                   "this condition varies between threads: '" + source_text(ev.unknown_cond) + "'"});
            } else if (!ev.maybe_missing.empty()) {
                f.message = "wp.sync_threads() may be skipped by some threads of block " + std::to_string(tr.block_idx);
                f.notes.push_back({capture_loc(ev.why_loc),
                                   "thread " + std::to_string(ev.maybe_missing.front()) + " " +
                                       (ev.why.empty() ? "may not reach it" : ev.why) +
                                       (ev.why_loc.valid() ? " (line " + std::to_string(ev.why_loc.display_line()) + ")" : "")});
            } else {
                continue;
            }
            reported.insert(ev.stmt);
            add_call_notes(f, ev.call_sites);
            out.push_back(std::move(f));
        }
    }
    return out;
}

std::string sync_graph_dot(const ir::Function& k, const Trace& tr) {
    auto node = [](const ir::Stmt* s) {
        return s ? "sync_l" + std::to_string(s->loc.display_line()) + "_c" + std::to_string(s->loc.col) : std::string("entry");
    };
    std::map<std::string, std::string> label;               // node -> label head
    std::map<std::string, std::set<std::string>> accesses;  // node -> "line 12: write s[...]"
    std::set<std::pair<std::string, std::string>> edges;
    label["entry"] = "entry";
    for (const auto& ev : tr.syncs) {
        label[node(ev.stmt)] = "after sync_threads() at line " + std::to_string(ev.loc.display_line());
        edges.insert({node(ev.interval_start), node(ev.stmt)});
    }
    label["exit"] = "exit";
    edges.insert({node(tr.final_interval_start), "exit"});
    for (const auto& ev : tr.accesses) {
        if (!ev.shared) continue;
        accesses[node(ev.interval_start)].insert("line " + std::to_string(ev.loc.display_line()) + ": " +
                                                 (ev.atomic  ? "atomic "
                                                  : ev.write ? "write "
                                                             : "read ") +
                                                 access_text(ev.loc));
    }
    auto esc = [](const std::string& s) {
        std::string o;
        for (char c : s) {
            if (c == '"' || c == '\\') o += '\\';
            o += c;
        }
        return o;
    };
    std::ostringstream os;
    os << "digraph \"" << esc(k.name) << "\" {\n  node [shape=box, fontname=\"monospace\"];\n";
    for (const auto& [n, head] : label) {
        os << "  " << n << " [label=\"" << esc(head);
        for (const auto& a : accesses[n]) os << "\\l" << esc(a);
        os << "\\l\"];\n";
    }
    for (const auto& [a, b] : edges) os << "  " << a << " -> " << b << ";\n";
    os << "}\n";
    return os.str();
}

}  // namespace weft::compiler::audit
