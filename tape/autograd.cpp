// Jacobians and gradcheck. See autograd.h.
#include "tape/autograd.h"

#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "runtime/errors.h"
#include "runtime/recorder.h"

namespace weft::tape {

using runtime::Array;
using runtime::LaunchArg;
using runtime::RuntimeError;

namespace {

// The arguments of one evaluation: the user's arrays re-wrapped without their gradients (so that
// backward launches touch only the gradient arrays passed in adj_args).
struct Problem {
    std::vector<LaunchArg> args;
    std::vector<size_t> inputs, outputs;  // differentiable arguments (float arrays), by index
    std::vector<std::string> names;       // parameter names
};

bool differentiable(const LaunchArg& a) {
    if (a.kind != LaunchArg::ArrayArg || !a.array.valid()) return false;
    compiler::Type t = a.array.dtype();
    return !compiler::is_struct(t) && compiler::is_float_kind(t->scalar);
}

Problem problem_of(const runtime::Kernel& k, const std::vector<LaunchArg>& inputs, const std::vector<LaunchArg>& outputs) {
    Problem p;
    const auto& params = k.info().params;
    if (inputs.size() + outputs.size() != params.size())
        throw RuntimeError("kernel '" + k.name() + "' takes " + std::to_string(params.size()) + " arguments; " +
                           std::to_string(inputs.size()) + " inputs and " + std::to_string(outputs.size()) + " outputs given");
    for (size_t i = 0; i < inputs.size() + outputs.size(); ++i) {
        LaunchArg a = i < inputs.size() ? inputs[i] : outputs[i - inputs.size()];
        if (a.kind == LaunchArg::ArrayArg && a.array.valid()) {
            const Array& x = a.array;
            a.array = Array::wrap(x.data(), x.dtype(), x.shape(), x.strides(), x.device(), x.owner());
        }
        p.names.push_back(params[i].name);
        if (differentiable(a)) {
            if (a.array.dtype()->scalar == compiler::ScalarKind::Float16)
                throw RuntimeError("kernel '" + k.name() + "': argument '" + params[i].name +
                                   "' is a float16 array; Jacobians need float32 or float64 arrays");
            (i < inputs.size() ? p.inputs : p.outputs).push_back(i);
        }
        p.args.push_back(std::move(a));
    }
    if (p.inputs.empty()) throw RuntimeError("kernel '" + k.name() + "': no float array among the inputs to differentiate");
    if (p.outputs.empty()) throw RuntimeError("kernel '" + k.name() + "': no float array among the outputs to differentiate");
    return p;
}

size_t scalar_count(const Array& a) { return static_cast<size_t>(a.size() * compiler::component_count(a.dtype())); }

std::vector<double> read_scalars(const Array& a) {
    std::vector<std::byte> host(a.nbytes());
    a.copy_to_host(host.data(), host.size());
    size_t n = scalar_count(a);
    std::vector<double> v(n);
    bool f64 = a.dtype()->scalar == compiler::ScalarKind::Float64;
    for (size_t i = 0; i < n; ++i) {
        if (f64)
            std::memcpy(&v[i], host.data() + 8 * i, 8);
        else {
            float f;
            std::memcpy(&f, host.data() + 4 * i, 4);
            v[i] = f;
        }
    }
    return v;
}

void write_scalars(Array& a, const std::vector<double>& v) {
    bool f64 = a.dtype()->scalar == compiler::ScalarKind::Float64;
    std::vector<std::byte> host(a.nbytes());
    for (size_t i = 0; i < v.size(); ++i) {
        if (f64)
            std::memcpy(host.data() + 8 * i, &v[i], 8);
        else {
            float f = static_cast<float>(v[i]);
            std::memcpy(host.data() + 4 * i, &f, 4);
        }
    }
    a.write_from_host(host.data(), host.size());
}

std::vector<std::byte> snapshot(const Array& a) {
    std::vector<std::byte> host(a.nbytes());
    a.copy_to_host(host.data(), host.size());
    return host;
}

runtime::LaunchOptions launch_options(const JacobianOptions& o) {
    runtime::LaunchOptions l;
    l.device = o.device;
    l.block_dim = o.block_dim;
    l.record_tape = false;
    return l;
}

size_t rows_of(const Array& out, const JacobianOptions& o) {
    size_t m = scalar_count(out);
    return o.max_outputs_per_var >= 0 ? std::min(m, static_cast<size_t>(o.max_outputs_per_var)) : m;
}

}  // namespace

std::vector<JacobianBlock> jacobian(const runtime::Kernel& k, const std::vector<int64_t>& dim,
                                    const std::vector<LaunchArg>& inputs, const std::vector<LaunchArg>& outputs,
                                    const JacobianOptions& options) {
    runtime::ScopedRecorder suspend(nullptr);
    Problem p = problem_of(k, inputs, outputs);
    runtime::LaunchOptions fwd = launch_options(options);
    runtime::launch(k, dim, p.args, fwd);  // the backward sweep replays from the forward's results

    runtime::LaunchOptions bwd = fwd;
    bwd.adjoint = true;
    bwd.adj_args.resize(p.args.size());
    for (size_t i : p.inputs) bwd.adj_args[i] = Array::zeros(p.args[i].array.dtype(), p.args[i].array.shape(), options.device);
    for (size_t j : p.outputs) bwd.adj_args[j] = Array::zeros(p.args[j].array.dtype(), p.args[j].array.shape(), options.device);

    std::vector<JacobianBlock> blocks;
    for (size_t j : p.outputs) {
        size_t rows = rows_of(p.args[j].array, options);
        std::vector<JacobianBlock> row_blocks;
        for (size_t i : p.inputs)
            row_blocks.push_back({i, j, p.names[i], p.names[j],
                                  Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows),
                                                        static_cast<Eigen::Index>(scalar_count(p.args[i].array)))});
        std::vector<double> seed(scalar_count(p.args[j].array), 0.0);
        for (size_t r = 0; r < rows; ++r) {
            for (size_t i : p.inputs) bwd.adj_args[i].zero_unrecorded();
            for (size_t o : p.outputs) bwd.adj_args[o].zero_unrecorded();
            seed.assign(seed.size(), 0.0);
            seed[r] = 1.0;
            write_scalars(bwd.adj_args[j], seed);
            runtime::launch(k, dim, p.args, bwd);
            for (size_t b = 0; b < p.inputs.size(); ++b) {
                std::vector<double> g = read_scalars(bwd.adj_args[p.inputs[b]]);
                for (size_t c = 0; c < g.size(); ++c)
                    row_blocks[b].matrix(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = g[c];
            }
        }
        for (auto& b : row_blocks) blocks.push_back(std::move(b));
    }
    return blocks;
}

std::vector<JacobianBlock> jacobian_fd(const runtime::Kernel& k, const std::vector<int64_t>& dim,
                                       const std::vector<LaunchArg>& inputs, const std::vector<LaunchArg>& outputs,
                                       const JacobianOptions& options) {
    if (!(options.eps > 0)) throw RuntimeError("jacobian_fd: eps must be positive");
    runtime::ScopedRecorder suspend(nullptr);
    Problem p = problem_of(k, inputs, outputs);
    runtime::LaunchOptions fwd = launch_options(options);
    std::vector<std::vector<std::byte>> initial;
    for (size_t j : p.outputs) initial.push_back(snapshot(p.args[j].array));
    auto evaluate = [&]() {
        for (size_t o = 0; o < p.outputs.size(); ++o)
            p.args[p.outputs[o]].array.write_from_host(initial[o].data(), initial[o].size());
        runtime::launch(k, dim, p.args, fwd);
        std::vector<std::vector<double>> out;
        for (size_t j : p.outputs) out.push_back(read_scalars(p.args[j].array));
        return out;
    };

    std::vector<JacobianBlock> blocks;
    for (size_t o = 0; o < p.outputs.size(); ++o)
        for (size_t i : p.inputs)
            blocks.push_back({i, p.outputs[o], p.names[i], p.names[p.outputs[o]],
                              Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows_of(p.args[p.outputs[o]].array, options)),
                                                    static_cast<Eigen::Index>(scalar_count(p.args[i].array)))});
    for (size_t b = 0; b < p.inputs.size(); ++b) {
        Array& x = p.args[p.inputs[b]].array;
        std::vector<double> x0 = read_scalars(x);
        for (size_t c = 0; c < x0.size(); ++c) {
            std::vector<double> xp = x0;
            xp[c] = x0[c] + options.eps;
            write_scalars(x, xp);
            auto fp = evaluate();
            xp[c] = x0[c] - options.eps;
            write_scalars(x, xp);
            auto fm = evaluate();
            for (size_t o = 0; o < p.outputs.size(); ++o) {
                JacobianBlock& blk = blocks[o * p.inputs.size() + b];
                for (Eigen::Index r = 0; r < blk.matrix.rows(); ++r)
                    blk.matrix(r, static_cast<Eigen::Index>(c)) =
                        (fp[o][static_cast<size_t>(r)] - fm[o][static_cast<size_t>(r)]) / (2.0 * options.eps);
            }
        }
        write_scalars(x, x0);
    }
    evaluate();  // leave the outputs as one forward launch leaves them
    return blocks;
}

GradcheckResult gradcheck(const runtime::Kernel& k, const std::vector<int64_t>& dim, const std::vector<LaunchArg>& inputs,
                          const std::vector<LaunchArg>& outputs, const GradcheckOptions& options) {
    std::vector<JacobianBlock> fd = jacobian_fd(k, dim, inputs, outputs, options.jacobian);
    std::vector<JacobianBlock> ad = jacobian(k, dim, inputs, outputs, options.jacobian);
    GradcheckResult res;
    std::ostringstream table, worst;
    table << "gradcheck of kernel '" << k.name() << "' (atol " << options.atol << ", rtol " << options.rtol << ", eps "
          << options.jacobian.eps << ")\n";
    table << std::left << std::setw(28) << "input -> output" << std::setw(14) << "max abs err" << std::setw(14) << "max rel err"
          << "result\n";
    int shown = 0;
    for (size_t b = 0; b < fd.size(); ++b) {
        const JacobianBlock& f = fd[b];
        const JacobianBlock* a = nullptr;
        for (const auto& x : ad)
            if (x.input == f.input && x.output == f.output) a = &x;
        double max_abs = 0, max_rel = 0;
        int bad = 0;
        for (Eigen::Index r = 0; r < f.matrix.rows(); ++r)
            for (Eigen::Index c = 0; c < f.matrix.cols(); ++c) {
                double fv = f.matrix(r, c), av = a->matrix(r, c);
                double err = std::abs(av - fv);
                double rel = err / std::max(std::abs(fv), 1e-300);
                if (!std::isfinite(av) || !std::isfinite(fv)) err = rel = INFINITY;
                max_abs = std::max(max_abs, err);
                if (err > options.atol) max_rel = std::max(max_rel, rel);
                if (!(err <= options.atol + options.rtol * std::abs(fv))) {
                    ++bad;
                    if (shown++ < 20)
                        worst << "  d " << f.output_name << "[" << r << "] / d " << f.input_name << "[" << c << "]: adjoint "
                              << std::setprecision(9) << av << ", finite difference " << fv << " (abs error " << err << ")\n";
                }
            }
        res.max_abs_error = std::max(res.max_abs_error, max_abs);
        res.max_rel_error = std::max(res.max_rel_error, max_rel);
        if (bad) res.passed = false;
        table << std::left << std::setw(28) << (f.input_name + " -> " + f.output_name) << std::setw(14) << std::setprecision(3)
              << max_abs << std::setw(14) << max_rel << (bad ? "FAIL (" + std::to_string(bad) + " entries)" : std::string("ok"))
              << "\n";
    }
    res.report = table.str();
    if (!res.passed) res.report += "entries that disagree:\n" + worst.str();
    return res;
}

}  // namespace weft::tape
