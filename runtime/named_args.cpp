// runtime/named_args.cpp: see named_args.h.
#include "runtime/named_args.h"

#include <map>

#include "compiler/diagnostics.h"
#include "runtime/errors.h"

namespace weft::runtime {

NamedArgs& NamedArgs::add(std::string name, LaunchArg arg) {
    args_.push_back({std::move(name), std::move(arg)});
    return *this;
}

std::vector<LaunchArg> NamedArgs::bind(const Kernel& k) const {
    if (!k.valid()) throw RuntimeError("launch of an empty kernel handle");
    const compiler::KernelInfo& info = k.info();
    std::map<std::string, size_t> index;
    std::vector<std::string> names;
    for (size_t i = 0; i < info.params.size(); ++i) {
        index.emplace(info.params[i].name, i);
        names.push_back(info.params[i].name);
    }
    std::vector<LaunchArg> ordered(info.params.size());
    std::vector<bool> given(info.params.size(), false);
    const std::string where = "kernel '" + info.name + "'";
    for (const NamedArg& a : args_) {
        auto it = index.find(a.name);
        if (it == index.end()) {
            std::string near = compiler::closest_name(a.name, names);
            throw RuntimeError(where + " has no parameter '" + a.name + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
        }
        if (given[it->second]) throw RuntimeError(where + ": argument '" + a.name + "' is given twice");
        given[it->second] = true;
        ordered[it->second] = a.arg;
    }
    std::string missing;
    size_t nmissing = 0;
    for (size_t i = 0; i < given.size(); ++i)
        if (!given[i]) {
            missing += (missing.empty() ? "'" : ", '") + names[i] + "'";
            ++nmissing;
        }
    if (nmissing > 0)
        throw RuntimeError(where + ": no argument for parameter" + (nmissing > 1 ? "s " : " ") + missing);
    return ordered;
}

void launch(const Kernel& k, const std::vector<int64_t>& dim, const NamedArgs& args, const LaunchOptions& options) {
    launch(k, dim, args.bind(k), options);
}

}  // namespace weft::runtime
