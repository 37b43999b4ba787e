// engine/integrator_options.cpp: see integrator_options.h.
#include "engine/integrator_options.h"

#include <cmath>
#include <sstream>

#include "support/closest_name.h"
#include "runtime/errors.h"

namespace weft::engine {

namespace {

std::string num(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

}  // namespace

double IntegratorOptions::number(const std::string& key) const {
    auto it = values_.find(key);
    if (it == values_.end()) throw runtime::RuntimeError("integrator option '" + key + "' is not set");
    return it->second;
}

std::string option_range(const OptionSpec& spec) {
    return (spec.min_open ? "(" : "[") + num(spec.min) + ", " + num(spec.max) + "]";
}

IntegratorOptions resolve_options(const std::string& integrator, const std::vector<OptionSpec>& specs,
                                  const IntegratorOptions& given) {
    std::vector<std::string> names;
    for (const OptionSpec& s : specs) names.push_back(s.name);
    for (const auto& [key, value] : given.values()) {
        bool known = false;
        for (const auto& n : names) known = known || n == key;
        if (known) continue;
        std::string msg = "integrator '" + integrator + "' has no option '" + key + "'";
        std::string near = support::closest_name(key, names);
        if (!near.empty())
            msg += " (did you mean '" + near + "'?)";
        else if (names.empty())
            msg += " (it takes none)";
        else {
            msg += "; its options are";
            for (size_t i = 0; i < names.size(); ++i) msg += (i ? ", '" : " '") + names[i] + "'";
        }
        throw runtime::RuntimeError(msg);
    }
    IntegratorOptions out;
    for (const OptionSpec& s : specs) {
        double v = given.has(s.name) ? given.number(s.name) : s.default_value;
        std::string where = "integrator '" + integrator + "': option '" + s.name + "'";
        if (s.type == OptionSpec::Type::Integer && v != std::floor(v))
            throw runtime::RuntimeError(where + " must be an integer, got " + num(v));
        bool low = s.min_open ? !(v > s.min) : !(v >= s.min);
        if (low || !(v <= s.max)) throw runtime::RuntimeError(where + " must be in " + option_range(s) + ", got " + num(v));
        out.set(s.name, v);
    }
    return out;
}

}  // namespace weft::engine
