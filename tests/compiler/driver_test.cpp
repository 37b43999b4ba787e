// The compile driver (compiler/driver.cpp): its pass tests, WEFT_DUMP_IR and WEFT_VERIFY_IR.
//
// Pass tests read like LLVM's lit tests. Each file under tests/compiler/passes/ is a kernel
// module whose comments say which passes to dump and what the dump must hold:
//
//   # RUN: lower_jumps              the passes to dump after (as WEFT_DUMP_IR takes them)
//   # CHECK: text                   a later line of the output contains `text`
//   # CHECK-NEXT: text              the line right after the last match contains `text`
//   # CHECK-NOT: text               no line between the last match and the next contains `text`
//
// The output is what the driver dumps ("; after <pass>" and what the pass made), then the text
// of a CompileError if the module has errors. Matching is by substring, in order, as FileCheck's
// without regular expressions. The IR verifier runs after every pass of every file.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compiler/driver.h"

namespace {

using namespace weft::compiler;
namespace fs = std::filesystem;

struct Check {
    enum Kind { Plain, Next, Not } kind;
    std::string text;
    int line;  // in the test file
};

struct PassTest {
    std::string path;
    std::string source;
    std::string run;
    std::vector<Check> checks;
};

std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

PassTest load(const fs::path& p) {
    PassTest t;
    t.path = p.string();
    t.source = read(p);
    std::istringstream lines(t.source);
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
        ++n;
        auto take = [&](const std::string& tag, std::string& out) {
            size_t at = line.find("# " + tag + ": ");
            if (at == std::string::npos) return false;
            out = line.substr(at + tag.size() + 4);
            return true;
        };
        std::string text;
        if (take("RUN", text))
            t.run = text;
        else if (take("CHECK-NEXT", text))
            t.checks.push_back({Check::Next, text, n});
        else if (take("CHECK-NOT", text))
            t.checks.push_back({Check::Not, text, n});
        else if (take("CHECK", text))
            t.checks.push_back({Check::Plain, text, n});
    }
    return t;
}

std::string output_of(const PassTest& t) {
    std::ostringstream out;
    CompileOptions o;
    o.dump_ir = t.run;
    o.dump_to = &out;
    o.verify_ir = true;
    try {
        compile_module({{fs::path(t.path).filename().string(), t.source, 0}}, o);
    } catch (const CompileError& e) { out << e.what(); }
    return out.str();
}

// FileCheck: returns "" when the checks hold, else what failed.
std::string file_check(const std::vector<Check>& checks, const std::string& output) {
    std::vector<std::string> lines;
    std::istringstream in(output);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    size_t next = 0;  // first line the next check may match
    std::vector<const Check*> nots;
    for (const Check& c : checks) {
        if (c.kind == Check::Not) {
            nots.push_back(&c);
            continue;
        }
        size_t found = lines.size();
        if (c.kind == Check::Next) {
            if (next < lines.size() && lines[next].find(c.text) != std::string::npos) found = next;
        } else {
            for (size_t i = next; i < lines.size(); ++i)
                if (lines[i].find(c.text) != std::string::npos) {
                    found = i;
                    break;
                }
        }
        if (found == lines.size())
            return "line " + std::to_string(c.line) + ": " + (c.kind == Check::Next ? "CHECK-NEXT" : "CHECK") + ": '" + c.text +
                   "' not found" + (next < lines.size() ? " (from output line " + std::to_string(next + 1) + ")" : "");
        for (const Check* n : nots)
            for (size_t i = next; i < found; ++i)
                if (lines[i].find(n->text) != std::string::npos)
                    return "line " + std::to_string(n->line) + ": CHECK-NOT: '" + n->text + "' found at output line " +
                           std::to_string(i + 1);
        nots.clear();
        next = found + 1;
    }
    for (const Check* n : nots)
        for (size_t i = next; i < lines.size(); ++i)
            if (lines[i].find(n->text) != std::string::npos)
                return "line " + std::to_string(n->line) + ": CHECK-NOT: '" + n->text + "' found at output line " +
                       std::to_string(i + 1);
    return "";
}

std::vector<fs::path> pass_test_files() {
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(WEFT_PASS_TESTS))
        if (e.is_regular_file() && e.path().extension() == ".py") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

class PassFiles : public testing::TestWithParam<fs::path> {};

TEST_P(PassFiles, OutputMatchesItsChecks) {
    PassTest t = load(GetParam());
    ASSERT_FALSE(t.run.empty()) << t.path << ": no '# RUN: <passes>' line";
    ASSERT_FALSE(t.checks.empty()) << t.path << ": no CHECK lines";
    std::string out = output_of(t);
    std::string failed = file_check(t.checks, out);
    EXPECT_EQ(failed, "") << t.path << "\noutput:\n" << out;
}

INSTANTIATE_TEST_SUITE_P(Driver, PassFiles, testing::ValuesIn(pass_test_files()), [](const testing::TestParamInfo<fs::path>& p) {
    std::string name = fs::relative(p.param, WEFT_PASS_TESTS).replace_extension().string();
    for (char& c : name)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
    return name;
});

// Every pass has its tests.
TEST(Driver, EveryPassHasPassTests) {
    for (const std::string& pass : pass_names()) {
        bool found = false;
        for (const auto& f : pass_test_files()) found = found || load(f).run.find(pass) != std::string::npos;
        EXPECT_TRUE(found) << "no file under tests/compiler/passes/ runs " << pass;
    }
}

// The runner itself: a check that does not hold is reported with its line.
TEST(Driver, FileCheckReportsWhatFailed) {
    std::string out = "a\nb\nc\n";
    EXPECT_EQ(file_check({{Check::Plain, "a", 1}, {Check::Next, "b", 2}}, out), "");
    EXPECT_EQ(file_check({{Check::Plain, "a", 1}, {Check::Next, "c", 2}}, out),
              "line 2: CHECK-NEXT: 'c' not found (from output line 2)");
    EXPECT_EQ(file_check({{Check::Plain, "a", 1}, {Check::Not, "b", 2}, {Check::Plain, "c", 3}}, out),
              "line 2: CHECK-NOT: 'b' found at output line 2");
    EXPECT_EQ(file_check({{Check::Plain, "c", 1}, {Check::Plain, "a", 2}}, out), "line 2: CHECK: 'a' not found");
}

const char* kKernel = R"(import weft as wp
@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    if a[i] < 0.0:
        return
    a[i] = a[i] * 2.0
)";

TEST(Driver, DumpAllPrintsAfterEveryPassInOrder) {
    std::ostringstream out;
    CompileOptions o;
    o.dump_ir = "all";
    o.dump_to = &out;
    compile_module({{"k.py", kKernel, 0}}, o);
    size_t at = 0;
    for (const std::string& pass : pass_names()) {
        size_t p = out.str().find("; after " + pass + "\n", at);
        ASSERT_NE(p, std::string::npos) << pass << "\n" << out.str();
        at = p;
    }
}

TEST(Driver, UnknownPassIsAnErrorListingThePasses) {
    CompileOptions o;
    o.dump_ir = "sema,lower_jump";
    try {
        compile_module({{"k.py", kKernel, 0}}, o);
        FAIL() << "no error";
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(),
                     "WEFT_DUMP_IR: unknown pass 'lower_jump'; the passes are parse, sema, check_differentiable, "
                     "param_access, lower_jumps, codegen, and 'all' prints after each of them");
    }
}

TEST(Driver, DumpAndVerifyFollowTheEnvironment) {
    ASSERT_EQ(setenv("WEFT_DUMP_IR", "nonsense", 1), 0);
    EXPECT_THROW(compile_module({{"k.py", kKernel, 0}}, {}), std::invalid_argument);
    ASSERT_EQ(setenv("WEFT_DUMP_IR", "", 1), 0);
    ASSERT_EQ(setenv("WEFT_VERIFY_IR", "1", 1), 0);
    EXPECT_NO_THROW(compile_module({{"k.py", kKernel, 0}}, {}));
    unsetenv("WEFT_VERIFY_IR");
    unsetenv("WEFT_DUMP_IR");
}

// Without errors, the dump of one pass is exactly what the pass made (no other pass's output).
TEST(Driver, OnePassDumpsOnlyItself) {
    std::ostringstream out;
    CompileOptions o;
    o.dump_ir = "param_access";
    o.dump_to = &out;
    compile_module({{"k.py", kKernel, 0}}, o);
    EXPECT_EQ(out.str(), "; after param_access\nk.a: read written\n");
}

}  // namespace
