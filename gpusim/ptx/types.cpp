// gpusim/ptx/types.cpp — the table behind gpusim/ptx/types.h.
#include "gpusim/ptx/types.h"

namespace weft::gpusim {
namespace {
struct TypeInfo {
    Type type;
    std::string_view name;
    int bits;
};
constexpr TypeInfo kTypes[] = {
    {Type::None, "", 0},      {Type::B8, "b8", 8},          {Type::B16, "b16", 16}, {Type::B32, "b32", 32},
    {Type::B64, "b64", 64},   {Type::B128, "b128", 128},    {Type::U8, "u8", 8},    {Type::U16, "u16", 16},
    {Type::U32, "u32", 32},   {Type::U64, "u64", 64},       {Type::S8, "s8", 8},    {Type::S16, "s16", 16},
    {Type::S32, "s32", 32},   {Type::S64, "s64", 64},       {Type::F16, "f16", 16}, {Type::F16x2, "f16x2", 32},
    {Type::BF16, "bf16", 16}, {Type::BF16x2, "bf16x2", 32}, {Type::F32, "f32", 32}, {Type::F64, "f64", 64},
    {Type::Pred, "pred", 1},
};
}  // namespace

int type_bits(Type t) { return kTypes[static_cast<int>(t)].bits; }
std::string_view type_name(Type t) { return kTypes[static_cast<int>(t)].name; }
bool type_is_signed(Type t) { return t >= Type::S8 && t <= Type::S64; }
bool type_is_float(Type t) { return t >= Type::F16 && t <= Type::F64; }
bool type_is_int(Type t) { return t >= Type::B8 && t <= Type::S64; }

Type parse_type_name(std::string_view s) {
    for (const TypeInfo& info : kTypes)
        if (info.type != Type::None && info.name == s) return info.type;
    return Type::None;
}

}  // namespace weft::gpusim
