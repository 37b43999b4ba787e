// engine/build_checks.h: the argument checks the builder's calls share (engine/model_builder.cpp,
// engine/joint_builder.cpp). Parameters are float32 on the device: NaN and infinities are refused
// where the call that passed them can be named, rather than found as NaN frames later.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include "engine/model_builder.h"

namespace weft::engine::build_checks {

inline std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

inline void require_finite(const char* call, const char* name, float v) {
    if (!std::isfinite(v)) throw BuildError(std::string(call) + ": " + name + " must be a finite number, got " + num(v));
}
inline void require_finite(const char* call, const char* name, const Vec3& v) {
    if (!v.allFinite())
        throw BuildError(std::string(call) + ": " + name + " must be finite, got (" + num(v.x()) + ", " + num(v.y()) + ", " +
                         num(v.z()) + ")");
}
inline void require_nonnegative(const char* call, const char* name, float v) {
    require_finite(call, name, v);
    if (v < 0) throw BuildError(std::string(call) + ": " + name + " must be >= 0, got " + num(v));
}

}  // namespace weft::engine::build_checks
