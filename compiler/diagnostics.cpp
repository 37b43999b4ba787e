// Formatting and collection of compiler diagnostics. See diagnostics.h.
#include "compiler/diagnostics.h"

#include <algorithm>
#include <sstream>

namespace weft::compiler {
namespace {

struct DiagInfo {
    const char* name;
    Severity severity;
    const char* text;
};

const DiagInfo kDiagInfo[] = {
#define DIAG(id, sev, text) {#id, Severity::sev, text},
#include "compiler/diagnostic_kinds.def"
#undef DIAG
};

const char* severity_word(Severity s) {
    switch (s) {
        case Severity::Note: return "note";
        case Severity::Warning: return "warning";
        case Severity::Error: return "error";
    }
    return "error";
}

}  // namespace

std::string_view SourceFile::line(int line_no) const {
    size_t pos = 0;
    for (int l = 1; l < line_no; ++l) {
        pos = text.find('\n', pos);
        if (pos == std::string::npos) return {};
        ++pos;
    }
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view v(text.data() + pos, end - pos);
    if (!v.empty() && v.back() == '\r') v.remove_suffix(1);
    return v;
}

std::string diag_id_name(DiagId id) { return kDiagInfo[static_cast<int>(id)].name; }
Severity diag_severity(DiagId id) { return kDiagInfo[static_cast<int>(id)].severity; }

std::string format_message(DiagId id, const std::vector<std::string>& args) {
    std::string out;
    const char* t = kDiagInfo[static_cast<int>(id)].text;
    for (const char* p = t; *p; ++p) {
        if (*p == '%' && p[1] >= '0' && p[1] <= '9') {
            size_t idx = static_cast<size_t>(p[1] - '0');
            if (idx < args.size()) out += args[idx];
            ++p;
        } else {
            out += *p;
        }
    }
    return out;
}

static Diagnostic make_diag(DiagId id, Severity sev, SourceLoc loc, std::string message) {
    Diagnostic d{id, sev, loc, std::move(message), {}, "", 0, 0, 1, ""};
    if (loc.valid()) {
        d.path = loc.file->path;
        d.line = loc.display_line();
        d.col = loc.col;
        d.len = loc.len;
        d.line_text = std::string(loc.file->line(loc.line));
    }
    return d;
}

static void format_one(std::ostringstream& os, const Diagnostic& d) {
    if (d.line > 0) { os << d.path << ":" << d.line << ":" << d.col << ": "; }
    os << severity_word(d.severity) << ": " << d.message << "\n";
    if (d.line > 0) {
        std::string_view line = d.line_text;
        os << "    " << line << "\n";
        os << "    ";
        int col = std::max(1, d.col);
        for (int i = 1; i < col; ++i) {
            size_t k = static_cast<size_t>(i - 1);
            os << (k < line.size() && line[k] == '\t' ? '\t' : ' ');
        }
        os << '^';
        int len = d.len;
        int avail = static_cast<int>(line.size()) - col;
        len = std::min(len, std::max(1, avail + 1));
        for (int i = 1; i < len; ++i) os << '~';
        os << "\n";
    }
}

std::string format_diagnostic(const Diagnostic& d) {
    std::ostringstream os;
    format_one(os, d);
    for (const auto& n : d.notes) format_one(os, n);
    return os.str();
}

Diagnostic& DiagnosticEngine::report(DiagId id, SourceLoc loc, std::vector<std::string> args) {
    Severity sev = diag_severity(id);
    if (sev == Severity::Error) {
        ++errors_;
        if (errors_ > max_errors && !stopped_) {
            stopped_ = true;
            diags_.push_back(make_diag(DiagId::err_too_many_errors, Severity::Error, SourceLoc{},
                                       format_message(DiagId::err_too_many_errors, {})));
            return diags_.back();
        }
    }
    if (stopped_ && !diags_.empty()) return diags_.back();
    diags_.push_back(make_diag(id, sev, loc, format_message(id, args)));
    return diags_.back();
}

void DiagnosticEngine::note(DiagId id, SourceLoc loc, std::vector<std::string> args) {
    if (diags_.empty() || stopped_) return;
    diags_.back().notes.push_back(make_diag(id, Severity::Note, loc, format_message(id, args)));
}

std::string DiagnosticEngine::format_all() const {
    std::string s;
    for (const auto& d : diags_) s += format_diagnostic(d);
    return s;
}

void internal_error(const char* file, int line, const std::string& what) {
    throw std::logic_error(std::string("internal compiler error (a Weft bug) at ") + file + ":" + std::to_string(line) + ": " +
                           what);
}

}  // namespace weft::compiler
