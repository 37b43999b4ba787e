// engine/stability.cpp: the explicit stability rule of stability.h on a Model's host copies.
#include "engine/stability.h"

#include <algorithm>
#include <cmath>
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

}  // namespace

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
