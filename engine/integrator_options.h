// engine/integrator_options.h: an integrator's parameters as generic key/value options, checked
// against what the integrator declares.
//
//   IntegratorOptions o;
//   o.set("iterations", 4);                                // from a scene file, Python kwargs, a benchmark
//   auto it = create_integrator("xpbd", o);                // resolve_options() inside: defaults, types, ranges
//   int n = o.integer("iterations");
//
// Each integrator lists its options as OptionSpecs in its IntegratorInfo; nothing outside the
// integrator's own file knows them. The scene loader reads exactly the declared keys (so a typo is
// an "unknown key" at its file:line with a did-you-mean), and resolve_options() gives the same
// check to every other caller, as a runtime::RuntimeError.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace weft::engine {

struct OptionSpec {
    enum class Type { Integer, Number };
    std::string name;  // "iterations"
    Type type = Type::Number;
    double default_value = 0.0;
    double min = 0.0;  // allowed range [min, max], (min, max] when min_open
    double max = 0.0;
    bool min_open = false;
    std::string doc;  // meaning and unit, one line (docs and error messages)
};

class IntegratorOptions {
public:
    IntegratorOptions() = default;
    IntegratorOptions(std::initializer_list<std::pair<const std::string, double>> values) : values_(values) {}

    IntegratorOptions& set(const std::string& key, double value) {
        values_[key] = value;
        return *this;
    }
    bool has(const std::string& key) const { return values_.count(key) != 0; }
    // The value of `key`; throws runtime::RuntimeError when it is not set (resolve_options sets
    // every declared key).
    double number(const std::string& key) const;
    int integer(const std::string& key) const { return int(number(key)); }
    const std::map<std::string, double>& values() const { return values_; }

private:
    std::map<std::string, double> values_;
};

// `given` checked against `specs` (of integrator `integrator`) with every missing key set to its
// default. Throws runtime::RuntimeError for a key not declared ("integrator 'xpbd' has no option
// 'iteratons' (did you mean 'iterations'?)"), a non-integer for an Integer option, or a value out
// of range.
IntegratorOptions resolve_options(const std::string& integrator, const std::vector<OptionSpec>& specs,
                                  const IntegratorOptions& given);

// "[1, 1000]" or "(0, 2]": the range of a spec, for messages.
std::string option_range(const OptionSpec& spec);

}  // namespace weft::engine
