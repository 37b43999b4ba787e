// Shared vocabulary of the builtin_defs*.cpp files: short names for the types that signatures
// use, and one registration function per group of builtins.
#pragma once

#include <string>

#include "compiler/builtins/builtin_table.h"

namespace weft::compiler {

constexpr unsigned kDiff = BuiltinFlags_Differentiable;
constexpr unsigned kSide = BuiltinFlags_SideEffect;
constexpr ScalarKind kFloatKinds[] = {ScalarKind::Float32, ScalarKind::Float64};

inline Type sc(ScalarKind s) { return scalar_type(s); }
inline Type vec(int n, ScalarKind s) { return vector_type(n, s); }
inline Type mat(int n, ScalarKind s) { return matrix_type(n, n, s); }
inline Type quat(ScalarKind s) { return quat_type(s); }
inline Type xform(ScalarKind s) { return transform_type(s); }
inline BuiltinParam p(const char* name, Type type) { return BuiltinParam{name, type, false}; }
inline BuiltinParam inout(const char* name, Type type) { return BuiltinParam{name, type, true}; }

void register_math_builtins(BuiltinTable& t);
void register_operator_builtins(BuiltinTable& t);
void register_vector_builtins(BuiltinTable& t);
void register_matrix_builtins(BuiltinTable& t);
void register_quat_builtins(BuiltinTable& t);
void register_transform_builtins(BuiltinTable& t);
void register_spatial_builtins(BuiltinTable& t);
void register_random_builtins(BuiltinTable& t);
void register_warp_builtins(BuiltinTable& t);

}  // namespace weft::compiler
