// gpusim/exec/exec_warp.cpp — warp-collective instructions: shfl.sync (up/down/bfly/idx with the
// c operand's clamp and segment mask, and the optional |p validity predicate), vote.sync
// (all/any/uni/ballot), activemask, redux.sync.
//
// A collective reads every participating lane's source before writing any destination.
// Participation is the executing lanes (the SIMT path's active lanes with the guard applied);
// reading a source lane that is not executing returns that lane's register as it stands, as
// PTX leaves it undefined.
#include <algorithm>

#include "gpusim/exec/exec.h"

namespace weft::gpusim {

void exec_warp_op(BlockContext& c, Warp& w, const Instr& in, uint32_t mask, uint32_t active) {
    switch (in.op) {
        case Op::Shfl: {
            uint64_t src[kWarpSize];
            for (int l = 0; l < kWarpSize; ++l) src[l] = rd(c, w, in.ops[1], l);
            uint64_t out[kWarpSize];
            bool valid[kWarpSize];
            for_lanes(mask, [&](int lane) {
                const uint32_t b = static_cast<uint32_t>(rd(c, w, in.ops[2], lane)) & 0x1f;
                const uint32_t cv = static_cast<uint32_t>(rd(c, w, in.ops[3], lane));
                const uint32_t clamp = cv & 0x1f, segmask = (cv >> 8) & 0x1f;
                const int32_t max_lane = static_cast<int32_t>((lane & segmask) | (clamp & ~segmask));
                const int32_t min_lane = static_cast<int32_t>(lane & segmask);
                int32_t j;
                bool p;
                switch (static_cast<ShflMode>(in.sub)) {
                    case ShflMode::Up:
                        j = lane - static_cast<int32_t>(b);
                        p = j >= max_lane;
                        break;
                    case ShflMode::Down:
                        j = lane + static_cast<int32_t>(b);
                        p = j <= max_lane;
                        break;
                    case ShflMode::Bfly:
                        j = lane ^ static_cast<int32_t>(b);
                        p = j <= max_lane;
                        break;
                    default:
                        j = min_lane | static_cast<int32_t>(b & ~segmask);
                        p = j <= max_lane;
                        break;
                }
                if (!p || j < 0 || j >= kWarpSize) j = lane;
                out[lane] = src[j];
                valid[lane] = p;
            });
            for_lanes(mask, [&](int lane) {
                wr(w, in.ops[0], lane, low_bits(out[lane], 32));
                if (in.pdest >= 0) reg_at(w, in.pdest, lane) = valid[lane];
            });
            return;
        }
        case Op::Vote: {
            const VoteMode mode = static_cast<VoteMode>(in.sub);
            uint32_t ballot = 0;
            for_lanes(mask, [&](int l) {
                if (rd_pred(w, in.ops[1], l)) ballot |= 1u << l;
            });
            uint64_t r;
            switch (mode) {
                case VoteMode::All: r = ballot == mask; break;
                case VoteMode::Any: r = ballot != 0; break;
                case VoteMode::Uni: r = ballot == 0 || ballot == mask; break;
                default: r = ballot; break;
            }
            for_lanes(mask, [&](int l) { wr(w, in.ops[0], l, r); });
            return;
        }
        case Op::Activemask: for_lanes(mask, [&](int l) { wr(w, in.ops[0], l, active); }); return;
        case Op::Redux: {
            const AtomOp op = static_cast<AtomOp>(in.sub);
            const bool is_signed = type_is_signed(in.type);
            bool first = true;
            uint64_t acc = 0;
            for_lanes(mask, [&](int l) {
                const uint64_t v = low_bits(rd(c, w, in.ops[1], l), 32);
                if (first) {
                    acc = v;
                    first = false;
                    return;
                }
                switch (op) {
                    case AtomOp::Add: acc = low_bits(acc + v, 32); break;
                    case AtomOp::Min:
                        acc = is_signed ? (sign_extend(v, 32) < sign_extend(acc, 32) ? v : acc) : std::min(acc, v);
                        break;
                    case AtomOp::Max:
                        acc = is_signed ? (sign_extend(v, 32) > sign_extend(acc, 32) ? v : acc) : std::max(acc, v);
                        break;
                    case AtomOp::And: acc &= v; break;
                    case AtomOp::Or: acc |= v; break;
                    case AtomOp::Xor: acc ^= v; break;
                    default: break;
                }
            });
            for_lanes(mask, [&](int l) { wr(w, in.ops[0], l, acc); });
            return;
        }
        default: GPUSIM_ASSERT(false);
    }
}

}  // namespace weft::gpusim
