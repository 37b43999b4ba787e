// Findings' text, JSON and SARIF forms, ordering and per-line suppression.
#include <gtest/gtest.h>

#include "compiler/audit/finding.h"
#include "compiler/driver.h"

namespace weft::compiler::audit {
namespace {

Finding sample(const std::string& line_text, Check c = Check::BankConflict) {
    Finding f;
    f.check = c;
    f.severity = FindingSeverity::Warning;
    f.kernel = "k";
    f.loc = {"m.py", 12, 9, 4, line_text};
    f.message = "2-way bank conflict";
    f.notes.push_back({{}, "lanes 0 and 16 both use bank 0"});
    f.notes.push_back({{"m.py", 10, 5, 1, "    s[t] = x"}, "written here"});
    return f;
}

TEST(Findings, TextIsClangStyle) {
    std::string t = format_text(sample("    out[t] = s[2 * t]"));
    EXPECT_EQ(t,
              "m.py:12:9: warning: [bank-conflict] 2-way bank conflict (kernel 'k')\n"
              "        out[t] = s[2 * t]\n"
              "            ^~~~\n"
              "note: lanes 0 and 16 both use bank 0\n"
              "m.py:10:5: note: written here\n"
              "        s[t] = x\n"
              "        ^\n");
}

TEST(Findings, JsonAndSarif) {
    std::vector<Finding> fs = {sample("    a \"quoted\"")};
    std::string j = format_json(fs);
    EXPECT_NE(j.find("\"check\": \"bank-conflict\", \"severity\": \"warning\", \"kernel\": \"k\""), std::string::npos) << j;
    EXPECT_NE(j.find("\"location\": {\"path\": \"m.py\", \"line\": 12, \"col\": 9, \"len\": 4}"), std::string::npos) << j;
    std::string s = format_sarif(fs, "1.0");
    EXPECT_NE(s.find("\"version\": \"2.1.0\""), std::string::npos);
    EXPECT_NE(s.find("\"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\""), std::string::npos);
    EXPECT_NE(s.find("\"ruleId\": \"bank-conflict\", \"ruleIndex\": 4, \"level\": \"warning\""), std::string::npos) << s;
    EXPECT_NE(s.find("\"region\": {\"startLine\": 12, \"startColumn\": 9, \"endColumn\": 13, \"snippet\": {\"text\": \"    a "
                     "\\\"quoted\\\"\"}}"),
              std::string::npos)
        << s;
    EXPECT_NE(s.find("\"relatedLocations\": [{\"message\": {\"text\": \"written here\"}"), std::string::npos) << s;
    EXPECT_NE(s.find("(lanes 0 and 16 both use bank 0)"), std::string::npos) << s;
    // One rule per check id, in a stable order.
    size_t last = 0;
    for (Check c : all_checks()) {
        size_t at = s.find("{\"id\": \"" + std::string(check_id(c)) + "\"");
        ASSERT_NE(at, std::string::npos) << check_id(c);
        EXPECT_GT(at, last);
        last = at;
    }
    EXPECT_EQ(format_json({}), "{\n  \"findings\": []\n}\n");
}

TEST(Findings, Suppression) {
    EXPECT_TRUE(is_suppressed(sample("    s[2 * t] = x  # weft: ignore[bank-conflict]")));
    EXPECT_TRUE(is_suppressed(sample("    s[2 * t] = x  # weft: ignore[shared-race, bank-conflict]")));
    EXPECT_TRUE(is_suppressed(sample("    s[2 * t] = x  # weft: ignore")));
    EXPECT_FALSE(is_suppressed(sample("    s[2 * t] = x  # weft: ignore[shared-race]")));
    EXPECT_FALSE(is_suppressed(sample("    s[2 * t] = x  # bank-conflict is fine")));
    EXPECT_FALSE(is_suppressed(sample("    s[2 * t] = x")));
}

TEST(Findings, SortAndDedupe) {
    std::vector<Finding> fs = {sample("x"), sample("x"), sample("x", Check::SharedRace)};
    fs[2].loc.line = 3;
    sort_and_dedupe(fs);
    ASSERT_EQ(fs.size(), 2u);
    EXPECT_EQ(fs[0].loc.line, 3);
    Check c;
    EXPECT_TRUE(check_from_id("barrier-divergence", &c));
    EXPECT_EQ(c, Check::BarrierDivergence);
    EXPECT_FALSE(check_from_id("bank", &c));
}

// Item 7 of the audit issue: a module-level name that is not a constant, func or struct is
// already a compile error when a kernel uses it; the audit relies on that. (A literal assignment,
// `counter = 0`, is a constant captured by value, as in Warp; a computed one is not.)
TEST(Findings, NonConstantGlobalIsACompileError) {
    std::string src =
        "import weft as wp\n"
        "counter = len('abc')\n"
        "@wp.kernel\n"
        "def k(a: wp.array(dtype=int)):\n"
        "    a[wp.tid()] = counter\n";
    DiagnosticEngine diags;
    analyze_module({{"g.py", src, 0}}, {}, diags);
    ASSERT_TRUE(diags.has_errors());
    EXPECT_NE(diags.format_all().find("g.py:5:19: error:"), std::string::npos) << diags.format_all();
}

}  // namespace
}  // namespace weft::compiler::audit
