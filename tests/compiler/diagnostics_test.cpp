// Every diagnostic case in diag_cases.txt compiled and compared, text and caret, with the
// reviewed output in diag_cases.expected (a golden file, like clang's -verify tests).
// Regenerate after an intended change with WEFT_UPDATE_GOLDEN=1 and review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "compiler/driver.h"

namespace {

using namespace weft::compiler;

struct Case {
    std::string name;
    std::string source;
};

std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<Case> load_cases(const std::string& text) {
    std::vector<Case> cases;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("=== ", 0) == 0) {
            cases.push_back({line.substr(4), "import weft as wp\n\n"});
            continue;
        }
        if (!cases.empty()) cases.back().source += line + "\n";
    }
    return cases;
}

std::string diagnose(const Case& c) {
    DiagnosticEngine diags;
    analyze_module({{"case.py", c.source, 0}}, {}, diags);
    return diags.format_all();
}

std::map<std::string, std::string> load_expected(const std::string& text) {
    std::map<std::string, std::string> out;
    std::istringstream in(text);
    std::string line, name;
    while (std::getline(in, line)) {
        if (line.rfind("=== ", 0) == 0) {
            name = line.substr(4);
            out[name];
            continue;
        }
        out[name] += line + "\n";
    }
    return out;
}

TEST(Diagnostics, GoldenCases) {
    std::string dir = WEFT_TEST_DIR;
    auto cases = load_cases(read(dir + "/diag_cases.txt"));
    ASSERT_GE(cases.size(), 40u);
    if (const char* u = std::getenv("WEFT_UPDATE_GOLDEN"); u && *u == '1') {
        std::ofstream out(dir + "/diag_cases.expected");
        for (const auto& c : cases) out << "=== " << c.name << "\n" << diagnose(c);
        GTEST_SKIP() << "golden file rewritten";
    }
    auto expected = load_expected(read(dir + "/diag_cases.expected"));
    for (const auto& c : cases) {
        SCOPED_TRACE(c.name);
        ASSERT_TRUE(expected.count(c.name)) << "no expected output for case '" << c.name << "'";
        std::string got = diagnose(c);
        EXPECT_EQ(got, expected[c.name]);
        EXPECT_NE(got.find("error:"), std::string::npos) << "every case must produce an error";
    }
}

TEST(Diagnostics, CompileModuleThrowsWithAllErrors) {
    std::string src = "import weft as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = nope1\n    a[1] = nope2\n";
    try {
        compile_module({{"m.py", src, 0}}, {});
        FAIL() << "expected CompileError";
    } catch (const CompileError& e) {
        EXPECT_EQ(e.diagnostics.size(), 2u);
        EXPECT_NE(std::string(e.what()).find("m.py:4:12: error: use of undeclared name 'nope1'"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("m.py:5:12: error: use of undeclared name 'nope2'"), std::string::npos);
    }
}

TEST(Diagnostics, LineOffsetOfChunksFromPython) {
    // A function handed over from Python starts at its line in the original file.
    std::string src = "import weft as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n    a[0] = nope\n";
    DiagnosticEngine diags;
    analyze_module({{"user/script.py", src, 40}}, {}, diags);
    EXPECT_NE(diags.format_all().find("user/script.py:44:12: error"), std::string::npos) << diags.format_all();
}

TEST(Diagnostics, ErrorLimitStopsCleanly) {
    std::string src = "import weft as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n";
    for (int i = 0; i < 50; ++i) src += "    a[0] = undefined" + std::to_string(i) + "\n";
    DiagnosticEngine diags;
    analyze_module({{"m.py", src, 0}}, {}, diags);
    EXPECT_NE(diags.format_all().find("too many errors; stopping"), std::string::npos);
    EXPECT_LE(diags.diagnostics().size(), 22u);
}

TEST(Diagnostics, MissingAttributeOfAnImportedModule) {
    // `geo.name` names geometry's own definitions: a near name is suggested, and a name the
    // caller's file defines is pointed at rather than taken.
    std::string geometry =
        "import weft as wp\n@wp.struct\nclass Segment:\n    a: wp.vec3\n\n@wp.func\ndef box_sdf(x: float) -> float:\n    return "
        "x\n";
    std::string user = R"(import weft as wp
import geometry as geo
import geometry

@wp.func
def h(x: float) -> float:
    return x

@wp.kernel
def k(a: wp.array(dtype=float), s: wp.array(dtype=geo.Segmnt)):
    i = wp.tid()
    a[i] = geo.box_sfd(a[i])
    a[i] = geo.h(a[i])
    a[i] = geometry.nothing_near
)";
    DiagnosticEngine diags;
    analyze_module({{"kernels/geometry.py", geometry, 0}, {"kernels/user.py", user, 0}}, {}, diags);
    EXPECT_EQ(diags.format_all(), R"(kernels/user.py:10:51: error: module 'geometry' (imported as 'geo') has no attribute 'Segmnt'
    def k(a: wp.array(dtype=float), s: wp.array(dtype=geo.Segmnt)):
                                                      ^~~~~~~~~~
note: did you mean 'Segment'?
kernels/user.py:12:12: error: module 'geometry' (imported as 'geo') has no attribute 'box_sfd'
        a[i] = geo.box_sfd(a[i])
               ^~~~~~~~~~~
note: did you mean 'box_sdf'?
kernels/user.py:13:12: error: module 'geometry' (imported as 'geo') has no attribute 'h'
        a[i] = geo.h(a[i])
               ^~~~~
kernels/user.py:6:5: note: 'h' is defined here, outside module 'geometry'
    def h(x: float) -> float:
        ^
kernels/user.py:14:12: error: module 'geometry' has no attribute 'nothing_near'
        a[i] = geometry.nothing_near
               ^~~~~~~~~~~~~~~~~~~~~
)");
}

}  // namespace
