// Integer arithmetic on lane vectors (see lane_val.h for the rules and why symbols are kept).
#include "compiler/audit/lane_val.h"

#include "compiler/ir/ir.h"

namespace weft::compiler::audit {

LaneVal LaneVal::unknown(int n, bool varying) {
    LaneVal v;
    v.off.assign(static_cast<size_t>(n), 0);
    v.known.assign(static_cast<size_t>(n), 0);
    v.varying = varying;
    return v;
}

LaneVal LaneVal::constant(int n, int64_t c) {
    LaneVal v;
    v.off.assign(static_cast<size_t>(n), c);
    v.known.assign(static_cast<size_t>(n), 1);
    return v;
}

uint32_t SymbolTable::get(const std::string& key) {
    auto it = ids_.find(key);
    if (it != ids_.end()) return it->second;
    uint32_t id = static_cast<uint32_t>(ids_.size() + 1);
    ids_[key] = id;
    return id;
}

bool is_intlike(Type t) { return t && t->kind == TypeKind::Scalar && (is_int(t) || t->scalar == ScalarKind::Bool); }

int64_t floordiv(int64_t a, int64_t b) {
    if (b == 0) return 0;
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}

bool lane_uniform(const LaneVal& v, const Mask& m, int64_t* value) {
    bool first = true;
    int64_t x = 0;
    for (size_t i = 0; i < m.size(); ++i) {
        if (!m[i]) continue;
        if (!v.known[i]) return false;
        if (first)
            x = v.off[i], first = false;
        else if (v.off[i] != x)
            return false;
    }
    if (value) *value = x;
    return true;
}

LaneVal lane_binary(int op, const LaneVal& a, const LaneVal& b, const Mask& m, SymbolTable& syms) {
    using B = ir::BinaryOp;
    const int n = static_cast<int>(m.size());
    LaneVal r = LaneVal::unknown(n, a.varying || b.varying);
    auto each = [&](auto fn) {
        for (size_t i = 0; i < m.size(); ++i)
            if (a.known[i] && b.known[i]) r.known[i] = 1, r.off[i] = fn(a.off[i], b.off[i]);
    };
    B bop = static_cast<B>(op);
    if (a.sym == 0 && b.sym == 0) {
        switch (bop) {
            case B::Add: each([](int64_t x, int64_t y) { return x + y; }); break;
            case B::Sub: each([](int64_t x, int64_t y) { return x - y; }); break;
            case B::Mul: each([](int64_t x, int64_t y) { return x * y; }); break;
            case B::Div: each([](int64_t x, int64_t y) { return y == 0 ? 0 : x / y; }); break;
            case B::FloorDiv: each([](int64_t x, int64_t y) { return floordiv(x, y); }); break;
            case B::Mod: each([](int64_t x, int64_t y) { return y == 0 ? 0 : x % y; }); break;
            case B::BitAnd: each([](int64_t x, int64_t y) { return x & y; }); break;
            case B::BitOr: each([](int64_t x, int64_t y) { return x | y; }); break;
            case B::BitXor: each([](int64_t x, int64_t y) { return x ^ y; }); break;
            case B::Shl: each([](int64_t x, int64_t y) { return (y < 0 || y > 62) ? 0 : x << y; }); break;
            case B::Shr: each([](int64_t x, int64_t y) { return (y < 0 || y > 62) ? 0 : x >> y; }); break;
            default: break;
        }
        return r;
    }
    int64_t c = 0;
    if (bop == B::Add || bop == B::Sub) {
        if (a.sym != 0 && b.sym == 0) {
            r.sym = a.sym;
            each([&](int64_t x, int64_t y) { return bop == B::Add ? x + y : x - y; });
            return r;
        }
        if (a.sym == 0 && b.sym != 0 && bop == B::Add) {
            r.sym = b.sym;
            each([](int64_t x, int64_t y) { return x + y; });
            return r;
        }
        if (a.sym == b.sym && bop == B::Sub) {
            each([](int64_t x, int64_t y) { return x - y; });
            return r;
        }
    }
    if (bop == B::Mul &&
        ((a.sym != 0 && b.sym == 0 && lane_uniform(b, m, &c)) || (b.sym != 0 && a.sym == 0 && lane_uniform(a, m, &c)))) {
        const LaneVal& s = a.sym != 0 ? a : b;
        r.sym = syms.get("mul(" + std::to_string(s.sym) + "," + std::to_string(c) + ")");
        for (size_t i = 0; i < m.size(); ++i)
            if (s.known[i]) r.known[i] = 1, r.off[i] = s.off[i] * c;
        return r;
    }
    int64_t x = 0, y = 0;
    if (lane_uniform(a, m, &x) && lane_uniform(b, m, &y)) {
        r = LaneVal::constant(n, 0);
        r.varying = false;
        r.sym = syms.get("op" + std::to_string(op) + "(" + std::to_string(a.sym) + "+" + std::to_string(x) + "," +
                         std::to_string(b.sym) + "+" + std::to_string(y) + ")");
    }
    return r;
}

LaneVal lane_compare(int op, const LaneVal& a, const LaneVal& b, const Mask& m, SymbolTable& syms) {
    using C = ir::CompareOp;
    const int n = static_cast<int>(m.size());
    LaneVal r = LaneVal::unknown(n, a.varying || b.varying);
    if (a.sym == b.sym) {
        for (size_t i = 0; i < m.size(); ++i) {
            if (!a.known[i] || !b.known[i]) continue;
            int64_t x = a.off[i], y = b.off[i];
            bool v = false;
            switch (static_cast<C>(op)) {
                case C::Lt: v = x < y; break;
                case C::Le: v = x <= y; break;
                case C::Gt: v = x > y; break;
                case C::Ge: v = x >= y; break;
                case C::Eq: v = x == y; break;
                case C::Ne: v = x != y; break;
            }
            r.known[i] = 1, r.off[i] = v;
        }
        return r;
    }
    int64_t x = 0, y = 0;
    if (lane_uniform(a, m, &x) && lane_uniform(b, m, &y)) {
        r = LaneVal::constant(n, 0);
        r.sym = syms.get("cmp" + std::to_string(op) + "(" + std::to_string(a.sym) + "+" + std::to_string(x) + "," +
                         std::to_string(b.sym) + "+" + std::to_string(y) + ")");
    }
    return r;
}

}  // namespace weft::compiler::audit
