// The builtin table: the one source of truth for every builtin function of the kernel language.
//
// Semantic analysis resolves calls against it, the code generator emits `wp::<cpp_name>(args…)`
// (overloads in compiler/native/ pick the implementation, since every argument's type is exact
// after resolution), the adjoint pass emits `wp::adj_<cpp_name>(inputs…, adj_inputs…, adj_ret)`
// for overloads flagged Differentiable, and docs/kernel-language.md's builtin list is generated
// from it (`weft builtins --markdown`; a test checks that the doc and the table agree).
//
// Builtins that are not ordinary typed functions (wp.tid(), print, shared_array, atomics on
// arrays, constructors and casts) are handled by semantic analysis directly; they are listed in
// the table as `Special` entries whose signature text serves the documentation only.
#pragma once

#include <string>
#include <vector>

#include "compiler/types.h"

namespace weft::compiler {

enum BuiltinFlags : unsigned {
    BuiltinFlags_None = 0,
    BuiltinFlags_Differentiable = 1 << 0,  // has wp::adj_<cpp_name> in compiler/native
    BuiltinFlags_SideEffect = 1 << 1,      // must not be removed or reordered (atomics, random state)
    BuiltinFlags_Special = 1 << 2,         // resolved by sema itself; signature is documentation only
    BuiltinFlags_HostOnly = 1 << 3,        // CPU device only (print)
    BuiltinFlags_Warp = 1 << 4,            // a warp collective: wp::<cpp_name>(ctx, args…); its lanes run in lock-step
};

struct BuiltinParam {
    std::string name;
    Type type = nullptr;
    bool inout = false;  // passed by reference and updated (random state: randf(state))
};

struct BuiltinOverload {
    std::string name;      // kernel-language name: "cross"
    std::string cpp_name;  // C++ function in namespace wp (usually == name)
    Type ret = nullptr;
    std::vector<BuiltinParam> params;
    std::string group;  // "math", "vector", "matrix", "quaternion", "transform", "random", "atomic", ...
    std::string doc;    // one sentence
    unsigned flags = BuiltinFlags_None;
    std::string signature;  // Special entries: the documented form, e.g. "tid() -> int32 | tuple"
};

class BuiltinTable {
public:
    // Adds a typed overload. Returns it so that callers can adjust cpp_name.
    BuiltinOverload& add(const std::string& name, Type ret, std::vector<BuiltinParam> params, const std::string& group,
                         const std::string& doc, unsigned flags = BuiltinFlags_None);
    // Adds a documentation-only entry for a form that sema resolves itself.
    void add_special(const std::string& name, const std::string& signature, const std::string& group, const std::string& doc);

    const std::vector<BuiltinOverload>& overloads() const { return overloads_; }
    // All overloads with this kernel-language name (empty if none).
    std::vector<const BuiltinOverload*> find(const std::string& name) const;
    bool has_name(const std::string& name) const;
    std::vector<std::string> names() const;  // sorted, unique

private:
    std::vector<BuiltinOverload> overloads_;
};

// The table, built once on first use from register_builtins().
const BuiltinTable& builtin_table();

// Fills the table. Defined in builtin_defs.cpp (and the files it calls), one function per group.
void register_builtins(BuiltinTable& table);

// A signature as printed in diagnostics and docs: "cross(a: vec3f, b: vec3f) -> vec3f".
std::string signature_text(const BuiltinOverload& o);

}  // namespace weft::compiler
