// Findings of the kernel audit, and their three output forms.
//
//   kernels/reduce.py:12:9: error: [shared-race] threads 0 and 1 access s[1] in the same barrier interval
//           s[t] = s[t + 1]
//           ^~~~~~~~~~~~~~~
//   note: thread 1 writes s[1] at line 12; thread 0 reads s[1] at line 12
//
// A finding is the audit's counterpart of a compiler Diagnostic, with its own stable check id
// (what `# weft: ignore[ID]` and SARIF's ruleId name) and a severity. Locations are captured as
// plain values (path, display line, column, source line), so findings outlive the module.
//
// [SECTION] Check ids     bounds, divergence, barrier-divergence, shared-race, bank-conflict,
//                         uncoalesced, resources, oversize-constant
// [SECTION] Finding       check, severity, location, message, notes (witnesses)
// [SECTION] Output        text (clang-style), JSON, SARIF 2.1.0
// [SECTION] Suppression   `# weft: ignore[bank-conflict]` / `# weft: ignore` on the flagged line
#pragma once

#include <string>
#include <vector>

#include "compiler/diagnostics.h"

namespace weft::compiler::audit {

// [SECTION] Check ids
enum class Check {
    Bounds,
    Divergence,
    BarrierDivergence,
    SharedRace,
    BankConflict,
    Uncoalesced,
    Resources,
    OversizeConstant,
    WarpSyncDivergence
};
const char* check_id(Check c);           // "shared-race"
const char* check_description(Check c);  // one sentence (SARIF rule text, docs)
const std::vector<Check>& all_checks();
bool check_from_id(const std::string& id, Check* out);

enum class FindingSeverity { Note, Warning, Error };
const char* severity_name(FindingSeverity s);  // "note", "warning", "error"

// [SECTION] Finding
struct FindingLoc {
    std::string path;       // as given to the compiler
    int line = 0;           // display line (1-based); 0 = no location
    int col = 0;            // 1-based
    int len = 1;            // characters underlined
    std::string line_text;  // the source line, for the caret
};
FindingLoc capture_loc(const SourceLoc& loc);

struct FindingNote {
    FindingLoc loc;  // may be empty (line 0)
    std::string message;
};

struct Finding {
    Check check = Check::Bounds;
    FindingSeverity severity = FindingSeverity::Warning;
    std::string kernel;  // the kernel it was found in
    FindingLoc loc;
    std::string message;
    std::vector<FindingNote> notes;  // witnesses: thread ids, addresses, other lines, suggestions
};

// [SECTION] Output
std::string format_text(const Finding& f);                      // clang-style block
std::string format_json(const std::vector<Finding>& findings);  // {"findings": [...]}
std::string format_sarif(const std::vector<Finding>& findings, const std::string& tool_version);

// [SECTION] Suppression
// True if the flagged source line carries `# weft: ignore` or `# weft: ignore[...]` naming this
// check (ids separated by commas).
bool is_suppressed(const Finding& f);
// Sorted by path, line, column, check; exact duplicates (same check, place and message) removed.
void sort_and_dedupe(std::vector<Finding>& findings);

}  // namespace weft::compiler::audit
