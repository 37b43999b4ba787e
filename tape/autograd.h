// tape/autograd.h: Jacobians of a kernel, by its adjoint and by central finite differences, and
// gradcheck, which compares the two (Warp's wp.autograd.jacobian, jacobian_fd and gradcheck).
//
// A kernel is seen as a function from its float input arrays to its float output arrays; the
// arguments are `inputs` followed by `outputs`, as for a launch. Each (input, output) pair gets a
// Jacobian with one row per scalar of the output and one column per scalar of the input (a vec3f
// element is three scalars). Non-float arrays and non-array arguments are held fixed.
//
//   jacobian      one backward launch per output scalar, seeding that scalar's gradient with 1
//   jacobian_fd   two forward launches per input scalar, (f(x + eps) - f(x - eps)) / 2 eps; the
//                 outputs are restored before every launch, so kernels that accumulate work too
//
// Finite differences run in the precision of the kernel's arrays: declare float64 arrays for
// tight checks (relative errors near 1e-8); float32 needs an eps near 1e-3 and tolerances near 1e-2.
// The user's arrays keep their gradients: the Jacobians use gradient arrays of their own.
#pragma once

#include <Eigen/Dense>
#include <string>
#include <vector>

#include "runtime/module.h"

namespace weft::tape {

struct JacobianBlock {
    size_t input = 0;  // index among all arguments (inputs then outputs)
    size_t output = 0;
    std::string input_name;  // the kernel's parameter names
    std::string output_name;
    Eigen::MatrixXd matrix;  // rows: output scalars (max_outputs_per_var at most); cols: input scalars
};

struct JacobianOptions {
    runtime::Device device;
    int block_dim = 0;
    int max_outputs_per_var = -1;  // -1: every output scalar (one backward launch each)
    double eps = 1e-4;             // finite differences
};

std::vector<JacobianBlock> jacobian(const runtime::Kernel& k, const std::vector<int64_t>& dim,
                                    const std::vector<runtime::LaunchArg>& inputs, const std::vector<runtime::LaunchArg>& outputs,
                                    const JacobianOptions& options);
std::vector<JacobianBlock> jacobian_fd(const runtime::Kernel& k, const std::vector<int64_t>& dim,
                                       const std::vector<runtime::LaunchArg>& inputs,
                                       const std::vector<runtime::LaunchArg>& outputs, const JacobianOptions& options);

struct GradcheckOptions {
    JacobianOptions jacobian;
    double atol = 1e-5;
    double rtol = 1e-3;  // an entry passes when |adjoint - fd| <= atol + rtol * |fd|
};

struct GradcheckResult {
    bool passed = true;
    double max_abs_error = 0.0;
    double max_rel_error = 0.0;
    std::string report;  // a table of (input, output) pairs, then the worst failing entries
};

GradcheckResult gradcheck(const runtime::Kernel& k, const std::vector<int64_t>& dim,
                          const std::vector<runtime::LaunchArg>& inputs, const std::vector<runtime::LaunchArg>& outputs,
                          const GradcheckOptions& options);

}  // namespace weft::tape
