// runtime/named_args.cpp: see named_args.h.
#include "runtime/named_args.h"

#include <map>

#include "support/closest_name.h"
#include "runtime/errors.h"

namespace weft::runtime {

NamedArgs& NamedArgs::add(const char* name, LaunchArg arg) {
    args_.push_back({name, std::move(arg)});
    return *this;
}

std::vector<size_t> NamedArgs::order(const Kernel& k) const {
    if (!k.valid()) throw RuntimeError("launch of an empty kernel handle");
    const compiler::KernelInfo& info = k.info();
    std::vector<size_t> order(info.params.size());
    // The usual call lists every parameter once, in the signature's order: no lookup needed.
    bool in_order = args_.size() == info.params.size();
    for (size_t i = 0; i < args_.size() && in_order; ++i) in_order = args_[i].name == info.params[i].name;
    if (in_order) {
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        return order;
    }
    std::map<std::string, size_t> index;
    std::vector<std::string> names;
    for (size_t i = 0; i < info.params.size(); ++i) {
        index.emplace(info.params[i].name, i);
        names.push_back(info.params[i].name);
    }
    std::vector<bool> given(info.params.size(), false);
    const std::string where = "kernel '" + info.name + "'";
    for (size_t a = 0; a < args_.size(); ++a) {
        const std::string name = args_[a].name;
        auto it = index.find(name);
        if (it == index.end()) {
            std::string near = support::closest_name(name, names);
            throw RuntimeError(where + " has no parameter '" + name + "'" +
                               (near.empty() ? "" : " (did you mean '" + near + "'?)"));
        }
        if (given[it->second]) throw RuntimeError(where + ": argument '" + name + "' is given twice");
        given[it->second] = true;
        order[it->second] = a;
    }
    std::string missing;
    size_t nmissing = 0;
    for (size_t i = 0; i < given.size(); ++i)
        if (!given[i]) {
            missing += (missing.empty() ? "'" : ", '") + names[i] + "'";
            ++nmissing;
        }
    if (nmissing > 0) throw RuntimeError(where + ": no argument for parameter" + (nmissing > 1 ? "s " : " ") + missing);
    return order;
}

std::vector<LaunchArg> NamedArgs::bind(const Kernel& k) const& {
    std::vector<LaunchArg> ordered;
    ordered.reserve(args_.size());
    for (size_t a : order(k)) ordered.push_back(args_[a].arg);
    return ordered;
}

std::vector<LaunchArg> NamedArgs::bind(const Kernel& k) && {
    std::vector<LaunchArg> ordered;
    ordered.reserve(args_.size());
    for (size_t a : order(k)) ordered.push_back(std::move(args_[a].arg));
    return ordered;
}

void launch(const Kernel& k, const std::vector<int64_t>& dim, NamedArgs args, const LaunchOptions& options) {
    launch(k, dim, std::move(args).bind(k), options);
}

}  // namespace weft::runtime
