// runtime/dlpack.h: DLPack, the zero-copy exchange of arrays with other libraries (numpy, PyTorch,
// JAX, CuPy, Warp), both ways, for host (cpu, sim) and CUDA arrays.
//
// [SECTION] The DLPack ABI    the C structs of the DLPack specification (v0.8 ABI, unversioned)
// [SECTION] Conversions       Array <-> DLManagedTensor, sharing memory
//
// The structs are written here from the public specification (dmlc.github.io/dlpack), not
// vendored: they are a stable C ABI of four plain structs, and a mistake in them shows up at once
// in the round trip through numpy that tests/python runs.
//
// Element types: scalar arrays map to their DLPack code and bits. Arrays of vectors, matrices,
// quaternions and transforms are exported as scalar arrays with their components as trailing
// dimensions (a (n,) array of vec3f is a (n, 3) float32 tensor), as Warp does; from_dlpack takes
// an optional dtype to fold them back. Struct arrays have no DLPack form.
//
// Lifetime: to_dlpack's tensor holds a handle on the array until the consumer calls its deleter;
// from_dlpack's array holds the tensor and calls its deleter when its last handle goes.
// Streams: DLPack leaves ordering to the caller (Python's __dlpack__(stream=...) protocol does it:
// python/bindings/dlpack.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "runtime/array.h"

namespace weft::runtime {

// [SECTION] The DLPack ABI

extern "C" {

enum DLDeviceType : int32_t {
    kDLCPU = 1,       // host memory
    kDLCUDA = 2,      // CUDA device memory
    kDLCUDAHost = 3,  // pinned host memory (cuMemHostAlloc)
    kDLOpenCL = 4,
    kDLVulkan = 7,
    kDLMetal = 8,
    kDLVPI = 9,
    kDLROCM = 10,
    kDLROCMHost = 11,
    kDLExtDev = 12,
    kDLCUDAManaged = 13,  // CUDA managed (unified) memory
    kDLOneAPI = 14,
};

struct DLDevice {
    int32_t device_type;  // a DLDeviceType
    int32_t device_id;    // CUDA ordinal; 0 for the host
};

enum DLDataTypeCode : uint8_t {
    kDLInt = 0,
    kDLUInt = 1,
    kDLFloat = 2,
    kDLOpaqueHandle = 3,
    kDLBfloat = 4,
    kDLComplex = 5,
    kDLBool = 6,
};

struct DLDataType {
    uint8_t code;    // a DLDataTypeCode
    uint8_t bits;    // 8, 16, 32, 64
    uint16_t lanes;  // 1 (Weft never exports SIMD lanes)
};

struct DLTensor {
    void* data;  // base pointer (device pointer for kDLCUDA)
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;        // ndim extents
    int64_t* strides;      // ndim strides in elements, or null: C-contiguous
    uint64_t byte_offset;  // first element at data + byte_offset
};

struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;                              // the producer's
    void (*deleter)(struct DLManagedTensor* self);  // the consumer calls it once when done; may be null
};

}  // extern "C"

// [SECTION] Conversions

// A tensor sharing `a`'s memory, owned by the caller (call its deleter once). Throws RuntimeError
// for struct arrays.
DLManagedTensor* to_dlpack(const Array& a);

// An array sharing the tensor's memory; takes ownership of `t` (its deleter runs when the last
// handle of the array, or of arrays sharing it, goes; also when this throws). `dtype` null: the
// tensor's scalar type; a vector/matrix/quat/transform dtype folds that many trailing, packed
// dimensions into each element. Host tensors (kDLCPU, kDLCUDAHost) become cpu arrays, kDLCUDA and
// kDLCUDAManaged ones cuda:N arrays. Throws RuntimeError saying what does not fit.
Array from_dlpack(DLManagedTensor* t, compiler::Type dtype = nullptr);

// The DLPack device of an array: (kDLCPU, 0) for host memory, (kDLCUDA, N) for cuda:N.
DLDevice dlpack_device(const Device& d);

}  // namespace weft::runtime
