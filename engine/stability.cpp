// engine/stability.cpp: the explicit stability rule of stability.h on a Model's host copies.
#include "engine/stability.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

namespace weft::engine {

namespace {

std::vector<float> host(const runtime::Array& a) {
    std::vector<float> h(a.valid() ? a.nbytes() / sizeof(float) : 0);
    if (!h.empty()) a.copy_to_host(h.data(), h.size() * sizeof(float));
    return h;
}
std::vector<int32_t> host_int(const runtime::Array& a) {
    std::vector<int32_t> h(a.valid() ? a.nbytes() / sizeof(int32_t) : 0);
    if (!h.empty()) a.copy_to_host(h.data(), h.size() * sizeof(int32_t));
    return h;
}
std::string num(double v) {
    std::ostringstream os;
    os.precision(3);
    os << v;
    return os.str();
}

// The terms of one penalty force on mass m, each that reaches the limit.
void check(std::vector<StabilityViolation>& out, const std::string& force, double ke, double kd, double kf, double m, double dt) {
    if (!(m > 0)) return;
    auto add = [&](const char* term, double v, const char* k, double kv, const char* unit) {
        if (!(v < kExplicitLimit))
            out.push_back(
                {force, term, v, std::string(k) + " " + num(kv) + " " + unit + ", m " + num(m) + " kg, dt " + num(dt) + " s"});
    };
    add("sqrt(ke/m) dt", explicit_term(true, ke, m, dt), "ke", ke, "N/m");
    add("kd dt/m", explicit_term(false, kd, m, dt), "kd", kd, "N s/m");
    add("kf dt/m", explicit_term(false, kf, m, dt), "kf", kf, "N s/m");
}

// One element's forces linearised at rest (stability.h): its nodes, the Gram matrix measure G G^T
// (acting on each coordinate alike), the gradient g of the area (volume) ratio, and the
// coefficients of K = ka gram (x) I3 + kb g g^T and C = ca gram (x) I3 + cb g g^T. gram_max is the
// Gram matrix's largest eigenvalue, g2 = |g|^2.
struct Element {
    int nodes = 0;
    int32_t id[4] = {};
    double gram[4][4] = {};
    double g[4][3] = {};
    double ka = 0, kb = 0, ca = 0, cb = 0, gram_max = 0, g2 = 0;
};

struct ElementArrays {
    const std::vector<int32_t>& indices;
    const std::vector<float>& poses;
    const std::vector<float>& materials;
    int stride;
    const std::vector<float>& q;
    size_t particles;
};

// Element e of N nodes; false where it cannot be one (an index out of range, a degenerate pose).
template <int N>
bool element_at(const ElementArrays& a, size_t e, Element& out) {
    constexpr int D = N - 1;
    out.nodes = N;
    for (int u = 0; u < N; ++u) {
        out.id[u] = a.indices[e * N + size_t(u)];
        if (out.id[u] < 0 || size_t(out.id[u]) >= a.particles) return false;
    }
    Eigen::Matrix<double, D, D> Dm;
    for (int r = 0; r < D; ++r)
        for (int c = 0; c < D; ++c) Dm(r, c) = a.poses[e * D * D + size_t(r * D + c)];
    const double measure = 1.0 / (Dm.determinant() * (N == 3 ? 2.0 : 6.0));  // A0 or V0
    if (!(measure > 0) || !std::isfinite(measure)) return false;
    Eigen::Matrix<double, N, D> T = Eigen::Matrix<double, N, D>::Zero();  // node 0: minus the sum; node u: e_u
    for (int c = 0; c < D; ++c) {
        T(0, c) = -1.0;
        T(c + 1, c) = 1.0;
    }
    const Eigen::Matrix<double, N, D> G = T * Dm;
    const Eigen::Matrix<double, N, N> gram = measure * G * G.transpose();
    Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, D, D>> eig;
    eig.computeDirect(measure * G.transpose() * G, Eigen::EigenvaluesOnly);  // the same nonzero eigenvalues
    out.gram_max = eig.eigenvalues().maxCoeff();
    for (int u = 0; u < N; ++u)
        for (int w = 0; w < N; ++w) out.gram[u][w] = gram(u, w);
    if constexpr (N == 4) {
        for (int u = 0; u < N; ++u)  // at rest (F = I) the gradient of J = det F is each node's shape gradient
            for (int c = 0; c < 3; ++c) out.g[u][c] = G(u, c);
    } else {
        auto x = [&](int u) {
            const size_t i = 3 * size_t(out.id[u]);
            return Eigen::Vector3d(a.q[i], a.q[i + 1], a.q[i + 2]);
        };
        Eigen::Vector3d x10 = x(1) - x(0), x20 = x(2) - x(0), n = x10.cross(x20);
        if (n.norm() > 0) {  // the area ratio's gradient, as kernels/triangles.py's dcdq, dcdr
            n.normalize();
            const Eigen::Vector3d dq = x20.cross(n) * (0.5 / measure), dr = n.cross(x10) * (0.5 / measure), d0 = -(dq + dr);
            for (int c = 0; c < 3; ++c) {
                out.g[0][c] = d0[c];
                out.g[1][c] = dq[c];
                out.g[2][c] = dr[c];
            }
        }
    }
    out.g2 = 0;
    for (int u = 0; u < N; ++u)
        for (int c = 0; c < 3; ++c) out.g2 += out.g[u][c] * out.g[u][c];
    const size_t m = e * size_t(a.stride);
    const double k_mu = a.materials[m], k_lambda = a.materials[m + 1], k_damp = a.materials[m + 2];
    out.ka = N == 3 ? k_mu : 0.75 * k_mu;
    out.kb = N == 3 ? k_lambda * measure : (k_lambda + 0.125 * k_mu) * measure;
    out.ca = k_damp;
    out.cb = k_damp * measure;
    return true;
}

// y = M^-1/2 K M^-1/2 x (which 0) or the same with C (which 1); s = 1/sqrt(m) per particle, 0 where
// fixed.
void apply(const std::vector<Element>& elements, int which, const std::vector<double>& s, const std::vector<double>& x,
           std::vector<double>& y) {
    std::fill(y.begin(), y.end(), 0.0);
    for (const Element& el : elements) {
        const int n = el.nodes;
        const double a = which == 0 ? el.ka : el.ca, b = which == 0 ? el.kb : el.cb;
        double xs[4][3];
        double dot = 0.0;
        for (int u = 0; u < n; ++u)
            for (int c = 0; c < 3; ++c) {
                xs[u][c] = x[3 * size_t(el.id[u]) + size_t(c)] * s[size_t(el.id[u])];
                dot += el.g[u][c] * xs[u][c];
            }
        for (int u = 0; u < n; ++u) {
            const double su = s[size_t(el.id[u])];
            if (su == 0.0) continue;
            for (int c = 0; c < 3; ++c) {
                double f = b * dot * el.g[u][c];
                for (int w = 0; w < n; ++w) f += a * el.gram[u][w] * xs[w][c];
                y[3 * size_t(el.id[u]) + size_t(c)] += su * f;
            }
        }
    }
}

// The largest eigenvalue of M^-1/2 K M^-1/2 (which 0) or of the same with C (which 1) by power
// iteration from a fixed pseudo-random start (the same figure every run). The Rayleigh quotient of
// A^k x never decreases with k for a symmetric positive semi-definite A and stays below the
// eigenvalue; the work is capped at about 3e8 multiply-adds (40 steps at least).
double power_iteration(const std::vector<Element>& elements, int which, const std::vector<double>& s) {
    std::vector<double> x(3 * s.size(), 0.0), y(x.size());
    uint64_t state = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < x.size(); ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        if (s[i / 3] > 0) x[i] = double(state >> 11) / double(1ull << 53) - 0.5;
    }
    const double per_step = double(elements.size()) * 60.0 + 1.0;
    const int steps = int(std::clamp(3e8 / per_step, 40.0, 3000.0));
    double rq = 0.0;
    for (int k = 0; k < steps; ++k) {
        double xx = 0.0;
        for (double v : x) xx += v * v;
        if (!(xx > 0)) break;
        apply(elements, which, s, x, y);
        double xy = 0.0, yy = 0.0;
        for (size_t i = 0; i < x.size(); ++i) {
            xy += x[i] * y[i];
            yy += y[i] * y[i];
        }
        const double next = xy / xx;
        const bool settled = k >= 20 && next - rq <= 1e-7 * next;
        rq = std::max(rq, next);
        if (settled || !(yy > 0)) break;
        const double inv = 1.0 / std::sqrt(yy);
        for (size_t i = 0; i < x.size(); ++i) x[i] = y[i] * inv;
    }
    return rq;
}

template <int N>
ElementRates rates_of(const ElementArrays& a, size_t begin, size_t end, const std::vector<float>& mass, double screen_omega2,
                      double screen_damping) {
    ElementRates r;
    // The element-sum bounds, max_v sum_{e at v} lambda_max(K_e) / m_e (and C's), in one pass.
    std::vector<double> acc_k(mass.size(), 0.0), acc_c(mass.size(), 0.0);
    Element el;
    for (size_t e = begin; e < end; ++e) {
        if (!element_at<N>(a, e, el)) continue;
        double m_min = INFINITY;
        for (int u = 0; u < N; ++u)
            if (mass[size_t(el.id[u])] > 0) m_min = std::min(m_min, double(mass[size_t(el.id[u])]));
        if (!std::isfinite(m_min)) continue;
        ++r.elements;
        const double lk = (el.ka * el.gram_max + el.kb * el.g2) / m_min, lc = (el.ca * el.gram_max + el.cb * el.g2) / m_min;
        for (int u = 0; u < N; ++u)
            if (mass[size_t(el.id[u])] > 0) {
                acc_k[size_t(el.id[u])] += lk;
                acc_c[size_t(el.id[u])] += lc;
            }
    }
    if (r.elements == 0) return r;
    r.omega2 = *std::max_element(acc_k.begin(), acc_k.end());
    r.damping = *std::max_element(acc_c.begin(), acc_c.end());
    const bool refine_k = r.omega2 >= screen_omega2 && std::isfinite(r.omega2),
               refine_c = r.damping >= screen_damping && std::isfinite(r.damping);
    if (!refine_k && !refine_c) return r;
    // Past the screen: the eigenvalue itself, of the elements that move.
    std::vector<Element> elements;
    for (size_t e = begin; e < end; ++e)
        if (element_at<N>(a, e, el)) {
            bool moves = false;
            for (int u = 0; u < N; ++u) moves = moves || mass[size_t(el.id[u])] > 0;
            if (moves) elements.push_back(el);
        }
    std::vector<double> s(mass.size(), 0.0);
    for (size_t i = 0; i < mass.size(); ++i)
        if (mass[i] > 0) s[i] = 1.0 / std::sqrt(double(mass[i]));
    if (refine_k) r.omega2 = power_iteration(elements, 0, s);
    if (refine_c) r.damping = power_iteration(elements, 1, s);
    return r;
}

}  // namespace

ElementRates element_rates(int nodes, const std::vector<int32_t>& indices, const std::vector<float>& poses,
                           const std::vector<float>& materials, int material_stride, size_t begin, size_t end,
                           const std::vector<float>& q, const std::vector<float>& mass, double screen_omega2,
                           double screen_damping) {
    const ElementArrays a{indices, poses, materials, material_stride, q, mass.size()};
    return nodes == 3 ? rates_of<3>(a, begin, end, mass, screen_omega2, screen_damping)
                      : rates_of<4>(a, begin, end, mass, screen_omega2, screen_damping);
}

std::string StabilityViolation::message() const {
    return force + ": " + term + " = " + num(value) + " >= " + num(kExplicitLimit) + " (" + detail + ")";
}

std::vector<StabilityViolation> explicit_stability_violations(const Model& model, float dt_f) {
    std::vector<StabilityViolation> out;
    const double dt = dt_f;
    std::vector<float> mass = host(model.particle_mass);
    double lightest = INFINITY;
    for (float m : mass)
        if (m > 0) lightest = std::min(lightest, double(m));
    if (!std::isfinite(lightest)) return out;  // nothing moves
    if (model.ground || model.shape_count > 0)
        check(out, "ground and shape contact", model.soft_contact_ke, model.soft_contact_kd, model.soft_contact_kf, lightest, dt);
    if (model.shape_count > 0) {
        // A shape with a material of its own (shapes on bodies, and static shapes given one from
        // Python) moves the particles' contact towards it by shape_material_share (kernels/contact.py,
        // soft_contact.py): the worst shape per term.
        std::vector<float> mat = host(model.shape_materials), share = host(model.shape_material_share);
        std::vector<StabilityViolation> worst;
        for (int k = 0; k < model.shape_count; ++k) {
            const double w = share[size_t(k)];
            if (!(w > 0)) continue;
            auto mix = [&](double soft, int col) { return soft + w * (double(mat[size_t(6 * k + col)]) - soft); };
            std::vector<StabilityViolation> v;
            check(v, "particle contact with shape " + std::to_string(k) + " (its material averaged in)",
                  mix(model.soft_contact_ke, 0), mix(model.soft_contact_kd, 1), mix(model.soft_contact_kf, 2), lightest, dt);
            for (auto& x : v) {
                auto it = std::find_if(worst.begin(), worst.end(), [&](const StabilityViolation& o) { return o.term == x.term; });
                if (it == worst.end())
                    worst.push_back(x);
                else if (x.value > it->value)
                    *it = x;
            }
        }
        out.insert(out.end(), worst.begin(), worst.end());
    }
    // The triangles and the tetrahedra, each family as one system.
    for (int nodes : {3, 4}) {
        const int count = nodes == 3 ? model.tri_count : model.tet_count;
        if (count == 0) continue;
        const std::vector<float> q = host(model.particle_q);
        const ElementRates r = element_rates(nodes, host_int(nodes == 3 ? model.tri_indices : model.tet_indices),
                                             host(nodes == 3 ? model.tri_poses : model.tet_poses),
                                             host(nodes == 3 ? model.tri_materials : model.tet_materials), nodes == 3 ? 5 : 3, 0,
                                             size_t(count), q, mass, std::pow(kExplicitLimit / dt, 2), kExplicitLimit / dt);
        const std::string force = std::to_string(count) + (nodes == 3 ? " triangles" : " tetrahedra");
        const double w = std::sqrt(r.omega2) * dt, c = r.damping * dt;
        if (!(w < kExplicitLimit))
            out.push_back({force, "sqrt(lambda_max(M^-1 K)) dt", w,
                           "highest frequency " + num(std::sqrt(r.omega2)) + " rad/s, dt " + num(dt) + " s"});
        if (!(c < kExplicitLimit))
            out.push_back(
                {force, "lambda_max(M^-1 C) dt", c, "highest damping rate " + num(r.damping) + " 1/s, dt " + num(dt) + " s"});
    }
    if (model.particle_contact)
        check(out, "particle contact", model.particle_ke, model.particle_kd, model.particle_kf, lightest, dt);
    if (model.spring_count > 0) {
        std::vector<float> ke = host(model.spring_stiffness), kd = host(model.spring_damping);
        std::vector<int32_t> ij = host_int(model.spring_indices);
        // the worst spring per term
        std::vector<StabilityViolation> worst;
        for (int s = 0; s < model.spring_count; ++s) {
            int i = ij[size_t(2 * s)], j = ij[size_t(2 * s + 1)];
            double mi = mass[size_t(i)], mj = mass[size_t(j)];
            double m = mi > 0 && mj > 0 ? std::min(mi, mj) : std::max(mi, mj);
            std::vector<StabilityViolation> v;
            check(v, "spring " + std::to_string(s) + " (particles " + std::to_string(i) + ", " + std::to_string(j) + ")",
                  ke[size_t(s)], kd[size_t(s)], 0.0, m, dt);
            for (auto& x : v) {
                auto it = std::find_if(worst.begin(), worst.end(), [&](const StabilityViolation& w) { return w.term == x.term; });
                if (it == worst.end())
                    worst.push_back(x);
                else if (x.value > it->value)
                    *it = x;
            }
        }
        out.insert(out.end(), worst.begin(), worst.end());
    }
    return out;
}

}  // namespace weft::engine
