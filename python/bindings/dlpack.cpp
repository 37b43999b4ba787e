// python/bindings/dlpack.cpp: DLPack capsules (runtime/dlpack.h) for wp.array.__dlpack__,
// __dlpack_device__ and wp.from_dlpack.
//
// The Python protocol: the producer returns a PyCapsule named "dltensor" holding a
// DLManagedTensor*; the consumer renames it "used_dltensor" and owns the tensor from then on. A
// capsule dropped unconsumed still holds its name, and its destructor calls the deleter. For a
// CUDA array, `stream` is the consumer's stream (1: the legacy default stream, 2: the per-thread
// default, -1: no ordering wanted, else a CUstream): the producer makes it wait for the work
// queued on its own current stream, with an event, without blocking the host.
#include <pybind11/stl.h>

#include <cstdint>
#include <optional>

#include "python/bindings/bindings.h"
#include "runtime/dlpack.h"
#include "runtime/errors.h"
#if WEFT_HAVE_CUDA
#include "runtime/cuda/stream.h"
#endif

namespace py = pybind11;
using namespace weft::runtime;

namespace weft::python {
namespace {

constexpr const char* kName = "dltensor";
constexpr const char* kUsedName = "used_dltensor";

void capsule_destructor(PyObject* capsule) {
    if (!PyCapsule_IsValid(capsule, kName)) return;  // consumed: the consumer owns the tensor
    auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, kName));
    if (t && t->deleter) t->deleter(t);
}

// Orders the consumer's stream after Weft's current stream of the array's device.
void order_for_consumer(const Array& a, std::optional<long long> stream) {
    if (a.device().kind != DeviceKind::Cuda) return;
    long long handle = stream.value_or(1);  // None: the legacy default stream (the spec's rule)
    if (handle == -1) return;
    if (handle == 0) throw py::value_error("__dlpack__: stream=0 is ambiguous for CUDA (use 1 for the legacy default stream)");
#if WEFT_HAVE_CUDA
    Stream consumer = Stream::borrow(a.device(), reinterpret_cast<CUstream>(static_cast<std::uintptr_t>(handle)));
    consumer.wait(Stream::current(a.device()).record());
#endif
}

}  // namespace

void bind_dlpack(py::module_& m) {
    m.def(
        "to_dlpack",
        [](const Array& a, std::optional<long long> stream) {
            order_for_consumer(a, stream);
            DLManagedTensor* t = to_dlpack(a);
            return py::reinterpret_steal<py::object>(PyCapsule_New(t, kName, capsule_destructor));
        },
        py::arg("array"), py::arg("stream") = py::none(),
        "A 'dltensor' capsule sharing the array's memory (the __dlpack__ protocol)");
    m.def(
        "from_dlpack",
        [](py::capsule capsule, const compiler::TypeNode* dtype) {
            PyObject* c = capsule.ptr();
            if (!PyCapsule_IsValid(c, kName))
                throw py::value_error(
                    "from_dlpack: expected an unconsumed 'dltensor' capsule (a capsule is consumed once; "
                    "call __dlpack__ again for another)");
            auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(c, kName));
            PyCapsule_SetName(c, kUsedName);  // ours now, also if from_dlpack throws (it calls the deleter)
            return from_dlpack(t, dtype);
        },
        py::arg("capsule"), py::arg("dtype") = nullptr, "An array sharing the memory of a 'dltensor' capsule, which it consumes");
    m.def(
        "dlpack_device",
        [](const Array& a) {
            DLDevice d = dlpack_device(a.device());
            return py::make_tuple(d.device_type, d.device_id);
        },
        "(device_type, device_id) as __dlpack_device__ returns them");
#if WEFT_HAVE_CUDA
    m.def(
        "current_stream_handle",
        [](const std::string& device) {
            return reinterpret_cast<std::uintptr_t>(Stream::current(parse_device(device)).handle());
        },
        "This thread's current CUstream of a cuda device, as an integer (the stream a DLPack producer must order)");
#else
    m.def("current_stream_handle", [](const std::string&) -> std::uintptr_t {
        throw RuntimeError("this build of Weft has no cuda device (WEFT_WITH_CUDA=OFF)");
    });
#endif
}

}  // namespace weft::python
