// engine/launch_args.h: short constructors of kernel launch arguments used by the integrators.
#pragma once

#include <array>

#include "engine/model.h"
#include "runtime/module.h"

namespace weft::engine::args {

inline runtime::LaunchArg a(const Array& x) { return runtime::LaunchArg::of(x); }
inline runtime::LaunchArg f(double v) { return runtime::LaunchArg::number_of(v); }
inline runtime::LaunchArg i(long long v) { return runtime::LaunchArg::integer_of(v); }
inline runtime::LaunchArg v3(const std::array<float, 3>& v) { return runtime::LaunchArg::value(vec3_type(), v.data()); }
inline runtime::LaunchArg v4(const std::array<float, 4>& v) { return runtime::LaunchArg::value(vec4_type(), v.data()); }

}  // namespace weft::engine::args
