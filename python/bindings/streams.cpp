// python/bindings/streams.cpp: streams, events, graph capture (runtime/cuda/stream.h) and pinned
// host arrays (runtime/cuda/pinned.h), for wp.Stream, wp.Event, wp.ScopedStream, wp.ScopedCapture,
// wp.capture_launch and wp.array(..., pinned=True).
//
// Handles cross as the C++ objects; devices as strings. Blocking calls release the GIL. In a
// build without the cuda device every entry point raises RuntimeError saying so (the Python
// package checks wp.is_cuda_available() first, so users see that only when they insist).
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>

#include "python/bindings/bindings.h"
#include "runtime/array.h"
#include "runtime/errors.h"
#if WEFT_HAVE_CUDA
#include "runtime/cuda/pinned.h"
#include "runtime/cuda/stream.h"
#endif

namespace py = pybind11;
using namespace weft::runtime;

namespace weft::python {

#if WEFT_HAVE_CUDA
void bind_streams(py::module_& m) {
    py::class_<Stream, std::shared_ptr<Stream>>(m, "Stream", "An ordered queue of GPU work on a cuda device")
        .def(py::init([](const std::string& device) { return std::make_shared<Stream>(parse_device(device)); }),
             py::arg("device"), "A new stream on a cuda device")
        .def_static(
            "current", [](const std::string& device) { return std::make_shared<Stream>(Stream::current(parse_device(device))); },
            "This thread's current stream of the device (not owned)")
        .def_static(
            "borrow",
            [](const std::string& device, std::uintptr_t handle) {
                return std::make_shared<Stream>(Stream::borrow(parse_device(device), reinterpret_cast<CUstream>(handle)));
            },
            "A CUstream made elsewhere (another library) on the device's primary context; never destroyed by Weft")
        .def_property_readonly("device", [](const Stream& s) { return s.device().str(); })
        .def_property_readonly(
            "handle", [](const Stream& s) { return reinterpret_cast<std::uintptr_t>(s.handle()); }, "the CUstream, as an integer")
        .def(
            "synchronize",
            [](const Stream& s) {
                py::gil_scoped_release u;
                s.synchronize();
            },
            "waits for all work queued so far")
        .def("done", &Stream::done, "true when all queued work has finished")
        .def("record", &Stream::record, "a new event, recorded here now")
        .def("wait", &Stream::wait, "later work on this stream waits for the event (no host wait)");

    py::class_<Event, std::shared_ptr<Event>>(m, "Event", "A marker in a stream's queue")
        .def(py::init(
                 [](const std::string& device, bool timing) { return std::make_shared<Event>(parse_device(device), timing); }),
             py::arg("device"), py::arg("timing") = false)
        .def_property_readonly("device", [](const Event& e) { return e.device().str(); })
        .def("record", &Event::record, "marks the point reached by the stream's queue now")
        .def(
            "synchronize",
            [](const Event& e) {
                py::gil_scoped_release u;
                e.synchronize();
            },
            "host waits until that point has run")
        .def("done", &Event::done)
        .def("elapsed_ms", &Event::elapsed_ms, "milliseconds from this event to `end` (both timing events, both done)");

    m.def(
        "set_current_stream",
        [](const Stream& s) {
            // ScopedStream's state without its C++ scope: returns the previous stream's handle.
            auto* scoped = new ScopedStream(s);
            return py::capsule(scoped, [](void* p) { delete static_cast<ScopedStream*>(p); });
        },
        "Makes `s` this thread's current stream of its device until the returned token is released (wp.ScopedStream)");

    py::class_<Graph, std::shared_ptr<Graph>>(m, "Graph", "Recorded launches, replayable (CUDA graph)")
        .def_property_readonly("device", [](const Graph& g) { return g.device().str(); })
        .def_property_readonly("node_count", &Graph::node_count)
        .def(
            "launch",
            [](const Graph& g, const Stream* s) {
                if (s)
                    g.launch(*s);
                else
                    g.launch();
            },
            py::arg("stream") = nullptr, "replays the graph on `stream` (default: the device's current stream)");
    m.def("begin_capture", &begin_capture, "starts recording on the stream and makes it current on this thread");
    m.def(
        "end_capture", [](const Stream& s) { return std::make_shared<Graph>(end_capture(s)); },
        "ends the capture begun on the stream and returns the instantiated graph");
    m.def(
        "synchronize_cuda",
        [](const std::string& device) {
            py::gil_scoped_release u;
            synchronize(parse_device(device));
        },
        "cuCtxSynchronize: every stream of the device");

    m.def("pinned_zeros", &pinned_zeros, py::arg("dtype"), py::arg("shape"), py::arg("requires_grad") = false,
          "A zeroed cpu array in page-locked memory (runtime/cuda/pinned.h)");
    m.def("is_pinned", &is_pinned);
}
#else
void bind_streams(py::module_& m) {
    auto none = [](py::args, py::kwargs) -> py::object {
        throw RuntimeError("this build of Weft has no cuda device (WEFT_WITH_CUDA=OFF)");
    };
    for (const char* name :
         {"Stream", "Event", "set_current_stream", "begin_capture", "end_capture", "synchronize_cuda", "pinned_zeros"})
        m.def(name, none);
    m.def("is_pinned", [](const Array&) { return false; });
}
#endif

}  // namespace weft::python
