// The builtin table's container. The entries themselves are in builtin_defs*.cpp.
#include "compiler/builtins/builtin_table.h"

#include <algorithm>
#include <set>

namespace weft::compiler {

BuiltinOverload& BuiltinTable::add(const std::string& name, Type ret, std::vector<BuiltinParam> params, const std::string& group,
                                   const std::string& doc, unsigned flags) {
    BuiltinOverload o;
    o.name = name;
    o.cpp_name = name;
    o.ret = ret;
    o.params = std::move(params);
    o.group = group;
    o.doc = doc;
    o.flags = flags;
    overloads_.push_back(std::move(o));
    return overloads_.back();
}

void BuiltinTable::add_special(const std::string& name, const std::string& signature, const std::string& group,
                               const std::string& doc) {
    BuiltinOverload o;
    o.name = name;
    o.cpp_name = name;
    o.ret = void_type();
    o.group = group;
    o.doc = doc;
    o.flags = BuiltinFlags_Special;
    o.signature = signature;
    overloads_.push_back(std::move(o));
}

std::vector<const BuiltinOverload*> BuiltinTable::find(const std::string& name) const {
    std::vector<const BuiltinOverload*> out;
    for (const auto& o : overloads_)
        if (o.name == name) out.push_back(&o);
    return out;
}

bool BuiltinTable::has_name(const std::string& name) const {
    return std::any_of(overloads_.begin(), overloads_.end(), [&](const auto& o) { return o.name == name; });
}

std::vector<std::string> BuiltinTable::names() const {
    std::set<std::string> s;
    for (const auto& o : overloads_) s.insert(o.name);
    return {s.begin(), s.end()};
}

const BuiltinTable& builtin_table() {
    static const BuiltinTable* table = [] {
        auto* t = new BuiltinTable();
        register_builtins(*t);
        return t;
    }();
    return *table;
}

std::string signature_text(const BuiltinOverload& o) {
    if (o.flags & BuiltinFlags_Special) return o.signature;
    std::string s = o.name + "(";
    for (size_t i = 0; i < o.params.size(); ++i) {
        if (i) s += ", ";
        s += o.params[i].name + ": " + (o.params[i].inout ? "inout " : "") + type_name(o.params[i].type);
    }
    s += ") -> " + type_name(o.ret);
    return s;
}

}  // namespace weft::compiler
