// The parser: statement and expression forms, host code skipped at module level, and
// robustness (no input crashes it: thousands of deterministic mutations of a valid module).
#include <gtest/gtest.h>

#include <random>

#include "compiler/driver.h"
#include "compiler/frontend/lexer.h"
#include "compiler/frontend/parser.h"

namespace {

using namespace weft::compiler;

std::string dump_of(const std::string& src, std::string* errors = nullptr) {
    DiagnosticEngine diags;
    ast::Module m = parse_module("t.py", src, diags);
    if (errors) *errors = diags.format_all();
    return ast::dump(m);
}

TEST(Parser, StatementForms) {
    std::string src = R"(import weft as wp
@wp.kernel
def k(a: wp.array(dtype=float), n: int):
    i = wp.tid()
    x, y = 1, 2
    x += 3
    if i < n and not (x > 2 or y == 1):
        pass
    elif i == 0:
        x = -x
    else:
        y = x if x > y else y
    for j in range(10, 0, -2):
        if j == 4:
            continue
        if j == 2:
            break
    while x > 0:
        x -= 1
    a[i] = 1.0 ** 2 // 3 % 4 @ 5
    return
)";
    std::string errors;
    std::string d = dump_of(src, &errors);
    EXPECT_EQ(errors, "");
    EXPECT_NE(d.find("kernel k(a: wp.array(dtype=float), n: int):"), std::string::npos) << d;
    EXPECT_NE(d.find("(x, y) = (1, 2)"), std::string::npos) << d;
    EXPECT_NE(d.find("if ((i < n) and (not ((x > 2) or (y == 1)))):"), std::string::npos) << d;
    EXPECT_NE(d.find("y = (x if (x > y) else y)"), std::string::npos) << d;
    EXPECT_NE(d.find("for j in range(10, 0, (-2)):"), std::string::npos) << d;
    EXPECT_NE(d.find("a[i] = ((((1.0 ** 2) // 3) % 4) @ 5)"), std::string::npos) << d;
}

TEST(Parser, HostCodeIsSkipped) {
    std::string src = R"(import numpy as np
import weft as wp
from os import path

def host_helper(x):
    return [i for i in range(x)]

class NotAStruct:
    def method(self):
        with open("x") as f:
            pass

@some.other.decorator
def not_ours():
    lambda: 0

@wp.func
def f(x: float) -> float:
    return x

if __name__ == "__main__":
    print({1: 2})
)";
    std::string errors;
    std::string d = dump_of(src, &errors);
    EXPECT_EQ(errors, "");
    EXPECT_NE(d.find("func f(x: float) -> float:"), std::string::npos);
    EXPECT_EQ(d.find("host_helper"), std::string::npos);
    EXPECT_EQ(d.find("not_ours"), std::string::npos);
}

TEST(Parser, LineContinuationsCommentsDocstrings) {
    std::string src =
        "import weft as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float)):\n"
        "    \"\"\"Docstring\n    over lines.\"\"\"\n"
        "    x = 1.0 + \\\n        2.0  # comment\n"
        "    y = (x +\n         3.0)\n    a[0] = y\n";
    std::string errors;
    std::string d = dump_of(src, &errors);
    EXPECT_EQ(errors, "");
    EXPECT_NE(d.find("x = (1.0 + 2.0)"), std::string::npos) << d;
}

TEST(Parser, NumberLiterals) {
    DiagnosticEngine diags;
    SourceFile f{"t.py", "0x1F 0o17 0b101 1_000 1.5e3 .5 7.", 0};
    auto toks = tokenize(f, diags);
    EXPECT_FALSE(diags.has_errors());
    ASSERT_GE(toks.size(), 7u);
    EXPECT_EQ(toks[0].int_value, 31);
    EXPECT_EQ(toks[1].int_value, 15);
    EXPECT_EQ(toks[2].int_value, 5);
    EXPECT_EQ(toks[3].int_value, 1000);
    EXPECT_DOUBLE_EQ(toks[4].float_value, 1500.0);
    EXPECT_DOUBLE_EQ(toks[5].float_value, 0.5);
    EXPECT_DOUBLE_EQ(toks[6].float_value, 7.0);
}

// No input crashes the front end: mutate a valid module many ways (deterministic seed) and run
// the whole front end on each. The libFuzzer targets (fuzz/) do this for much longer.
TEST(Parser, MutationsNeverCrash) {
    std::string base = R"(import weft as wp
C = wp.constant(3)
@wp.struct
class S:
    a: float
    b: wp.vec3
@wp.func
def f(x: float, v: wp.vec3) -> float:
    return x * wp.length(v)
@wp.kernel(block_dim=64)
def k(a: wp.array(dtype=float), s: wp.array(dtype=S), n: int):
    i = wp.tid()
    sh = wp.shared_array(shape=(64,), dtype=float)
    sh[wp.thread_idx()] = a[i]
    wp.sync_threads()
    for j in range(n):
        if j % 2 == 0 and i < C:
            a[i] += f(s[i].a, s[i].b) * float(j)
        else:
            a[i] = wp.max(a[i], 0.0)
    while a[i] > 1.0:
        a[i] = a[i] / 2.0
)";
    const std::string alphabet = "()[]{}:.,=+-*/%@<>!~#\"'\\\n\t abcxyz0123456789_";
    std::mt19937 rng(12345);
    for (int iter = 0; iter < 3000; ++iter) {
        std::string s = base;
        int edits = 1 + static_cast<int>(rng() % 6);
        for (int e = 0; e < edits && !s.empty(); ++e) {
            size_t pos = rng() % s.size();
            switch (rng() % 4) {
                case 0: s.erase(pos, 1 + rng() % 8); break;
                case 1: s.insert(pos, 1, alphabet[rng() % alphabet.size()]); break;
                case 2: s[pos] = alphabet[rng() % alphabet.size()]; break;
                case 3: s.insert(pos, s.substr(rng() % s.size(), rng() % 30)); break;
            }
        }
        DiagnosticEngine diags;
        auto m = analyze_module({{"fuzz.py", s, 0}}, {}, diags);
        if (!diags.has_errors()) { generate_code(*m, {}); }
        (void)diags.format_all();
    }
    SUCCEED();
}

}  // namespace

namespace {

// A kernel whose one expression is `head` followed by `n` copies of `step`.
std::string chain_module(const std::string& head, const std::string& step, int n) {
    std::string e = head;
    for (int k = 0; k < n; ++k) e += step;
    return "import weft as wp\n@wp.kernel\ndef k(a: wp.array(dtype=float), b: wp.array(dtype=int)):\n    i = wp.tid()\n    x = "
           "a[i]\n"
           "    y = b[i]\n    t = " +
           e + "\n";
}

std::string errors_of(const std::string& src) {
    DiagnosticEngine diags;
    auto m = analyze_module({{"chain.py", src, 0}}, {}, diags);
    if (!diags.has_errors()) generate_code(*m, {});
    return diags.format_all();
}

}  // namespace

// Chains of binary operators, comparisons, `and`/`or`, subscripts and attributes are parsed by
// loops, but sema, the passes and codegen recurse on the trees they make: 70,000 terms once
// overflowed the stack in sema. Every such tree is capped at 256 levels with a located error.
TEST(Parser, DeepChainsAreCappedWithALocatedError) {
    const char* kMsg =
        "error: expression is too deep (more than 256 operators, calls or subscripts nested); split it into "
        "several statements";
    struct Case {
        const char* head;
        const char* step;
    };
    for (Case c : {Case{"x", " + 1.0"}, Case{"x", " * x"}, Case{"y", " | y"}, Case{"y", " << 1"}, Case{"y < 1", " and y < 1"},
                   Case{"y < 1", " or y < 1"}, Case{"y", " < y"}, Case{"a[i]", " - a[i]"}}) {
        std::string err = errors_of(chain_module(c.head, c.step, 70000));
        EXPECT_NE(err.find(kMsg), std::string::npos) << c.step << ": " << err.substr(0, 300);
        EXPECT_EQ(err.rfind("chain.py:7:", 0), 0u) << c.step << ": " << err.substr(0, 300);
        EXPECT_EQ(errors_of(chain_module(c.head, c.step, 200)), "") << c.step;
    }
    // the location is the operand that crosses the limit: column of the 256th `1.0`
    std::string err = errors_of(chain_module("x", " + 1.0", 300));
    EXPECT_EQ(err.rfind("chain.py:7:" + std::to_string(7 + 256 * 6) + ": error: expression is too deep", 0), 0u) << err;
    // nested parentheses around chains count too
    std::string nested = "x";
    for (int k = 0; k < 30; ++k) nested = "(" + nested + " + 1.0 + 1.0 + 1.0 + 1.0 + 1.0 + 1.0 + 1.0 + 1.0 + 1.0 + 1.0)";
    EXPECT_NE(errors_of(chain_module(nested, "", 0)).find(kMsg), std::string::npos);
}
