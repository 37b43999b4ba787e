// python/bindings/launch.cpp: launch arguments and launches (runtime/module.h).
//
// The Python side turns each argument into a LaunchArg: arrays as themselves, Python numbers as
// `number`/`integer` (converted to the parameter's scalar type by the runtime), typed values
// (wp.vec3, @wp.struct instances, wp.float32(..)) as their type and packed bytes. The runtime
// checks all of them against the kernel's signature and names the parameter on a mismatch.
#include <pybind11/stl.h>

#include <optional>

#include "python/bindings/bindings.h"
#include "runtime/cancel.h"
#include "runtime/module.h"

namespace py = pybind11;
using weft::compiler::Type;
using weft::runtime::LaunchArg;

namespace weft::python {

void bind_launch(py::module_& m) {
    py::class_<LaunchArg>(m, "LaunchArg", "One launch argument: an array, a typed value, or a Python number")
        .def_static("of", &LaunchArg::of, "an array")
        .def_static(
            "value",
            [](Type t, const py::bytes& b) {
                std::string s = b;
                if (s.size() != compiler::type_size(t))
                    throw py::value_error("value of " + std::to_string(s.size()) + " bytes for type " + compiler::type_name(t));
                return LaunchArg::value(t, s.data());
            },
            "a value of type t from its bytes (must match the parameter's type exactly)")
        .def(
            "hold",
            [](LaunchArg& a, size_t offset, const runtime::Array& array) {
                if (offset + 64 > a.bytes.size()) throw py::value_error("hold: offset past the value's bytes");
                a.held.emplace_back(offset, array);
            },
            "records that the value's bytes hold `array`'s descriptor at `offset` (struct array fields: their "
            "gradients reach a backward launch, and a Tape sees them)")
        .def_static("number", &LaunchArg::number_of, "a Python float: converted to the parameter's scalar type")
        .def_static("integer", &LaunchArg::integer_of, "a Python int: converted when it fits the parameter's type")
        .def("describe", &LaunchArg::describe);

    // A launch interrupted by Ctrl-C (runtime/cancel.h) is Python's KeyboardInterrupt.
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const runtime::LaunchInterrupted& e) { PyErr_SetString(PyExc_KeyboardInterrupt, e.what()); }
    });

    m.def(
        "launch",
        [](const runtime::Kernel& k, const std::vector<int64_t>& dim, const std::vector<LaunchArg>& args,
           const std::string& device, int block_dim, int debug, bool adjoint,
           const std::vector<std::optional<runtime::Array>>& adj_args, bool record_tape) {
            runtime::LaunchOptions o;
            o.device = runtime::parse_device(device);
            o.block_dim = block_dim;
            o.debug = debug;
            o.adjoint = adjoint;
            o.record_tape = record_tape;
            for (const auto& a : adj_args) o.adj_args.push_back(a ? *a : runtime::Array());
            py::gil_scoped_release unlocked;
            runtime::launch(k, dim, args, o);
        },
        py::arg("kernel"), py::arg("dim"), py::arg("args"), py::arg("device") = "cpu", py::arg("block_dim") = 0,
        py::arg("debug") = -1, py::arg("adjoint") = false, py::arg("adj_args") = std::vector<std::optional<runtime::Array>>{},
        py::arg("record_tape") = true,
        "Checks the arguments against the kernel's signature (RuntimeError naming the parameter on any "
        "mismatch) and runs it. block_dim 0: the kernel's @wp.kernel(block_dim=N), else 256. debug -1: config().debug. "
        "adjoint: the backward entry, with adj_args (one per argument, None for the default: the array's grad) as "
        "gradient arrays. record_tape: report the launch to the active Tape");
}

}  // namespace weft::python
