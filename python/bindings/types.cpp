// python/bindings/types.cpp: the kernel-language types (compiler/types.h) as opaque, interned
// handles. Python's dtype objects (wp.float32, wp.vec3, @wp.struct classes) each hold one, so a
// launch can hand the runtime exactly the type pointer the compiler will compare against.
// Types are never freed (the table is process-wide), hence the nodelete holder.
#include <pybind11/stl.h>

#include "compiler/types.h"
#include "python/bindings/bindings.h"

namespace py = pybind11;
using namespace weft::compiler;

namespace weft::python {
namespace {

const char* kind_name(TypeKind k) {
    switch (k) {
        case TypeKind::Void: return "void";
        case TypeKind::Scalar: return "scalar";
        case TypeKind::Vector: return "vector";
        case TypeKind::Matrix: return "matrix";
        case TypeKind::Quat: return "quat";
        case TypeKind::Transform: return "transform";
        case TypeKind::Array: return "array";
        case TypeKind::Struct: return "struct";
        case TypeKind::Tuple: return "tuple";
    }
    return "?";
}

ScalarKind scalar_from_name(const std::string& name) {
    auto t = type_from_name(name);
    if (!t || !is_scalar(*t)) throw py::value_error("not a scalar type name: '" + name + "'");
    return (*t)->scalar;
}

// Field offsets of a struct as the code generator lays it out (C rules: each field at the next
// multiple of its alignment).
py::list struct_fields(Type t) {
    py::list out;
    size_t offset = 0;
    for (const auto& f : t->fields) {
        size_t a = type_align(f.type);
        offset = (offset + a - 1) / a * a;
        out.append(py::make_tuple(f.name, f.type, offset));
        offset += type_size(f.type);
    }
    return out;
}

}  // namespace

void bind_types(py::module_& m) {
    py::class_<TypeNode, std::unique_ptr<TypeNode, py::nodelete>>(
        m, "Type", "A kernel-language type: interned, immutable; equal types are the same object")
        .def_property_readonly("kind", [](Type t) { return kind_name(t->kind); })
        .def_property_readonly(
            "scalar", [](Type t) { return std::string(scalar_name(t->scalar)); },
            "element scalar (vectors, matrices, quaternions, transforms, arrays)")
        .def_property_readonly(
            "rows", [](Type t) { return t->rows; }, "vector length or matrix rows")
        .def_property_readonly(
            "cols", [](Type t) { return t->cols; }, "matrix columns")
        .def_property_readonly(
            "ndim", [](Type t) { return t->ndim; }, "array dimensions (1..4)")
        .def_property_readonly(
            "elem", [](Type t) { return t->elem; }, py::return_value_policy::reference, "array dtype")
        .def_property_readonly("struct_name", [](Type t) { return t->name; })
        .def_property_readonly("fields", &struct_fields, "struct fields: [(name, type, byte offset)]")
        .def_property_readonly(
            "size", [](Type t) { return type_size(t); }, "size in bytes as laid out by compiler/native")
        .def_property_readonly("align", [](Type t) { return type_align(t); })
        .def_property_readonly(
            "components", [](Type t) { return component_count(t); },
            "number of scalar components (vec3 -> 3, mat33 -> 9, transform -> 7)")
        .def_property_readonly("cpp_name", [](Type t) { return cpp_type_name(t); })
        .def("__str__", [](Type t) { return type_name(t); })
        .def("__repr__", [](Type t) { return "<weft type " + type_name(t) + ">"; })
        .def("__eq__", [](Type a, py::object b) { return !b.is_none() && py::isinstance<TypeNode>(b) && a == b.cast<Type>(); })
        .def("__hash__", [](Type t) { return reinterpret_cast<std::uintptr_t>(t); });

    auto ref = py::return_value_policy::reference;
    m.def(
        "type_from_name",
        [](const std::string& n) -> Type {
            auto t = type_from_name(n);
            return t ? *t : nullptr;
        },
        ref, "Parses a canonical or Warp alias name ('vec3', 'float', 'int', 'mat33d'); None when unknown");
    m.def(
        "scalar_type", [](const std::string& s) { return scalar_type(scalar_from_name(s)); }, ref);
    m.def(
        "vector_type", [](int n, const std::string& s) { return vector_type(n, scalar_from_name(s)); }, ref);
    m.def(
        "matrix_type", [](int r, int c, const std::string& s) { return matrix_type(r, c, scalar_from_name(s)); }, ref);
    m.def(
        "quat_type", [](const std::string& s) { return quat_type(scalar_from_name(s)); }, ref);
    m.def(
        "transform_type", [](const std::string& s) { return transform_type(scalar_from_name(s)); }, ref);
    m.def(
        "array_type", [](Type dtype, int ndim) { return array_type(dtype, ndim); }, ref, "wp.array(dtype=T, ndim=1..4)");
    m.def(
        "struct_type",
        [](const std::string& module_key, const std::string& name, const std::vector<std::pair<std::string, Type>>& fields) {
            std::vector<StructField> f;
            for (const auto& [n, t] : fields) f.push_back({n, t});
            return struct_type(module_key, name, f);
        },
        ref,
        "Structs are identified by name within a compilation: declaring the same name twice returns the first "
        "declaration when the fields agree; `module_key` separates structs of different modules.");
    m.def("value_type_names", &value_type_names, "Every named value type the language knows");
}

}  // namespace weft::python
