// Every differentiable builtin overload, differentiated through the whole pipeline (sema, the
// adjoint code generator, the device's compiler, a backward launch), against central finite
// differences of the same forward kernel: float64 overloads to a relative error of 1e-6,
// float32 overloads to 1e-2. Piecewise-constant builtins must have an adjoint of exactly zero;
// builtins without an adjoint must be a compile error naming them (builtin_adjoint_cases.h has
// the classes).
//
// For overload f, kernel k<index>_call computes out[i] = wp.f(in0[i], in1[i], ...); operators get
// a second kernel in operator syntax (in0[i] * in1[i], in0[i] @ in1[i]) and same-typed parameters
// a third with one variable as every argument (builtin_adjoint_cases.h, Form).
// The loss is L = sum_e sum_k w_ek out[e]_k over kDomainPoints points e (builtin_domains.h) with
// fixed random weights w, so every component of a vector, matrix, quaternion or transform result
// counts. Its gradient comes once from the backward launch (out.grad = w) and once from the
// five-point central difference
//     dL/dx ~ (8 (L(x + h) - L(x - h)) - (L(x + 2h) - L(x - 2h))) / 12h,      error O(h^4),
// evaluated in one forward launch whose threads are the perturbed copies of the points. The
// fourth-order stencil allows a large step (h = 2^-10 in float64, 2^-6 in float32), where the
// rounding error of L, about eps |L| / h, is small: 1e-13 |L| in float64 and 1e-5 |L| in float32,
// far below the tolerances, so a disagreement is an adjoint bug, not noise. Steps are powers of
// two and the points multiples of 2^-20, so x ± h and x ± 2h are exact in either precision.
//
// The comparison of component j at a point is |adjoint - fd| <= tol * max(|fd|, |adjoint|, c G),
// with G the largest |fd| at that point and c = 1e-3 (float64) or 1e-2 (float32): relative, and
// absolute for components much smaller than the gradient's largest.
//
// The kernels are compiled in a few modules of kBatch kernels each. The CPU runs every overload;
// sim:h200 (slow) and cuda:0 run a representative subset, kDeviceSubset.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "compiler/diagnostics.h"
#include "compiler/passes/check_differentiable.h"
#include "tests/runtime/devices/kernel_test_util.h"
#include "tests/tape/builtin_adjoint_cases.h"
#include "tests/tape/builtin_domains.h"

namespace {

using namespace weft;
using compiler::BuiltinOverload;
using compiler::ScalarKind;
using compiler::Type;
using test::AdjointClass;

constexpr size_t kBatch = 70;

// One overload of each kind of value and rule; they run on sim:h200 and cuda:0 as well.
const char* const kDeviceSubset[] = {
    "sqrt(x: float32) -> float32",
    "pow(x: float64, y: float64) -> float64",
    "atan2(y: float32, x: float32) -> float32",
    "clamp(x: float64, low: float64, high: float64) -> float64",
    "floor(x: float32) -> float32",
    "normalize(a: vec3f) -> vec3f",
    "cross(a: vec3d, b: vec3d) -> vec3d",
    "mul(a: mat33d, b: vec3d) -> vec3d",
    "inverse(a: mat33f) -> mat33f",
    "determinant(a: mat44d) -> float64",
    "quat_rotate(q: quatf, v: vec3f) -> vec3f",
    "quat_slerp(q0: quatd, q1: quatd, t: float64) -> quatd",
    "quat_from_matrix(m: mat33f) -> quatf",
    "transform_point(t: transformd, point: vec3d) -> vec3d",
    "spatial_cross(a: spatial_vector, b: spatial_vector) -> spatial_vector",
};

const std::vector<BuiltinOverload>& table() { return compiler::builtin_table().overloads(); }

// The variants a device runs, in table order.
std::vector<test::Variant> variants_for(const std::string& device) {
    std::vector<test::Variant> all = test::sweep_variants();
    if (device == "cpu") return all;
    std::vector<test::Variant> out;
    for (const auto& v : all)
        for (const char* s : kDeviceSubset)
            if (compiler::signature_text(table()[v.overload]) == s) out.push_back(v);
    return out;
}

// [SECTION] values as flat float64 components

double scalar_at(const std::byte* p, ScalarKind s) {
    switch (s) {
        case ScalarKind::Float32: {
            float f;
            std::memcpy(&f, p, 4);
            return f;
        }
        case ScalarKind::Float64: {
            double d;
            std::memcpy(&d, p, 8);
            return d;
        }
        case ScalarKind::Int32: {
            int32_t i;
            std::memcpy(&i, p, 4);
            return i;
        }
        default: ADD_FAILURE() << "unexpected scalar kind"; return 0;
    }
}

void put_scalar(std::byte* p, ScalarKind s, double v) {
    switch (s) {
        case ScalarKind::Float32: {
            float f = static_cast<float>(v);
            std::memcpy(p, &f, 4);
            return;
        }
        case ScalarKind::Float64: std::memcpy(p, &v, 8); return;
        case ScalarKind::Int32: {
            int32_t i = static_cast<int32_t>(v);
            std::memcpy(p, &i, 4);
            return;
        }
        default: ADD_FAILURE() << "unexpected scalar kind";
    }
}

std::vector<std::byte> to_bytes(Type t, const std::vector<double>& flat) {
    const size_t w = static_cast<size_t>(compiler::scalar_bits(t->scalar) / 8);
    std::vector<std::byte> b(flat.size() * w);
    for (size_t k = 0; k < flat.size(); ++k) put_scalar(b.data() + k * w, t->scalar, flat[k]);
    return b;
}

runtime::Array array_from(Type t, const std::vector<double>& flat, const runtime::Device& d, bool grad) {
    const size_t nc = static_cast<size_t>(compiler::component_count(t));
    EXPECT_EQ(compiler::type_size(t), nc * static_cast<size_t>(compiler::scalar_bits(t->scalar) / 8)) << compiler::type_name(t);
    auto bytes = to_bytes(t, flat);
    runtime::Array a = runtime::Array::empty(t, {static_cast<int64_t>(flat.size() / nc)}, d, grad);
    a.copy_from_host(bytes.data(), bytes.size());
    return a;
}

std::vector<double> flat_of(const runtime::Array& a) {
    Type t = a.dtype();
    std::vector<std::byte> b(a.nbytes());
    a.copy_to_host(b.data(), b.size());
    const size_t w = static_cast<size_t>(compiler::scalar_bits(t->scalar) / 8);
    std::vector<double> out(b.size() / w);
    for (size_t k = 0; k < out.size(); ++k) out[k] = scalar_at(b.data() + k * w, t->scalar);
    return out;
}

// FNV-1a: a seed that depends on the overload only, not on its place in the table.
uint32_t seed_of(const std::string& s) {
    uint32_t h = 2166136261u;
    for (char c : s) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
    return h;
}

std::string point_text(const std::vector<std::vector<double>>& x) {
    std::ostringstream s;
    s.precision(9);
    for (size_t a = 0; a < x.size(); ++a) {
        s << (a ? ", " : "") << "(";
        for (size_t c = 0; c < x[a].size(); ++c) s << (c ? " " : "") << x[a][c];
        s << ")";
    }
    return s.str();
}

// [SECTION] the check of one overload

struct Tally {
    int compared = 0;
    double worst = 0;  // largest relative error seen
};

void check_variant(const test::Variant& v, const std::shared_ptr<runtime::Module>& m, const runtime::Device& d, Tally& tally) {
    const BuiltinOverload& o = table()[v.overload];
    const bool zero = test::classify(o).cls == AdjointClass::ZeroAdjoint;
    const bool single = o.ret->scalar == ScalarKind::Float32;
    const double h = single ? 1.0 / 64 : 1.0 / 1024;
    const double tol = single ? 1e-2 : 1e-6;
    const double floor_rel = single ? 1e-2 : 1e-3;
    const double floor_abs = single ? 1e-3 : 1e-6;  // derivatives that vanish (x / x) are compared absolutely
    const int P = test::kDomainPoints;
    const std::string kernel = test::kernel_name(v);
    const std::vector<size_t> ap = test::array_params(v);  // the kernel's array i feeds parameter ap[i]
    const size_t np = ap.size();

    std::mt19937 rng(seed_of(compiler::signature_text(o)));
    std::vector<std::vector<std::vector<double>>> x(P);  // x[point][param][component]
    for (int e = 0; e < P; ++e) x[static_cast<size_t>(e)] = test::domain_point(o, e, rng);
    const size_t nr = static_cast<size_t>(compiler::component_count(o.ret));
    std::vector<double> w(static_cast<size_t>(P) * nr);
    for (double& v : w) v = std::ldexp(std::round(std::ldexp(std::uniform_real_distribution<double>(-1.5, 1.5)(rng), 20)), -20);

    // The adjoint: forward launch, out.grad = w, backward launch.
    std::vector<runtime::Array> ins;
    std::vector<runtime::LaunchArg> args;
    for (size_t a = 0; a < np; ++a) {
        std::vector<double> flat;
        for (int e = 0; e < P; ++e) flat.insert(flat.end(), x[e][ap[a]].begin(), x[e][ap[a]].end());
        const Type t = o.params[ap[a]].type;
        ins.push_back(array_from(t, flat, d, compiler::passes::is_differentiable(t)));
        args.push_back(runtime::LaunchArg::of(ins.back()));
    }
    runtime::Array out = runtime::Array::zeros(o.ret, {P}, d, true);
    args.push_back(runtime::LaunchArg::of(out));
    test::run(m, kernel, {P}, args, d);
    auto wb = to_bytes(o.ret, w);
    out.grad()->copy_from_host(wb.data(), wb.size());
    runtime::LaunchOptions bo;
    bo.device = d;
    bo.adjoint = true;
    runtime::launch(m->kernel(kernel), {P}, args, bo);
    std::vector<std::vector<double>> grad(np);
    for (size_t a = 0; a < np; ++a)
        if (ins[a].requires_grad()) grad[a] = flat_of(*ins[a].grad());

    // The finite differences: one thread per perturbed copy of a point.
    struct Row {
        int e;
        size_t a, c;
        int step;  // -2, -1, 1, 2 (times h)
    };
    std::vector<Row> rows;
    for (int e = 0; e < P; ++e)
        for (size_t a = 0; a < np; ++a)
            if (ins[a].requires_grad())
                for (size_t c = 0; c < x[e][ap[a]].size(); ++c)
                    for (int s : {-2, -1, 1, 2}) rows.push_back({e, a, c, s});
    std::vector<runtime::LaunchArg> fd_args;
    std::vector<runtime::Array> fd_ins;
    for (size_t a = 0; a < np; ++a) {
        std::vector<double> flat;
        for (const Row& r : rows) {
            std::vector<double> value = x[r.e][ap[a]];
            if (r.a == a) value[r.c] += r.step * h;
            flat.insert(flat.end(), value.begin(), value.end());
        }
        fd_ins.push_back(array_from(o.params[ap[a]].type, flat, d, false));
        fd_args.push_back(runtime::LaunchArg::of(fd_ins.back()));
    }
    runtime::Array fd_out = runtime::Array::zeros(o.ret, {static_cast<int64_t>(rows.size())}, d);
    fd_args.push_back(runtime::LaunchArg::of(fd_out));
    test::run(m, kernel, {static_cast<int64_t>(rows.size())}, fd_args, d);
    const std::vector<double> y = flat_of(fd_out);
    auto loss = [&](size_t row) {
        double l = 0;
        for (size_t k = 0; k < nr; ++k) l += w[static_cast<size_t>(rows[row].e) * nr + k] * y[row * nr + k];
        return l;
    };

    // Rows come in fours (-2h, -h, +h, +2h) per (point, param, component).
    std::vector<double> fd(rows.size() / 4);
    for (size_t q = 0; q < fd.size(); ++q)
        fd[q] = (8 * (loss(4 * q + 2) - loss(4 * q + 1)) - (loss(4 * q + 3) - loss(4 * q))) / (12 * h);
    std::vector<double> largest(P, 0.0);
    for (size_t q = 0; q < fd.size(); ++q) largest[rows[4 * q].e] = std::max(largest[rows[4 * q].e], std::abs(fd[q]));
    for (size_t q = 0; q < fd.size(); ++q) {
        const Row& r = rows[4 * q];
        const double g = grad[r.a][static_cast<size_t>(r.e) * x[r.e][ap[r.a]].size() + r.c];
        std::ostringstream where;
        where << "d L / d " << o.params[ap[r.a]].name << "[" << r.c << "] at point " << r.e << " " << point_text(x[r.e])
              << ": adjoint " << g << ", finite difference " << fd[q];
        ++tally.compared;
        if (zero) {
            EXPECT_EQ(g, 0.0) << where.str() << " (a piecewise-constant builtin has a zero adjoint)";
            EXPECT_EQ(fd[q], 0.0) << where.str() << " (the point is on a jump: fix builtin_domains.cpp)";
            continue;
        }
        const double scale = std::max({std::abs(fd[q]), std::abs(g), floor_rel * largest[r.e], floor_abs});
        const double err = scale > 0 ? std::abs(g - fd[q]) / scale : 0.0;
        tally.worst = std::max(tally.worst, err);
        EXPECT_LE(err, tol) << where.str() << " (relative error " << err << ")";
    }
}

// [SECTION] modules: the device's overloads in batches of kBatch kernels, each compiled once

std::shared_ptr<runtime::Module> batch_module(const std::string& device, size_t batch) {
    static std::mutex mu;
    static std::map<std::pair<bool, size_t>, std::shared_ptr<runtime::Module>> cache;
    const bool all = device == "cpu";
    std::lock_guard<std::mutex> lock(mu);
    auto& m = cache[{all, batch}];
    if (!m) {
        const std::vector<test::Variant> list = variants_for(device);
        std::string src;
        for (size_t j = batch * kBatch; j < std::min(list.size(), (batch + 1) * kBatch); ++j) src += test::sweep_kernel(list[j]);
        m = test::module_of(src, "builtin_adjoint_sweep_" + std::string(all ? "all" : "subset") + std::to_string(batch) + ".py");
    }
    return m;
}

struct SweepParam {
    std::string device;
    std::string builtin;  // empty: every variant the device runs (kDeviceSubset)
};
void PrintTo(const SweepParam& p, std::ostream* os) {
    *os << (p.builtin.empty() ? std::string("subset") : p.builtin) << " on " << p.device;
}

// One test per builtin on the CPU; one test for the whole subset on sim:h200 and cuda:0, whose
// modules are expensive to load (ptxas runs once per loaded module for the occupancy model).
std::vector<SweepParam> sweep_params() {
    std::vector<SweepParam> out;
    std::vector<std::string> names;
    for (const auto& v : variants_for("cpu")) {
        const std::string& n = table()[v.overload].name;
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    }
    for (const auto& n : names) out.push_back({"cpu", n});
    out.push_back({"sim:h200", ""});
    out.push_back({"cuda:0", ""});
    return out;
}

class BuiltinAdjoint : public ::testing::TestWithParam<SweepParam> {};

// Every overload of one builtin on one device; a failure names the overload (SCOPED_TRACE).
TEST_P(BuiltinAdjoint, MatchesCentralFiniteDifferences) {
    const runtime::Device dev = runtime::parse_device(GetParam().device);
    if (!runtime::device_available(dev)) GTEST_SKIP() << "device " << GetParam().device << " is not available here";
    const std::vector<test::Variant> list = variants_for(GetParam().device);
    int checked = 0, compared = 0;
    double worst[2] = {0, 0};  // float64, float32
    for (size_t j = 0; j < list.size(); ++j) {
        const BuiltinOverload& o = table()[list[j].overload];
        if (!GetParam().builtin.empty() && o.name != GetParam().builtin) continue;
        SCOPED_TRACE(compiler::signature_text(o) + " as " + test::form_name(list[j].form) + ", kernel " +
                     test::kernel_name(list[j]) + ", on " + GetParam().device);
        std::shared_ptr<runtime::Module> m;
        try {
            m = batch_module(GetParam().device, j / kBatch);
        } catch (const std::exception& e) { FAIL() << "the sweep module does not compile:\n" << e.what(); }
        Tally t;
        try {
            check_variant(list[j], m, dev, t);
        } catch (const std::exception& e) { ADD_FAILURE() << e.what(); }
        EXPECT_GT(t.compared, 0);
        ++checked;
        compared += t.compared;
        double& w = worst[o.ret->scalar == ScalarKind::Float32 ? 1 : 0];
        w = std::max(w, t.worst);
    }
    EXPECT_GT(checked, 0);
    std::cout << (GetParam().builtin.empty() ? "subset" : GetParam().builtin) << " on " << GetParam().device << ": " << checked
              << " kernels, " << compared << " derivatives compared; largest relative error " << worst[0] << " (float64), "
              << worst[1] << " (float32)\n";
}

INSTANTIATE_TEST_SUITE_P(Sweep, BuiltinAdjoint, ::testing::ValuesIn(sweep_params()), [](const auto& info) {
    std::string n = info.param.device + "_" + (info.param.builtin.empty() ? "subset" : info.param.builtin);
    for (char& c : n)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    return n;
});

// [SECTION] operators on non-square matrices (not in the table: only operators reach them)

// a @ b, a @ v, u @ a, b @ a, a * s, a / s, a + a, a - a, -a with a 2x3 and b 3x2, through one
// weighted sum L, against the same five-point difference as the sweep, in float64.
TEST(BuiltinAdjointOperators, NonSquareMatrixProducts) {
    const runtime::Device dev;
    if (!runtime::device_available(dev)) GTEST_SKIP() << "this build has no CPU JIT";
    auto m = test::module_of(R"(
@wp.kernel
def k(a: wp.array(dtype=wp.mat(shape=(2, 3), dtype=wp.float64)), b: wp.array(dtype=wp.mat(shape=(3, 2), dtype=wp.float64)),
      v: wp.array(dtype=wp.vec3d), u: wp.array(dtype=wp.vec2d), out: wp.array(dtype=wp.float64)):
    m = a[0] @ b[0]
    n = b[0] @ a[0]
    w = a[0] @ v[0]
    z = u[0] @ a[0]
    c = a[0] * 2.0 + a[0] / 3.0 - a[0] * a[0][1, 1]
    d = -c
    out[0] = (m[0, 0] * 0.3 - m[0, 1] * 0.7 + m[1, 0] * 0.4 + m[1, 1] * 0.9 + n[2, 0] * 0.4 - n[1, 2] * 0.9 + n[0, 0] * 0.2
              + w[0] * 0.5 - w[1] * 0.8 + z[0] * 0.2 + z[1] * 0.6 - z[2] * 0.3 + d[0, 2] * 0.7 - d[1, 1] * 0.5)
)",
                             "nonsquare.py");
    const Type types[] = {compiler::matrix_type(2, 3, ScalarKind::Float64), compiler::matrix_type(3, 2, ScalarKind::Float64),
                          compiler::vector_type(3, ScalarKind::Float64), compiler::vector_type(2, ScalarKind::Float64)};
    std::mt19937 rng(7);
    std::vector<std::vector<double>> x;
    for (Type t : types) {
        x.emplace_back(static_cast<size_t>(compiler::component_count(t)));
        for (double& c : x.back())
            c = std::ldexp(std::round(std::ldexp(std::uniform_real_distribution<double>(-1, 1)(rng), 20)), -20);
    }
    auto run_at = [&](const std::vector<std::vector<double>>& at, bool backward, std::vector<std::vector<double>>* grads) {
        std::vector<runtime::Array> ins;
        std::vector<runtime::LaunchArg> args;
        for (size_t a = 0; a < at.size(); ++a) {
            ins.push_back(array_from(types[a], at[a], dev, backward));
            args.push_back(runtime::LaunchArg::of(ins.back()));
        }
        runtime::Array out = runtime::Array::zeros(compiler::float64_type(), {1}, dev, backward);
        args.push_back(runtime::LaunchArg::of(out));
        test::run(m, "k", {1}, args, dev);
        if (backward) {
            const double one = 1.0;
            out.grad()->copy_from_host(&one, sizeof one);
            runtime::LaunchOptions o;
            o.device = dev;
            o.adjoint = true;
            runtime::launch(m->kernel("k"), {1}, args, o);
            for (const auto& in : ins) grads->push_back(flat_of(*in.grad()));
        }
        return flat_of(out)[0];
    };
    std::vector<std::vector<double>> g;
    run_at(x, true, &g);
    const double h = 1.0 / 1024;
    for (size_t a = 0; a < x.size(); ++a)
        for (size_t c = 0; c < x[a].size(); ++c) {
            auto at = [&](int k) {
                auto y = x;
                y[a][c] += k * h;
                return run_at(y, false, nullptr);
            };
            const double fd = (8 * (at(1) - at(-1)) - (at(2) - at(-2))) / (12 * h);
            EXPECT_NEAR(g[a][c], fd, 1e-6 * std::max(1.0, std::abs(fd))) << "argument " << a << " component " << c;
        }
}

// [SECTION] coverage of the table

// Classifies every overload, prints the summary, and checks that nothing differentiable escapes
// the sweep: each Adjoint/ZeroAdjoint overload can be fed from arrays, and the device subset
// names real overloads of the sweep.
TEST(BuiltinAdjointCoverage, EveryDifferentiableOverloadIsSwept) {
    int checked[2] = {0, 0}, zero[2] = {0, 0}, no_adjoint = 0;
    std::map<std::string, int> skipped;
    for (const auto& o : table()) {
        test::Classified c = test::classify(o);
        const int single = o.ret && o.ret->scalar == ScalarKind::Float32 ? 1 : 0;
        switch (c.cls) {
            case AdjointClass::Adjoint: ++checked[single]; break;
            case AdjointClass::ZeroAdjoint: ++zero[single]; break;
            case AdjointClass::NoAdjoint: ++no_adjoint; break;
            case AdjointClass::Skipped: ++skipped[c.why_skipped]; break;
        }
        if (c.cls == AdjointClass::Adjoint || c.cls == AdjointClass::ZeroAdjoint) {
            EXPECT_TRUE(test::sweepable(o)) << compiler::signature_text(o) << " is differentiable but the sweep cannot feed it";
        }
    }
    std::ostringstream s;
    s << "builtin adjoint sweep: " << checked[0] << " overloads checked in float64, " << checked[1]
      << " in float32 against finite differences; " << zero[0] + zero[1]
      << " piecewise-constant overloads checked to have a zero adjoint; " << no_adjoint
      << " without an adjoint checked to be a compile error;";
    int nskip = 0;
    for (const auto& [why, n] : skipped) nskip += n;
    s << " " << nskip << " skipped:\n";
    for (const auto& [why, n] : skipped) s << "  " << n << "  " << why << "\n";
    std::cout << s.str();
    EXPECT_GT(checked[0], 150);
    EXPECT_EQ(checked[0], checked[1]);  // every differentiable builtin exists in both precisions
    std::set<size_t> subset;
    for (const auto& v : variants_for("sim:h200")) subset.insert(v.overload);
    EXPECT_EQ(subset.size(), std::size(kDeviceSubset)) << "a kDeviceSubset signature is not in the sweep";
    std::map<test::Form, int> forms;
    for (const auto& v : variants_for("cpu")) ++forms[v.form];
    std::cout << "kernels: ";
    for (const auto& [f, n] : forms) std::cout << n << " " << test::form_name(f) << " ";
    std::cout << "\n";
}

// [SECTION] builtins without an adjoint

// A kernel (or a func that a kernel calls) that stores r = wp.<name>(...) of a NoAdjoint overload
// in `out`: float arguments from arrays (parameters of the func), a random state from rand_init.
struct NoAdjointSource {
    std::string text;
    int call_line = 0;  // where `r = wp.<name>(` is; the call starts at column 9
};

NoAdjointSource no_adjoint_source(const BuiltinOverload& o, bool in_func, const std::string& decorator) {
    std::string params, func_params, setup, call_args, pass_args;
    for (size_t a = 0; a < o.params.size(); ++a) {
        const std::string v = "in" + std::to_string(a);
        const std::string sep = call_args.empty() ? "" : ", ";
        if (o.params[a].inout) {  // a random state: a local variable
            EXPECT_EQ(o.params[a].type, compiler::uint32_type());
            setup += "    " + v + " = wp.rand_init(7, " + (in_func ? "0" : "i") + ")\n";
            call_args += sep + v;
        } else {
            params += v + ": wp.array(dtype=" + test::spelling(o.params[a].type) + "), ";
            func_params += (func_params.empty() ? "" : ", ") + v + ": " + test::spelling(o.params[a].type);
            call_args += sep + v + (in_func ? "" : "[i]");
            pass_args += (pass_args.empty() ? "" : ", ") + v + "[i]";
        }
    }
    Type out_t = o.ret;
    std::string use = "r";
    if (compiler::is_tuple(o.ret)) {  // the first float item
        for (size_t k = 0; k < o.ret->items.size() && use == "r"; ++k) {
            if (!compiler::passes::is_differentiable(o.ret->items[k])) continue;
            out_t = o.ret->items[k];
            use = "r[" + std::to_string(k) + "]";
        }
    }
    NoAdjointSource src;
    const std::string call = "    r = wp." + o.name + "(" + call_args + ")\n";
    const int setup_lines = static_cast<int>(std::count(setup.begin(), setup.end(), '\n'));
    src.text = "import weft as wp\n";
    if (in_func) {
        src.text += "@wp.func\ndef g(" + func_params + ") -> " + test::spelling(out_t) + ":\n" + setup + call + "    return " +
                    use + "\n";
        src.call_line = 4 + setup_lines;
    }
    src.text += decorator + "\ndef k(" + params + "out: wp.array(dtype=" + test::spelling(out_t) + ")):\n    i = wp.tid()\n";
    if (in_func) {
        src.text += "    out[i] = g(" + pass_args + ")\n";
    } else {
        src.text += setup + call + "    out[i] = " + use + "\n";
        src.call_line = 5 + setup_lines;
    }
    return src;
}

// Every NoAdjoint overload, called on a differentiable path in a kernel or in a func the kernel
// calls, is err_no_adjoint at the call, naming the builtin and the kernel; the same source with
// enable_backward=False compiles.
TEST(BuiltinAdjointCoverage, MissingAdjointIsACompileErrorNamingTheBuiltin) {
    int tested = 0;
    for (const auto& o : table()) {
        if (test::classify(o).cls != AdjointClass::NoAdjoint) continue;
        for (bool in_func : {false, true}) {
            SCOPED_TRACE(compiler::signature_text(o) + (in_func ? " in a func" : " in a kernel"));
            NoAdjointSource src = no_adjoint_source(o, in_func, "@wp.kernel");
            try {
                runtime::Module::compile({{"noadj.py", src.text, 0}});
                ADD_FAILURE() << "expected err_no_adjoint for\n" << src.text;
            } catch (const compiler::CompileError& e) {
                const std::string want = "noadj.py:" + std::to_string(src.call_line) + ":9: error: '" + o.name +
                                         "' has no adjoint, and kernel 'k' differentiates through it";
                EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what() << "\n" << src.text;
            }
            NoAdjointSource off = no_adjoint_source(o, in_func, "@wp.kernel(enable_backward=False)");
            EXPECT_NO_THROW(runtime::Module::compile({{"noadj.py", off.text, 0}})) << off.text;
            ++tested;
        }
    }
    EXPECT_GT(tested, 0);
}

}  // namespace
