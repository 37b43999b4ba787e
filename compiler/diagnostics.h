// Diagnostics of the kernel compiler: located, clang-style, collected rather than thrown.
//
//   kernels/particles.py:42:17: error: use of undeclared name 'veloctiy'
//       v = veloctiy[i]
//           ^~~~~~~~
//   note: did you mean 'velocity'?
//
// Each diagnostic has an ID from diagnostic_kinds.def (one table of message templates). The
// engine keeps every diagnostic of a run so that several errors are reported at once; passes
// check `has_errors()` at their boundaries. `CompileError` carries the formatted text to callers
// that want an exception (the runtime, Python).
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace weft::compiler {

enum class Severity { Note, Warning, Error };

enum class DiagId {
#define DIAG(id, sev, text) id,
#include "compiler/diagnostic_kinds.def"
#undef DIAG
};

// A source file as the compiler sees it. `line_offset` shifts reported lines: a function handed
// over from Python starts at its line in the original file.
struct SourceFile {
    std::string path;
    std::string text;
    int line_offset = 0;
    std::string_view line(int line_no) const;  // 1-based, local to `text`
};

struct SourceLoc {
    const SourceFile* file = nullptr;
    int line = 0;  // 1-based, local to file->text
    int col = 0;   // 1-based
    int len = 1;   // characters underlined
    bool valid() const { return file != nullptr && line > 0; }
    int display_line() const { return line + (file ? file->line_offset : 0); }
};

struct Diagnostic {
    DiagId id;
    Severity severity;
    SourceLoc loc;  // valid only while the module's sources live
    std::string message;
    std::vector<Diagnostic> notes;
    // Captured when reported, so a diagnostic outlives the sources it points into.
    std::string path;
    int line = 0;  // display line (0: no location)
    int col = 0;
    int len = 1;
    std::string line_text;
};

std::string diag_id_name(DiagId id);  // "err_undeclared_name"
Severity diag_severity(DiagId id);
std::string format_message(DiagId id, const std::vector<std::string>& args);
std::string format_diagnostic(const Diagnostic& d);  // the clang-style block, notes included

class DiagnosticEngine {
public:
    Diagnostic& report(DiagId id, SourceLoc loc, std::vector<std::string> args = {});
    // Adds a note to the most recent diagnostic.
    void note(DiagId id, SourceLoc loc, std::vector<std::string> args = {});
    bool has_errors() const { return errors_ > 0; }
    int error_count() const { return errors_; }
    const std::vector<Diagnostic>& diagnostics() const { return diags_; }
    std::string format_all() const;
    // Error limit: past it, report() records err_too_many_errors once and sets `stopped()`.
    bool stopped() const { return stopped_; }
    int max_errors = 20;

private:
    std::vector<Diagnostic> diags_;
    int errors_ = 0;
    bool stopped_ = false;
};

// Thrown by the compile driver when a module has errors; what() is the formatted diagnostics.
class CompileError : public std::runtime_error {
public:
    CompileError(std::string text, std::vector<Diagnostic> diags)
        : std::runtime_error(std::move(text)), diagnostics(std::move(diags)) {}
    std::vector<Diagnostic> diagnostics;
};

// Internal invariant failures: a Weft bug, with the C++ location.
[[noreturn]] void internal_error(const char* file, int line, const std::string& what);
#define WEFT_INTERNAL_ASSERT(cond, msg)                                         \
    do {                                                                        \
        if (!(cond)) ::weft::compiler::internal_error(__FILE__, __LINE__, msg); \
    } while (0)

}  // namespace weft::compiler
