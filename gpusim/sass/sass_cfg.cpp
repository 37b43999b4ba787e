// gpusim/sass/sass_cfg.cpp — branch decoding and basic blocks of sm_90 SASS (sass_cfg.h says why).
#include "gpusim/sass/sass_cfg.h"

#include "gpusim/sass/sass_map.h"

namespace weft::gpusim {

namespace {

constexpr uint64_t kBra = 0x947, kExit = 0x94d, kCall = 0x944, kRet = 0x950, kBssy = 0x945, kBsync = 0x941;

// Bits 32-81 of the instruction, sign-extended.
int64_t high_field(uint64_t lo, uint64_t hi) {
    const uint64_t raw = (lo >> 32) | ((hi & 0x3ffffu) << 32);
    return static_cast<int64_t>(raw << 14) >> 14;
}

}  // namespace

SassControl decode_sass_control(uint64_t lo, uint64_t hi, int64_t index) {
    SassControl c;
    const uint64_t op = lo & 0xfff;
    const uint64_t pred = (lo >> 12) & 7;
    const bool negated = (lo >> 15) & 1;
    c.conditional = !(pred == 7 && !negated);
    const int64_t next = (index + 1) * 16;
    switch (op) {
        case kBra:
        case kCall: {
            const int64_t offset = high_field(lo, hi) * 256 + static_cast<int64_t>((lo >> 16) & 0xff) * 4;
            c.flow = op == kBra ? SassFlow::Branch : SassFlow::Call;
            c.target = (next + offset) / 16;
            break;
        }
        case kBssy:
            c.flow = SassFlow::Bssy;
            c.target = (next + high_field(lo, hi)) / 16;
            c.conditional = false;
            break;
        case kExit: c.flow = SassFlow::Exit; break;
        case kRet: c.flow = SassFlow::Return; break;
        case kBsync: c.flow = SassFlow::Bsync; break;
        default: c.conditional = false; break;
    }
    return c;
}

SassSchedule decode_sass_schedule(uint64_t hi) {
    const uint64_t c = hi >> 41;
    SassSchedule s;
    s.stall = static_cast<int>(c & 15);
    const int wb = static_cast<int>(c >> 5 & 7), rb = static_cast<int>(c >> 8 & 7);
    s.write_barrier = wb == 7 ? -1 : wb;
    s.read_barrier = rb == 7 ? -1 : rb;
    s.wait_mask = static_cast<uint32_t>(c >> 11 & 63);
    return s;
}

bool sass_constant_load(uint64_t lo) {
    const uint64_t op = lo & 0xfff;
    return op == 0xb82 || op == 0xab9;
}

SassCfg build_sass_cfg(const std::vector<SassInstruction>& code) {
    SassCfg g;
    const int64_t n = static_cast<int64_t>(code.size());
    g.control.reserve(code.size());
    for (int64_t i = 0; i < n; ++i) g.control.push_back(decode_sass_control(code[i].lo, code[i].hi, i));
    std::vector<bool> leader(code.size() + 1, false);
    if (n == 0) return g;
    leader[0] = true;
    auto in_code = [&](int64_t t) { return t >= 0 && t < n; };
    for (int64_t i = 0; i < n; ++i) {
        const SassControl& c = g.control[i];
        switch (c.flow) {
            case SassFlow::Branch:
            case SassFlow::Call:
                if (in_code(c.target)) leader[c.target] = true;
                leader[i + 1] = true;
                break;
            case SassFlow::Exit:
            case SassFlow::Return: leader[i + 1] = true; break;
            case SassFlow::Bsync:
                leader[i] = true;
                leader[i + 1] = true;
                break;
            default: break;
        }
    }
    g.block_of.assign(code.size(), -1);
    for (int64_t b = 0; b < n;) {
        int64_t e = b + 1;
        while (e < n && !leader[e]) ++e;
        SassBlock blk;
        blk.begin = static_cast<int32_t>(b);
        blk.end = static_cast<int32_t>(e);
        blk.bsync = g.control[b].flow == SassFlow::Bsync;
        for (int64_t i = b; i < e; ++i) g.block_of[i] = static_cast<int32_t>(g.blocks.size());
        g.blocks.push_back(blk);
        b = e;
    }
    for (size_t k = 0; k < g.blocks.size(); ++k) {
        SassBlock& blk = g.blocks[k];
        const int64_t last = blk.end - 1;
        const SassControl& c = g.control[last];
        auto add = [&](int64_t t) {
            if (!in_code(t)) return;
            const int32_t s = g.block_of[t];
            for (int32_t x : blk.succ)
                if (x == s) return;
            blk.succ.push_back(s);
        };
        bool falls = true;
        if (c.flow == SassFlow::Branch) {
            add(c.target);
            falls = c.conditional;
        } else if (c.flow == SassFlow::Call) {
            add(c.target);
        } else if (c.flow == SassFlow::Exit) {
            falls = c.conditional;
        } else if (c.flow == SassFlow::Return) {
            falls = false;
        }
        if (falls) add(blk.end);
    }
    for (size_t k = 0; k < g.blocks.size(); ++k)
        for (int32_t s : g.blocks[k].succ) g.blocks[s].pred.push_back(static_cast<int32_t>(k));
    // Blocks the entry reaches without entering a subroutine (a CALL goes on at its return point).
    std::vector<bool> seen(g.blocks.size(), false);
    std::vector<int32_t> stack{0};
    seen[0] = true;
    while (!stack.empty()) {
        const int32_t k = stack.back();
        stack.pop_back();
        const SassBlock& blk = g.blocks[k];
        const SassControl& c = g.control[blk.end - 1];
        for (int32_t s : blk.succ) {
            if (c.flow == SassFlow::Call && g.blocks[s].begin == c.target && s != static_cast<int32_t>(k + 1)) continue;
            if (!seen[s]) {
                seen[s] = true;
                stack.push_back(s);
            }
        }
    }
    for (size_t k = 0; k < g.blocks.size(); ++k) g.blocks[k].subroutine = !seen[k];
    return g;
}

}  // namespace weft::gpusim
