// Classification of the builtin table for the adjoint sweep, and the kernels it compiles. See
// builtin_adjoint_cases.h.
#include "tests/tape/builtin_adjoint_cases.h"

#include <set>
#include <utility>

#include "compiler/passes/check_differentiable.h"

namespace weft::test {

namespace {

using compiler::Type;
using compiler::TypeKind;

// Mirrors the list in compiler/passes/check_differentiable.cpp on purpose: the test states the
// expectation independently. If the two disagree, a ZeroAdjoint kernel fails to compile (the pass
// rejects it) or a NoAdjoint kernel compiles (the pass accepts it), and a test says which.
bool piecewise_constant(const std::string& name) {
    static const std::set<std::string> names = {"floor", "ceil", "round", "rint", "trunc", "sign", "step", "nonzero", "floordiv"};
    return names.count(name) > 0;
}

bool float_value(Type t) {
    return t &&
           (compiler::is_scalar(t) || compiler::is_vector(t) || compiler::is_matrix(t) || t->kind == TypeKind::Quat ||
            t->kind == TypeKind::Transform) &&
           (t->scalar == compiler::ScalarKind::Float32 || t->scalar == compiler::ScalarKind::Float64);
}

// The operator that computes the same function as the builtin, or nullptr.
const char* operator_of(const compiler::BuiltinOverload& o) {
    static const std::pair<const char*, const char*> ops[] = {
        {"add", "+"}, {"sub", "-"}, {"mul", "*"},       {"div", "/"},
        {"neg", "-"}, {"mod", "%"}, {"floordiv", "//"}, {"pow", "**"},  // not pow_int: `x ** n` needs n of x's type
    };
    for (const auto& [name, op] : ops)
        if (o.name == name) return op;
    return nullptr;
}

bool matmul_form(const compiler::BuiltinOverload& o) {
    return o.name == "mul" && o.params.size() == 2 &&
           (compiler::is_matrix(o.params[0].type) || compiler::is_matrix(o.params[1].type)) &&
           !compiler::is_scalar(o.params[0].type) && !compiler::is_scalar(o.params[1].type);
}

// Aliasing every argument: same-typed parameters, and not where f(v, v, ...) sits on a kink or a
// branch switch (min(v, v), v mod v, a slerp from q to itself, smoothstep with equal edges).
bool aliased_form(const compiler::BuiltinOverload& o) {
    static const std::set<std::string> excluded = {"min", "max", "clamp", "mod", "pymod", "floordiv", "smoothstep", "quat_slerp"};
    if (o.params.size() < 2 || excluded.count(o.name)) return false;
    for (const auto& p : o.params)
        if (p.type != o.params[0].type) return false;
    return true;
}

}  // namespace

Classified classify(const compiler::BuiltinOverload& o) {
    using compiler::passes::is_differentiable;
    if (o.flags & compiler::BuiltinFlags_Special)
        return {AdjointClass::Skipped, "special form resolved by semantic analysis (constructor, cast, atomic, thread index)"};
    if (o.flags & compiler::BuiltinFlags_Warp)
        return {AdjointClass::Skipped,
                "warp collective: lanes exchange values (adjoints: tests/tape/adjoint_test.cpp, WarpShuffles...)"};
    bool float_arg = false;
    for (const auto& p : o.params) float_arg = float_arg || is_differentiable(p.type);
    if (!is_differentiable(o.ret)) {
        if (o.ret == compiler::bool_type()) return {AdjointClass::Skipped, "boolean result (a test of its argument)"};
        if (o.ret == compiler::void_type()) return {AdjointClass::Skipped, "no result"};
        return {AdjointClass::Skipped, "integer result"};
    }
    if (!float_arg) return {AdjointClass::Skipped, "no float argument (a random draw from the state alone)"};
    if (o.flags & compiler::BuiltinFlags_Differentiable) return {AdjointClass::Adjoint, ""};
    if (piecewise_constant(o.name)) return {AdjointClass::ZeroAdjoint, ""};
    return {AdjointClass::NoAdjoint, ""};
}

std::vector<Variant> sweep_variants() {
    std::vector<Variant> out;
    const auto& all = compiler::builtin_table().overloads();
    for (size_t i = 0; i < all.size(); ++i) {
        AdjointClass c = classify(all[i]).cls;
        if (c != AdjointClass::Adjoint && c != AdjointClass::ZeroAdjoint) continue;
        out.push_back({i, Form::Call});
        if (operator_of(all[i])) out.push_back({i, Form::Operator});
        if (matmul_form(all[i])) out.push_back({i, Form::MatMul});
        if (aliased_form(all[i])) out.push_back({i, Form::Aliased});
    }
    return out;
}

std::vector<size_t> array_params(const Variant& v) {
    if (v.form == Form::Aliased) return {0};
    std::vector<size_t> out(compiler::builtin_table().overloads()[v.overload].params.size());
    for (size_t a = 0; a < out.size(); ++a) out[a] = a;
    return out;
}

bool sweepable(const compiler::BuiltinOverload& o) {
    if (!float_value(o.ret)) return false;
    for (const auto& p : o.params)
        if (p.inout || !(float_value(p.type) || p.type == compiler::int32_type())) return false;
    return true;
}

std::string spelling(Type t) { return "wp." + compiler::type_name(t); }

const char* form_name(Form f) {
    switch (f) {
        case Form::Call: return "call";
        case Form::Operator: return "operator";
        case Form::MatMul: return "matmul";
        case Form::Aliased: return "aliased";
    }
    return "?";
}

std::string kernel_name(const Variant& v) { return "k" + std::to_string(v.overload) + "_" + form_name(v.form); }

std::string sweep_kernel(const Variant& v) {
    const compiler::BuiltinOverload& o = compiler::builtin_table().overloads()[v.overload];
    std::string s = "@wp.kernel\ndef " + kernel_name(v) + "(";
    for (size_t a : array_params(v)) s += "in" + std::to_string(a) + ": wp.array(dtype=" + spelling(o.params[a].type) + "), ";
    s += "out: wp.array(dtype=" + spelling(o.ret) + ")):\n    i = wp.tid()\n";
    std::vector<std::string> args;
    for (size_t a = 0; a < o.params.size(); ++a) args.push_back(v.form == Form::Aliased ? "v" : "in" + std::to_string(a) + "[i]");
    std::string value;
    switch (v.form) {
        case Form::Aliased: s += "    v = in0[i]\n"; [[fallthrough]];
        case Form::Call:
            value = "wp." + o.name + "(";
            for (size_t a = 0; a < args.size(); ++a) value += (a ? ", " : "") + args[a];
            value += ")";
            break;
        case Form::Operator:
            value = args.size() == 1 ? std::string(operator_of(o)) + args[0] : args[0] + " " + operator_of(o) + " " + args[1];
            break;
        case Form::MatMul: value = args[0] + " @ " + args[1]; break;
    }
    return s + "    out[i] = " + value + "\n\n";
}

}  // namespace weft::test
