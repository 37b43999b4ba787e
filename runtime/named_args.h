// runtime/named_args.h: launch arguments keyed by the kernel's parameter names.
//
//     launch(k, {n}, NamedArgs{{"x", LaunchArg::of(x)}, {"dt", LaunchArg::number_of(dt)},
//                              {"out", LaunchArg::of(out)}}, options);
//
// A positional list of 33 arguments type-checks any swap of two parameters of the same type (two
// floats, two vec3 arrays): launch() sees the right types in the right number. Named, the
// pairing of value and parameter is written at the call, and bind() checks the names against the
// kernel's signature before launch() checks the types: a name the kernel does not have (with a
// did-you-mean), a name given twice, and a parameter left out are each a RuntimeError naming the
// parameter and the kernel. The order of the list does not matter. Names are string literals, held
// by pointer, so that a launch costs no more than a positional one (one copy of each argument).
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "runtime/module.h"

namespace weft::runtime {

struct NamedArg {
    const char* name;  // the kernel parameter's name: a string literal (it is not copied)
    LaunchArg arg;
};

class NamedArgs {
public:
    NamedArgs() = default;
    NamedArgs(std::initializer_list<NamedArg> args) : args_(args) {}

    NamedArgs& add(const char* name, LaunchArg arg);  // appends one (a repeated name is reported by bind)
    const std::vector<NamedArg>& args() const { return args_; }

    // The arguments in the kernel's parameter order. Throws RuntimeError for a name `k` does not
    // have, a name given twice, or a parameter without an argument.
    std::vector<LaunchArg> bind(const Kernel& k) const&;
    std::vector<LaunchArg> bind(const Kernel& k) &&;  // the same, moving the arguments out

private:
    std::vector<size_t> order(const Kernel& k) const;  // for each parameter, its entry in args_ (checked)

    std::vector<NamedArg> args_;
};

// launch(k, dim, args.bind(k), options).
void launch(const Kernel& k, const std::vector<int64_t>& dim, NamedArgs args, const LaunchOptions& options);

}  // namespace weft::runtime
