// Arrays. See array.h.
#include "runtime/array.h"

#include <cstring>

#include "runtime/capture_check.h"
#include "runtime/errors.h"
#include "runtime/memory_stats.h"
#include "runtime/launch_list.h"
#include "runtime/recorder.h"
#include "runtime/write_versions.h"

namespace weft::runtime {

namespace {

void check_shape(const std::vector<int64_t>& shape) {
    if (shape.empty() || shape.size() > 4)
        throw RuntimeError("arrays have 1 to 4 dimensions; got a shape with " + std::to_string(shape.size()));
    for (int64_t s : shape)
        if (s < 0) throw RuntimeError("array dimensions must not be negative; got " + std::to_string(s));
    for (int64_t s : shape)
        if (s > INT32_MAX) throw RuntimeError("array dimension " + std::to_string(s) + " exceeds 2^31-1");
}

}  // namespace

int64_t Array::size() const {
    int64_t n = 1;
    for (int k = 0; k < ndim_; ++k) n *= shape_[static_cast<size_t>(k)];
    return ndim_ ? n : 0;
}

size_t Array::element_size() const { return dtype_ ? compiler::type_size(dtype_) : 0; }

bool Array::is_contiguous() const {
    int64_t expect = static_cast<int64_t>(element_size());
    for (int k = ndim_ - 1; k >= 0; --k) {
        if (shape_[static_cast<size_t>(k)] != 1 && strides_[static_cast<size_t>(k)] != expect) return false;
        expect *= shape_[static_cast<size_t>(k)];
    }
    return true;
}

Array Array::empty(compiler::Type dtype, const std::vector<int64_t>& shape, const Device& device, bool requires_grad) {
    check_shape(shape);
    if (!dtype || compiler::is_array(dtype) || compiler::is_tuple(dtype) || dtype->kind == compiler::TypeKind::Void)
        throw RuntimeError("arrays hold value types; got " + (dtype ? compiler::type_name(dtype) : std::string("none")));
    Array a;
    a.dtype_ = dtype;
    a.ndim_ = static_cast<int>(shape.size());
    a.device_ = device;
    int64_t stride = static_cast<int64_t>(compiler::type_size(dtype));
    for (int k = a.ndim_ - 1; k >= 0; --k) {
        a.shape_[static_cast<size_t>(k)] = shape[static_cast<size_t>(k)];
        a.strides_[static_cast<size_t>(k)] = stride;
        stride *= shape[static_cast<size_t>(k)];
    }
    size_t bytes = std::max<size_t>(a.nbytes(), 1);
    DeviceBackend& be = backend(device);
    void* p = be.allocate(bytes);
    note_allocated(bytes);
    a.data_ = p;
    a.owner_ = std::shared_ptr<void>(p, [&be, bytes](void* q) {
        note_capture_free(q);
        be.free(q);
        note_freed(bytes);
    });
    note_capture_allocation(device, p, a.describe());
    if (requires_grad) a.set_requires_grad(true);
    return a;
}

Array Array::zeros(compiler::Type dtype, const std::vector<int64_t>& shape, const Device& device, bool requires_grad) {
    Array a = empty(dtype, shape, device, requires_grad);
    a.zero_unrecorded();
    return a;
}

Array Array::full(compiler::Type dtype, const std::vector<int64_t>& shape, const void* value, const Device& device,
                  bool requires_grad) {
    Array a = empty(dtype, shape, device, requires_grad);
    a.fill_unrecorded(value);
    return a;
}

Array Array::wrap(void* data, compiler::Type dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                  const Device& device, std::shared_ptr<void> owner) {
    check_shape(shape);
    if (strides.size() != shape.size()) throw RuntimeError("array strides and shape have different lengths");
    Array a;
    a.dtype_ = dtype;
    a.ndim_ = static_cast<int>(shape.size());
    a.device_ = device;
    for (size_t k = 0; k < shape.size(); ++k) {
        a.shape_[k] = shape[k];
        a.strides_[k] = strides[k];
    }
    a.data_ = data;
    a.owner_ = std::move(owner);
    return a;
}

namespace {

// The bytes [lo, hi) relative to the first element that the elements of a shape and strides cover.
std::pair<int64_t, int64_t> byte_span(const int64_t* shape, const int64_t* strides, int ndim, int64_t element) {
    int64_t lo = 0, hi = element;
    for (int k = 0; k < ndim; ++k) {
        if (shape[k] == 0) return {0, 0};
        const int64_t reach = (shape[k] - 1) * strides[k];
        (reach < 0 ? lo : hi) += reach;
    }
    return {lo, hi};
}

}  // namespace

Array Array::view(int64_t offset_bytes, compiler::Type dtype, const std::vector<int64_t>& shape,
                  const std::vector<int64_t>& strides) const {
    if (!valid()) throw RuntimeError("view of an array with no memory");
    if (!dtype || compiler::type_size(dtype) != element_size())
        throw RuntimeError("a view of " + describe() + " must have elements of its size (" + std::to_string(element_size()) +
                           " bytes); got " + (dtype ? compiler::type_name(dtype) : std::string("none")));
    check_shape(shape);
    if (strides.size() != shape.size()) throw RuntimeError("array strides and shape have different lengths");
    const auto [lo, hi] = byte_span(shape_.data(), strides_.data(), ndim_, static_cast<int64_t>(element_size()));
    const auto [vlo, vhi] =
        byte_span(shape.data(), strides.data(), static_cast<int>(shape.size()), static_cast<int64_t>(element_size()));
    if (vhi > vlo && (offset_bytes + vlo < lo || offset_bytes + vhi > hi))
        throw RuntimeError("a view at byte offset " + std::to_string(offset_bytes) + " of " + describe() +
                           " would reach outside its elements");
    Array v = wrap(static_cast<std::byte*>(data_) + offset_bytes, dtype, shape, strides, device_, owner_);
    if (grad_) v.grad_ = std::make_shared<Array>(grad_->view(offset_bytes, dtype, shape, strides));
    return v;
}

void Array::set_requires_grad(bool on) {
    if (!on) {
        grad_.reset();
        return;
    }
    if (!grad_) grad_ = std::make_shared<Array>(Array::zeros(dtype_, shape(), device_));
}

void Array::set_grad(const Array& g) {
    if (g.dtype() != dtype_ || g.shape() != shape() || g.device() != device_)
        throw RuntimeError("cannot use " + g.describe() + " as the gradient of " + describe() +
                           ": it must have the same shape, dtype and device");
    // Copies of this array (a Tape's records of launches that used it) share one gradient
    // object: retarget that object, so that a gradient set after recording (Warp's
    // `y.grad = seed; tape.backward()`) is the one the adjoints read and write.
    if (grad_)
        *grad_ = g;
    else
        grad_ = std::make_shared<Array>(g);
}

void Array::zero_grad() {
    if (grad_) grad_->zero_unrecorded();  // gradients are not values a Tape differentiates
}

void Array::zero() {
    note_write(*this, "zero");
    if (Recorder* r = active_recorder()) r->on_overwrite(*this, "zero");
    zero_unrecorded();
}

void Array::zero_unrecorded() {
    if (LaunchCollector* c = active_launch_collector()) return refuse_collected(*c, "zero() of " + describe());
    if (!is_contiguous()) {
        std::vector<std::byte> z(element_size());
        fill_unrecorded(z.data());
        return;
    }
    backend(device_).memset(data_, 0, nbytes());
}

void Array::fill(const void* value) {
    note_write(*this, "fill");
    if (Recorder* r = active_recorder()) r->on_overwrite(*this, "fill");
    fill_unrecorded(value);
}

void Array::fill_unrecorded(const void* value) {
    if (LaunchCollector* c = active_launch_collector()) return refuse_collected(*c, "fill() of " + describe());
    size_t es = element_size();
    if (is_contiguous()) {  // in place on the device (a graph can capture it)
        if (size() > 0) backend(device_).fill(data_, value, es, static_cast<size_t>(size()));
        return;
    }
    std::vector<std::byte> host(nbytes());
    for (int64_t i = 0; i < size(); ++i) std::memcpy(host.data() + static_cast<size_t>(i) * es, value, es);
    write_from_host(host.data(), host.size());
}

void Array::copy_from_host(const void* src, size_t bytes) {
    note_write(*this, "copy from host");
    if (Recorder* r = active_recorder()) r->on_overwrite(*this, "copy from host");
    write_from_host(src, bytes);
}

namespace {

void refuse_host_write(const Array& a) {
    refuse_in_capture(a.device(), "a copy from host memory into " + a.describe(),
                      "a graph cannot record a copy from pageable host memory (it would copy whatever the buffer holds "
                      "when it replays); fill or zero the array on the device, or copy from an array of the device");
}

void refuse_host_read(const Array& a) {
    refuse_in_capture(a.device(), "a copy of " + a.describe() + " to the host",
                      "the captured work has not run yet, and the read would wait for it; read results after "
                      "replaying the graph");
}

}  // namespace

void Array::write_from_host(const void* src, size_t bytes) {
    if (LaunchCollector* c = active_launch_collector()) return refuse_collected(*c, "a copy from the host into " + describe());
    if (bytes != nbytes())
        throw RuntimeError("copy into " + describe() + ": expected " + std::to_string(nbytes()) + " bytes, got " +
                           std::to_string(bytes));
    refuse_host_write(*this);
    if (is_contiguous()) {
        backend(device_).copy_from_host(data_, src, bytes);
        return;
    }
    if (!device_.is_host_memory())
        throw RuntimeError("copy into a non-contiguous array on " + device_.str() + " is not supported");
    size_t es = element_size();
    const auto* s = static_cast<const std::byte*>(src);
    for (int64_t i = 0; i < size(); ++i) {
        int64_t rem = i, off = 0;
        for (int k = ndim_ - 1; k >= 0; --k) {
            off += (rem % shape_[static_cast<size_t>(k)]) * strides_[static_cast<size_t>(k)];
            rem /= shape_[static_cast<size_t>(k)];
        }
        std::memcpy(static_cast<std::byte*>(data_) + off, s + static_cast<size_t>(i) * es, es);
    }
}

void Array::copy_to_host(void* dst, size_t bytes) const {
    if (LaunchCollector* c = active_launch_collector()) return refuse_collected(*c, "a copy of " + describe() + " to the host");
    if (bytes != nbytes())
        throw RuntimeError("copy from " + describe() + ": expected " + std::to_string(nbytes()) + " bytes, got " +
                           std::to_string(bytes));
    refuse_host_read(*this);
    if (is_contiguous()) {
        backend(device_).copy_to_host(dst, data_, bytes);
        run_deferred_checks(device_);  // a synchronising point: status words of replays are read here
        return;
    }
    if (!device_.is_host_memory())
        throw RuntimeError("copy from a non-contiguous array on " + device_.str() + " is not supported");
    size_t es = element_size();
    auto* d = static_cast<std::byte*>(dst);
    for (int64_t i = 0; i < size(); ++i) {
        int64_t rem = i, off = 0;
        for (int k = ndim_ - 1; k >= 0; --k) {
            off += (rem % shape_[static_cast<size_t>(k)]) * strides_[static_cast<size_t>(k)];
            rem /= shape_[static_cast<size_t>(k)];
        }
        std::memcpy(d + static_cast<size_t>(i) * es, static_cast<const std::byte*>(data_) + off, es);
    }
}

Array Array::to(const Device& d) const {
    Array out = Array::empty(dtype_, shape(), d);
    out.assign_unrecorded(*this);
    return out;
}

void Array::assign(const Array& src) {
    if (src.dtype_ != dtype_ || src.shape() != shape())
        throw RuntimeError("cannot copy " + src.describe() + " into " + describe() + ": dtype and shape must match");
    note_write(*this, "copy (assign)");
    if (Recorder* r = active_recorder()) r->on_copy(*this, src);
    assign_unrecorded(src);
}

void Array::assign_unrecorded(const Array& src) {
    if (LaunchCollector* c = active_launch_collector()) return refuse_collected(*c, "a copy into " + describe());
    if (src.dtype_ != dtype_ || src.shape() != shape())
        throw RuntimeError("cannot copy " + src.describe() + " into " + describe() + ": dtype and shape must match");
    if (src.device_ == device_ && is_contiguous() && src.is_contiguous()) {
        backend(device_).copy_within(data_, src.data_, nbytes());
        return;
    }
    // Host memory <-> a device: one copy by the device, no staging here (from pinned memory it is
    // a DMA ordered on the current stream, runtime/cuda/pinned.h).
    if (is_contiguous() && src.is_contiguous() && device_.is_host_memory() != src.device_.is_host_memory()) {
        if (device_.is_host_memory()) {
            refuse_host_read(src);
            backend(src.device_).copy_to_host(data_, src.data_, nbytes());
        } else {
            refuse_host_write(*this);
            backend(device_).copy_from_host(data_, src.data_, nbytes());
        }
        return;
    }
    std::vector<std::byte> host(nbytes());
    src.copy_to_host(host.data(), host.size());
    write_from_host(host.data(), host.size());
}

std::array<std::byte, 64> Array::descriptor() const {
    std::array<std::byte, 64> d{};
    void* p = data_;
    std::memcpy(d.data(), &p, 8);
    for (int k = 0; k < 4; ++k) {
        int32_t s = k < ndim_ ? static_cast<int32_t>(shape_[static_cast<size_t>(k)]) : 1;
        int64_t st = k < ndim_ ? strides_[static_cast<size_t>(k)] : 0;
        std::memcpy(d.data() + 8 + 4 * k, &s, 4);
        std::memcpy(d.data() + 24 + 8 * k, &st, 8);
    }
    int32_t nd = ndim_;
    std::memcpy(d.data() + 56, &nd, 4);
    return d;
}

std::string Array::describe() const {
    if (!dtype_) return "array(<empty>)";
    std::string s = "array(" + compiler::type_name(dtype_) + ", shape=(";
    for (int k = 0; k < ndim_; ++k)
        s += std::to_string(shape_[static_cast<size_t>(k)]) + (ndim_ == 1 || k + 1 < ndim_ ? "," : "");
    return s + "), device=" + device_.str() + ")";
}

void copy(Array& dst, const Array& src) { dst.assign(src); }

}  // namespace weft::runtime
