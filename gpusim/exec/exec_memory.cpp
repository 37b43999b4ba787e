// gpusim/exec/exec_memory.cpp — ld/ldu/st (all state spaces, generic addressing, .v2/.v4),
// atom/red, cvta, isspacep, prefetch.
//
// Address resolution per lane: the operand's register plus offset, plus the symbol's base
// (the per-thread frame for .local and call parameters). Generic addresses are classified by
// the windows of address_space.h. Shared, local and parameter accesses are bounds-checked and
// every access must be naturally aligned, as on the GPU; a violation is a SimError. Global
// accesses go to host memory, and must fall inside LaunchOptions::global_memory's buffers when
// it is set (global_memory.h); global atomics use std::atomic_ref so that blocks
// running on several host threads stay correct.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>

#include "gpusim/exec/address_space.h"
#include "gpusim/exec/exec.h"
#include "gpusim/exec/float_ops.h"

namespace weft::gpusim {
namespace {

enum class Where : uint8_t { Global, Shared, Local, Param };

struct Target {
    std::byte* p;
    Where where;
};

std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// Addresses [lo, hi) that lie in one buffer of the launch's map (LaunchOptions::global_memory):
// resolve() checks a global access there without searching the map. A warp's accesses mostly
// fall in one array, so covered_span() checks the range of all its lanes' addresses once.
struct CoveredSpan {
    uint64_t lo = 0, hi = 0;
    bool holds(uint64_t addr, uint32_t size) const { return addr >= lo && addr < hi && hi - addr >= size; }
};

CoveredSpan covered_span(const BlockContext& c, const Warp& w, const Operand& a, uint32_t mask, uint32_t size) {
    if (!c.options || !c.options->global_memory || (a.base != AddrBase::None && a.base != AddrBase::Host) || mask == 0) return {};
    uint64_t lo = UINT64_MAX, hi = 0;
    for_lanes(mask, [&](int lane) {
        const uint64_t addr = (a.reg >= 0 ? reg_at(w, a.reg, lane) : 0) + a.imm;
        lo = std::min(lo, addr);
        hi = std::max(hi, addr);
    });
    if (hi - lo >= UINT32_MAX - size || !c.options->global_memory->contains(lo, static_cast<uint32_t>(hi - lo + size))) return {};
    return {lo, hi + size};
}

Target resolve(BlockContext& c, Warp& w, const Instr& in, const Operand& a, int lane, uint32_t size, bool write, int32_t pc,
               const CoveredSpan& covered) {
    uint64_t addr = (a.reg >= 0 ? reg_at(w, a.reg, lane) : 0) + a.imm;
    const uint32_t frame = w.stack.back().frame;
    Where where;
    switch (a.base) {
        case AddrBase::Host: where = Where::Global; break;
        case AddrBase::Shared: where = Where::Shared; break;
        case AddrBase::Local:
        case AddrBase::FrameParam:
            addr += frame;
            where = Where::Local;
            break;
        case AddrBase::KernelParam: where = Where::Param; break;
        case AddrBase::None:
        default:
            switch (in.space) {
                case Space::Global:
                case Space::Const: where = Where::Global; break;
                case Space::Shared: where = Where::Shared; break;
                case Space::Local: where = Where::Local; break;
                case Space::Param: where = (pc >= c.kernel->begin && pc < c.kernel->end) ? Where::Param : Where::Local; break;
                case Space::Generic:
                default:
                    if (in_shared_window(addr)) {
                        addr -= kSharedWindow;
                        where = Where::Shared;
                    } else if (in_local_window(addr)) {
                        addr -= kLocalWindow;
                        where = Where::Local;
                    } else {
                        where = Where::Global;
                    }
                    break;
            }
    }
    const char* verb = write ? "write" : "read";
    // Access sizes are powers of two (1 to 32 bytes): a mask, not a division, per lane.
    if (size > 1 && (std::has_single_bit(size) ? (addr & (size - 1)) != 0 : addr % size != 0))
        fault(c, w, lane, pc, std::string("misaligned ") + std::to_string(size) + "-byte " + verb + " at address " + hex(addr));
    switch (where) {
        case Where::Shared:
            if (addr > c.shared_size || c.shared_size - addr < size)
                fault(c, w, lane, pc,
                      std::string("shared memory ") + verb + " out of bounds: " + std::to_string(size) + " bytes at offset " +
                          std::to_string(addr) + ", the block has " + std::to_string(c.shared_size) + " bytes of shared memory");
            if (write) {
                c.shared_written_lo = std::min(c.shared_written_lo, addr);
                c.shared_written_hi = std::max(c.shared_written_hi, addr + size);
            }
            return {c.shared + addr, where};
        case Where::Local: {
            if (addr > c.local_per_thread || c.local_per_thread - addr < size)
                fault(c, w, lane, pc,
                      std::string("local memory ") + verb + " out of bounds: " + std::to_string(size) + " bytes at offset " +
                          std::to_string(addr) + ", each thread has " + std::to_string(c.local_per_thread) +
                          " bytes of local memory");
            const uint64_t thread = static_cast<uint64_t>(w.index) * kWarpSize + lane;
            return {c.local + thread * c.local_per_thread + addr, where};
        }
        case Where::Param:
            if (write) fault(c, w, lane, pc, "kernel parameters are read-only");
            if (addr > c.params.size() || c.params.size() - addr < size)
                fault(c, w, lane, pc,
                      "kernel parameter read out of bounds: " + std::to_string(size) + " bytes at offset " +
                          std::to_string(addr) + ", the kernel has " + std::to_string(c.params.size()) + " bytes of parameters");
            return {const_cast<std::byte*>(c.params.data()) + addr, where};
        case Where::Global:
            if (addr < 4096)
                fault(c, w, lane, pc, std::string("global ") + verb + " through a null pointer (address " + hex(addr) + ")");
            if (addr >= kSharedWindow)
                fault(c, w, lane, pc, std::string("global ") + verb + " at " + hex(addr) + ", which is not a host address");
            if (c.options && c.options->global_memory && !covered.holds(addr, size) &&
                !c.options->global_memory->contains(addr, size))
                fault(c, w, lane, pc,
                      std::string("global ") + verb + " of " + std::to_string(size) + " bytes at " + hex(addr) +
                          " is outside every buffer of the launch: " + c.options->global_memory->describe(addr));
            return {reinterpret_cast<std::byte*>(addr), where};
    }
    GPUSIM_ASSERT(false);
}

uint64_t load(const std::byte* p, uint32_t size, bool is_signed) {
    switch (size) {
        case 1: {
            uint8_t v;
            std::memcpy(&v, p, 1);
            return is_signed ? static_cast<uint64_t>(static_cast<int8_t>(v)) : v;
        }
        case 2: {
            uint16_t v;
            std::memcpy(&v, p, 2);
            return is_signed ? static_cast<uint64_t>(static_cast<int16_t>(v)) : v;
        }
        case 4: {
            uint32_t v;
            std::memcpy(&v, p, 4);
            return is_signed ? static_cast<uint64_t>(static_cast<int32_t>(v)) : v;
        }
        default: {
            uint64_t v;
            std::memcpy(&v, p, 8);
            return v;
        }
    }
}
void store(std::byte* p, uint32_t size, uint64_t v) {
    switch (size) {
        case 1: {
            const uint8_t x = static_cast<uint8_t>(v);
            std::memcpy(p, &x, 1);
            return;
        }
        case 2: {
            const uint16_t x = static_cast<uint16_t>(v);
            std::memcpy(p, &x, 2);
            return;
        }
        case 4: {
            const uint32_t x = static_cast<uint32_t>(v);
            std::memcpy(p, &x, 4);
            return;
        }
        default: std::memcpy(p, &v, 8); return;
    }
}

// Timing mode: remember where lane `l` went (exec_memory clears the log per instruction).
void log_access(BlockContext& c, const Warp& w, int l, const Target& t, uint32_t bytes, bool write, bool atomic) {
    MemAccessLog& m = *c.mem_log;
    m.lanes |= 1u << l;
    m.bytes = static_cast<uint8_t>(bytes);
    m.write = write;
    m.atomic = atomic;
    switch (t.where) {
        case Where::Global:
            m.where = MemWhere::Global;
            m.addr[l] = reinterpret_cast<uintptr_t>(t.p);
            break;
        case Where::Shared:
            m.where = MemWhere::Shared;
            m.addr[l] = static_cast<uint64_t>(t.p - c.shared);
            break;
        case Where::Local: {
            m.where = MemWhere::Local;
            const uint64_t thread = static_cast<uint64_t>(w.index) * kWarpSize + l;
            m.addr[l] = static_cast<uint64_t>(t.p - (c.local + thread * c.local_per_thread));
            break;
        }
        case Where::Param:
            m.where = MemWhere::Param;
            m.addr[l] = static_cast<uint64_t>(t.p - reinterpret_cast<const std::byte*>(c.params.data()));
            break;
    }
}

void count(Counters* k, Where where, bool write) {
    if (!k) return;
    switch (where) {
        case Where::Global: (write ? k->global_stores : k->global_loads) += 1; break;
        case Where::Shared: (write ? k->shared_stores : k->shared_loads) += 1; break;
        case Where::Local: (write ? k->local_stores : k->local_loads) += 1; break;
        case Where::Param: break;
    }
}

// The new value of an atomic read-modify-write.
uint64_t atom_apply(const Instr& in, uint64_t old, uint64_t b, uint64_t cv) {
    const Type t = in.type;
    const int bits = type_bits(t);
    old = low_bits(old, bits);
    switch (static_cast<AtomOp>(in.sub)) {
        case AtomOp::Add:
            if (t == Type::F32) return bits_of(f32_of(old) + f32_of(b));
            if (t == Type::F64) return bits_of(f64_of(old) + f64_of(b));
            return low_bits(old + b, bits);
        case AtomOp::Min:
        case AtomOp::Max: {
            const bool is_min = static_cast<AtomOp>(in.sub) == AtomOp::Min;
            bool less;
            if (t == Type::F32)
                less = f32_of(b) < f32_of(old);
            else if (t == Type::F64)
                less = f64_of(b) < f64_of(old);
            else if (type_is_signed(t))
                less = sign_extend(b, bits) < sign_extend(old, bits);
            else
                less = low_bits(b, bits) < old;
            const bool greater = (t == Type::F32)    ? f32_of(b) > f32_of(old)
                                 : (t == Type::F64)  ? f64_of(b) > f64_of(old)
                                 : type_is_signed(t) ? sign_extend(b, bits) > sign_extend(old, bits)
                                                     : low_bits(b, bits) > old;
            return low_bits(is_min ? (less ? b : old) : (greater ? b : old), bits);
        }
        case AtomOp::Exch: return low_bits(b, bits);
        case AtomOp::Cas: return old == low_bits(b, bits) ? low_bits(cv, bits) : old;
        case AtomOp::And: return old & low_bits(b, bits);
        case AtomOp::Or: return old | low_bits(b, bits);
        case AtomOp::Xor: return old ^ low_bits(b, bits);
        case AtomOp::Inc: return old >= low_bits(b, bits) ? 0 : old + 1;
        case AtomOp::Dec: return (old == 0 || old > low_bits(b, bits)) ? low_bits(b, bits) : old - 1;
    }
    return old;
}

template <typename U>
uint64_t atomic_rmw(std::byte* p, const Instr& in, uint64_t b, uint64_t cv) {
    std::atomic_ref<U> ref(*reinterpret_cast<U*>(p));
    U old = ref.load(std::memory_order_relaxed);
    for (;;) {
        const U next = static_cast<U>(atom_apply(in, old, b, cv));
        if (ref.compare_exchange_weak(old, next, std::memory_order_relaxed)) return old;
    }
}

}  // namespace

void exec_memory(BlockContext& c, Warp& w, const Instr& in, uint32_t mask, int32_t pc) {
    Counters* k = c.per_instr ? &c.per_instr[pc - c.per_instr_base] : nullptr;
    if (c.mem_log) c.mem_log->lanes = 0;
    switch (in.op) {
        case Op::Ld:
        case Op::Ldu:
        case Op::St: {
            const bool write = in.op == Op::St;
            const Operand& addr = in.ops[write ? 0 : 1];
            const Operand& val = in.ops[write ? 1 : 0];
            const uint32_t size = static_cast<uint32_t>(type_bytes(in.type));
            const bool is_signed = type_is_signed(in.type);
            bool any_shared = false;
            const CoveredSpan covered = covered_span(c, w, addr, mask, size * in.vec);
            for_lanes(mask, [&](int l) {
                const Target t = resolve(c, w, in, addr, l, size * in.vec, write, pc, covered);
                if (in.vec > 1 && (reinterpret_cast<uintptr_t>(t.p) % (size * in.vec)) != 0 && t.where == Where::Global)
                    fault(c, w, l, pc, "misaligned vector access at " + hex(reinterpret_cast<uintptr_t>(t.p)));
                if (write) {
                    if (val.kind == OperandKind::Vec) {
                        for (int e = 0; e < in.vec; ++e)
                            store(t.p + e * size, size, val.vregs[e] >= 0 ? reg_at(w, val.vregs[e], l) : 0);
                    } else {
                        store(t.p, size, rd(c, w, val, l));
                    }
                } else {
                    if (val.kind == OperandKind::Vec) {
                        for (int e = 0; e < in.vec; ++e)
                            if (val.vregs[e] >= 0) reg_at(w, val.vregs[e], l) = load(t.p + e * size, size, is_signed);
                    } else {
                        wr(w, val, l, load(t.p, size, is_signed));
                    }
                }
                any_shared |= t.where == Where::Shared;
                if (c.mem_log) log_access(c, w, l, t, size * in.vec, write, false);
                count(k, t.where, write);
            });
            if (k && any_shared) ++k->shared_requests;
            return;
        }
        case Op::Atom:
        case Op::Red: {
            const bool has_dest = in.op == Op::Atom;
            const Operand& addr = in.ops[has_dest ? 1 : 0];
            const uint32_t size = static_cast<uint32_t>(type_bytes(in.type));
            bool any_shared = false;
            const CoveredSpan covered = covered_span(c, w, addr, mask, size);
            for_lanes(mask, [&](int l) {
                const Target t = resolve(c, w, in, addr, l, size, true, pc, covered);
                const uint64_t b = rd(c, w, in.ops[has_dest ? 2 : 1], l);
                const uint64_t cv = (has_dest && in.nops == 4) ? rd(c, w, in.ops[3], l) : 0;
                uint64_t old;
                if (t.where == Where::Global) {
                    old = size == 8   ? atomic_rmw<uint64_t>(t.p, in, b, cv)
                          : size == 4 ? atomic_rmw<uint32_t>(t.p, in, b, cv)
                                      : atomic_rmw<uint16_t>(t.p, in, b, cv);
                } else {
                    old = load(t.p, size, false);
                    store(t.p, size, atom_apply(in, old, b, cv));
                }
                if (has_dest)
                    wr(w, in.ops[0], l, type_is_signed(in.type) ? static_cast<uint64_t>(sign_extend(old, size * 8)) : old);
                any_shared |= t.where == Where::Shared;
                if (c.mem_log) log_access(c, w, l, t, size, true, true);
                if (k) ++k->atomics;
            });
            if (k && any_shared) ++k->shared_requests;
            return;
        }
        case Op::Cvta: {
            const uint64_t window = in.space == Space::Shared ? kSharedWindow : in.space == Space::Local ? kLocalWindow : 0;
            const int bits = type_bits(in.type);
            const bool to = (in.flags & Flag_To) != 0;
            for_lanes(mask, [&](int l) {
                const uint64_t a = rd(c, w, in.ops[1], l);
                wr(w, in.ops[0], l, low_bits(to ? a - window : a + window, bits));
            });
            return;
        }
        case Op::Isspacep:
            for_lanes(mask, [&](int l) {
                const uint64_t a = rd(c, w, in.ops[1], l);
                bool r;
                switch (in.space) {
                    case Space::Shared: r = in_shared_window(a); break;
                    case Space::Local: r = in_local_window(a); break;
                    case Space::Global: r = !in_shared_window(a) && !in_local_window(a); break;
                    default: r = false; break;
                }
                wr(w, in.ops[0], l, r);
            });
            return;
        case Op::Prefetch: return;
        default: GPUSIM_ASSERT(false);
    }
}

}  // namespace weft::gpusim
