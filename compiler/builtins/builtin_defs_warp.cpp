// Warp collectives (compiler/native/warp.h): CUDA's __shfl_*_sync, __ballot_sync, __any_sync and
// __all_sync under their CUDA names. NVIDIA Warp has none of them; they are Weft's extension
// (docs/warp-compat.md). Every entry is flagged Warp: the code generator passes the thread
// context first (the CPU device's lanes meet in a rendezvous through it, runtime/cpu/block_fibers.h),
// and a kernel that calls one runs its warps in lock-step on every device. They are SideEffect
// too: a pass must not move a collective across control flow, which would change who takes part.
//
// The shuffles of float values are differentiable: the adjoint of a transfer from lane s to lane
// d moves the adjoint back from d to s (shfl_down's is a shfl_up of adjoints, shfl_xor is its
// own transpose, shfl_sync's sums the adjoints of the lanes that read each lane).
#include "compiler/builtins/builtin_defs_common.h"

namespace weft::compiler {

void register_warp_builtins(BuiltinTable& t) {
    const char* g = "warp";
    const unsigned kWarp = BuiltinFlags_Warp | kSide;
    const Type u = uint32_type(), i = int32_type(), b = bool_type();
    std::vector<Type> values;
    for (ScalarKind s : {ScalarKind::Int32, ScalarKind::UInt32, ScalarKind::Int64, ScalarKind::Float32, ScalarKind::Float64})
        values.push_back(sc(s));
    for (ScalarKind s : kFloatKinds)
        for (int n : {2, 3, 4}) values.push_back(vec(n, s));
    struct Shuffle {
        const char* name;
        const char* lane_param;
        const char* doc;
    };
    const Shuffle shuffles[] = {
        {"shfl_sync", "src_lane", "The value of lane src_lane (modulo 32) of the warp; every lane in mask must call it."},
        {"shfl_up_sync", "delta",
         "The value of lane (lane_id - delta); lanes below delta get their own value (CUDA's __shfl_up_sync, width 32)."},
        {"shfl_down_sync", "delta",
         "The value of lane (lane_id + delta); lanes past 31 - delta get their own value (CUDA's __shfl_down_sync, width 32)."},
        {"shfl_xor_sync", "lane_mask", "The value of lane (lane_id ^ lane_mask): a butterfly exchange (CUDA's __shfl_xor_sync)."},
    };
    for (const Shuffle& s : shuffles)
        for (Type v : values)
            t.add(s.name, v, {p("mask", u), p("value", v), p(s.lane_param, i)}, g, s.doc,
                  kWarp | (is_float_kind(v->scalar) ? kDiff : 0));
    t.add("ballot_sync", u, {p("mask", u), p("pred", b)}, g,
          "Bit k is set when lane k is in mask, has not returned, and its pred is true (CUDA's __ballot_sync).", kWarp);
    t.add("any_sync", b, {p("mask", u), p("pred", b)}, g,
          "True when pred is true for some lane of mask that has not returned (CUDA's __any_sync).", kWarp);
    t.add("all_sync", b, {p("mask", u), p("pred", b)}, g,
          "True when pred is true for every lane of mask that has not returned (CUDA's __all_sync).", kWarp);
}

}  // namespace weft::compiler
