// Formatting, ordering and suppression of audit findings (see finding.h).
//
// JSON and SARIF are written by hand: the shapes are small and fixed, and the compiler library
// takes no JSON dependency for them (strings are escaped by support/json.h). SARIF follows the
// 2.1.0 schema: one run, the tool's driver with one rule per check id, results with
// ruleId/ruleIndex/level/message/locations, and the witnesses as relatedLocations (with a
// location) or appended to the message (without).
#include "compiler/audit/finding.h"

#include <algorithm>
#include <sstream>
#include <tuple>

#include "support/json.h"

namespace weft::compiler::audit {

namespace {

struct CheckInfo {
    Check check;
    const char* id;
    const char* description;
};

const CheckInfo kChecks[] = {
    {Check::Bounds, "bounds", "An array index may lie outside the array's shape."},
    {Check::Divergence, "divergence", "A branch or loop condition differs between the lanes of a warp."},
    {Check::BarrierDivergence, "barrier-divergence",
     "wp.sync_threads() is reached by some threads of a block but not by others."},
    {Check::SharedRace, "shared-race",
     "Two threads access the same shared-memory element between two barriers, and at least one writes."},
    {Check::BankConflict, "bank-conflict", "A shared-memory access needs more wavefronts than ideal (bank conflicts)."},
    {Check::Uncoalesced, "uncoalesced", "A global-memory access touches many more 32-byte sectors than the bytes it uses."},
    {Check::Resources, "resources", "Registers, spills, shared memory and the occupancy they allow."},
    {Check::OversizeConstant, "oversize-constant",
     "A wp.constant too large for registers, or indexed with a non-literal index (copied to local memory)."},
    {Check::WarpSyncDivergence, "warp-sync-divergence",
     "A warp collective with the full mask 0xffffffff is reached by some lanes of a warp but not by others."},
};

std::string caret_lines(const FindingLoc& l) {
    if (l.line <= 0 || l.line_text.empty()) return "";
    std::string out = "    " + l.line_text + "\n    ";
    for (int i = 1; i < l.col && i <= static_cast<int>(l.line_text.size()); ++i)
        out += l.line_text[static_cast<size_t>(i - 1)] == '\t' ? '\t' : ' ';
    out += '^';
    for (int i = 1; i < l.len; ++i) out += '~';
    return out + "\n";
}

std::string loc_prefix(const FindingLoc& l) {
    if (l.line <= 0) return l.path.empty() ? "" : l.path + ": ";
    return l.path + ":" + std::to_string(l.line) + ":" + std::to_string(l.col) + ": ";
}

std::string json_loc(const FindingLoc& l) {
    return "{\"path\": \"" + support::json_escape(l.path) + "\", \"line\": " + std::to_string(l.line) +
           ", \"col\": " + std::to_string(l.col) + ", \"len\": " + std::to_string(l.len) + "}";
}

std::string sarif_location(const FindingLoc& l, const std::string& message = "") {
    std::string s = "{";
    if (!message.empty()) s += "\"message\": {\"text\": \"" + support::json_escape(message) + "\"}, ";
    s += "\"physicalLocation\": {\"artifactLocation\": {\"uri\": \"" + support::json_escape(l.path) + "\"}";
    if (l.line > 0) {
        s += ", \"region\": {\"startLine\": " + std::to_string(l.line) +
             ", \"startColumn\": " + std::to_string(std::max(1, l.col)) +
             ", \"endColumn\": " + std::to_string(std::max(1, l.col) + l.len);
        if (!l.line_text.empty()) s += ", \"snippet\": {\"text\": \"" + support::json_escape(l.line_text) + "\"}";
        s += "}";
    }
    return s + "}}";
}

}  // namespace

const char* check_id(Check c) {
    for (const auto& k : kChecks)
        if (k.check == c) return k.id;
    return "?";
}

const char* check_description(Check c) {
    for (const auto& k : kChecks)
        if (k.check == c) return k.description;
    return "";
}

const std::vector<Check>& all_checks() {
    static const std::vector<Check> all = [] {
        std::vector<Check> v;
        for (const auto& k : kChecks) v.push_back(k.check);
        return v;
    }();
    return all;
}

bool check_from_id(const std::string& id, Check* out) {
    for (const auto& k : kChecks)
        if (id == k.id) {
            *out = k.check;
            return true;
        }
    return false;
}

const char* severity_name(FindingSeverity s) {
    switch (s) {
        case FindingSeverity::Note: return "note";
        case FindingSeverity::Warning: return "warning";
        case FindingSeverity::Error: return "error";
    }
    return "?";
}

FindingLoc capture_loc(const SourceLoc& loc) {
    FindingLoc l;
    if (!loc.file) return l;
    l.path = loc.file->path;
    if (!loc.valid()) return l;
    l.line = loc.display_line();
    l.col = loc.col;
    l.len = std::max(1, loc.len);
    l.line_text = std::string(loc.file->line(loc.line));
    return l;
}

std::string format_text(const Finding& f) {
    std::string out = loc_prefix(f.loc) + severity_name(f.severity) + ": [" + check_id(f.check) + "] " + f.message;
    if (!f.kernel.empty()) out += " (kernel '" + f.kernel + "')";
    out += "\n" + caret_lines(f.loc);
    for (const auto& n : f.notes) {
        out += loc_prefix(n.loc) + "note: " + n.message + "\n";
        if (n.loc.line > 0 && n.loc.line != f.loc.line) out += caret_lines(n.loc);
    }
    return out;
}

std::string format_json(const std::vector<Finding>& findings) {
    std::ostringstream os;
    os << "{\n  \"findings\": [";
    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        os << (i ? ",\n" : "\n") << "    {\"check\": \"" << check_id(f.check) << "\", \"severity\": \""
           << severity_name(f.severity) << "\", \"kernel\": \"" << support::json_escape(f.kernel)
           << "\", \"location\": " << json_loc(f.loc) << ", \"message\": \"" << support::json_escape(f.message)
           << "\", \"notes\": [";
        for (size_t j = 0; j < f.notes.size(); ++j)
            os << (j ? ", " : "") << "{\"location\": " << json_loc(f.notes[j].loc) << ", \"message\": \""
               << support::json_escape(f.notes[j].message) << "\"}";
        os << "]}";
    }
    os << (findings.empty() ? "" : "\n  ") << "]\n}\n";
    return os.str();
}

std::string format_sarif(const std::vector<Finding>& findings, const std::string& tool_version) {
    std::ostringstream os;
    os << "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n"
       << "  \"runs\": [{\n    \"tool\": {\"driver\": {\"name\": \"weft-audit\", \"version\": \""
       << support::json_escape(tool_version)
       << "\", \"informationUri\": \"https://example.invalid/weft/docs/audit.md\", \"rules\": [";
    const auto& checks = all_checks();
    for (size_t i = 0; i < checks.size(); ++i)
        os << (i ? ", " : "") << "\n      {\"id\": \"" << check_id(checks[i]) << "\", \"shortDescription\": {\"text\": \""
           << support::json_escape(check_description(checks[i])) << "\"}}";
    os << "]}},\n    \"results\": [";
    for (size_t i = 0; i < findings.size(); ++i) {
        const Finding& f = findings[i];
        size_t rule_index = 0;
        for (size_t k = 0; k < checks.size(); ++k)
            if (checks[k] == f.check) rule_index = k;
        std::string text = f.message;
        std::vector<std::string> related;
        for (const auto& n : f.notes) {
            if (n.loc.line > 0)
                related.push_back(sarif_location(n.loc, n.message));
            else
                text += " (" + n.message + ")";
        }
        const char* level = f.severity == FindingSeverity::Error     ? "error"
                            : f.severity == FindingSeverity::Warning ? "warning"
                                                                     : "note";
        os << (i ? "," : "") << "\n      {\"ruleId\": \"" << check_id(f.check) << "\", \"ruleIndex\": " << rule_index
           << ", \"level\": \"" << level << "\", \"message\": {\"text\": \"" << support::json_escape(text)
           << "\"}, \"locations\": [" << sarif_location(f.loc) << "]";
        if (!f.kernel.empty()) os << ", \"properties\": {\"kernel\": \"" << support::json_escape(f.kernel) << "\"}";
        if (!related.empty()) {
            os << ", \"relatedLocations\": [";
            for (size_t j = 0; j < related.size(); ++j) os << (j ? ", " : "") << related[j];
            os << "]";
        }
        os << "}";
    }
    os << (findings.empty() ? "" : "\n    ") << "]\n  }]\n}\n";
    return os.str();
}

bool is_suppressed(const Finding& f) {
    const std::string& t = f.loc.line_text;
    size_t hash = t.find('#');
    while (hash != std::string::npos) {
        size_t p = t.find_first_not_of(" \t", hash + 1);
        if (p != std::string::npos && t.compare(p, 5, "weft:") == 0) {
            p = t.find_first_not_of(" \t", p + 5);
            if (p != std::string::npos && t.compare(p, 6, "ignore") == 0) {
                p += 6;
                if (p >= t.size() || t[p] != '[') return true;  // bare "ignore": every check
                size_t close = t.find(']', p);
                std::string list = t.substr(p + 1, close == std::string::npos ? std::string::npos : close - p - 1);
                std::stringstream ss(list);
                std::string id;
                while (std::getline(ss, id, ',')) {
                    id.erase(0, id.find_first_not_of(" \t"));
                    id.erase(id.find_last_not_of(" \t") + 1);
                    if (id == check_id(f.check)) return true;
                }
                return false;
            }
        }
        hash = t.find('#', hash + 1);
    }
    return false;
}

void sort_and_dedupe(std::vector<Finding>& findings) {
    auto key = [](const Finding& f) {
        return std::make_tuple(f.loc.path, f.loc.line, f.loc.col, static_cast<int>(f.check), f.kernel, f.message);
    };
    std::stable_sort(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) { return key(a) < key(b); });
    findings.erase(
        std::unique(findings.begin(), findings.end(), [&](const Finding& a, const Finding& b) { return key(a) == key(b); }),
        findings.end());
}

}  // namespace weft::compiler::audit
