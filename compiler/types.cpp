// Interning and naming of kernel-language types. See types.h.
#include "compiler/types.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

namespace weft::compiler {
namespace {

struct Key {
    TypeKind kind;
    ScalarKind scalar;
    int rows, cols, ndim;
    Type elem;
    std::string name;
    std::vector<Type> items;
    bool operator<(const Key& o) const {
        return std::tie(kind, scalar, rows, cols, ndim, elem, name, items) <
               std::tie(o.kind, o.scalar, o.rows, o.cols, o.ndim, o.elem, o.name, o.items);
    }
};

class TypeTable {
public:
    Type intern(const Key& k, std::vector<StructField> fields = {}) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = types_.find(k);
        if (it != types_.end()) return it->second.get();
        auto node = std::make_unique<TypeNode>();
        node->kind = k.kind;
        node->scalar = k.scalar;
        node->rows = k.rows;
        node->cols = k.cols;
        node->ndim = k.ndim;
        node->elem = k.elem;
        node->name = k.name;
        node->items = k.items;
        node->fields = std::move(fields);
        Type t = node.get();
        types_.emplace(k, std::move(node));
        return t;
    }

private:
    std::mutex mu_;
    std::map<Key, std::unique_ptr<TypeNode>> types_;
};

TypeTable& table() {
    static TypeTable* t = new TypeTable();  // never destroyed: types outlive static destructors
    return *t;
}

Key key(TypeKind k, ScalarKind s = ScalarKind::Float32) { return Key{k, s, 0, 0, 0, nullptr, {}, {}}; }

// Warp's type-name suffixes: vec3f, vec3d, vec3h, vec3i, vec3ui, vec3l, vec3ul, vec3b, vec3ub, vec3s, vec3us.
const char* scalar_suffix(ScalarKind s) {
    switch (s) {
        case ScalarKind::Float16: return "h";
        case ScalarKind::Float32: return "f";
        case ScalarKind::Float64: return "d";
        case ScalarKind::Int32: return "i";
        case ScalarKind::UInt32: return "ui";
        case ScalarKind::Int64: return "l";
        case ScalarKind::UInt64: return "ul";
        case ScalarKind::Int8: return "b";
        case ScalarKind::UInt8: return "ub";
        case ScalarKind::Int16: return "s";
        case ScalarKind::UInt16: return "us";
        case ScalarKind::Bool: return "bool";
    }
    return "?";
}

std::optional<ScalarKind> suffix_scalar(std::string_view c) {
    static const std::pair<const char*, ScalarKind> table[] = {
        {"h", ScalarKind::Float16}, {"f", ScalarKind::Float32}, {"d", ScalarKind::Float64}, {"i", ScalarKind::Int32},
        {"ui", ScalarKind::UInt32}, {"l", ScalarKind::Int64},   {"ul", ScalarKind::UInt64}, {"b", ScalarKind::Int8},
        {"ub", ScalarKind::UInt8},  {"s", ScalarKind::Int16},   {"us", ScalarKind::UInt16}};
    for (auto& [name, k] : table)
        if (c == name) return k;
    return std::nullopt;
}

const char* cpp_scalar(ScalarKind s) {
    switch (s) {
        case ScalarKind::Bool: return "bool";
        case ScalarKind::Int8: return "wp::int8";
        case ScalarKind::UInt8: return "wp::uint8";
        case ScalarKind::Int16: return "wp::int16";
        case ScalarKind::UInt16: return "wp::uint16";
        case ScalarKind::Int32: return "wp::int32";
        case ScalarKind::UInt32: return "wp::uint32";
        case ScalarKind::Int64: return "wp::int64";
        case ScalarKind::UInt64: return "wp::uint64";
        case ScalarKind::Float16: return "wp::float16";
        case ScalarKind::Float32: return "wp::float32";
        case ScalarKind::Float64: return "wp::float64";
    }
    return "void";
}

}  // namespace

Type void_type() { return table().intern(key(TypeKind::Void)); }
Type scalar_type(ScalarKind s) { return table().intern(key(TypeKind::Scalar, s)); }
Type bool_type() { return scalar_type(ScalarKind::Bool); }
Type int32_type() { return scalar_type(ScalarKind::Int32); }
Type int64_type() { return scalar_type(ScalarKind::Int64); }
Type uint32_type() { return scalar_type(ScalarKind::UInt32); }
Type float32_type() { return scalar_type(ScalarKind::Float32); }
Type float64_type() { return scalar_type(ScalarKind::Float64); }

Type vector_type(int n, ScalarKind s) {
    Key k = key(TypeKind::Vector, s);
    k.rows = n;
    return table().intern(k);
}

Type matrix_type(int rows, int cols, ScalarKind s) {
    Key k = key(TypeKind::Matrix, s);
    k.rows = rows;
    k.cols = cols;
    return table().intern(k);
}

Type quat_type(ScalarKind s) { return table().intern(key(TypeKind::Quat, s)); }
Type transform_type(ScalarKind s) { return table().intern(key(TypeKind::Transform, s)); }

Type array_type(Type dtype, int ndim) {
    Key k = key(TypeKind::Array, dtype->kind == TypeKind::Struct ? ScalarKind::UInt8 : dtype->scalar);
    k.elem = dtype;
    k.ndim = ndim;
    return table().intern(k);
}

Type tuple_type(const std::vector<Type>& items) {
    Key k = key(TypeKind::Tuple);
    k.items = items;
    return table().intern(k);
}

Type struct_type(const std::string& module_key, const std::string& name, const std::vector<StructField>& fields) {
    Key k = key(TypeKind::Struct);
    k.name = module_key + "::" + name;
    // The field types take part in the key so that a redefinition with other fields in another
    // compilation of the same module (an edited source) is a different type.
    for (const auto& f : fields) k.items.push_back(f.type);
    Type t = table().intern(k, fields);
    return t;
}

bool is_float_kind(ScalarKind s) { return s == ScalarKind::Float16 || s == ScalarKind::Float32 || s == ScalarKind::Float64; }
bool is_int_kind(ScalarKind s) { return !is_float_kind(s) && s != ScalarKind::Bool; }

bool is_scalar(Type t) { return t->kind == TypeKind::Scalar; }
bool is_int(Type t) { return is_scalar(t) && is_int_kind(t->scalar); }
bool is_signed_int(Type t) {
    return is_scalar(t) && (t->scalar == ScalarKind::Int8 || t->scalar == ScalarKind::Int16 || t->scalar == ScalarKind::Int32 ||
                            t->scalar == ScalarKind::Int64);
}
bool is_float(Type t) { return is_scalar(t) && is_float_kind(t->scalar); }
bool is_numeric(Type t) { return is_int(t) || is_float(t); }
bool is_vector(Type t) { return t->kind == TypeKind::Vector; }
bool is_matrix(Type t) { return t->kind == TypeKind::Matrix; }
bool is_array(Type t) { return t->kind == TypeKind::Array; }
bool is_struct(Type t) { return t->kind == TypeKind::Struct; }
bool is_tuple(Type t) { return t->kind == TypeKind::Tuple; }

int scalar_bits(ScalarKind s) {
    switch (s) {
        case ScalarKind::Bool: return 8;
        case ScalarKind::Int8:
        case ScalarKind::UInt8: return 8;
        case ScalarKind::Int16:
        case ScalarKind::UInt16:
        case ScalarKind::Float16: return 16;
        case ScalarKind::Int32:
        case ScalarKind::UInt32:
        case ScalarKind::Float32: return 32;
        case ScalarKind::Int64:
        case ScalarKind::UInt64:
        case ScalarKind::Float64: return 64;
    }
    return 0;
}

int component_count(Type t) {
    switch (t->kind) {
        case TypeKind::Scalar: return 1;
        case TypeKind::Vector: return t->rows;
        case TypeKind::Matrix: return t->rows * t->cols;
        case TypeKind::Quat: return 4;
        case TypeKind::Transform: return 7;
        default: return 0;
    }
}

Type with_scalar(Type t, ScalarKind s) {
    switch (t->kind) {
        case TypeKind::Scalar: return scalar_type(s);
        case TypeKind::Vector: return vector_type(t->rows, s);
        case TypeKind::Matrix: return matrix_type(t->rows, t->cols, s);
        case TypeKind::Quat: return quat_type(s);
        case TypeKind::Transform: return transform_type(s);
        default: return t;
    }
}

std::string_view scalar_name(ScalarKind s) {
    switch (s) {
        case ScalarKind::Bool: return "bool";
        case ScalarKind::Int8: return "int8";
        case ScalarKind::UInt8: return "uint8";
        case ScalarKind::Int16: return "int16";
        case ScalarKind::UInt16: return "uint16";
        case ScalarKind::Int32: return "int32";
        case ScalarKind::UInt32: return "uint32";
        case ScalarKind::Int64: return "int64";
        case ScalarKind::UInt64: return "uint64";
        case ScalarKind::Float16: return "float16";
        case ScalarKind::Float32: return "float32";
        case ScalarKind::Float64: return "float64";
    }
    return "?";
}

std::string type_name(Type t) {
    switch (t->kind) {
        case TypeKind::Void: return "None";
        case TypeKind::Scalar: return std::string(scalar_name(t->scalar));
        case TypeKind::Vector:
            if (t->rows == 6 && is_float_kind(t->scalar))
                return t->scalar == ScalarKind::Float64 ? "spatial_vectord" : "spatial_vector";
            if (t->rows < 2 || t->rows > 4)
                return "vec(length=" + std::to_string(t->rows) + ", dtype=" + std::string(scalar_name(t->scalar)) + ")";
            return "vec" + std::to_string(t->rows) + scalar_suffix(t->scalar);
        case TypeKind::Matrix:
            if (t->rows == 6 && t->cols == 6 && is_float_kind(t->scalar))
                return t->scalar == ScalarKind::Float64 ? "spatial_matrixd" : "spatial_matrix";
            if (t->rows != t->cols || t->rows < 2 || t->rows > 4)
                return "mat(shape=(" + std::to_string(t->rows) + ", " + std::to_string(t->cols) +
                       "), dtype=" + std::string(scalar_name(t->scalar)) + ")";
            return "mat" + std::to_string(t->rows) + std::to_string(t->cols) + scalar_suffix(t->scalar);
        case TypeKind::Quat: return std::string("quat") + scalar_suffix(t->scalar);
        case TypeKind::Transform: return std::string("transform") + scalar_suffix(t->scalar);
        case TypeKind::Array:
            return "array(" + type_name(t->elem) + (t->ndim == 1 ? "" : ", ndim=" + std::to_string(t->ndim)) + ")";
        case TypeKind::Struct: {
            auto pos = t->name.rfind("::");
            return pos == std::string::npos ? t->name : t->name.substr(pos + 2);
        }
        case TypeKind::Tuple: {
            std::string s = "tuple(";
            for (size_t i = 0; i < t->items.size(); ++i) s += (i ? ", " : "") + type_name(t->items[i]);
            return s + ")";
        }
    }
    return "?";
}

std::string cpp_type_name(Type t) {
    switch (t->kind) {
        case TypeKind::Void: return "void";
        case TypeKind::Scalar: return cpp_scalar(t->scalar);
        case TypeKind::Vector: return "wp::vec_t<" + std::to_string(t->rows) + "," + cpp_scalar(t->scalar) + ">";
        case TypeKind::Matrix:
            return "wp::mat_t<" + std::to_string(t->rows) + "," + std::to_string(t->cols) + "," + cpp_scalar(t->scalar) + ">";
        case TypeKind::Quat: return std::string("wp::quat_t<") + cpp_scalar(t->scalar) + ">";
        case TypeKind::Transform: return std::string("wp::transform_t<") + cpp_scalar(t->scalar) + ">";
        case TypeKind::Array: return "wp::array_t<" + cpp_type_name(t->elem) + ">";
        case TypeKind::Struct: {
            std::string s = t->name;
            for (auto& c : s)
                if (!(isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
            return "S_" + s;
        }
        case TypeKind::Tuple: {
            std::string s = "wp::tuple_t<";
            for (size_t i = 0; i < t->items.size(); ++i) s += (i ? "," : "") + cpp_type_name(t->items[i]);
            return s + ">";
        }
    }
    return "void";
}

std::optional<Type> type_from_name(std::string_view n) {
    static const std::pair<const char*, ScalarKind> scalars[] = {
        {"bool", ScalarKind::Bool},       {"int8", ScalarKind::Int8},       {"uint8", ScalarKind::UInt8},
        {"int16", ScalarKind::Int16},     {"uint16", ScalarKind::UInt16},   {"int32", ScalarKind::Int32},
        {"uint32", ScalarKind::UInt32},   {"int64", ScalarKind::Int64},     {"uint64", ScalarKind::UInt64},
        {"float16", ScalarKind::Float16}, {"float32", ScalarKind::Float32}, {"float64", ScalarKind::Float64},
        {"int", ScalarKind::Int32},       {"float", ScalarKind::Float32},   {"half", ScalarKind::Float16},
    };
    for (auto& [name, s] : scalars)
        if (n == name) return scalar_type(s);
    auto scalar_of = [](std::string_view suffix) -> std::optional<ScalarKind> {
        if (suffix.empty()) return ScalarKind::Float32;
        return suffix_scalar(suffix);
    };
    if (n.substr(0, 3) == "vec" && n.size() >= 4 && n[3] >= '2' && n[3] <= '4') {
        if (auto s = scalar_of(n.substr(4))) return vector_type(n[3] - '0', *s);
        return std::nullopt;
    }
    if (n.substr(0, 3) == "mat" && n.size() >= 5 && n[3] >= '2' && n[3] <= '4' && n[4] == n[3]) {
        if (auto s = scalar_of(n.substr(5)); s && is_float_kind(*s)) return matrix_type(n[3] - '0', n[4] - '0', *s);
        return std::nullopt;
    }
    if (n.substr(0, 4) == "quat") {
        if (auto s = scalar_of(n.substr(4)); s && is_float_kind(*s)) return quat_type(*s);
        return std::nullopt;
    }
    if (n.substr(0, 9) == "transform") {
        if (auto s = scalar_of(n.substr(9)); s && is_float_kind(*s)) return transform_type(*s);
        return std::nullopt;
    }
    if (n == "spatial_vector" || n == "spatial_vectorf") return vector_type(6, ScalarKind::Float32);
    if (n == "spatial_vectord") return vector_type(6, ScalarKind::Float64);
    if (n == "spatial_matrix" || n == "spatial_matrixf") return matrix_type(6, 6, ScalarKind::Float32);
    if (n == "spatial_matrixd") return matrix_type(6, 6, ScalarKind::Float64);
    return std::nullopt;
}

const std::vector<std::string>& value_type_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v = {
            "bool",   "int8",  "uint8",          "int16",           "uint16",         "int32",
            "uint32", "int64", "uint64",         "float16",         "float32",        "float64",
            "int",    "float", "spatial_vector", "spatial_vectord", "spatial_matrix", "spatial_matrixd"};
        for (const char* sfx : {"", "f", "d", "h", "i", "ui", "l", "ul", "b", "ub", "s", "us"})
            for (int n = 2; n <= 4; ++n) v.push_back("vec" + std::to_string(n) + sfx);
        for (const char* sfx : {"", "f", "d", "h"}) {
            for (int n = 2; n <= 4; ++n) v.push_back("mat" + std::to_string(n) + std::to_string(n) + sfx);
            v.push_back(std::string("quat") + sfx);
            v.push_back(std::string("transform") + sfx);
        }
        return v;
    }();
    return names;
}

size_t type_align(Type t) {
    switch (t->kind) {
        case TypeKind::Void: return 1;
        case TypeKind::Scalar:
        case TypeKind::Vector:
        case TypeKind::Matrix:
        case TypeKind::Quat:
        case TypeKind::Transform: return static_cast<size_t>(scalar_bits(t->scalar) / 8);
        case TypeKind::Array: return 8;
        case TypeKind::Struct:
        case TypeKind::Tuple: {
            size_t a = 1;
            if (t->kind == TypeKind::Struct)
                for (auto& f : t->fields) a = std::max(a, type_align(f.type));
            else
                for (auto& i : t->items) a = std::max(a, type_align(i));
            return a;
        }
    }
    return 1;
}

size_t type_size(Type t) {
    auto round_up = [](size_t x, size_t a) { return (x + a - 1) / a * a; };
    switch (t->kind) {
        case TypeKind::Void: return 0;
        case TypeKind::Scalar:
        case TypeKind::Vector:
        case TypeKind::Matrix:
        case TypeKind::Quat:
        case TypeKind::Transform: return static_cast<size_t>(component_count(t) * scalar_bits(t->scalar) / 8);
        case TypeKind::Array: return 8 + 4 * 4 + 4 * 8 + 8;  // data, shape[4], strides[4], ndim + pad
        case TypeKind::Struct:
        case TypeKind::Tuple: {
            size_t off = 0;
            std::vector<Type> members;
            if (t->kind == TypeKind::Struct)
                for (auto& f : t->fields) members.push_back(f.type);
            else
                members = t->items;
            for (Type m : members) off = round_up(off, type_align(m)) + type_size(m);
            return round_up(std::max<size_t>(off, 1), type_align(t));
        }
    }
    return 0;
}

}  // namespace weft::compiler
