// apps/nonfinite_report.h: what `weft run` says when a frame ends with a NaN or an infinity.
//
// A diverged explicit simulation used to write NaN frames to the end and report one line. Now
// the run stops at the first frame whose particle_q or particle_qd holds a non-finite value and
// says where it came from: the frame is stepped again from the last finite state (kept on the
// host) with runtime::config().verify_finite on, which names the first launch that produced a
// non-finite value (kernel and argument); the kernel's module (IntegratorInfo::kernels) leads to
// the scene parameters that feed it (Scene::stability, with file:line and their stability
// estimates).
#pragma once

#include <string>
#include <vector>

#include "engine/integrator.h"
#include "engine/scene.h"

namespace weft::apps {

// Index of the first non-finite float of `v`, or -1.
int64_t first_nonfinite(const std::vector<float>& v);

// The scene parameter most likely to feed a launch error of `kernel` (its module's largest
// stability estimate, else the scene's largest past the limit): "FILE:LINE:COL: KEY = ..." or "".
std::string feeding_parameter(const engine::Scene& scene, const engine::IntegratorInfo& info, const std::string& kernel);

// The error report of a frame whose state holds a non-finite value: `q`/`qd` are its host copies,
// `q_prev`/`qd_prev` those of the frame before (the initial state for frame 1).
std::string explain_nonfinite(const engine::Scene& scene, const engine::Model& model, engine::Integrator& integrator, int frame,
                              const std::vector<float>& q_prev, const std::vector<float>& qd_prev, const std::vector<float>& q,
                              const std::vector<float>& qd);

// The kernel named by a runtime error's "launch of kernel 'NAME'" prefix, or "".
std::string kernel_of_error(const std::string& message);

}  // namespace weft::apps
