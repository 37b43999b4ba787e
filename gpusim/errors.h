// gpusim/errors.h — the two kinds of user error the simulator reports.
//
// PtxError: the PTX text is malformed or uses something the simulator does not support.
// It carries the line and column of the offending token and a plain sentence, and what()
// reads "name:line:col: error: sentence" like a compiler diagnostic.
//
// SimError: the kernel did something that a GPU would fault on or hang on (an access outside
// shared/local/param space, a barrier that cannot complete, a trap). Its message names the
// kernel, the block, the thread, the PTX line and, when .loc gave one, the source line.
//
// Internal invariants are GPUSIM_ASSERT: a failure there is a simulator bug, not user input.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace weft::gpusim {

class PtxError : public std::runtime_error {
public:
    PtxError(std::string module_name, int line, int col, std::string message)
        : std::runtime_error(module_name + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + message),
          module_name_(std::move(module_name)),
          line_(line),
          col_(col),
          message_(std::move(message)) {}
    const std::string& module_name() const { return module_name_; }
    int line() const { return line_; }                       // 1-based line in the PTX text
    int col() const { return col_; }                         // 1-based column
    const std::string& message() const { return message_; }  // the sentence alone

private:
    std::string module_name_;
    int line_;
    int col_;
    std::string message_;
};

class SimError : public std::runtime_error {
public:
    explicit SimError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace weft::gpusim

#define GPUSIM_ASSERT(cond)                                                                          \
    do {                                                                                             \
        if (!(cond)) {                                                                               \
            std::fprintf(stderr, "gpusim internal error: %s at %s:%d\n", #cond, __FILE__, __LINE__); \
            std::abort();                                                                            \
        }                                                                                            \
    } while (0)
