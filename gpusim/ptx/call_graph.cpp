// gpusim/ptx/call_graph.cpp — recursion detection and stack depth (see call_graph.h).
#include "gpusim/ptx/call_graph.h"

#include <algorithm>
#include <functional>

namespace weft::gpusim {
namespace {
std::vector<std::vector<int32_t>> callees(const std::vector<Function>& functions, const std::vector<Instr>& code) {
    std::vector<std::vector<int32_t>> out(functions.size());
    for (size_t f = 0; f < functions.size(); ++f) {
        if (!functions[f].has_body) continue;
        for (int32_t pc = functions[f].begin; pc < functions[f].end; ++pc)
            if (code[pc].op == Op::Call && code[pc].target >= 0) out[f].push_back(code[pc].target);
        std::sort(out[f].begin(), out[f].end());
        out[f].erase(std::unique(out[f].begin(), out[f].end()), out[f].end());
    }
    return out;
}
}  // namespace

void mark_recursive_functions(std::vector<Function>& functions, const std::vector<Instr>& code, const std::vector<CallArgs>&) {
    const auto edges = callees(functions, code);
    // A function is recursive if it can reach itself.
    for (size_t f = 0; f < functions.size(); ++f) {
        std::vector<char> seen(functions.size(), 0);
        std::vector<int32_t> work(edges[f].begin(), edges[f].end());
        bool cycle = false;
        while (!work.empty() && !cycle) {
            const int32_t g = work.back();
            work.pop_back();
            if (g == static_cast<int32_t>(f)) cycle = true;
            if (seen[g]) continue;
            seen[g] = 1;
            work.insert(work.end(), edges[g].begin(), edges[g].end());
        }
        functions[f].recursive = cycle;
    }
}

std::vector<int32_t> reachable_functions(const Module& module, int32_t kernel) {
    const auto edges = callees(module.functions(), module.instructions());
    std::vector<char> seen(module.functions().size(), 0);
    std::vector<int32_t> work{kernel};
    seen[static_cast<size_t>(kernel)] = 1;
    while (!work.empty()) {
        const int32_t f = work.back();
        work.pop_back();
        for (int32_t g : edges[static_cast<size_t>(f)])
            if (!seen[static_cast<size_t>(g)]) {
                seen[static_cast<size_t>(g)] = 1;
                work.push_back(g);
            }
    }
    std::vector<int32_t> out;
    for (size_t f = 0; f < seen.size(); ++f)
        if (seen[f]) out.push_back(static_cast<int32_t>(f));
    return out;
}

int64_t stack_bytes_needed(const Module& module, int32_t kernel) {
    const auto& functions = module.functions();
    const auto edges = callees(functions, module.instructions());
    std::vector<int64_t> memo(functions.size(), -2);
    std::function<int64_t(int32_t)> depth = [&](int32_t f) -> int64_t {
        if (functions[f].recursive) return -1;
        if (memo[f] != -2) return memo[f];
        int64_t deepest = 0;
        for (int32_t g : edges[f]) {
            const int64_t d = depth(g);
            if (d < 0) return memo[f] = -1;
            deepest = std::max(deepest, d);
        }
        return memo[f] = functions[f].frame_bytes + deepest;
    };
    return depth(kernel);
}

}  // namespace weft::gpusim
