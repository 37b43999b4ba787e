// python/bindings/tape.cpp: the Tape (tape/tape.h), checkpointed rollouts (tape/checkpoint.h) and
// Jacobians/gradcheck (tape/autograd.h), and gradient regression checks (tape/gradient_check.h:
// finite differences of a Python loss function, goldens) for wp.autograd.gradcheck on functions
// and wp.testing. The Python `with wp.Tape()` block calls activate() and
// deactivate(); what the runtime launches in between, on this thread, is recorded.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "python/bindings/bindings.h"
#include "runtime/errors.h"
#include "tape/autograd.h"
#include "tape/checkpoint.h"
#include "tape/gradient_check.h"
#include "tape/tape.h"

namespace py = pybind11;
using weft::runtime::Array;
using weft::runtime::LaunchArg;

namespace weft::python {
namespace {

// A Tape plus the recorder it displaced while active.
struct PyTape {
    tape::Tape tape;
    runtime::Recorder* previous = nullptr;
    bool active = false;
};

py::array_t<double> to_numpy(const Eigen::MatrixXd& m) {
    py::array_t<double> out({m.rows(), m.cols()});
    auto v = out.mutable_unchecked<2>();
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) v(r, c) = m(r, c);
    return out;
}

py::list blocks_to_list(const std::vector<tape::JacobianBlock>& blocks) {
    py::list out;
    for (const auto& b : blocks) out.append(py::make_tuple(b.input, b.output, b.input_name, b.output_name, to_numpy(b.matrix)));
    return out;
}

tape::JacobianOptions jacobian_options(const std::string& device, int block_dim, int max_outputs, double eps) {
    tape::JacobianOptions o;
    o.device = runtime::parse_device(device);
    o.block_dim = block_dim;
    o.max_outputs_per_var = max_outputs;
    o.eps = eps;
    return o;
}

// {name: (values, labels)} <-> tape::GradientValues (with the loss, when given)
tape::GradientValues gradient_values(const py::object& loss, const py::dict& grads) {
    tape::GradientValues g;
    g.has_loss = !loss.is_none();
    if (g.has_loss) g.loss = loss.cast<double>();
    for (auto [k, v] : grads) {
        auto t = v.cast<py::tuple>();
        g.gradients[k.cast<std::string>()] = {t[0].cast<std::vector<double>>(), t[1].cast<std::vector<std::string>>()};
    }
    return g;
}

void bind_gradient_check(py::module_& m) {
    m.def(
        "check_gradients",
        [](const py::function& loss, double loss_value, const py::list& params, double eps, double rtol, double atol,
           int max_entries, double loss_precision) {
            std::vector<tape::CheckedParam> ps;
            for (auto item : params) {
                auto t = item.cast<py::tuple>();  // (name, array, adjoint)
                tape::CheckedParam p;
                p.name = t[0].cast<std::string>();
                p.array = t[1].cast<Array>();
                p.adjoint = t[2].cast<std::vector<double>>();
                ps.push_back(std::move(p));
            }
            tape::GradientCheckOptions o;
            o.eps = eps;
            o.rtol = rtol;
            o.atol = atol;
            o.max_entries = max_entries;
            o.loss_precision = loss_precision;
            tape::GradientCheckResult r = tape::check_gradients([&] { return loss().cast<double>(); }, loss_value, ps, o);
            py::list entries;
            for (const auto& p : r.params)
                for (const auto& e : p.entries)
                    entries.append(py::make_tuple(p.name, e.label, e.adjoint, e.fd, e.fd_half, e.passed, e.smooth));
            return py::make_tuple(r.passed, tape::format_gradient_check(r), entries);
        },
        "(passed, table, [(param, label, adjoint, fd, fd_half_eps, passed, smooth)]): tape::check_gradients on a Python "
        "loss function; params are (name, array, adjoint values)");
    m.def(
        "compare_golden",
        [](const py::object& loss, const py::dict& now, const py::object& golden_loss, const py::dict& golden, double rtol) {
            tape::GoldenComparison c =
                tape::compare_golden(gradient_values(loss, now), gradient_values(golden_loss, golden), rtol);
            return py::make_tuple(c.passed, c.table);
        },
        "(passed, diff table): tape::compare_golden; gradients as {name: (values, labels)}");
    m.def(
        "describe_golden_update",
        [](double loss, const py::dict& now, const py::object& old_loss, const py::object& old, double rtol) {
            tape::GradientValues n = gradient_values(py::float_(loss), now);
            if (old.is_none()) return tape::describe_golden_update(nullptr, n, rtol);
            tape::GradientValues o = gradient_values(old_loss, old.cast<py::dict>());
            return tape::describe_golden_update(&o, n, rtol);
        },
        "tape::describe_golden_update: what writing `now` over `old` (None: no file) changes");
}

}  // namespace

void bind_tape(py::module_& m) {
    bind_gradient_check(m);
    py::class_<PyTape>(m, "Tape", "Records launches and array copies; backward() runs their adjoints in reverse")
        .def(py::init<>())
        .def("activate",
             [](PyTape& t) {
                 if (t.active) throw runtime::RuntimeError("this tape is already recording (nested `with` on the same tape)");
                 t.previous = runtime::exchange_recorder(&t.tape);
                 t.active = true;
             })
        .def("deactivate",
             [](PyTape& t) {
                 if (!t.active) return;
                 if (runtime::active_recorder() != &t.tape)
                     throw runtime::RuntimeError("tapes must be closed in the reverse order they were opened");
                 runtime::exchange_recorder(t.previous);
                 t.active = false;
             })
        .def(
            "backward",
            [](PyTape& t, const Array& loss) {
                py::gil_scoped_release unlocked;
                t.tape.backward(loss);
            },
            "Seeds loss.grad with 1 and runs the adjoints in reverse")
        .def(
            "backward_grads",
            [](PyTape& t, const std::vector<std::pair<Array, Array>>& grads) {
                py::gil_scoped_release unlocked;
                t.tape.backward(grads);
            },
            "Seeds each array's gradient with the paired array, then runs the adjoints")
        .def(
            "backward_loss_and_grads",
            [](PyTape& t, const Array& loss, const std::vector<std::pair<Array, Array>>& grads) {
                py::gil_scoped_release unlocked;
                t.tape.backward(loss, grads);
            },
            "Seeds each array's gradient with the paired array and loss.grad with 1, then runs the adjoints")
        .def("zero", [](PyTape& t) { t.tape.zero(); })
        .def("reset", [](PyTape& t) { t.tape.reset(); })
        .def("gradients", [](const PyTape& t) { return t.tape.gradients(); })
        .def("check_overwrites", [](const PyTape& t) { return t.tape.check_overwrites(); })
        .def("dot", [](const PyTape& t) { return t.tape.dot(); })
        .def("visualize", [](const PyTape& t, const std::string& path) { t.tape.visualize(path); })
        .def(
            "records",
            [](const PyTape& t) {
                std::vector<std::string> out;
                for (const auto& r : t.tape.records()) out.push_back(r.describe());
                return out;
            },
            "one description per record, oldest first")
        .def("record_func", [](PyTape& t, const std::string& name, py::function backward, const std::vector<Array>& reads,
                               const std::vector<Array>& writes) {
            std::vector<tape::Access> acc;
            for (const Array& a : reads) acc.push_back({a, "read by " + name, true, false});
            for (const Array& a : writes) acc.push_back({a, "written by " + name, false, true});
            auto fn = std::make_shared<py::function>(std::move(backward));
            t.tape.record_func(
                name,
                [fn]() {
                    py::gil_scoped_acquire locked;
                    (*fn)();
                },
                std::move(acc));
        });

    m.def(
        "checkpoint",
        [](py::function step, int n_steps, const std::vector<Array>& state_in, std::vector<Array> state_out, int segment) {
            auto fn = std::make_shared<py::function>(std::move(step));
            tape::StepFn cpp_step = [fn](int k, const tape::StateArrays& in, tape::StateArrays& out) {
                py::gil_scoped_acquire locked;
                (*fn)(k, in, out);
            };
            tape::CheckpointStats s;
            {
                py::gil_scoped_release unlocked;
                s = tape::checkpoint(cpp_step, n_steps, state_in, state_out, segment);
            }
            return py::make_tuple(s.segment, s.checkpoints);
        },
        py::arg("step"), py::arg("n_steps"), py::arg("state_in"), py::arg("state_out"), py::arg("segment") = 0,
        "Runs n_steps of step(k, state_in_arrays, state_out_arrays) keeping about sqrt(n) states; returns (segment, "
        "checkpoints)");

    m.def(
        "jacobian",
        [](const runtime::Kernel& k, const std::vector<int64_t>& dim, const std::vector<LaunchArg>& inputs,
           const std::vector<LaunchArg>& outputs, const std::string& device, int block_dim, int max_outputs) {
            std::vector<tape::JacobianBlock> b;
            {
                py::gil_scoped_release unlocked;
                b = tape::jacobian(k, dim, inputs, outputs, jacobian_options(device, block_dim, max_outputs, 1e-4));
            }
            return blocks_to_list(b);
        },
        "[(input index, output index, input name, output name, matrix)] by backward launches");
    m.def(
        "jacobian_fd",
        [](const runtime::Kernel& k, const std::vector<int64_t>& dim, const std::vector<LaunchArg>& inputs,
           const std::vector<LaunchArg>& outputs, const std::string& device, int block_dim, int max_outputs, double eps) {
            std::vector<tape::JacobianBlock> b;
            {
                py::gil_scoped_release unlocked;
                b = tape::jacobian_fd(k, dim, inputs, outputs, jacobian_options(device, block_dim, max_outputs, eps));
            }
            return blocks_to_list(b);
        },
        "the same by central finite differences");
    m.def(
        "gradcheck",
        [](const runtime::Kernel& k, const std::vector<int64_t>& dim, const std::vector<LaunchArg>& inputs,
           const std::vector<LaunchArg>& outputs, const std::string& device, int block_dim, int max_outputs, double eps,
           double atol, double rtol) {
            tape::GradcheckOptions o;
            o.jacobian = jacobian_options(device, block_dim, max_outputs, eps);
            o.atol = atol;
            o.rtol = rtol;
            tape::GradcheckResult r;
            {
                py::gil_scoped_release unlocked;
                r = tape::gradcheck(k, dim, inputs, outputs, o);
            }
            return py::make_tuple(r.passed, r.max_abs_error, r.max_rel_error, r.report);
        },
        "(passed, max abs error, max rel error, report)");
}

}  // namespace weft::python
