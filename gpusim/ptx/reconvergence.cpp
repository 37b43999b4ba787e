// gpusim/ptx/reconvergence.cpp — basic blocks, post-dominators, branch reconvergence points.
#include "gpusim/ptx/reconvergence.h"

#include <algorithm>

#include "gpusim/errors.h"

namespace weft::gpusim {
namespace {
bool ends_block(const Instr& in) { return in.op == Op::Bra || in.op == Op::Ret || in.op == Op::Exit || in.op == Op::Trap; }
}  // namespace

void compute_reconvergence(std::vector<Instr>& code, int32_t begin, int32_t end) {
    if (begin >= end) return;
    const int32_t n = end - begin;
    // Leaders.
    std::vector<char> leader(static_cast<size_t>(n) + 1, 0);
    leader[0] = 1;
    for (int32_t pc = begin; pc < end; ++pc) {
        const Instr& in = code[pc];
        if (in.op == Op::Bra && in.target >= begin && in.target < end) leader[in.target - begin] = 1;
        if (ends_block(in) && pc + 1 < end) leader[pc + 1 - begin] = 1;
    }
    std::vector<int32_t> block_of(static_cast<size_t>(n));
    std::vector<int32_t> block_start;
    for (int32_t i = 0; i < n; ++i) {
        if (leader[i]) block_start.push_back(begin + i);
        block_of[i] = static_cast<int32_t>(block_start.size()) - 1;
    }
    const int32_t nb = static_cast<int32_t>(block_start.size());
    const int32_t kExit = nb;
    std::vector<std::vector<int32_t>> succ(nb), pred(nb + 1);
    for (int32_t b = 0; b < nb; ++b) {
        const int32_t last = (b + 1 < nb ? block_start[b + 1] : end) - 1;
        const Instr& in = code[last];
        auto add = [&](int32_t to) {
            if (std::find(succ[b].begin(), succ[b].end(), to) == succ[b].end()) succ[b].push_back(to);
        };
        const bool guarded = in.guard >= 0;
        if (in.op == Op::Bra) {
            add(in.target >= begin && in.target < end ? block_of[in.target - begin] : kExit);
            if (guarded) add(last + 1 < end ? block_of[last + 1 - begin] : kExit);
        } else if (in.op == Op::Ret || in.op == Op::Exit || in.op == Op::Trap) {
            add(kExit);
            if (guarded) add(last + 1 < end ? block_of[last + 1 - begin] : kExit);
        } else {
            add(last + 1 < end ? block_of[last + 1 - begin] : kExit);
        }
        for (int32_t s : succ[b]) pred[s].push_back(b);
    }
    // Post-order of the reversed graph from the exit (iterative DFS over CFG predecessors).
    std::vector<int32_t> po(nb + 1, -1), order;
    std::vector<std::pair<int32_t, size_t>> stack{{kExit, 0}};
    std::vector<char> seen(nb + 1, 0);
    seen[kExit] = 1;
    while (!stack.empty()) {
        auto& [node, i] = stack.back();
        if (i < pred[node].size()) {
            const int32_t p = pred[node][i++];
            if (!seen[p]) {
                seen[p] = 1;
                stack.push_back({p, 0});
            }
        } else {
            po[node] = static_cast<int32_t>(order.size());
            order.push_back(node);
            stack.pop_back();
        }
    }
    std::vector<int32_t> ipdom(nb + 1, -1);
    ipdom[kExit] = kExit;
    auto intersect = [&](int32_t a, int32_t b) {
        while (a != b) {
            while (po[a] < po[b]) a = ipdom[a];
            while (po[b] < po[a]) b = ipdom[b];
        }
        return a;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (auto it = order.rbegin(); it != order.rend(); ++it) {
            const int32_t b = *it;
            if (b == kExit) continue;
            int32_t next = -1;
            for (int32_t s : succ[b]) {
                if (ipdom[s] < 0) continue;
                next = next < 0 ? s : intersect(s, next);
            }
            if (next >= 0 && ipdom[b] != next) {
                ipdom[b] = next;
                changed = true;
            }
        }
    }
    for (int32_t pc = begin; pc < end; ++pc) {
        Instr& in = code[pc];
        if (in.op != Op::Bra) continue;
        const int32_t d = ipdom[block_of[pc - begin]];
        in.rpc = (d < 0 || d == kExit) ? -1 : block_start[d];
    }
}

}  // namespace weft::gpusim
