// Domain rules for the finite-difference check of builtin adjoints. See builtin_domains.h.
//
// Every argument starts uniform in [-1, 1] (square matrices get a heavy diagonal so that they are
// well conditioned; quaternions, and the rotation of transforms, are normalised). The table below
// then reshapes the arguments of the builtins that need it. Margins are at least 0.1, against a
// stencil reach of 2h = 1/32 (float32) or 1/512 (float64).
#include "tests/tape/builtin_domains.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>

namespace weft::test {

namespace {

using compiler::Type;
using compiler::TypeKind;

double uniform(std::mt19937& rng, double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); }

// A magnitude in [lo, hi] with a random sign: away from zero.
double signed_uniform(std::mt19937& rng, double lo, double hi) {
    const double m = uniform(rng, lo, hi);
    return uniform(rng, 0, 1) < 0.5 ? -m : m;
}

double quantize(double v) { return std::ldexp(std::round(std::ldexp(v, 20)), -20); }

bool is(const std::string& name, std::initializer_list<const char*> names) {
    for (const char* n : names)
        if (name == n) return true;
    return false;
}

void normalize(std::vector<double>& c, size_t begin, size_t n) {
    double s = 0;
    for (size_t k = begin; k < begin + n; ++k) s += c[k] * c[k];
    s = std::sqrt(s);
    for (size_t k = begin; k < begin + n; ++k) c[k] /= s;
}

// A unit quaternion (x, y, z, w) whose component `big` dominates: its rotation matrix makes
// quat_from_matrix take Shepperd's branch `big` (3: trace >= 0; 0, 1, 2: the largest diagonal
// element) with a margin of about 0.5 on the trace and 1 on the diagonal comparisons.
std::vector<double> quat_favouring(int big, std::mt19937& rng) {
    std::vector<double> q(4);
    for (int k = 0; k < 4; ++k) q[static_cast<size_t>(k)] = k == big ? uniform(rng, 0.85, 1.0) : signed_uniform(rng, 0.1, 0.3);
    normalize(q, 0, 4);
    return q;
}

// The rotation matrix of a unit quaternion (x, y, z, w), row by row.
std::vector<double> rotation_matrix(const std::vector<double>& q) {
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    return {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 2 * (x * y + z * w),    1 - 2 * (x * x + z * z),
            2 * (y * z - x * w),     2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
}

double dot4(const std::vector<double>& a, const std::vector<double>& b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}

}  // namespace

std::vector<std::vector<double>> domain_point(const compiler::BuiltinOverload& o, int e, std::mt19937& rng) {
    const std::string& n = o.name;
    std::vector<std::vector<double>> x(o.params.size());
    for (size_t a = 0; a < o.params.size(); ++a) {
        const Type t = o.params[a].type;
        if (compiler::is_int(t)) {
            const double exponents[kDomainPoints] = {3, -2, 5, 4};
            x[a] = {n == "pow_int" ? exponents[e] : 2.0};
            continue;
        }
        const size_t nc = static_cast<size_t>(compiler::component_count(t));
        x[a].resize(nc);
        for (double& v : x[a]) v = uniform(rng, -1, 1);
        if (compiler::is_matrix(t) && t->rows == t->cols)  // diagonally heavy: well conditioned
            for (int d = 0; d < t->rows; ++d) x[a][static_cast<size_t>(d * t->cols + d)] += t->rows == 6 ? 3 : 2;
        if (t->kind == TypeKind::Quat) normalize(x[a], 0, 4);
        if (t->kind == TypeKind::Transform) normalize(x[a], 3, 4);
    }

    if (is(n, {"sqrt", "cbrt", "log", "log2", "log10"})) {
        x[0][0] = uniform(rng, 0.5, 2);
    } else if (n == "pow") {  // x^y with x > 0
        x[0][0] = uniform(rng, 0.5, 2);
        x[1][0] = uniform(rng, -1.5, 1.5);
    } else if (n == "pow_int") {  // negative exponents too
        x[0][0] = uniform(rng, 0.5, 1.5);
    } else if (is(n, {"asin", "acos"})) {
        x[0][0] = uniform(rng, -0.8, 0.8);
    } else if (is(n, {"abs", "sign", "step"})) {  // kink or jump at 0
        for (double& v : x[0]) v = signed_uniform(rng, 0.2, 1);
    } else if (is(n, {"floor", "ceil", "round", "rint", "trunc", "frac",
                      "nonzero"})) {  // jumps at integers (round, rint: at halves)
        x[0][0] = (uniform(rng, 0, 1) < 0.5 ? -1 : 1) * (e % 3 + uniform(rng, 0.1, 0.4));
    } else if (is(n, {"mod", "pymod", "floordiv"})) {  // jumps where a / b is an integer (per component)
        for (size_t c = 0; c < x[0].size(); ++c) {
            const double b = signed_uniform(rng, 0.7, 2);
            x[1][c] = b;
            x[0][c] = b * (uniform(rng, 0, 1) < 0.5 ? -1 : 1) * ((e + static_cast<int>(c)) % 2 + uniform(rng, 0.2, 0.8));
        }
    } else if (is(n, {"div", "cw_div"})) {  // the divisor away from zero
        for (double& v : x[1]) v = signed_uniform(rng, 0.5, 2);
    } else if (n == "atan2") {  // away from the origin and from the branch cut's jump
        x[0][0] = signed_uniform(rng, 0.3, 1);
        x[1][0] = signed_uniform(rng, 0.3, 1);
    } else if (is(n, {"min", "max"}) && o.params.size() == 2) {  // a and b apart in every component
        for (size_t c = 0; c < x[0].size(); ++c) x[1][c] = x[0][c] + signed_uniform(rng, 0.2, 0.6);
    } else if (is(n, {"min", "max"})) {  // the smallest/largest component is unique by 0.4
        std::vector<double>& v = x[0];
        for (size_t c = 0; c < v.size(); ++c) v[c] = -0.9 + 0.5 * static_cast<double>(c) + uniform(rng, 0, 0.1);
        std::shuffle(v.begin(), v.end(), rng);
    } else if (n == "clamp") {  // inside, below low, above high, inside
        x[1][0] = uniform(rng, -1, -0.5);
        x[2][0] = uniform(rng, 0.5, 1);
        const double lo[kDomainPoints] = {-0.3, -1.8, 1.2, -0.3}, hi[kDomainPoints] = {0.3, -1.2, 1.8, 0.3};
        x[0][0] = uniform(rng, lo[e], hi[e]);
    } else if (n == "smoothstep") {  // between the edges, then below edge0 and above edge1 (flat: zero derivative)
        x[0][0] = uniform(rng, -2, -1.2);
        x[1][0] = uniform(rng, 1.2, 2);
        const double lo[kDomainPoints] = {-1, -1, -3, 2.2}, hi[kDomainPoints] = {1, 1, -2.2, 3};
        x[2][0] = uniform(rng, lo[e], hi[e]);
    } else if (is(n, {"determinant", "inverse"}) && e >= 2) {  // rows rotated: partial pivoting must swap
        const size_t rows = static_cast<size_t>(o.params[0].type->rows);
        std::rotate(x[0].begin(), x[0].begin() + static_cast<std::ptrdiff_t>(rows * static_cast<size_t>(e - 1)), x[0].end());
    } else if (is(n, {"length", "normalize"})) {  // away from the zero vector
        double s = 0;
        for (double v : x[0]) s += v * v;
        if (std::sqrt(s) < 0.5) x[0][0] += x[0][0] < 0 ? -0.6 : 0.6;
    } else if (n == "quat_from_matrix") {  // a rotation matrix; the points take all four branches
        const int big[kDomainPoints] = {3, 0, 1, 2};
        x[0] = rotation_matrix(quat_favouring(big[e], rng));
    } else if (n == "quat_slerp") {  // the shorter arc with 0.3 < q0 . q1 < 0.95: no flip, no linear fallback
        for (;;) {
            std::vector<double> q1 = x[0];
            for (double& v : q1) v += uniform(rng, -0.8, 0.8);
            normalize(q1, 0, 4);
            const double d = dot4(x[0], q1);
            if (d > 0.3 && d < 0.95) {
                x[1] = q1;
                break;
            }
        }
        x[2][0] = uniform(rng, 0.2, 0.8);
    }

    for (auto& arg : x)
        for (double& v : arg) v = quantize(v);
    return x;
}

}  // namespace weft::test
