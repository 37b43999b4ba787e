// python/bindings/arrays.cpp: runtime::Array (runtime/array.h) for the Python `wp.array` class.
//
// Arrays are handles: copying a Python wrapper shares memory, as in C++. Devices cross the
// boundary as strings ("cpu", "cuda:0", "sim:h200"). `host_view` is the zero-copy path behind
// `array.numpy()` on host-memory devices: the numpy array points at the array's memory and its
// base object holds a copy of the handle, so the buffer stays alive while any view does.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <cstring>

#include "python/bindings/bindings.h"
#include "runtime/array.h"
#include "runtime/errors.h"

namespace py = pybind11;
using weft::compiler::Type;
using weft::runtime::Array;
using weft::runtime::parse_device;

namespace weft::python {
namespace {

std::string value_bytes(Type dtype, const py::bytes& b) {
    std::string s = b;
    if (s.size() != compiler::type_size(dtype))
        throw py::value_error("value of " + std::to_string(s.size()) + " bytes for dtype " + compiler::type_name(dtype) + " of " +
                              std::to_string(compiler::type_size(dtype)) + " bytes");
    return s;
}

py::buffer_info contiguous(const py::buffer& b, size_t expected, const Array& a) {
    py::buffer_info info = b.request();
    ssize_t stride = info.itemsize;
    for (ssize_t k = info.ndim - 1; k >= 0; --k) {
        if (info.shape[k] > 1 && info.strides[k] != stride) throw py::value_error("host buffer is not C-contiguous");
        stride *= info.shape[k];
    }
    size_t bytes = static_cast<size_t>(info.size * info.itemsize);
    if (bytes != expected)
        throw py::value_error("host buffer of " + std::to_string(bytes) + " bytes for " + a.describe() + " of " +
                              std::to_string(expected) + " bytes");
    return info;
}

}  // namespace

void bind_arrays(py::module_& m) {
    py::class_<Array>(m, "Array", "A typed, strided, n-dimensional array on a device (a shared handle)")
        .def_static(
            "empty",
            [](Type dtype, const std::vector<int64_t>& shape, const std::string& device, bool requires_grad) {
                return Array::empty(dtype, shape, parse_device(device), requires_grad);
            },
            py::arg("dtype"), py::arg("shape"), py::arg("device"), py::arg("requires_grad") = false)
        .def_static(
            "zeros",
            [](Type dtype, const std::vector<int64_t>& shape, const std::string& device, bool requires_grad) {
                return Array::zeros(dtype, shape, parse_device(device), requires_grad);
            },
            py::arg("dtype"), py::arg("shape"), py::arg("device"), py::arg("requires_grad") = false)
        .def_static(
            "full",
            [](Type dtype, const std::vector<int64_t>& shape, const py::bytes& value, const std::string& device,
               bool requires_grad) {
                std::string v = value_bytes(dtype, value);
                return Array::full(dtype, shape, v.data(), parse_device(device), requires_grad);
            },
            py::arg("dtype"), py::arg("shape"), py::arg("value"), py::arg("device"), py::arg("requires_grad") = false,
            "Every element set to the value whose bytes are `value` (type_size(dtype) bytes)")
        .def_property_readonly("dtype", &Array::dtype, py::return_value_policy::reference)
        .def_property_readonly("ndim", &Array::ndim)
        .def_property_readonly("shape", [](const Array& a) { return a.shape(); })
        .def_property_readonly(
            "strides", [](const Array& a) { return a.strides(); }, "byte strides")
        .def_property_readonly("size", &Array::size, "number of elements")
        .def_property_readonly("nbytes", &Array::nbytes)
        .def_property_readonly("element_size", &Array::element_size)
        .def_property_readonly("is_contiguous", &Array::is_contiguous)
        .def_property_readonly("device", [](const Array& a) { return a.device().str(); })
        .def_property_readonly("ptr", [](const Array& a) { return reinterpret_cast<std::uintptr_t>(a.data()); })
        .def_property("requires_grad", &Array::requires_grad, &Array::set_requires_grad,
                      "Gradient (same shape, dtype and device), created zeroed by requires_grad")
        .def_property_readonly("grad",
                               [](const Array& a) -> py::object {
                                   if (!a.grad()) return py::none();
                                   return py::cast(*a.grad());
                               })
        .def("set_grad", &Array::set_grad, "Uses the given array (same shape, dtype, device) as the gradient")
        .def("zero_grad", &Array::zero_grad)
        .def(
            "copy_from_host",
            [](Array& a, const py::buffer& b) {
                py::buffer_info info = contiguous(b, a.nbytes(), a);
                a.copy_from_host(info.ptr, a.nbytes());
            },
            "Copies a C-contiguous host buffer of exactly nbytes into the array")
        .def(
            "copy_to_host",
            [](const Array& a, const py::buffer& b) {
                py::buffer_info info = contiguous(b, a.nbytes(), a);
                if (info.readonly) throw py::value_error("host buffer is read-only");
                a.copy_to_host(info.ptr, a.nbytes());
            },
            "Copies the array into a writable C-contiguous host buffer of exactly nbytes")
        .def(
            "to", [](const Array& a, const std::string& device) { return a.to(parse_device(device)); },
            "A new array on `device` with the same contents")
        .def("assign", &Array::assign, "Same shape and dtype; any devices")
        .def("zero", &Array::zero)
        .def("fill",
             [](Array& a, const py::bytes& value) {
                 std::string v = value_bytes(a.dtype(), value);
                 a.fill(v.data());
             })
        .def(
            "descriptor",
            [](const Array& a) {
                auto d = a.descriptor();
                return py::bytes(reinterpret_cast<const char*>(d.data()), d.size());
            },
            "The wp::array_t descriptor kernels receive (64 bytes)")
        .def(
            "host_view",
            [](const Array& a, const py::dtype& dt, const std::vector<ssize_t>& shape, const std::vector<ssize_t>& strides) {
                if (!a.device().is_host_memory())
                    throw runtime::RuntimeError("array on " + a.device().str() + " has no host view; copy it instead");
                auto* keep = new Array(a);
                py::capsule base(keep, [](void* p) { delete static_cast<Array*>(p); });
                return py::array(dt, shape, strides, a.data(), base);
            },
            "A numpy array viewing the array's host memory; keeps the memory alive")
        .def("view", &Array::view, py::arg("offset_bytes"), py::arg("dtype"), py::arg("shape"), py::arg("strides"),
             "A view of this array's memory (shape, byte strides, same-size dtype) that keeps it alive; its gradient "
             "is the same view of the gradient")
        .def("describe", &Array::describe)
        .def("__repr__", &Array::describe);

    m.def(
        "copy", [](Array& dst, const Array& src) { runtime::copy(dst, src); },
        "Copies between arrays of the same shape and dtype on any devices (wp.copy)");
}

}  // namespace weft::python
