// A generic finite-difference check for any builtin of compiler/native with an adjoint.
//
// check_case<Ret, Params...>(signature, name, forward, adjoint) draws random inputs (shaped by
// a few domain rules keyed on the builtin's name: positive for sqrt/log/pow…, |x| < 0.8 for
// asin/acos, well-conditioned square matrices, unit quaternions), sets adj_ret to random weights
// w, runs the adjoint, and compares each input component's adjoint with the central difference
// of  L(x) = sum_k w_k f(x)_k  evaluated in float64. Float32 overloads are differentiated at the
// same (exactly converted) point through their float64 twin, so the reference is float64 either
// way; only the tolerance differs.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <utility>

#include "weft_native.h"

namespace fd {

// [SECTION] flat access to the scalar components of a value
template <typename T>
struct Flat;
template <>
struct Flat<float> {
    static constexpr int n = 1;
    static double get(const float& v, int) { return v; }
    static void set(float& v, int, double x) { v = static_cast<float>(x); }
};
template <>
struct Flat<double> {
    static constexpr int n = 1;
    static double get(const double& v, int) { return v; }
    static void set(double& v, int, double x) { v = x; }
};
template <>
struct Flat<int> {  // integer arguments (pow_int's exponent) are not differentiated
    static constexpr int n = 0;
    static double get(const int& v, int) { return v; }
    static void set(int&, int, double) {}
};
template <int N, typename S>
struct Flat<wp::vec_t<N, S>> {
    static constexpr int n = N;
    static double get(const wp::vec_t<N, S>& v, int i) { return v[i]; }
    static void set(wp::vec_t<N, S>& v, int i, double x) { v[i] = static_cast<S>(x); }
};
template <int R, int C, typename S>
struct Flat<wp::mat_t<R, C, S>> {
    static constexpr int n = R * C;
    static double get(const wp::mat_t<R, C, S>& m, int i) { return m[i / C][i % C]; }
    static void set(wp::mat_t<R, C, S>& m, int i, double x) { m[i / C][i % C] = static_cast<S>(x); }
};
template <typename S>
struct Flat<wp::quat_t<S>> {
    static constexpr int n = 4;
    static double get(const wp::quat_t<S>& q, int i) { return q[i]; }
    static void set(wp::quat_t<S>& q, int i, double x) { q[i] = static_cast<S>(x); }
};
template <typename S>
struct Flat<wp::transform_t<S>> {
    static constexpr int n = 7;
    static double get(const wp::transform_t<S>& t, int i) { return i < 3 ? t.p[i] : t.q[i - 3]; }
    static void set(wp::transform_t<S>& t, int i, double x) {
        if (i < 3)
            t.p[i] = static_cast<S>(x);
        else
            t.q[i - 3] = static_cast<S>(x);
    }
};

// [SECTION] the float64 twin of a type
template <typename T>
struct Twin {
    using type = T;
};
template <>
struct Twin<float> {
    using type = double;
};
template <int N>
struct Twin<wp::vec_t<N, float>> {
    using type = wp::vec_t<N, double>;
};
template <int R, int C>
struct Twin<wp::mat_t<R, C, float>> {
    using type = wp::mat_t<R, C, double>;
};
template <>
struct Twin<wp::quat_t<float>> {
    using type = wp::quat_t<double>;
};
template <>
struct Twin<wp::transform_t<float>> {
    using type = wp::transform_t<double>;
};
template <typename T>
using twin_t = typename Twin<T>::type;

template <typename T>
twin_t<T> to_double(const T& v) {
    if constexpr (Flat<T>::n == 0) {
        return v;
    } else {
        twin_t<T> r{};
        for (int i = 0; i < Flat<T>::n; ++i) Flat<twin_t<T>>::set(r, i, Flat<T>::get(v, i));
        return r;
    }
}

template <typename T>
constexpr bool is_single() {
    return !std::is_same_v<twin_t<T>, T>;
}

template <size_t N, typename F>
void for_index(F&& f) {
    [&]<size_t... I>(std::index_sequence<I...>) { (f(std::integral_constant<size_t, I>{}), ...); }
    (std::make_index_sequence<N>{});
}

// [SECTION] input domains
template <typename T>
void fill(T& v, std::mt19937& rng, double lo, double hi) {
    std::uniform_real_distribution<double> u(lo, hi);
    if constexpr (std::is_same_v<T, int>)
        v = 3;
    else
        for (int i = 0; i < Flat<T>::n; ++i) Flat<T>::set(v, i, u(rng));
}

template <typename T>
void shape_input(T& v, const std::string& name, size_t index, std::mt19937& rng) {
    auto is = [&](std::initializer_list<const char*> names) {
        for (const char* n : names)
            if (name == n) return true;
        return false;
    };
    double lo = -1, hi = 1;
    if (is({"sqrt", "cbrt", "log", "log2", "log10", "pow", "div", "cw_div", "mod"})) lo = 0.5, hi = 2;
    if (is({"asin", "acos"})) lo = -0.8, hi = 0.8;
    if (name == "smoothstep" && index == 0) lo = -2, hi = -1.2;
    if (name == "smoothstep" && index == 1) lo = 1.2, hi = 2;
    fill(v, rng, lo, hi);
    if constexpr (requires { v.r[0][0]; }) {
        constexpr int n = sizeof(v.r) / sizeof(v.r[0]);
        if constexpr (n == sizeof(v.r[0].c) / sizeof(v.r[0].c[0])) {
            if (name == "quat_from_matrix") {  // a rotation matrix (all four branches occur)
                wp::quat_t<double> q;
                fill(q, rng, -1, 1);
                const auto m = wp::quat_to_matrix(wp::normalize(q));
                for (int i = 0; i < Flat<T>::n; ++i) Flat<T>::set(v, i, Flat<std::remove_const_t<decltype(m)>>::get(m, i));
            } else {  // well conditioned
                for (int i = 0; i < n; ++i) v.r[i][i] += 2;
            }
        }
    }
    if constexpr (requires {
                      v.w;
                      v.x;
                  })
        v = wp::normalize(v);
    if constexpr (requires { v.q.w; }) v.q = wp::normalize(v.q);
}

// [SECTION] the check
template <typename Ret, typename... P, typename Fwd, typename Adj>
void check_case(const char* signature, const char* name, Fwd fwd, Adj adj) {
    constexpr bool single = (is_single<Ret>() || ... || is_single<P>());
    const double tol = single ? 2e-3 : 1e-6;
    const double floor = single ? 1e-2 : 1e-3;  // below this magnitude the error is absolute
    std::mt19937 rng(12345);
    for (int trial = 0; trial < 4; ++trial) {
        std::tuple<P...> x;
        for_index<sizeof...(P)>([&](auto I) { shape_input(std::get<I>(x), name, I, rng); });
        Ret w{};
        fill(w, rng, -1, 1);

        std::tuple<P...> adj_x{};
        Ret adj_ret = w;
        [&]<size_t... I>(std::index_sequence<I...>) { adj(std::get<I>(x)..., std::get<I>(adj_x)..., adj_ret); }
        (std::index_sequence_for<P...>{});

        std::tuple<twin_t<P>...> xd;
        for_index<sizeof...(P)>([&](auto I) { std::get<I>(xd) = to_double(std::get<I>(x)); });
        auto loss = [&](const std::tuple<twin_t<P>...>& at) {
            const auto r = std::apply(fwd, at);
            double s = 0;
            for (int k = 0; k < Flat<Ret>::n; ++k) s += Flat<Ret>::get(w, k) * Flat<twin_t<Ret>>::get(r, k);
            return s;
        };
        for_index<sizeof...(P)>([&](auto I) {
            using T = std::tuple_element_t<I, std::tuple<twin_t<P>...>>;
            using TP = std::tuple_element_t<I, std::tuple<P...>>;
            for (int k = 0; k < Flat<T>::n; ++k) {
                const double x0 = Flat<T>::get(std::get<I>(xd), k);
                const double h = 1e-6 * std::max(1.0, std::abs(x0));
                auto xp = xd, xm = xd;
                Flat<T>::set(std::get<I>(xp), k, x0 + h);
                Flat<T>::set(std::get<I>(xm), k, x0 - h);
                const double numeric = (loss(xp) - loss(xm)) / (2 * h);
                const double analytic = Flat<TP>::get(std::get<I>(adj_x), k);
                const double scale = std::max({std::abs(numeric), std::abs(analytic), floor});
                EXPECT_LE(std::abs(analytic - numeric) / scale, tol)
                    << signature << ": d/d(param " << I << ")[" << k << "] analytic " << analytic << " numeric " << numeric
                    << " (trial " << trial << ")";
            }
        });
    }
}

}  // namespace fd
