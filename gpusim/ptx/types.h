// gpusim/ptx/types.h — PTX fundamental types (.b32, .s64, .f32, .pred, ...) and their properties.
//
// Registers hold raw bits in 64-bit slots; an instruction's type says how many low bits it
// reads and whether it sign-extends them, so these helpers are all the executor needs.
#pragma once

#include <cstdint>
#include <string_view>

namespace weft::gpusim {

enum class Type : uint8_t {
    None,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    BF16,
    BF16x2,
    F32,
    F64,
    Pred,
};

// Width in bits (.pred counts as 1; None as 0).
int type_bits(Type t);
inline int type_bytes(Type t) { return t == Type::Pred ? 1 : type_bits(t) / 8; }
bool type_is_signed(Type t);         // .s8 .. .s64
bool type_is_float(Type t);          // .f16 .. .f64 (including packed and bf16)
bool type_is_int(Type t);            // .b/.u/.s
std::string_view type_name(Type t);  // "f32", without the dot
// Parses "f32" (no dot); returns Type::None for anything else.
Type parse_type_name(std::string_view s);

// Masks the low `bits` of v (bits in 1..64).
inline uint64_t low_bits(uint64_t v, int bits) { return bits >= 64 ? v : (v & ((uint64_t{1} << bits) - 1)); }
// Sign-extends the low `bits` of v to 64 bits.
inline int64_t sign_extend(uint64_t v, int bits) {
    if (bits >= 64) return static_cast<int64_t>(v);
    const uint64_t m = uint64_t{1} << (bits - 1);
    v = low_bits(v, bits);
    return static_cast<int64_t>((v ^ m) - m);
}

}  // namespace weft::gpusim
