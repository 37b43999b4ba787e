// Argument parsing for the `weft` command line. See cli.h.
#include "apps/cli.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "support/closest_name.h"

namespace weft::apps {

Args::Args(const std::vector<std::string>& argv, const std::vector<std::string>& options, const std::vector<std::string>& flags) {
    auto known = [&](const std::string& n, const std::vector<std::string>& list) {
        for (const auto& k : list)
            if (k == n) return true;
        return false;
    };
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.rfind("--", 0) != 0 || a == "--") {
            positional_.push_back(a);
            continue;
        }
        std::string name = a.substr(2), value;
        bool has_value = false;
        if (auto eq = name.find('='); eq != std::string::npos) {
            value = name.substr(eq + 1);
            name = name.substr(0, eq);
            has_value = true;
        }
        if (known(name, flags)) {
            if (has_value) throw UsageError("option --" + name + " takes no value");
            flags_[name] = true;
            continue;
        }
        if (!known(name, options)) {
            std::vector<std::string> all = options;
            all.insert(all.end(), flags.begin(), flags.end());
            std::string near = support::closest_name(name, all);
            throw UsageError("unknown option --" + name + (near.empty() ? "" : " (did you mean --" + near + "?)"));
        }
        if (!has_value) {
            if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
            value = argv[++i];
        }
        values_[name] = value;
    }
}

std::optional<std::string> Args::get(const std::string& name) const {
    auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::string Args::get_or(const std::string& name, const std::string& dflt) const { return get(name).value_or(dflt); }

bool Args::flag(const std::string& name) const { return flags_.count(name) > 0; }

int64_t parse_integer(const std::string& what, const std::string& text, int64_t lo, int64_t hi) {
    const std::string range = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
    size_t digits = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
    if (text.size() <= digits || text.find_first_not_of("0123456789", digits) != std::string::npos)
        throw UsageError(what + " expects " + range + ", got '" + text + "'");
    errno = 0;
    long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE || v < lo || v > hi) throw UsageError(what + " expects " + range + ", got '" + text + "' (out of range)");
    return v;
}

double parse_number(const std::string& what, const std::string& text) {
    char* end = nullptr;
    errno = 0;
    double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? 0.0 : std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) throw UsageError(what + " expects a number, got '" + text + "'");
    if (!std::isfinite(v) || errno == ERANGE)
        throw UsageError(what + " expects a finite number, got '" + text + "'" + (std::isfinite(v) ? " (out of range)" : ""));
    return v;
}

std::vector<int64_t> parse_dims(const std::string& s) {
    std::vector<int64_t> dims;
    size_t pos = 0;
    while (pos <= s.size()) {
        size_t comma = s.find(',', pos);
        std::string part = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 12)
            throw UsageError("invalid --dim '" + s + "': expected N or N,M (up to 4 positive integers)");
        dims.push_back(parse_integer("--dim", part, 0, 999999999999));
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    if (dims.empty() || dims.size() > 4) throw UsageError("invalid --dim '" + s + "': expected 1 to 4 dimensions");
    return dims;
}

}  // namespace weft::apps
