// gpusim/sass/sass_count.cpp — how often each SASS instruction of a kernel ran, from gpusim's PTX
// execution counts, ptxas's line table and the machine code's basic blocks (sass_cfg.h).
//
// Every instruction of a SASS basic block runs equally often, so the estimate is one count per
// SASS block, and one flow per CFG edge (a warp's group of lanes going that way). A block gets
// its count from, in this order:
//   1. unrolled loops. A PTX loop (a backward bra) whose body's lines sit in several SASS
//      blocks was unrolled by ptxas into pieces: a block holding c copies of the body (c read
//      off the body's one-to-one instructions, as the lower median of their SASS in the block; an
//      induction variable's step, which ptxas merges, aside),
//      either a loop (it branches to itself) or straight code run at most once per pass. A lane
//      whose pass goes round T times runs the largest pieces first: a loop piece floor(T'/c)
//      times, a straight one once if T' >= c, T' what the larger pieces left (equal copies: the
//      later piece first; ptxas peels its special cases in front). A warp runs a piece as
//      often as its busiest lane (gpusim records each pass's trip counts, loop_trips.h); the
//      lanes that leave a loop piece after different rounds arrive at its exit as separate
//      groups, and a pass with lanes that skip a piece sends a group past it. Only where the
//      pieces add up to every lane's trip count and the passes to the PTX body's executions.
//      A loop ptxas kept whole (one SASS branch back) has the same passes: its first block runs
//      as often as the PTX branch, and its lanes leave in one group per distinct trip count.
//   2. its own PTX lines: lines whose SASS all sits in this block ("private" lines). Their PTX
//      instructions ran as often as the block, except where ptxas hoisted one out of a loop or
//      if-converted a branch (a PTX instruction behind a forward branch that has no SASS runs,
//      predicated, as often as that branch; not where the code it skips still holds a branch
//      with SASS: ptxas kept that control flow, e.g. as a BRX jump table). A guarded SASS
//      instruction (`@P1 MOV`) does not vote: ptxas if-converted its line even where the PTX
//      branch around it kept SASS of its own (float64 log's special cases). The count covering
//      most of the block's SASS instructions wins (ties: the larger). Some SASS does not show
//      where its line's work sits and is left out of this (and of the pieces of 1): constant
//      loads (hoisted parameters), BSSY/BSYNC (convergence bookkeeping), and, where a kernel
//      has several EXITs, an EXIT (ptxas copies a `ret` into the branches to it; the `ret`
//      counts them all).
//   3. flow. A block runs once per group of lanes that arrives (the sum of its in-edges) and
//      sends each out: a two-way branch sends as many groups as it ran plus the times it split
//      the warp (the PTX branch's divergent count, where the SASS branch is that PTX branch's
//      alone). A BSYNC runs once per arriving group, and lets one group on per pass of its
//      BSSY (the count of the block holding the BSSY that names the BSYNC's successor). A
//      CALL's return point runs as often as the call. The slow path of a float instruction
//      (ptxas's CALL, under a branch of that instruction's own expansion, for zero, denormal,
//      infinite or NaN operands) is taken never to run: an assumption, not a count.
//   4. subroutines (ptxas's 64-bit division, reached by CALL) run as often as the blocks that
//      call them: the slow path of a 64-bit `rem` that the PTX bypasses for operands that fit
//      32 bits (nvcc writes that test into the PTX) runs 0 times when its PTX never ran.
//   5. anything left: the per-line estimate (the PTX executions of the line divided by the
//      unroll factor of its PTX block, sass_weights), instruction by instruction.
#include "gpusim/sass/sass_cfg.h"
#include "gpusim/sass/sass_map.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace weft::gpusim {

namespace {

const KernelSass& kernel_code(const SassMap& map, const std::string& kernel) {
    auto it = map.kernels.find(kernel);
    if (it == map.kernels.end()) throw SassMapError("ptxas made no code for kernel '" + kernel + "'");
    return it->second;
}

// A piece of an unrolled loop and what the passes through it did.
struct Piece {
    int32_t block = 0;
    uint32_t copies = 1;
    bool loop = false;
    double runs = 0;   // block executions
    double enter = 0;  // passes in which some lane ran it
    double skip = 0;   // passes in which some lane did not
    double exits = 0;  // groups leaving it (a loop piece: distinct round counts per pass)
};

// `add/sub d, d, imm`: an induction variable's step. ptxas merges the steps of the copies it
// unrolls into one, so they do not count copies.
bool steps_itself(const std::string& text) {
    size_t i = text.find_first_not_of(" \t");
    if (i == std::string::npos || (text.compare(i, 4, "add.") != 0 && text.compare(i, 4, "sub.") != 0)) return false;
    std::vector<std::string> ops;
    std::string cur;
    for (size_t k = text.find_first_of(" \t", i); k < text.size(); ++k) {
        const char c = text[k];
        if (c == ',' || c == ';') {
            ops.push_back(cur);
            cur.clear();
        } else if (c != ' ' && c != '\t') {
            cur += c;
        }
    }
    return ops.size() == 3 && ops[0] == ops[1] && !ops[2].empty() &&
           (std::isdigit(static_cast<unsigned char>(ops[2][0])) || ops[2][0] == '-');
}

// Whether a SASS instruction shows where its PTX line's work sits. Not so for a constant
// load (ptxas attributes it to the instruction that uses the parameter, but hoists it out of
// that instruction's block) nor for a BSSY or BSYNC (ptxas's convergence bookkeeping, attributed
// to some neighbouring line; a BSYNC runs once per group that arrives, not as its line).
bool shows_line(const SassInstruction& w, const SassControl& c) {
    return !sass_constant_load(w.lo) && c.flow != SassFlow::Bssy && c.flow != SassFlow::Bsync;
}

// The pieces of one PTX loop [header, branch] in the SASS, or none when ptxas did not unroll it
// or the passes do not add up.
std::vector<Piece> unrolled_pieces(const LoopTrips& lt, const std::vector<LoopTrips>& all, const Module& module,
                                   const KernelSass& ks, const SassCfg& g, const std::vector<uint64_t>& runs) {
    const auto& code = module.instructions();
    if (lt.header < 0 || lt.branch < lt.header || static_cast<size_t>(lt.branch) >= code.size()) return {};
    // The body's own lines: not those of a loop nested in it (a grid-stride loop around an unrolled
    // one would otherwise find the inner loop's pieces and count them by its own trips).
    auto nested = [&](int32_t i) {
        for (const LoopTrips& o : all)
            if (&o != &lt && o.header >= lt.header && o.branch <= lt.branch && i >= o.header && i <= o.branch) return true;
        return false;
    };
    std::set<int32_t> body_lines;
    for (int32_t i = lt.header; i <= lt.branch; ++i)
        if (sass_one_to_one(module.instruction_text(i)) && !steps_itself(module.instruction_text(i)) && !nested(i))
            body_lines.insert(code[static_cast<size_t>(i)].ptx_line);
    // Per block: SASS instructions of each one-to-one body line.
    std::map<int32_t, std::map<int32_t, uint32_t>> per_block;
    for (size_t s = 0; s < ks.code.size(); ++s) {
        const int32_t b = g.block_of[s];
        if (g.blocks[static_cast<size_t>(b)].subroutine || !body_lines.count(ks.code[s].ptx_line) ||
            !shows_line(ks.code[s], g.control[s]))
            continue;
        ++per_block[b][ks.code[s].ptx_line];
    }
    // A piece holds copies of the body: lines ptxas replicated (that sit in more than one block;
    // one that sits in one block was hoisted, or is the only copy). A loop piece (a block that
    // branches to itself) holds any of them; ptxas may hoist the rest into its preheader. Straight
    // code must hold at least half of them (a guard between pieces holds a compare of the body).
    std::map<int32_t, int> blocks_with;
    for (const auto& [b, lines] : per_block)
        for (const auto& [line, k] : lines) ++blocks_with[line];
    size_t replicated = 0;
    for (const auto& [line, nb] : blocks_with) replicated += nb > 1 ? 1 : 0;
    for (auto it = per_block.begin(); it != per_block.end();) {
        size_t have = 0;
        for (const auto& [line, k] : it->second) have += blocks_with[line] > 1 ? 1 : 0;
        const auto& succ = g.blocks[static_cast<size_t>(it->first)].succ;
        const bool loop = std::find(succ.begin(), succ.end(), it->first) != succ.end();
        if (have == 0 || (!loop && 2 * have < replicated))
            it = per_block.erase(it);
        else
            ++it;
    }
    if (per_block.size() < 2) return {};
    std::vector<Piece> pieces;
    for (const auto& [b, lines] : per_block) {
        std::vector<uint32_t> n;
        for (const auto& [line, k] : lines) n.push_back(k);
        std::sort(n.begin(), n.end());
        Piece p;
        p.block = b;
        p.copies = n[(n.size() - 1) / 2];
        const auto& succ = g.blocks[static_cast<size_t>(b)].succ;
        p.loop = std::find(succ.begin(), succ.end(), b) != succ.end();
        pieces.push_back(p);
    }
    // Straight code that falls into a loop piece is its preheader (what ptxas hoisted out of
    // the body), not a piece: it runs once per entry of that loop (flow gives it).
    auto is_loop_piece = [&](int32_t b) {
        for (const Piece& p : pieces)
            if (p.block == b) return p.loop;
        return false;
    };
    std::erase_if(pieces, [&](const Piece& p) {
        const auto& succ = g.blocks[static_cast<size_t>(p.block)].succ;
        return !p.loop && succ.size() == 1 && is_loop_piece(succ[0]);
    });
    if (pieces.size() < 2) return {};
    // Largest first; equal copies: the later piece first.
    std::vector<size_t> order(pieces.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        if (pieces[a].copies != pieces[b].copies) return pieces[a].copies > pieces[b].copies;
        return pieces[a].block > pieces[b].block;
    });
    double body_runs = 0;
    std::vector<uint64_t> k(pieces.size());
    for (const auto& [trips, passes] : lt.passes) {
        const double n = static_cast<double>(passes);
        std::vector<uint64_t> most(pieces.size(), 0), least(pieces.size(), UINT64_MAX);
        std::vector<std::set<uint64_t>> rounds(pieces.size());
        for (uint32_t t : trips) {
            uint64_t left = t;
            for (size_t o : order) {
                const Piece& p = pieces[o];
                k[o] = p.loop ? left / p.copies : (left >= p.copies ? 1 : 0);
                left -= k[o] * p.copies;
            }
            if (left != 0) return {};  // the pieces cannot make this trip count
            for (size_t i = 0; i < pieces.size(); ++i) {
                most[i] = std::max(most[i], k[i]);
                least[i] = std::min(least[i], k[i]);
                if (k[i] > 0) rounds[i].insert(k[i]);
            }
        }
        if (!trips.empty()) body_runs += n * trips.back();
        for (size_t i = 0; i < pieces.size(); ++i) {
            pieces[i].runs += n * static_cast<double>(most[i]);
            pieces[i].enter += most[i] > 0 ? n : 0;
            pieces[i].skip += least[i] == 0 ? n : 0;
            pieces[i].exits += n * static_cast<double>(pieces[i].loop ? rounds[i].size() : (most[i] > 0 ? 1 : 0));
        }
    }
    // Every pass recorded: the warp ran the backward branch as often as its busiest lane.
    if (body_runs != static_cast<double>(runs[static_cast<size_t>(lt.branch)])) return {};
    return pieces;
}

// A PTX loop that ptxas kept whole: one SASS branch of the PTX backward branch's line goes
// back (to the loop's first block). Each warp pass runs that block as often as its busiest
// lane goes round, and the lanes that leave after different rounds leave as separate groups
// (they arrive apart at the BSYNC after the loop). Only where the recorded passes add up to
// the PTX branch's executions. Sets the header's count (and marks it known) and the branch's
// two edges. For loops unrolled_pieces() found no pieces in.
template <class Flow>
void kept_loop(const LoopTrips& lt, const Module& module, const KernelSass& ks, const SassCfg& g,
               const std::vector<uint64_t>& runs, std::vector<double>& x, std::vector<bool>& known, Flow&& flow) {
    if (lt.branch < 0 || static_cast<size_t>(lt.branch) >= runs.size() || lt.passes.empty()) return;
    const int32_t line = module.instructions()[static_cast<size_t>(lt.branch)].ptx_line;
    int32_t back = -1;
    for (size_t s = 0; s < ks.code.size(); ++s) {
        const SassControl& c = g.control[s];
        if (c.flow != SassFlow::Branch || !c.conditional || c.target > static_cast<int64_t>(s) || c.target < 0) continue;
        if (ks.code[s].ptx_line != line || g.blocks[static_cast<size_t>(g.block_of[s])].subroutine) continue;
        if (back >= 0) return;  // several: ptxas copied the loop
        back = static_cast<int32_t>(s);
    }
    if (back < 0) return;
    double body = 0, passes = 0, groups = 0;
    for (const auto& [trips, n] : lt.passes) {
        if (trips.empty()) return;
        body += static_cast<double>(n) * trips.back();
        passes += static_cast<double>(n);
        groups += static_cast<double>(n) * static_cast<double>(trips.size());
    }
    if (body != static_cast<double>(runs[static_cast<size_t>(lt.branch)])) return;
    const int32_t b = g.block_of[static_cast<size_t>(back)];
    const int32_t h = g.block_of[static_cast<size_t>(g.control[static_cast<size_t>(back)].target)];
    const auto& succ = g.blocks[static_cast<size_t>(b)].succ;
    if (succ.size() != 2 || g.blocks[static_cast<size_t>(h)].begin != g.control[static_cast<size_t>(back)].target) return;
    x[static_cast<size_t>(h)] = body;
    known[static_cast<size_t>(h)] = true;
    flow(b, h) = body - passes;
    flow(b, succ[0] == h ? succ[1] : succ[0]) = groups;
}

}  // namespace

std::vector<double> estimate_sass_counts(const SassMap& map, const Module& module, const std::string& kernel,
                                         const LaunchResult& counts) {
    const KernelSass& ks = kernel_code(map, kernel);
    const auto& code = module.instructions();
    const std::vector<double> w = sass_weights(map, module, kernel);
    const uint64_t warps = counts.grid.count() * ((counts.block.count() + 31) / 32);

    // PTX executions per instruction; if-converted forward branches (no SASS of their own) make
    // the code they skip run as often as they do. Not where that code holds a branch with SASS:
    // there ptxas kept the control flow (and put the branch's decision elsewhere, e.g. in a jump
    // table's BRX).
    std::vector<uint64_t> runs(code.size(), 0), divergent(code.size(), 0);
    for (const InstructionCounters& ic : counts.per_instruction) {
        runs[static_cast<size_t>(ic.index)] = ic.counts.warp_instructions;
        divergent[static_cast<size_t>(ic.index)] = ic.counts.divergent_branches;
    }
    const std::vector<uint64_t> plain_runs = runs;
    for (size_t i = 0; i < code.size(); ++i) {
        const Instr& in = code[i];
        if (in.op != Op::Bra || runs[i] == 0 || in.target <= static_cast<int32_t>(i) || ks.per_ptx_line.count(in.ptx_line))
            continue;
        if (module.instruction_text(static_cast<int32_t>(i)).find('@') == std::string::npos) continue;
        bool kept = false;
        for (size_t j = i + 1; j < static_cast<size_t>(in.target) && j < code.size(); ++j)
            kept = kept || (code[j].op == Op::Bra && ks.per_ptx_line.count(code[j].ptx_line));
        if (kept) continue;
        for (size_t j = i + 1; j < static_cast<size_t>(in.target) && j < code.size(); ++j) runs[j] = std::max(runs[j], runs[i]);
    }
    // Per PTX line: the instruction on it (nvcc writes one per line; else the most executed).
    std::map<int32_t, int32_t> instr_of_line;
    for (size_t i = 0; i < code.size(); ++i) {
        auto [it, fresh] = instr_of_line.emplace(code[i].ptx_line, static_cast<int32_t>(i));
        if (!fresh && runs[i] > runs[static_cast<size_t>(it->second)]) it->second = static_cast<int32_t>(i);
    }

    const SassCfg g = build_sass_cfg(ks.code);
    const size_t nb = g.blocks.size();
    std::vector<double> x(nb, -1.0);
    // Edge flows: out[b][j] is the flow of g.blocks[b].succ[j].
    std::vector<std::vector<double>> out(nb);
    for (size_t b = 0; b < nb; ++b) out[b].assign(g.blocks[b].succ.size(), -1.0);
    auto flow = [&](int32_t p, int32_t s) -> double& {
        const auto& succ = g.blocks[static_cast<size_t>(p)].succ;
        return out[static_cast<size_t>(p)][static_cast<size_t>(std::find(succ.begin(), succ.end(), s) - succ.begin())];
    };

    // Which blocks each PTX line's SASS sits in (subroutines aside; only what shows_line).
    std::map<int32_t, std::set<int32_t>> blocks_of_line;
    size_t exits = 0;
    for (size_t s = 0; s < ks.code.size(); ++s) {
        if (g.blocks[static_cast<size_t>(g.block_of[s])].subroutine) continue;
        if (ks.code[s].ptx_line > 0 && shows_line(ks.code[s], g.control[s]))
            blocks_of_line[ks.code[s].ptx_line].insert(g.block_of[s]);
        exits += g.control[s].flow == SassFlow::Exit ? 1 : 0;
    }

    // 1. Unrolled loops.
    std::vector<bool> piece(nb, false);
    for (const LoopTrips& lt : counts.loops) {
        const std::vector<Piece> pieces = unrolled_pieces(lt, counts.loops, module, ks, g, plain_runs);
        if (pieces.empty()) kept_loop(lt, module, ks, g, plain_runs, x, piece, flow);
        for (const Piece& p : pieces) {
            const size_t b = static_cast<size_t>(p.block);
            const SassBlock& blk = g.blocks[b];
            piece[b] = true;
            x[b] = p.runs;
            std::vector<int32_t> entries;
            for (int32_t q : blk.pred)
                if (q != p.block) entries.push_back(q);
            if (p.loop) {
                flow(p.block, p.block) = p.runs - p.enter;
                if (blk.succ.size() == 2) flow(p.block, blk.succ[0] == p.block ? blk.succ[1] : blk.succ[0]) = p.exits;
            } else if (blk.succ.size() == 1) {
                flow(p.block, blk.succ[0]) = p.runs;
            }
            if (entries.size() == 1) {
                flow(entries[0], p.block) = p.enter;
                // The branch that decides whether to enter: the entry itself, or the block before a
                // preheader that only leads here. Its other side takes the passes that skip the piece.
                int32_t guard = entries[0], to = p.block;
                if (g.blocks[static_cast<size_t>(guard)].succ.size() == 1 &&
                    g.blocks[static_cast<size_t>(guard)].pred.size() == 1) {
                    to = guard;
                    guard = g.blocks[static_cast<size_t>(guard)].pred[0];
                }
                const auto& gs = g.blocks[static_cast<size_t>(guard)].succ;
                if (gs.size() == 2 && guard != p.block) flow(guard, gs[0] == to ? gs[1] : gs[0]) = p.skip;
            } else if (p.enter == 0) {
                for (int32_t q : entries) flow(q, p.block) = 0;
            }
        }
    }

    // 2. Private lines.
    for (size_t b = 0; b < nb; ++b) {
        const SassBlock& blk = g.blocks[b];
        if (blk.subroutine || piece[b]) continue;
        std::map<uint64_t, int> votes;
        for (int32_t s = blk.begin; s < blk.end; ++s) {
            // An EXIT of a kernel with several is one of the copies ptxas made of a `ret` (into the
            // branches that jump to it): the `ret`'s count is theirs together.
            // Nor does a guarded instruction: ptxas if-converted its PTX (a special case's few
            // instructions under `@P1`), which ran as often as its branch chose it, not as the block.
            const SassControl& c = g.control[static_cast<size_t>(s)];
            if (!shows_line(ks.code[static_cast<size_t>(s)], c) || (exits > 1 && c.flow == SassFlow::Exit) ||
                sass_guarded(ks.code[static_cast<size_t>(s)].lo))
                continue;
            const int32_t line = ks.code[static_cast<size_t>(s)].ptx_line;
            auto il = instr_of_line.find(line);
            if (line <= 0 || il == instr_of_line.end() || blocks_of_line[line].size() != 1) continue;
            ++votes[runs[static_cast<size_t>(il->second)]];
        }
        int best = 0;
        for (const auto& [n, v] : votes)
            if (v >= best) {
                best = v;
                x[b] = static_cast<double>(n);
            }
    }
    if (nb > 0 && x[0] < 0) x[0] = static_cast<double>(warps);

    // 3. Flow, to a fixed point. div[b]: the times b's two-way branch split the warp, where the
    // SASS branch is a PTX branch's alone (-1: unknown).
    std::vector<double> div(nb, -1.0);
    std::vector<bool> lossy(nb, false);  // ends in a conditional EXIT: lanes leave
    for (size_t b = 0; b < nb; ++b) {
        const int32_t last = g.blocks[b].end - 1;
        const SassControl& c = g.control[static_cast<size_t>(last)];
        lossy[b] = c.flow == SassFlow::Exit && c.conditional;
        if (c.flow != SassFlow::Branch || !c.conditional || g.blocks[b].succ.size() != 2) continue;
        const int32_t line = ks.code[static_cast<size_t>(last)].ptx_line;
        auto il = instr_of_line.find(line);
        if (il == instr_of_line.end() || blocks_of_line[line].size() != 1 || code[static_cast<size_t>(il->second)].op != Op::Bra)
            continue;
        // ptxas folds `@p bra A; bra.uni B; A:` into one conditional branch, which the line table
        // gives to the unconditional one: the split is the conditional one's.
        size_t i = static_cast<size_t>(il->second);
        if (code[i].guard < 0) {
            if (i == 0 || code[i - 1].op != Op::Bra || code[i - 1].guard < 0 || code[i - 1].target != static_cast<int32_t>(i + 1))
                continue;
            --i;
        }
        div[b] = static_cast<double>(divergent[i]);
    }
    // A float instruction's slow path: ptxas expands div.rn/sqrt.rn/rcp.rn.f32 (and f64) into a
    // fast sequence and a branch, on the operands' exponents, to a CALL of a subroutine for the
    // special cases (zero, denormal, infinite, NaN or out-of-range operands). Taken not to run:
    // the branch's side that calls gets no group.
    for (size_t b = 0; b < nb; ++b) {
        const int32_t last = g.blocks[b].end - 1;
        const SassControl& c = g.control[static_cast<size_t>(last)];
        if (c.flow != SassFlow::Branch || !c.conditional || g.blocks[b].succ.size() != 2) continue;
        const int32_t line = ks.code[static_cast<size_t>(last)].ptx_line;
        auto il = instr_of_line.find(line);
        if (il == instr_of_line.end() || code[static_cast<size_t>(il->second)].op == Op::Bra) continue;
        const std::string text = module.instruction_text(il->second);
        if (text.find(".f32") == std::string::npos && text.find(".f64") == std::string::npos) continue;
        for (int32_t s : g.blocks[b].succ) {
            const SassBlock& sb = g.blocks[static_cast<size_t>(s)];
            bool own = g.control[static_cast<size_t>(sb.end - 1)].flow == SassFlow::Call;
            for (int32_t i = sb.begin; own && i < sb.end; ++i) own = ks.code[static_cast<size_t>(i)].ptx_line == line;
            if (own && flow(static_cast<int32_t>(b), s) < 0) flow(static_cast<int32_t>(b), s) = 0;
        }
    }
    // BSYNC -> successor: the passes of the BSSY that names the successor.
    std::map<int64_t, int32_t> bssy_block;  // reconvergence instruction -> block holding its BSSY (-1: several)
    for (size_t s = 0; s < ks.code.size(); ++s)
        if (g.control[s].flow == SassFlow::Bssy) {
            auto [it, fresh] = bssy_block.emplace(g.control[s].target, g.block_of[s]);
            if (!fresh) it->second = -1;
        }
    // Two rounds: first only what the counts say; then a two-way SASS branch that is no PTX
    // branch's alone is taken not to split warps (div 0).
    for (int round = 0; round < 2; ++round) {
        if (round == 1)
            for (size_t b = 0; b < nb; ++b)
                if (div[b] < 0) div[b] = 0;
        for (bool changed = true; changed;) {
            changed = false;
            auto set = [&](double& v, double to) {
                if (v < 0) {
                    v = std::max(0.0, to);
                    changed = true;
                }
            };
            for (size_t b = 0; b < nb; ++b) {
                const SassBlock& blk = g.blocks[b];
                if (blk.subroutine) continue;
                // In-edges.
                double in_known = 0;
                int in_unknown = 0;
                for (int32_t p : blk.pred) {
                    const double f = flow(p, static_cast<int32_t>(b));
                    if (f < 0)
                        ++in_unknown;
                    else
                        in_known += f;
                }
                if (x[b] < 0 && !blk.pred.empty() && in_unknown == 0) set(x[b], in_known);
                if (x[b] >= 0 && in_unknown > 0 && !blk.pred.empty()) {
                    const double rest = x[b] - in_known;
                    if (in_unknown == 1 || rest <= 0)
                        for (int32_t p : blk.pred) set(flow(p, static_cast<int32_t>(b)), in_unknown == 1 ? rest : 0.0);
                }
                // Out-edges.
                std::vector<double>& o = out[b];
                if (blk.bsync) {
                    if (o.size() == 1 && o[0] < 0) {
                        auto it = bssy_block.find(g.blocks[static_cast<size_t>(blk.succ[0])].begin);
                        if (it != bssy_block.end() && it->second >= 0 && x[static_cast<size_t>(it->second)] >= 0)
                            set(o[0], x[static_cast<size_t>(it->second)]);
                    }
                    continue;
                }
                if (lossy[b]) continue;
                if (g.control[static_cast<size_t>(blk.end - 1)].flow == SassFlow::Call) {
                    // Every call returns: the return point gets the block's count (the subroutine's own
                    // count is step 4's).
                    for (size_t j = 0; j < o.size(); ++j) {
                        if (g.blocks[static_cast<size_t>(blk.succ[j])].subroutine) continue;
                        if (x[b] >= 0)
                            set(o[j], x[b]);
                        else if (o[j] >= 0)
                            set(x[b], o[j]);
                    }
                    continue;
                }
                if (o.size() == 1) {
                    if (x[b] >= 0)
                        set(o[0], x[b]);
                    else if (o[0] >= 0)
                        set(x[b], o[0]);
                } else if (o.size() == 2 && x[b] >= 0 && div[b] >= 0) {
                    if (o[0] >= 0 && o[1] < 0) set(o[1], x[b] + div[b] - o[0]);
                    if (o[1] >= 0 && o[0] < 0) set(o[0], x[b] + div[b] - o[1]);
                } else if (o.size() == 2 && x[b] < 0 && div[b] >= 0 && o[0] >= 0 && o[1] >= 0) {
                    set(x[b], o[0] + o[1] - div[b]);
                }
            }
        }
    }

    // 4. Subroutines: as often as the blocks that call them (each call site adds its count to
    // the blocks its subroutine reaches).
    for (size_t c = 0; c < nb; ++c) {
        const SassControl& ctl = g.control[static_cast<size_t>(g.blocks[c].end - 1)];
        if (ctl.flow != SassFlow::Call || g.blocks[c].subroutine || ctl.target < 0 ||
            ctl.target >= static_cast<int64_t>(ks.code.size()))
            continue;
        const double calls = std::max(0.0, x[c]);
        std::vector<bool> seen(nb, false);
        std::vector<int32_t> stack{g.block_of[static_cast<size_t>(ctl.target)]};
        while (!stack.empty()) {
            const int32_t b = stack.back();
            stack.pop_back();
            if (seen[static_cast<size_t>(b)] || !g.blocks[static_cast<size_t>(b)].subroutine) continue;
            seen[static_cast<size_t>(b)] = true;
            x[static_cast<size_t>(b)] = std::max(0.0, x[static_cast<size_t>(b)]) + calls;
            for (int32_t s : g.blocks[static_cast<size_t>(b)].succ) stack.push_back(s);
        }
    }

    // 5. Per instruction; what is still unknown keeps the per-line estimate.
    std::vector<double> per(ks.code.size(), 0.0);
    for (size_t s = 0; s < ks.code.size(); ++s) {
        const double xb = x[static_cast<size_t>(g.block_of[s])];
        if (xb >= 0) {
            per[s] = xb;
            continue;
        }
        const int32_t line = ks.code[s].ptx_line;
        auto il = instr_of_line.find(line);
        if (il == instr_of_line.end()) {
            per[s] = static_cast<double>(warps);  // the prologue
            continue;
        }
        const size_t i = static_cast<size_t>(il->second);
        auto pl = ks.per_ptx_line.find(line);
        const double per_line = pl == ks.per_ptx_line.end() ? 1.0 : pl->second;
        per[s] = per_line > 0 ? static_cast<double>(runs[i]) * w[i] / per_line : 0.0;
    }
    return per;
}

uint64_t estimate_sass_instructions(const SassMap& map, const Module& module, const std::string& kernel,
                                    const LaunchResult& counts) {
    const KernelSass& ks = kernel_code(map, kernel);
    double total = 0;
    if (ks.code.empty() && !ks.per_ptx_line.empty()) {
        // A map without instruction words (built by hand): no blocks, the per-line estimate.
        const std::vector<double> w = sass_weights(map, module, kernel);
        std::set<int32_t> instruction_lines;
        for (const Instr& in : module.instructions()) instruction_lines.insert(in.ptx_line);
        for (const auto& [line, n] : ks.per_ptx_line)
            if (!instruction_lines.count(line))
                total += static_cast<double>(n) * static_cast<double>(counts.grid.count() * ((counts.block.count() + 31) / 32));
        for (const InstructionCounters& ic : counts.per_instruction)
            total += static_cast<double>(ic.counts.warp_instructions) * w[static_cast<size_t>(ic.index)];
        return static_cast<uint64_t>(total + 0.5);
    }
    for (double c : estimate_sass_counts(map, module, kernel, counts)) total += c;
    return static_cast<uint64_t>(total + 0.5);
}

}  // namespace weft::gpusim
