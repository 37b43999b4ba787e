// tape/gradient_check.cpp: finite differences at two steps against the Tape's gradients, entry
// sampling, golden comparison and their text tables.
#include "tape/gradient_check.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <sstream>

#include "compiler/types.h"
#include "runtime/errors.h"

namespace weft::tape {

namespace {

bool is_f64(const runtime::Array& a) { return a.dtype()->scalar == compiler::ScalarKind::Float64; }

int64_t scalar_count(const runtime::Array& a) { return int64_t(a.nbytes() / (is_f64(a) ? 8 : 4)); }

// One scalar of an array, read and written through the host (unrecorded: no Tape sees it).
class ScalarAccess {
public:
    explicit ScalarAccess(runtime::Array a) : a_(std::move(a)), bytes_(a_.nbytes()) {
        a_.copy_to_host(bytes_.data(), bytes_.size());
    }
    double get(int64_t i) const {
        if (is_f64(a_)) {
            double d;
            std::memcpy(&d, bytes_.data() + 8 * i, 8);
            return d;
        }
        float f;
        std::memcpy(&f, bytes_.data() + 4 * i, 4);
        return f;
    }
    // Writes x (rounded to the storage type) and returns the value stored.
    double set(int64_t i, double x) {
        std::vector<std::byte> b = bytes_;
        double stored;
        if (is_f64(a_)) {
            std::memcpy(b.data() + 8 * i, &x, 8);
            stored = x;
        } else {
            float f = float(x);
            std::memcpy(b.data() + 4 * i, &f, 4);
            stored = f;
        }
        a_.write_from_host(b.data(), b.size());
        return stored;
    }
    void restore() { a_.write_from_host(bytes_.data(), bytes_.size()); }

private:
    runtime::Array a_;
    std::vector<std::byte> bytes_;
};

std::string g(double v) {
    char b[32];
    snprintf(b, sizeof b, "%.6g", v);
    return b;
}

}  // namespace

std::vector<double> read_scalars(const runtime::Array& a) {
    if (!compiler::is_float(compiler::scalar_type(a.dtype()->scalar)) || compiler::is_struct(a.dtype()) ||
        (a.dtype()->scalar != compiler::ScalarKind::Float32 && !is_f64(a)))
        throw runtime::RuntimeError("gradient check: " + a.describe() + " is not float32 or float64 storage");
    ScalarAccess s(a);
    std::vector<double> out(size_t(scalar_count(a)));
    for (size_t i = 0; i < out.size(); ++i) out[i] = s.get(int64_t(i));
    return out;
}

std::vector<size_t> sample_entries(const std::vector<double>& adjoint, int max_entries) {
    const size_t n = adjoint.size(), k = size_t(std::max(1, max_entries));
    std::set<size_t> pick;
    if (n <= k) {
        for (size_t i = 0; i < n; ++i) pick.insert(i);
    } else {
        std::vector<size_t> order(n);
        for (size_t i = 0; i < n; ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](size_t a, size_t b) { return std::abs(adjoint[a]) > std::abs(adjoint[b]); });
        for (size_t i = 0; i < k / 2; ++i) pick.insert(order[i]);
        for (size_t i = 0; pick.size() < k && i < k; ++i) pick.insert(i * (n - 1) / (k - 1));
        for (size_t i = 0; pick.size() < k && i < n; ++i) pick.insert(order[i]);
    }
    return {pick.begin(), pick.end()};
}

GradientCheckResult check_gradients(const std::function<double()>& loss, double loss_value, std::vector<CheckedParam> params,
                                    const GradientCheckOptions& o) {
    GradientCheckResult r;
    r.loss = loss_value;
    for (CheckedParam& p : params) {
        const int64_t n = scalar_count(p.array);
        read_scalars(p.array);  // checks the storage
        if (p.scalars.empty())
            for (int64_t i = 0; i < n; ++i) p.scalars.push_back(i);
        if (p.adjoint.size() != p.scalars.size())
            throw runtime::RuntimeError("gradient check of '" + p.name + "': " + std::to_string(p.adjoint.size()) +
                                        " adjoint values for " + std::to_string(p.scalars.size()) + " scalars");
        ParamCheck pc;
        pc.name = p.name;
        pc.total = p.scalars.size();
        ScalarAccess access(p.array);
        for (size_t e : sample_entries(p.adjoint, o.max_entries)) {
            EntryCheck c;
            c.scalar = p.scalars[e];
            c.label = e < p.labels.size() ? p.labels[e] : p.name + "[" + std::to_string(c.scalar) + "]";
            c.value = access.get(c.scalar);
            c.adjoint = p.adjoint[e];
            c.eps = p.eps > 0 ? p.eps : o.eps * std::max(1.0, std::abs(c.value));
            auto central = [&](double h) {
                double hi = access.set(c.scalar, c.value + h);
                double l_hi = loss();
                double lo = access.set(c.scalar, c.value - h);
                double l_lo = loss();
                access.restore();
                return (l_hi - l_lo) / (hi - lo);
            };
            c.fd = central(c.eps);
            c.fd_half = central(c.eps / 2);
            const double scale = std::max(o.loss_scale, std::abs(loss_value));
            c.atol = std::max(o.atol, 8 * o.loss_precision * scale / (2 * c.eps));
            const double rtol = p.rtol > 0 ? p.rtol : o.rtol;
            auto close = [&](double a, double b) { return std::abs(a - b) <= c.atol + rtol * std::abs(b); };
            c.rel_error = std::abs(c.adjoint - c.fd) / std::max(std::abs(c.fd), std::max(c.atol, 1e-300));
            c.passed = std::isfinite(c.adjoint) && (close(c.adjoint, c.fd) || close(c.adjoint, c.fd_half));
            // The finite differences can judge the adjoint when they agree, or when their spread is
            // small next to the adjoint's distance from both (a quarter of it: the adjoint is to blame).
            const double spread = std::abs(c.fd - c.fd_half);
            const double off = std::min(std::abs(c.adjoint - c.fd), std::abs(c.adjoint - c.fd_half));
            c.smooth = std::isfinite(c.fd) && std::isfinite(c.fd_half) && (close(c.fd_half, c.fd) || 4 * spread < off);
            pc.passed &= c.passed;
            if (std::isfinite(c.rel_error)) pc.max_rel_error = std::max(pc.max_rel_error, c.rel_error);
            pc.entries.push_back(c);
        }
        r.passed &= pc.passed;
        r.params.push_back(std::move(pc));
    }
    return r;
}

std::string format_gradient_check(const GradientCheckResult& r) {
    std::ostringstream os;
    char line[256];
    for (const ParamCheck& p : r.params) {
        int failed = 0, rough = 0;
        for (const EntryCheck& e : p.entries) {
            failed += !e.passed;
            rough += !e.passed && !e.smooth;
        }
        os << "d loss / d " << p.name << ": " << p.entries.size() << " of " << p.total << " entries checked, max rel error "
           << g(p.max_rel_error) << ", " << (p.passed ? "ok" : std::to_string(failed) + " disagree") << "\n";
        snprintf(line, sizeof line, "  %-28s %13s %13s %13s %13s %10s\n", "entry", "value", "adjoint", "fd", "fd (eps/2)",
                 "rel error");
        os << line;
        for (const EntryCheck& e : p.entries) {
            snprintf(line, sizeof line, "  %-28s %13s %13s %13s %13s %10s%s\n", e.label.c_str(), g(e.value).c_str(),
                     g(e.adjoint).c_str(), g(e.fd).c_str(), g(e.fd_half).c_str(), g(e.rel_error).c_str(),
                     e.passed   ? ""
                     : e.smooth ? "  <- disagrees"
                                : "  <- fd not smooth");
            os << line;
        }
        if (rough)
            os << "  " << rough << " disagreeing entr" << (rough == 1 ? "y has" : "ies have")
               << " finite differences that change with eps (eps and eps/2 disagree): the loss is not smooth at this scale "
               << "(contact switching, clamping) or round-off dominates\n";
    }
    return os.str();
}

GoldenComparison compare_golden(const GradientValues& now, const GradientValues& golden, double rtol) {
    GoldenComparison c;
    if (now.has_loss && golden.has_loss) {
        double tol = rtol * std::max(std::abs(golden.loss), 1e-12);
        if (!(std::abs(now.loss - golden.loss) <= tol)) c.moved.push_back({"loss", "loss", golden.loss, now.loss});
    }
    for (const auto& [name, g_now] : now.gradients) {
        auto it = golden.gradients.find(name);
        if (it == golden.gradients.end()) {
            c.problems.push_back("the golden file has no gradient for '" + name + "' (run with --update to add it)");
            continue;
        }
        const GoldenGradient& gold = it->second;
        if (gold.values.size() != g_now.values.size()) {
            c.problems.push_back("'" + name + "' has " + std::to_string(g_now.values.size()) + " entries, the golden " +
                                 std::to_string(gold.values.size()) + " (the scene changed; run with --update)");
            continue;
        }
        double scale = 0;
        for (double v : gold.values) scale = std::max(scale, std::abs(v));
        for (size_t i = 0; i < gold.values.size(); ++i) {
            double tol = rtol * std::max(std::abs(gold.values[i]), 1e-3 * scale);
            if (!(std::abs(g_now.values[i] - gold.values[i]) <= tol))
                c.moved.push_back({name, i < g_now.labels.size() ? g_now.labels[i] : name + "[" + std::to_string(i) + "]",
                                   gold.values[i], g_now.values[i]});
        }
    }
    c.passed = c.problems.empty() && c.moved.empty();
    if (!c.passed) {
        std::ostringstream os;
        for (const auto& p : c.problems) os << "golden: " << p << "\n";
        if (!c.moved.empty()) {
            char line[256];
            os << "golden: " << c.moved.size() << " value" << (c.moved.size() == 1 ? "" : "s") << " moved beyond rtol " << g(rtol)
               << ":\n";
            snprintf(line, sizeof line, "  %-28s %14s %14s %11s\n", "entry", "golden", "now", "rel change");
            os << line;
            for (size_t i = 0; i < c.moved.size() && i < 20; ++i) {
                const GoldenMove& m = c.moved[i];
                double rel = std::abs(m.now - m.golden) / std::max(std::abs(m.golden), 1e-30);
                snprintf(line, sizeof line, "  %-28s %14s %14s %11s\n", m.label.c_str(), g(m.golden).c_str(), g(m.now).c_str(),
                         g(rel).c_str());
                os << line;
            }
            if (c.moved.size() > 20) os << "  ... and " << c.moved.size() - 20 << " more\n";
        }
        c.table = os.str();
    }
    return c;
}

std::string describe_golden_update(const GradientValues* old, const GradientValues& now, double rtol) {
    std::ostringstream os;
    if (!old) {
        os << "  new: loss = " << g(now.loss) << "\n";
        for (const auto& [name, gr] : now.gradients)
            os << "  new: d loss / d " << name << " (" << gr.values.size() << " entries)\n";
        return os.str();
    }
    GoldenComparison c = compare_golden(now, *old, rtol);
    for (const GoldenMove& m : c.moved)
        if (m.param == "loss") os << "  changed: loss " << g(m.golden) << " -> " << g(m.now) << "\n";
    for (const auto& [name, gr] : now.gradients) {
        auto it = old->gradients.find(name);
        if (it == old->gradients.end()) {
            os << "  new: d loss / d " << name << " (" << gr.values.size() << " entries)\n";
            continue;
        }
        if (it->second.values.size() != gr.values.size()) {
            os << "  changed: d loss / d " << name << " now has " << gr.values.size() << " entries (was "
               << it->second.values.size() << ")\n";
            continue;
        }
        int moved = 0;
        double worst = 0;
        for (const GoldenMove& m : c.moved)
            if (m.param == name) {
                ++moved;
                worst = std::max(worst, std::abs(m.now - m.golden) / std::max(std::abs(m.golden), 1e-30));
            }
        if (moved)
            os << "  changed: d loss / d " << name << ": " << moved << " of " << gr.values.size()
               << " entries (largest relative change " << g(worst) << ")\n";
    }
    for (const auto& [name, gr] : old->gradients)
        if (!now.gradients.count(name)) os << "  kept: d loss / d " << name << " (not checked in this run)\n";
    std::string s = os.str();
    return s.empty() ? "  unchanged (within rtol " + g(rtol) + ")\n" : s;
}

}  // namespace weft::tape
