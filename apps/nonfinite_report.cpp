// The report of a frame that diverged. See nonfinite_report.h.
#include "apps/nonfinite_report.h"

#include <cmath>
#include <sstream>

#include "runtime/config.h"
#include "runtime/errors.h"

namespace weft::apps {

int64_t first_nonfinite(const std::vector<float>& v) {
    for (size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i])) return int64_t(i);
    return -1;
}

std::string kernel_of_error(const std::string& message) {
    const std::string mark = "launch of kernel '";
    size_t at = message.find(mark);
    if (at == std::string::npos) return "";
    at += mark.size();
    size_t end = message.find('\'', at);
    return end == std::string::npos ? "" : message.substr(at, end - at);
}

std::string feeding_parameter(const engine::Scene& scene, const engine::IntegratorInfo& info, const std::string& kernel) {
    std::string module;
    for (const auto& k : info.kernels)
        if (k.name == kernel) module = k.group;
    const engine::StabilityEstimate* pick = nullptr;
    for (const auto& e : scene.stability)  // largest first
        if (e.module == module) {
            pick = &e;
            break;
        }
    if (!pick && !scene.stability.empty() && scene.stability.front().value >= engine::kStabilityLimit)
        pick = &scene.stability.front();
    if (!pick) return "";
    std::ostringstream os;
    os << pick->where << ": " << pick->key << " = " << pick->coefficient << " (" << pick->term()
       << "; the explicit scheme needs it well below " << engine::kStabilityLimit << ")";
    return os.str();
}

std::string explain_nonfinite(const engine::Scene& scene, const engine::Model& model, engine::Integrator& integrator, int frame,
                              const std::vector<float>& q_prev, const std::vector<float>& qd_prev, const std::vector<float>& q,
                              const std::vector<float>& qd) {
    std::ostringstream os;
    int64_t at = first_nonfinite(q);
    const char* array = "particle_q";
    const std::vector<float>* v = &q;
    if (int64_t d = first_nonfinite(qd); at < 0 || (d >= 0 && d < at)) {
        at = d;
        array = "particle_qd";
        v = &qd;
    }
    os << "error: frame " << frame << ": " << array << " of particle " << at / 3 << " is not finite (" << (*v)[size_t(at)]
       << "): the simulation diverged\n";

    // Step the frame again from the last finite state, stopping at the first launch that makes a
    // NaN or an infinity.
    engine::State a = model.state(), b = model.state();
    a.particle_q.copy_from_host(q_prev.data(), q_prev.size() * sizeof(float));
    a.particle_qd.copy_from_host(qd_prev.data(), qd_prev.size() * sizeof(float));
    bool was = runtime::config().verify_finite;
    runtime::config().verify_finite = true;
    std::string kernel;
    try {
        engine::State* in = &a;
        engine::State* out = &b;
        for (int s = 1; s <= scene.substeps && kernel.empty(); ++s) {
            try {
                integrator.simulate(model, *in, *out, scene.dt());
            } catch (const runtime::RuntimeError& e) {
                kernel = kernel_of_error(e.what());
                os << "  substep " << s << " of frame " << frame << ": " << e.what() << "\n";
            }
            std::swap(in, out);
        }
    } catch (...) {
        runtime::config().verify_finite = was;
        throw;
    }
    runtime::config().verify_finite = was;
    if (kernel.empty()) os << "  (stepping the frame again with WEFT_VERIFY_FINITE=1 did not name a launch)\n";
    std::string param = feeding_parameter(scene, integrator.info(), kernel);
    if (!param.empty()) os << "  fed by " << param << "\n";
    os << "  reduce dt (raise substeps) or the stiffness; --allow-nonfinite writes every frame anyway";
    return os.str();
}

}  // namespace weft::apps
