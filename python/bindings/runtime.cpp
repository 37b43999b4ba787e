// python/bindings/runtime.cpp: devices (runtime/device.h), process-wide settings
// (runtime/config.h) and the CPU worker pool (runtime/cpu/thread_pool.h): what wp.init,
// wp.config, wp.get_devices and wp.synchronize sit on.
#include <pybind11/stl.h>

#include "python/bindings/bindings.h"
#include "runtime/config.h"
#include "runtime/device.h"
#if WEFT_HAVE_CPU_JIT
#include "runtime/cpu/thread_pool.h"
#endif

namespace py = pybind11;
using namespace weft::runtime;

namespace weft::python {

void bind_runtime(py::module_& m) {
    m.def(
        "normalize_device", [](const std::string& s) { return parse_device(s).str(); },
        "Parses 'cpu', 'cuda', 'cuda:1', 'sim', 'sim:h100' into its canonical name; RuntimeError naming the string");
    m.def(
        "device_available", [](const std::string& s) { return device_available(parse_device(s)); },
        "True when the device can be used in this build on this machine");
    m.def(
        "synchronize",
        [](const std::string& s) {
            py::gil_scoped_release unlocked;
            backend(parse_device(s)).synchronize();
        },
        "Waits for the device's work to finish");

    py::class_<Config>(m, "Config", "Process-wide runtime settings")
        .def_readwrite("debug", &Config::debug, "bounds-check every array access in every launch (WEFT_DEBUG=1)")
        .def_readwrite("verify_finite", &Config::verify_finite,
                       "after each launch, check floating-point arrays for NaN/Inf (WEFT_VERIFY_FINITE=1)")
        .def_readwrite("num_threads", &Config::num_threads, "CPU device worker threads; 0 = every core");
    m.def("config", &config, py::return_value_policy::reference, "initialised from the environment on first use");

#if WEFT_HAVE_CPU_JIT
    m.def("set_cpu_threads", &set_cpu_threads, "Resizes the CPU device's worker pool; 0 = every core");
    m.def("cpu_threads", &cpu_threads);
#else
    m.def("set_cpu_threads", [](int) {});
    m.def("cpu_threads", [] { return 0; });
#endif
}

}  // namespace weft::python
