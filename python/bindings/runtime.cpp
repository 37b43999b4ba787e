// python/bindings/runtime.cpp: devices (runtime/device.h), process-wide settings
// (runtime/config.h) and the CPU worker pool (runtime/cpu/thread_pool.h): what wp.init,
// wp.config, wp.get_devices and wp.synchronize sit on.
#include <pybind11/stl.h>

#include "python/bindings/bindings.h"
#include "runtime/capture_check.h"
#include "runtime/config.h"
#include "runtime/device.h"
#include "runtime/launch_list.h"
#include "runtime/memory_stats.h"
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
            const Device d = parse_device(s);
            backend(d).synchronize();
            run_deferred_checks(d);
        },
        "Waits for the device's work to finish; raises the error of a replayed graph's deferred status check");

    py::class_<CaptureCheck, std::shared_ptr<CaptureCheck>>(
        m, "CaptureCheck",
        "While alive, this thread's work on the device follows the rules of a CUDA graph capture (runtime/capture_check.h)")
        .def(py::init([](const std::string& device) { return std::make_shared<CaptureCheck>(parse_device(device)); }),
             py::arg("device"))
        .def("end", &CaptureCheck::end,
             "ends the check; raises when an array allocated during it is still alive, and marks its deferred checks "
             "pending");
    m.def(
        "capturing", [](const std::string& s) { return capturing(parse_device(s)); },
        "True while this thread's work on the device is recorded (a CUDA graph capture or a CaptureCheck)");

    py::class_<LaunchList, std::shared_ptr<LaunchList>>(
        m, "LaunchList", "A fixed sequence of launches run as one launch of a persistent grid (runtime/launch_list.h)")
        .def_property_readonly("valid", &LaunchList::valid)
        .def_property_readonly("why_not", &LaunchList::why_not, "why the recorded work cannot be a list; '' when valid")
        .def_property_readonly("steps", &LaunchList::steps, "launches per run")
        .def_property_readonly("cases", &LaunchList::cases, "distinct launches (kernel, shape, arguments)")
        .def_property_readonly("blocks", &LaunchList::blocks, "the grid of each run")
        .def(
            "run",
            [](const LaunchList& l) {
                py::gil_scoped_release unlocked;
                l.run();
            },
            "queues the whole list as one launch on this thread's current stream");
    py::class_<LaunchListRecording, std::shared_ptr<LaunchListRecording>>(
        m, "LaunchListRecording", "While recording, this thread's launches are collected into a LaunchList, not run")
        .def(py::init([](const std::string& device) { return std::make_shared<LaunchListRecording>(parse_device(device)); }),
             py::arg("device"))
        .def(
            "finish", [](LaunchListRecording& r) { return std::make_shared<LaunchList>(r.finish()); },
            "ends the recording and builds the list (invalid, with why_not, when the work cannot be one)");

    m.def(
        "memory_stats",
        [] {
            MemoryStats s = memory_stats();
            return py::dict(py::arg("live_bytes") = s.live_bytes, py::arg("peak_bytes") = s.peak_bytes);
        },
        "bytes of every owned array, on every device, now and at the peak since reset_peak_memory() (runtime/memory_stats.h)");
    m.def("reset_peak_memory", &reset_peak_memory, "peak := live");

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
