// The kernel language's types.
//
// Every type is an interned, immutable `TypeNode`; a `Type` is a pointer to one, so two types are
// equal exactly when their pointers are equal. Interning goes through one process-wide table
// guarded by a mutex (types are created during semantic analysis, never on a hot path).
//
// [SECTION] Scalars        bool, int8 … uint64, float16 (storage), float32, float64
// [SECTION] Aggregates     vectors (vec2f … spatial_vector), matrices, quaternions, transforms
// [SECTION] Arrays         wp.array(dtype=T, ndim=1..4); shared arrays use the same type
// [SECTION] Structs        @wp.struct classes: named, ordered, typed fields
// [SECTION] Tuples         multiple return values, wp.tid() of 2-4-D launches
//
// Names follow NVIDIA Warp: `vec3` is `vec3f`, `vec3d` is float64, `vec3i` is int32 and so on.
// `type_name()` gives the canonical spelling used in diagnostics, IR dumps and the builtin table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace weft::compiler {

enum class ScalarKind : uint8_t {
    Bool,
    Int8,
    UInt8,
    Int16,
    UInt16,
    Int32,
    UInt32,
    Int64,
    UInt64,
    Float16,
    Float32,
    Float64,
};

enum class TypeKind : uint8_t {
    Void,
    Scalar,
    Vector,     // vec_t<N, T>; spatial_vector is a vector of 6
    Matrix,     // mat_t<R, C, T>, row-major; spatial_matrix is 6 x 6
    Quat,       // quat_t<T>: x, y, z, w (w real), as Warp
    Transform,  // transform_t<T>: p (vec3), q (quat), as Warp
    Array,      // array_t<T> with ndim 1..4 (global or shared memory)
    Struct,     // @wp.struct
    Tuple,      // multiple values (function results, tid() of a 2-4-D launch)
};

struct TypeNode;
using Type = const TypeNode*;

struct StructField {
    std::string name;
    Type type = nullptr;
};

struct TypeNode {
    TypeKind kind = TypeKind::Void;
    ScalarKind scalar = ScalarKind::Float32;  // Scalar: itself; Vector/Matrix/Quat/Transform/Array: element scalar
    int rows = 0;                             // Vector: length; Matrix: rows
    int cols = 0;                             // Matrix: columns
    int ndim = 0;                             // Array: 1..4
    Type elem = nullptr;                      // Array: dtype
    std::string name;                         // Struct: its name
    std::vector<StructField> fields;          // Struct: fields in declaration order
    std::vector<Type> items;                  // Tuple: element types
};

// [SECTION] Construction (interned)
Type void_type();
Type scalar_type(ScalarKind s);
Type bool_type();
Type int32_type();
Type int64_type();
Type uint32_type();
Type float32_type();
Type float64_type();
Type vector_type(int n, ScalarKind s);
Type matrix_type(int rows, int cols, ScalarKind s);
Type quat_type(ScalarKind s);
Type transform_type(ScalarKind s);
Type array_type(Type dtype, int ndim);
Type tuple_type(const std::vector<Type>& items);
// Structs are identified by name within a compilation: declaring the same name twice returns the
// first declaration when the fields agree; `module_key` separates structs of different modules.
Type struct_type(const std::string& module_key, const std::string& name, const std::vector<StructField>& fields);

// [SECTION] Queries
bool is_scalar(Type t);
bool is_int(Type t);  // any integer scalar (not bool)
bool is_signed_int(Type t);
bool is_float(Type t);    // float16/32/64 scalar
bool is_numeric(Type t);  // int or float scalar
bool is_vector(Type t);
bool is_matrix(Type t);
bool is_array(Type t);
bool is_struct(Type t);
bool is_tuple(Type t);
bool is_float_kind(ScalarKind s);
bool is_int_kind(ScalarKind s);
int scalar_bits(ScalarKind s);
// Number of scalar components of a value type (vec3 -> 3, mat33 -> 9, transform -> 7), 1 for scalars.
int component_count(Type t);
// The same shape with another scalar (vec3f, Float64 -> vec3d).
Type with_scalar(Type t, ScalarKind s);

// [SECTION] Names
std::string type_name(Type t);               // canonical: "float32", "vec3f", "array(float32, ndim=2)"
std::string_view scalar_name(ScalarKind s);  // "float32"
// The C++ spelling used by the code generator ("float", "wp::vec_t<3,float>", "wp::array_t<float>").
std::string cpp_type_name(Type t);
// Parses a canonical or Warp alias name ("vec3", "float", "int", "mat33d", "spatial_vector").
std::optional<Type> type_from_name(std::string_view name);
// Every named value type the language knows (for did-you-mean and the docs).
const std::vector<std::string>& value_type_names();

// Size and alignment in bytes of a value of this type as laid out by compiler/native (structs
// follow C rules; arrays are the 64-bit-pointer array_t descriptor).
size_t type_size(Type t);
size_t type_align(Type t);

}  // namespace weft::compiler
