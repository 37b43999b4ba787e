// engine/loss_expr.h: values against sums written out by hand, gradients against central
// differences of the evaluation itself (float64), and every parse and evaluation error with its
// column, caret and did-you-mean.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/loss_expr.h"

namespace {

using namespace weft::engine;

LossInputs inputs() {
    LossInputs in;
    in.particle_count = 3;
    in.arrays["particle_q"] = {0.1, 1.0, -0.2, 0.4, 0.5, 0.3, -0.3, 2.0, 0.7};
    in.arrays["particle_qd"] = {1.0, -2.0, 0.5, 0.0, 0.25, -1.0, 3.0, 1.5, 2.0};
    in.mass = {1.0, 0.0, 3.0};
    return in;
}

// Checks the value and every gradient entry against central differences of evaluate().
void check(const std::string& text, double expected) {
    SCOPED_TRACE(text);
    LossExpr e = LossExpr::parse(text);
    LossInputs in = inputs();
    LossValue v = e.evaluate(in);
    EXPECT_NEAR(v.value, expected, 1e-12);
    for (auto& [name, values] : in.arrays) {
        for (size_t k = 0; k < values.size(); ++k) {
            const double h = 1e-6, x = values[k];
            values[k] = x + h;
            double hi = e.evaluate(in).value;
            values[k] = x - h;
            double lo = e.evaluate(in).value;
            values[k] = x;
            EXPECT_NEAR(v.gradient.at(name)[k], (hi - lo) / (2 * h), 1e-6) << name << " scalar " << k;
        }
    }
}

TEST(LossExpr, ValuesAndGradients) {
    check("mean(particle_q.y)", (1.0 + 0.5 + 2.0) / 3);
    check("sum(particle_q.x + 0.5*particle_q.y)", (0.1 + 0.4 - 0.3) + 0.5 * 3.5);
    check("com(particle_q).y", (1.0 * 1.0 + 3.0 * 2.0) / 4.0);
    check("com(particle_q)", (0.1 * 1 - 0.3 * 3) / 4 + (1.0 + 6.0) / 4 + (-0.2 + 3 * 0.7) / 4);  // a vec3: its components' sum
    check("final(particle_qd[2].x) - 2", 1.0);
    check("max(particle_q.y) + 0.1 * min(particle_qd.z)", 2.0 + 0.1 * -1.0);
    check("sum(particle_q.x * particle_qd.y) / final(particle_q[1].y)", (0.1 * -2.0 + 0.4 * 0.25 - 0.3 * 1.5) / 0.5);
    check("-sum((particle_q - particle_qd) * 2).z", -2 * ((-0.2 - 0.5) + (0.3 + 1.0) + (0.7 - 2.0)));
    check("mean(particle_q.y * particle_q.y) + 1e-1", (1.0 + 0.25 + 4.0) / 3 + 0.1);
    check("sum(particle_q.x / 2 - 3 * particle_qd.x)", (0.1 + 0.4 - 0.3) / 2 - 3 * 4.0);
}

TEST(LossExpr, MinAndMaxPassTheGradientToTheParticleThatAttainsThem) {
    LossValue v = LossExpr::parse("max(particle_q.y)").evaluate(inputs());
    EXPECT_EQ(v.gradient.at("particle_q"), (std::vector<double>{0, 0, 0, 0, 0, 0, 0, 1, 0}));
    EXPECT_EQ(v.gradient.at("particle_qd"), std::vector<double>(9, 0.0));
}

TEST(LossExpr, ScaleIsTheMagnitudeOfWhatWasAdded) {
    LossValue v = LossExpr::parse("sum(particle_q.x - particle_qd.y)").evaluate(inputs());
    EXPECT_NEAR(v.value, 0.2 - (-2.0 + 0.25 + 1.5), 1e-12);
    EXPECT_NEAR(v.scale, 0.8 + 3.75, 1e-12);
    EXPECT_EQ(LossExpr::parse("sum(particle_qd.y + particle_q.x)").arrays(),
              (std::vector<std::string>{"particle_q", "particle_qd"}));
}

std::string parse_error(const std::string& text) {
    try {
        LossExpr::parse(text, "--loss");
    } catch (const LossError& e) { return e.what(); }
    return "(no error)";
}
std::string eval_error(const std::string& text, LossInputs in = inputs()) {
    try {
        LossExpr::parse(text, "--loss").evaluate(in);
    } catch (const LossError& e) { return e.what(); }
    return "(no error)";
}

TEST(LossExpr, ErrorsAreLocatedWithACaret) {
    EXPECT_EQ(parse_error("mean(particle_p.y)"),
              "--loss:1:6: error: unknown State array 'particle_p' (particle_q, particle_qd)\n"
              "    mean(particle_p.y)\n"
              "         ^~~~~~~~~~\n"
              "note: did you mean 'particle_q'?\n");
    EXPECT_EQ(parse_error("maen(particle_q.y)"),
              "--loss:1:1: error: unknown reduction 'maen' (sum, mean, com, min, max, final)\n"
              "    maen(particle_q.y)\n"
              "    ^~~~\n"
              "note: did you mean 'mean'?\n");
    EXPECT_EQ(parse_error("mean(particle_q.y"),
              "--loss:1:18: error: expected ')' to close mean(, got the end\n"
              "    mean(particle_q.y\n"
              "                     ^\n");
    EXPECT_EQ(parse_error("particle_q.y"),
              "--loss:1:1: error: 'particle_q' is a whole array here: reduce it to one number, like mean(particle_q.y)\n"
              "    particle_q.y\n"
              "    ^~~~~~~~~~~~\n");
    EXPECT_EQ(parse_error(""),
              "--loss:1:1: error: empty loss expression: expected something like mean(particle_q.y)\n    \n    ^\n");
}

TEST(LossExpr, EveryMessage) {
    auto first_line = [](const std::string& s) { return s.substr(0, s.find('\n')); };
    const std::pair<const char*, const char*> cases[] = {
        {"sum(particle_q.w)", "--loss:1:16: error: unknown component 'w': use .x, .y or .z"},
        {"sum(particle_q.)", "--loss:1:15: error: expected a component (x, y or z) after '.'"},
        {"sum(particle_q.x.y)", "--loss:1:17: error: expected ')' to close sum(, got '.'"},
        {"final(particle_q[0].x.y)", "--loss:1:22: error: expected ')' to close final(, got '.'"},
        {"mean(particle_q.y).x", "--loss:1:19: error: '.x' of a scalar: only vec3 values have components"},
        {"sum(particle_q.y + particle_qd)", "--loss:1:5: error: cannot add a scalar and a vec3; take a component (.x, .y, .z)"},
        {"sum(particle_q - 1)", "--loss:1:5: error: cannot subtract a vec3 and a scalar; take a component (.x, .y, .z)"},
        {"sum(particle_q * particle_qd)", "--loss:1:5: error: cannot multiply two vec3 values; take components (.x, .y, .z)"},
        {"sum(particle_q.x / particle_qd)", "--loss:1:20: error: cannot divide by a vec3; take a component (.x, .y, .z)"},
        {"sum(mean(particle_q.y))", "--loss:1:5: error: reductions do not nest: 'mean' inside a reduction"},
        {"final(particle_q.y)",
         "--loss:1:7: error: final() takes single values like particle_q[0].x; 'particle_q' is a whole array: reduce it with "
         "sum, mean, com, min or max"},
        {"sum(particle_q[1].y)",
         "--loss:1:5: error: sum() reduces over particles but its argument holds no whole array; use final(...) for single "
         "values"},
        {"min(particle_q)", "--loss:1:5: error: min() needs a scalar per particle; take a component, like min(particle_q.y)"},
        {"mean + 1", "--loss:1:1: error: 'mean' is a reduction: write mean(...)"},
        {"sum(particle_f.x)",
         "--loss:1:5: error: 'particle_f' is a step's force output and has no gradient; use particle_q or particle_qd"},
        {"sum(particle_q[].x)", "--loss:1:16: error: expected a particle index (an integer >= 0) inside '[ ]'"},
        {"sum(particle_q[1234567890].x)", "--loss:1:16: error: particle index 1234567890 is too large"},
        {"final(particle_q[1.x)", "--loss:1:19: error: expected ']' after the index, got '.'"},
        {"final((particle_q)[1][2].x)", "--loss:1:22: error: expected ')' to close final(, got '['"},
        {"sum((particle_q.x + 1)[2])", "--loss:1:23: error: only an array name can be indexed, like particle_q[3]"},
        {"mean(particle_q.y) $", "--loss:1:20: error: unexpected '$' after the expression"},
        {"mean(particle_q.y) +", "--loss:1:21: error: expected a number, an array or a reduction, got the end"},
        {"mean(particle_q.y) * #", "--loss:1:22: error: expected a number, an array or a reduction, got '#'"},
        {"mean(particle_q.y", "--loss:1:18: error: expected ')' to close mean(, got the end"},
        {"(mean(particle_q.y)", "--loss:1:20: error: expected ')' to close the '(' at column 1, got the end"},
    };
    for (const auto& [text, message] : cases) EXPECT_EQ(first_line(parse_error(text)), message) << text;

    EXPECT_EQ(eval_error("final(particle_q[3].x)"),
              "--loss:1:7: error: particle index 3 is out of range (the model has 3 particles)\n"
              "    final(particle_q[3].x)\n"
              "          ^~~~~~~~~~~~~~~\n");
    LossInputs massless = inputs();
    massless.mass = {0, 0, 0};
    EXPECT_EQ(first_line(eval_error("com(particle_q).y", massless)),
              "--loss:1:1: error: com() weighs particles by mass, and the masses of this model sum to 0");
    LossInputs none = inputs();
    none.particle_count = 0;
    EXPECT_EQ(first_line(eval_error("max(particle_q.y)", none)), "--loss:1:1: error: max() of no particles");
}

}  // namespace
