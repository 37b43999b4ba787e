// runtime/array.h: typed, strided, n-dimensional arrays on a device.
//
// An Array is a handle: copies share the same memory (as numpy views and Warp arrays do).
// It records its element type (any kernel-language value type: float32, vec3f, a struct…),
// shape (1-4 dimensions), byte strides, device and, optionally, a gradient array of the same
// shape used by the Tape. Memory is allocated by the device's backend and freed when the last
// handle goes; an array may also wrap memory it does not own (numpy buffers, DLPack), kept alive
// by the `owner` reference.
//
// Kernels receive arrays as the 64-byte wp::array_t descriptor (compiler/native/array.h):
// `descriptor()` builds it.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/types.h"
#include "runtime/device.h"

namespace weft::runtime {

class Array {
public:
    Array() = default;

    // New, owned arrays. `shape` has 1 to 4 positive-or-zero extents.
    static Array empty(compiler::Type dtype, const std::vector<int64_t>& shape, const Device& device, bool requires_grad = false);
    static Array zeros(compiler::Type dtype, const std::vector<int64_t>& shape, const Device& device, bool requires_grad = false);
    // Every element set to the value whose bytes are `value` (type_size(dtype) bytes).
    static Array full(compiler::Type dtype, const std::vector<int64_t>& shape, const void* value, const Device& device,
                      bool requires_grad = false);
    // Wraps memory owned elsewhere; `owner` keeps it alive. Strides in bytes.
    static Array wrap(void* data, compiler::Type dtype, const std::vector<int64_t>& shape, const std::vector<int64_t>& strides,
                      const Device& device, std::shared_ptr<void> owner);

    // A view of this array's memory (Warp's slices, reshape, transpose, view(dtype)): `offset_bytes`
    // from data(), with its own shape and byte strides, of `dtype` (same element size). It keeps the
    // memory alive, and its gradient (when this array has one) is the same view of the gradient.
    // RuntimeError if an element of the view would lie outside this array's elements' span.
    Array view(int64_t offset_bytes, compiler::Type dtype, const std::vector<int64_t>& shape,
               const std::vector<int64_t>& strides) const;

    bool valid() const { return dtype_ != nullptr; }
    compiler::Type dtype() const { return dtype_; }
    int ndim() const { return ndim_; }
    const std::vector<int64_t> shape() const { return {shape_.begin(), shape_.begin() + ndim_}; }
    int64_t shape(int k) const { return shape_[static_cast<size_t>(k)]; }
    const std::vector<int64_t> strides() const { return {strides_.begin(), strides_.begin() + ndim_}; }
    int64_t size() const;         // number of elements
    size_t element_size() const;  // bytes per element
    size_t nbytes() const { return static_cast<size_t>(size()) * element_size(); }
    bool is_contiguous() const;
    const Device& device() const { return device_; }
    void* data() const { return data_; }
    const std::shared_ptr<void>& owner() const { return owner_; }

    // Gradient (same shape, dtype and device), created zeroed by requires_grad.
    bool requires_grad() const { return grad_ != nullptr; }
    const std::shared_ptr<Array>& grad() const { return grad_; }
    void set_requires_grad(bool on);
    // Uses `g` as the gradient (Warp's `a.grad = g`); RuntimeError unless it has this array's
    // shape, dtype and device.
    void set_grad(const Array& g);
    void zero_grad();

    // Copies (contiguous arrays; strided ones go element by element on host memory). Writes are
    // reported to the thread's active recorder (runtime/recorder.h: the Tape), except the
    // *_unrecorded forms, which a Tape uses for its own bookkeeping.
    void copy_from_host(const void* src, size_t bytes);
    void copy_to_host(void* dst, size_t bytes) const;
    Array to(const Device& d) const;  // a new array on `d` with the same contents
    void assign(const Array& src);    // same shape and dtype; any devices
    void zero();
    void fill(const void* value);
    void zero_unrecorded();
    void fill_unrecorded(const void* value);
    void assign_unrecorded(const Array& src);
    void write_from_host(const void* src, size_t bytes);  // copy_from_host, unrecorded

    // The wp::array_t descriptor kernels receive (64 bytes).
    std::array<std::byte, 64> descriptor() const;
    std::string describe() const;  // "array(vec3f, shape=(100,), device=cpu)"

    // Identity of the underlying memory (for the Tape's overwrite check).
    const void* identity() const { return data_; }

private:
    compiler::Type dtype_ = nullptr;
    int ndim_ = 0;
    std::array<int64_t, 4> shape_{1, 1, 1, 1};
    std::array<int64_t, 4> strides_{0, 0, 0, 0};
    Device device_;
    void* data_ = nullptr;
    std::shared_ptr<void> owner_;
    std::shared_ptr<Array> grad_;
};

// Copies between arrays of the same shape and dtype on any devices (wp.copy).
void copy(Array& dst, const Array& src);

}  // namespace weft::runtime
