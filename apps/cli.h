// apps/cli.h: the `weft` command line's shared pieces: a small argument parser that reports
// unknown options with a did-you-mean, and the subcommand table.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/driver.h"

namespace weft::apps {

// A usage mistake: printed as "weft <cmd>: <message>" with exit code 2.
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Args {
public:
    // `flags` are options without a value (--debug); `options` take one (--kernel NAME).
    Args(const std::vector<std::string>& argv, const std::vector<std::string>& options, const std::vector<std::string>& flags);
    std::optional<std::string> get(const std::string& name) const;
    std::string get_or(const std::string& name, const std::string& dflt) const;
    bool flag(const std::string& name) const;
    const std::vector<std::string>& positional() const { return positional_; }

private:
    std::map<std::string, std::string> values_;
    std::map<std::string, bool> flags_;
    std::vector<std::string> positional_;
};

// The text of a file; UsageError naming it when it cannot be read.
std::string read_source(const std::string& path);

// The sources to compile for the kernel module at `path`: the kernel modules it imports (`import
// geometry as geo` -> geometry.py next to it, and theirs, as Python finds a script's siblings),
// then the file itself. Imports with no such file (weft, numpy, ...) are left to the compiler.
std::vector<compiler::ModuleSource> module_sources(const std::string& path);

int cmd_compile(const std::vector<std::string>& args);
int cmd_launch(const std::vector<std::string>& args);
int cmd_sim(const std::vector<std::string>& args);
int cmd_builtins(const std::vector<std::string>& args);
int cmd_audit(const std::vector<std::string>&);
int cmd_run(const std::vector<std::string>& args);
int cmd_gradcheck(const std::vector<std::string>& args);
int cmd_view(const std::vector<std::string>& args);  // apps/cmd_view.cpp; builds without the viewer say so

// The integer in `text`, from lo to hi, for the option named by `what` ("--print"); a UsageError
// naming the option and the value for anything else (letters, a fraction, out of range).
int64_t parse_integer(const std::string& what, const std::string& text, int64_t lo, int64_t hi);
// The finite number in `text` (as strtod reads it) for option `what`; UsageError naming both.
double parse_number(const std::string& what, const std::string& text);

// "64", "8,8" -> {64}, {8, 8}; UsageError on anything else.
std::vector<int64_t> parse_dims(const std::string& s);

}  // namespace weft::apps
