// Values of the lane-vector interpreter (simt_eval.h): one integer per thread of a block, each
// known or not, and the integer arithmetic on them.
//
// A LaneVal is `S + off[t]` for every thread t whose value is known, where S is a *uniform
// symbol* (an int parameter, an unknown shape, the result of an operation on uniform unknowns)
// or nothing (sym 0: the value is off[t] itself). Keeping the symbol apart is what makes
// `a[i + n]` useful with n unknown: the lanes' differences are still exact.
//
//   a (sym 0) op b (sym 0)         exact per thread, every operator
//   S + off  +/-  c                S + (off +/- c)
//   S + off  -  S + off'           off - off' (the symbol cancels)
//   S * c, c uniform               a new symbol "mul(S, c)" with off * c
//   anything uniform op uniform    a new symbol naming the operation (equal inputs, equal symbol)
//   anything else                  unknown; "varying" if either operand varies across lanes
//
// Symbols are interned by a SymbolTable, so the same operation on the same uniform inputs gets
// the same symbol, and comparisons of two such values decide.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/types.h"

namespace weft::compiler::audit {

using Mask = std::vector<uint8_t>;

// An integer (or bool) value for every thread of the block: value = S(sym) + off[t] when known[t];
// sym 0 means no symbol (the value is off[t] itself). `varying`: may differ between lanes.
struct LaneVal {
    uint32_t sym = 0;
    std::vector<int64_t> off;
    Mask known;
    bool varying = false;
    static LaneVal unknown(int n, bool varying);
    static LaneVal constant(int n, int64_t c);
    bool exact(int t) const { return sym == 0 && known[static_cast<size_t>(t)]; }
};

// Uniform symbols by a key naming where they come from ("param(3)", "mul(2,4)"); ids from 1.
class SymbolTable {
public:
    uint32_t get(const std::string& key);

private:
    std::map<std::string, uint32_t> ids_;
};

// An int or bool scalar: the types the interpreter evaluates per thread.
bool is_intlike(Type t);
// Python's floor division (rounds towards negative infinity); 0 for a zero divisor.
int64_t floordiv(int64_t a, int64_t b);

// All threads of `m` known with one offset (symbol allowed); that offset in *value.
bool lane_uniform(const LaneVal& v, const Mask& m, int64_t* value = nullptr);
// `a op b` for an ir::BinaryOp on integers, for the threads of `m` (see the table above).
LaneVal lane_binary(int op, const LaneVal& a, const LaneVal& b, const Mask& m, SymbolTable& syms);
// `a op b` for an ir::CompareOp: 0/1 per thread where decided.
LaneVal lane_compare(int op, const LaneVal& a, const LaneVal& b, const Mask& m, SymbolTable& syms);

}  // namespace weft::compiler::audit
