// tape/gradient_check.h: gradient regression checks of any differentiable computation: the
// gradients a Tape gave against central finite differences at two step sizes, and against stored
// (golden) gradients. One mechanism behind `weft gradcheck` (apps/cmd_gradcheck.cpp), the
// GoogleTest helper tape/testing.h and the engine's own gradient tests
// (docs/gradient-testing.md).
//
//   tape::CheckedParam p{"spring_stiffness", model.spring_stiffness};
//   p.adjoint = read_scalars(*model.spring_stiffness.grad());      // after tape.backward(...)
//   GradientCheckResult r = check_gradients([&] { return run_forward(); }, loss, {p}, options);
//   printf("%s", format_gradient_check(r).c_str());
//
// Per checked entry x_i (a sample of at most max_entries per parameter: evenly spread plus the
// largest adjoints; every entry of a small parameter):
//
//   fd(h)   = (L(x_i + h) - L(x_i - h)) / (x_i+h - (x_i-h) as stored)     h = eps max(1, |x_i|)
//   tol     = atol_i + rtol |fd(h)|,   atol_i = max(atol, 8 loss_precision S / 2h), the second
//             term being the finite difference's own round-off: the last bits of the loss's
//             magnitude S (options.loss_scale, else |L|) over 2h
//   passes  when |adjoint - fd(h)| <= tol, or the same at h/2
//   smooth  when fd(h) and fd(h/2) agree within the same tolerance, or differ by less than a
//           quarter of the adjoint's distance from the nearer of them (the adjoint is to blame)
//
// An entry that fails and is not smooth is reported as "finite differences not smooth at eps"
// (a contact switching, a clamp, or round-off of the arrays' precision within h), not as a wrong
// adjoint. Parameters are float32 or float64 arrays (vectors and matrices count their scalars).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "runtime/array.h"

namespace weft::tape {

struct CheckedParam {
    std::string name;                 // "spring_stiffness", "particle_qd[0]"
    runtime::Array array;             // perturbed in place by finite differences (restored after)
    std::vector<int64_t> scalars;     // flat scalar indices checked; empty = every scalar
    std::vector<std::string> labels;  // one per scalar (empty: name[k])
    std::vector<double> adjoint;      // d loss / d scalar, one per entry of `scalars` (the Tape's)
    double eps = 0.0;                 // finite-difference step h; 0: options.eps max(1, |x|)
    double rtol = 0.0;                // 0: options.rtol
};

struct GradientCheckOptions {
    double eps = 1e-2;                      // relative step (float32 rollouts; 1e-6 suits float64)
    double rtol = 1e-2;                     // |adjoint - fd| <= atol_i + rtol |fd|
    double atol = 0.0;                      // the least atol_i (the round-off floor is added by itself)
    double loss_precision = 1.1920929e-07;  // relative precision of the loss (float32's epsilon; 2.2e-16 for float64)
    double loss_scale = 0.0;                // magnitude of the terms summed into the loss (LossValue::scale); 0: |loss|
    int max_entries = 8;                    // entries checked per parameter
};

struct EntryCheck {
    std::string label;
    int64_t scalar = 0;
    double value = 0, eps = 0, adjoint = 0, fd = 0, fd_half = 0;
    double atol = 0;       // atol_i of this entry
    double rel_error = 0;  // |adjoint - fd| / max(|fd|, atol_i)
    bool passed = true;
    bool smooth = true;  // the finite differences can judge the adjoint (see above)
};

struct ParamCheck {
    std::string name;
    size_t total = 0;  // scalars of the parameter
    std::vector<EntryCheck> entries;
    bool passed = true;
    double max_rel_error = 0;
};

struct GradientCheckResult {
    double loss = 0;
    std::vector<ParamCheck> params;
    bool passed = true;
};

// `loss` reruns the forward computation without recording and returns the loss; it is called
// four times per checked entry. Throws runtime::RuntimeError for a parameter that is not float
// storage or whose adjoint does not match its scalars.
GradientCheckResult check_gradients(const std::function<double()>& loss, double loss_value, std::vector<CheckedParam> params,
                                    const GradientCheckOptions& options = {});

// Which of n entries to check: all when n <= max_entries, else evenly spread ones and the largest
// |adjoint| ones, in increasing order.
std::vector<size_t> sample_entries(const std::vector<double>& adjoint, int max_entries);

// Every scalar of a float32/float64 array (its gradient, typically), as doubles.
std::vector<double> read_scalars(const runtime::Array& a);

// A table per parameter: entry, value, adjoint, fd, rel error, and a mark on those that disagree;
// then one line per cause found ("not smooth at eps").
std::string format_gradient_check(const GradientCheckResult& r);

// [SECTION] Goldens: stored gradients and loss, compared entry by entry.
struct GoldenGradient {
    std::vector<double> values;
    std::vector<std::string> labels;  // optional, for the diff table
};
struct GradientValues {
    double loss = 0;
    bool has_loss = true;
    std::map<std::string, GoldenGradient> gradients;  // by parameter name
};

struct GoldenMove {
    std::string param, label;
    double golden = 0, now = 0;
};

struct GoldenComparison {
    bool passed = true;
    std::vector<std::string> problems;  // missing parameters, changed sizes
    std::vector<GoldenMove> moved;      // entries beyond the tolerance, the loss as param "loss"
    std::string table;                  // "" when it passed
};

// An entry has moved when |now - golden| > rtol max(|golden|, 1e-3 max_j |golden_j|) (relative
// to the entry, floored at a thousandth of the parameter's largest). Parameters of `golden` that
// `now` lacks are not compared (a check of fewer parameters is fine).
GoldenComparison compare_golden(const GradientValues& now, const GradientValues& golden, double rtol);

// What an update from `old` (null: none) to `now` changes, one line each: new parameters, moved
// entries (count and largest relative change), the loss, dropped parameters; "unchanged" if none.
std::string describe_golden_update(const GradientValues* old, const GradientValues& now, double rtol);

}  // namespace weft::tape
