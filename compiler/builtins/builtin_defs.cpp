// The builtin table's entries: every builtin of the kernel language, one overload per concrete
// signature (float32 and float64, vec2/3/4, mat22/33/44 are expanded by loops, so that semantic
// analysis matches argument types exactly and the code generator emits a call that the C++
// overloads in compiler/native/ resolve without conversions).
//
// Each entry's C++ function is wp::<cpp_name> in compiler/native/, taking exactly the listed
// parameter types (after cpp_type_name); entries flagged Differentiable also have
// wp::adj_<cpp_name>(inputs…, adj_inputs&…, adj_ret). tests/compiler/native checks both: it
// generates a call of every entry from this table and compiles it with the host compiler and
// nvcc, and checks every adjoint against finite differences.
//
// The groups are in builtin_defs_<group>.cpp; this file holds the shared helpers' definitions
// and the special (sema-resolved, documentation-only) entries.
#include "compiler/builtins/builtin_defs_common.h"

namespace weft::compiler {

namespace {

void register_specials(BuiltinTable& t) {
    // Thread and block indices.
    t.add_special("tid", "tid() -> int32 | tuple(int32, ...)", "thread",
                  "The index of this thread in the launch: one int for a 1-D launch, a tuple for 2-4-D.");
    t.add_special("block_dim", "block_dim() -> int32", "thread", "The number of threads per block.");
    t.add_special("block_idx", "block_idx() -> int32", "thread", "The index of this thread's block in the grid.");
    t.add_special("thread_idx", "thread_idx() -> int32", "thread", "The index of this thread within its block.");
    t.add_special("lane_id", "lane_id() -> int32", "thread", "The index of this thread within its warp of 32.");
    t.add_special("warp_size", "warp_size() -> int32", "warp", "The number of lanes of a warp: 32 on every device.");
    t.add_special("shared_array", "shared_array(shape, dtype) -> array(dtype)", "thread",
                  "A block-wide array in shared memory; shape is a compile-time int or tuple of ints.");
    t.add_special("sync_threads", "sync_threads() -> None", "thread",
                  "Waits until every thread of the block reaches this barrier.");
    // Output and introspection.
    t.add_special("print", "print(value) -> None", "utility", "Prints a value (CPU device only).");
    t.add_special("printf", "printf(fmt: str, *args) -> None", "utility", "Prints with a C format string.");
    t.add_special("expect_eq", "expect_eq(a, b) -> None", "utility", "Prints an error with both values when a != b.");
    t.add_special("expect_neq", "expect_neq(a, b) -> None", "utility", "Prints an error with both values when a == b.");
    t.add_special("expect_near", "expect_near(a, b, tolerance=1e-6) -> None", "utility",
                  "Prints an error when a float scalar or vector differs from b by more than tolerance (per component).");
    t.add_special("len", "len(a: array | vector | matrix) -> int32", "utility",
                  "The length of an array's first dimension, or a vector's or matrix's row count.");
    // Array atomics: compiled to wp::atomic_*(wp::address(arr, i…), value).
    const char* atomics[][2] = {
        {"atomic_add", "Adds value to arr[i…] atomically and returns the old value."},
        {"atomic_sub", "Subtracts value from arr[i…] atomically and returns the old value."},
        {"atomic_min", "Stores min(arr[i…], value) atomically and returns the old value."},
        {"atomic_max", "Stores max(arr[i…], value) atomically and returns the old value."},
        {"atomic_exch", "Stores value in arr[i…] atomically and returns the old value."},
    };
    for (auto& a : atomics)
        t.add_special(a[0], std::string(a[0]) + "(arr: array(T), i: int, ..., value: T) -> T", "atomic", a[1]);
    t.add_special("atomic_cas", "atomic_cas(arr: array(T), i: int, ..., compare: T, value: T) -> T", "atomic",
                  "Stores value in arr[i…] if it equals compare, atomically; returns the old value.");
    // Constructors.
    t.add_special("vector", "vecN[s](), vecN[s](x), vecN[s](x, y, ...), vecN[s](v: other vecN)", "constructor",
                  "A vector: zero, every component x, from components, or converted from another scalar type.");
    t.add_special("matrix", "matNN[s](), matNN[s](x), matNN[s](m00, m01, ...), matNN[s](v0, v1, ...)", "constructor",
                  "A matrix: zero, every element x, from elements row by row, or from column vectors (as Warp).");
    t.add_special("quaternion",
                  "quaternion(x, y, z, w, dtype=None), quaternion(ijk: vec3, real, dtype=None), quaternion(q, dtype=None)",
                  "constructor",
                  "Warp's generic quaternion constructor: the scalar type from dtype= or the arguments (float32 for literals).");
    t.add_special("transformation", "transformation(p: vec3, q: quat, dtype=None), transformation(x0, ..., x6, dtype=None)",
                  "constructor",
                  "Warp's generic transform constructor: the scalar type from dtype= or the arguments (float32 for literals).");
    t.add_special("matrix_from_rows", "matrix_from_rows(r0: vecN, ...) -> matMN", "constructor",
                  "A matrix whose rows are the given vectors.");
    t.add_special("matrix_from_cols", "matrix_from_cols(c0: vecN, ...) -> matNM", "constructor",
                  "A matrix whose columns are the given vectors.");
    t.add_special("quat", "quat[s](), quat[s](x, y, z, w), quat[s](v: vec3, w)", "constructor",
                  "A quaternion (x, y, z imaginary, w real); quat() is zero.");
    t.add_special("transform", "transform[s](), transform[s](p: vec3, q: quat)", "constructor",
                  "A rigid transform from a translation and a rotation.");
    t.add_special("spatial_vector", "spatial_vector[s](), spatial_vector[s](w: vec3, v: vec3), spatial_vector(a, ...)",
                  "constructor", "A 6-D spatial vector: angular part w on top, linear part v below.");
    t.add_special("identity", "identity(n: int, dtype) -> matNN", "constructor",
                  "The n x n identity matrix of the given scalar type.");
    t.add_special("quat_identity", "quat_identity(dtype=float32) -> quat", "constructor", "The identity rotation (0, 0, 0, 1).");
    t.add_special("transform_identity", "transform_identity(dtype=float32) -> transform", "constructor",
                  "The identity transform: zero translation, identity rotation.");
    // Casts.
    t.add_special("float", "float(x) -> float32", "cast", "Converts a scalar to float32.");
    t.add_special("int", "int(x) -> int32", "cast", "Converts a scalar to int32 (truncating toward zero).");
    t.add_special("bool", "bool(x) -> bool", "cast", "Converts a scalar to bool (non-zero is true).");
    for (const char* s :
         {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64"})
        t.add_special(s, std::string(s) + "(x) -> " + s, "cast", std::string("Converts a scalar to ") + s + ".");
}

}  // namespace

void register_builtins(BuiltinTable& t) {
    register_specials(t);
    register_math_builtins(t);
    register_operator_builtins(t);
    register_vector_builtins(t);
    register_matrix_builtins(t);
    register_quat_builtins(t);
    register_transform_builtins(t);
    register_spatial_builtins(t);
    register_random_builtins(t);
    register_warp_builtins(t);
}

}  // namespace weft::compiler
