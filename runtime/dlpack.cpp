// runtime/dlpack.cpp: Array <-> DLManagedTensor without copying. See dlpack.h.
#include "runtime/dlpack.h"

#include <memory>
#include <vector>

#include "runtime/errors.h"

namespace weft::runtime {

namespace {

using compiler::ScalarKind;
using compiler::Type;
using compiler::TypeKind;

// The trailing dimensions a value type adds to its scalar tensor: vec3 -> {3}, mat33 -> {3, 3}.
std::vector<int64_t> component_dims(Type t) {
    switch (t->kind) {
        case TypeKind::Scalar: return {};
        case TypeKind::Matrix: return {t->rows, t->cols};
        default: return {compiler::component_count(t)};
    }
}

DLDataType dl_type(ScalarKind s) {
    const uint8_t bits = static_cast<uint8_t>(compiler::scalar_bits(s));
    if (s == ScalarKind::Bool) return {kDLBool, 8, 1};
    if (compiler::is_float_kind(s)) return {kDLFloat, bits, 1};
    const bool is_unsigned =
        s == ScalarKind::UInt8 || s == ScalarKind::UInt16 || s == ScalarKind::UInt32 || s == ScalarKind::UInt64;
    return {is_unsigned ? kDLUInt : kDLInt, bits, 1};
}

std::string describe(DLDataType t) {
    static const char* names[] = {"int", "uint", "float", "opaque handle", "bfloat", "complex", "bool"};
    std::string s = t.code < 7 ? names[t.code] : "code " + std::to_string(t.code);
    s += std::to_string(t.bits);
    if (t.lanes != 1) s += "x" + std::to_string(t.lanes);
    return s;
}

Type scalar_of(DLDataType t) {
    if (t.lanes == 1) {
        const ScalarKind kinds[][4] = {
            {ScalarKind::Int8, ScalarKind::Int16, ScalarKind::Int32, ScalarKind::Int64},
            {ScalarKind::UInt8, ScalarKind::UInt16, ScalarKind::UInt32, ScalarKind::UInt64},
        };
        const int b = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : t.bits == 64 ? 3 : -1;
        if ((t.code == kDLInt || t.code == kDLUInt) && b >= 0) return compiler::scalar_type(kinds[t.code][b]);
        if (t.code == kDLFloat && b >= 1)
            return compiler::scalar_type(b == 1 ? ScalarKind::Float16 : b == 2 ? ScalarKind::Float32 : ScalarKind::Float64);
        if (t.code == kDLBool && t.bits == 8) return compiler::bool_type();
    }
    throw RuntimeError("from_dlpack: element type " + describe(t) +
                       " has no Weft dtype (ints, uints, float16/32/64 and bool do)");
}

// What a tensor made by to_dlpack owns: the array handle and the shape and stride storage.
struct Export {
    DLManagedTensor tensor{};
    Array array;
    std::vector<int64_t> shape, strides;
};

std::string tensor_shape(const DLTensor& t) {
    std::string s = "(";
    for (int k = 0; k < t.ndim; ++k) s += (k ? ", " : "") + std::to_string(t.shape[k]);
    return s + (t.ndim == 1 ? ",)" : ")");
}

}  // namespace

DLDevice dlpack_device(const Device& d) {
    if (d.kind == DeviceKind::Cuda) return {kDLCUDA, d.ordinal};
    return {kDLCPU, 0};
}

DLManagedTensor* to_dlpack(const Array& a) {
    if (!a.valid()) throw RuntimeError("to_dlpack of an empty array handle");
    const Type dt = a.dtype();
    if (compiler::is_struct(dt))
        throw RuntimeError("to_dlpack: " + a.describe() +
                           " holds structs, which have no DLPack form; export its fields as separate arrays");
    const size_t scalar_bytes = static_cast<size_t>(compiler::scalar_bits(dt->scalar)) / 8;
    auto ex = std::make_unique<Export>();
    ex->array = a;
    for (int k = 0; k < a.ndim(); ++k) {
        if (a.strides()[k] % static_cast<int64_t>(scalar_bytes) != 0)
            throw RuntimeError("to_dlpack: " + a.describe() + " has a byte stride (" + std::to_string(a.strides()[k]) +
                               ") that is not a whole number of elements");
        ex->shape.push_back(a.shape(k));
        ex->strides.push_back(a.strides()[k] / static_cast<int64_t>(scalar_bytes));
    }
    // Components of vector-like elements are packed, row-major, after the array's dimensions.
    std::vector<int64_t> comp = component_dims(dt);
    int64_t inner = 1;
    for (size_t k = comp.size(); k-- > 0;) {
        ex->shape.insert(ex->shape.begin() + a.ndim(), comp[k]);
        ex->strides.insert(ex->strides.begin() + a.ndim(), inner);
        inner *= comp[k];
    }
    DLTensor& t = ex->tensor.dl_tensor;
    t.data = a.data();
    t.device = dlpack_device(a.device());
    t.ndim = static_cast<int32_t>(ex->shape.size());
    t.dtype = dl_type(dt->scalar);
    t.shape = ex->shape.data();
    t.strides = ex->strides.data();
    t.byte_offset = 0;
    ex->tensor.manager_ctx = ex.get();
    ex->tensor.deleter = [](DLManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); };
    return &ex.release()->tensor;
}

Array from_dlpack(DLManagedTensor* mt, Type dtype) {
    if (!mt) throw RuntimeError("from_dlpack of a null DLManagedTensor");
    // From here on the tensor belongs to `keep`: its deleter runs when the array (or this throw) lets go.
    std::shared_ptr<void> keep(mt, [](void* p) {
        auto* m = static_cast<DLManagedTensor*>(p);
        if (m->deleter) m->deleter(m);
    });
    const DLTensor& t = mt->dl_tensor;
    Device device;
    switch (t.device.device_type) {
        case kDLCPU:
        case kDLCUDAHost: device = Device{}; break;
        case kDLCUDA:
        case kDLCUDAManaged: device = Device{DeviceKind::Cuda, t.device.device_id, {}}; break;
        default:
            throw RuntimeError("from_dlpack: the tensor is on DLPack device type " + std::to_string(t.device.device_type) +
                               "; Weft takes host (kDLCPU, kDLCUDAHost) and CUDA (kDLCUDA, kDLCUDAManaged) tensors");
    }
    const Type scalar = scalar_of(t.dtype);
    if (!dtype) dtype = scalar;
    if (compiler::is_struct(dtype) || compiler::is_array(dtype))
        throw RuntimeError("from_dlpack: dtype " + compiler::type_name(dtype) +
                           " cannot view a DLPack tensor (scalar and vector-like dtypes can)");
    if (dtype->scalar != scalar->scalar)
        throw RuntimeError("from_dlpack: dtype " + compiler::type_name(dtype) + " has " +
                           std::string(compiler::scalar_name(dtype->scalar)) + " components but the tensor holds " +
                           describe(t.dtype));
    const std::vector<int64_t> comp = component_dims(dtype);
    const int outer = t.ndim - static_cast<int>(comp.size());
    if (outer < 1 || outer > 4)
        throw RuntimeError("from_dlpack: a tensor of shape " + tensor_shape(t) + " gives " + std::to_string(outer) +
                           " dimension(s) of " + compiler::type_name(dtype) + "; Weft arrays have 1 to 4");
    // Strides in elements (C-contiguous when absent), then the component dimensions must be packed.
    std::vector<int64_t> strides(static_cast<size_t>(t.ndim));
    int64_t c = 1;
    for (int k = t.ndim - 1; k >= 0; --k) {
        strides[static_cast<size_t>(k)] = t.strides ? t.strides[k] : c;
        c *= t.shape[k];
    }
    int64_t inner = 1;
    for (int k = t.ndim - 1; k >= outer; --k) {
        const int64_t extent = comp[static_cast<size_t>(k - outer)];
        if (t.shape[k] != extent)
            throw RuntimeError("from_dlpack: dtype " + compiler::type_name(dtype) + " needs trailing dimension(s) " +
                               (comp.size() == 2 ? "(" + std::to_string(comp[0]) + ", " + std::to_string(comp[1]) + ")"
                                                 : "(" + std::to_string(comp[0]) + ",)") +
                               " but the tensor's shape is " + tensor_shape(t));
        if (extent > 1 && strides[static_cast<size_t>(k)] != inner)
            throw RuntimeError("from_dlpack: the components of " + compiler::type_name(dtype) +
                               " are not packed in the tensor (stride " + std::to_string(strides[static_cast<size_t>(k)]) +
                               " in dimension " + std::to_string(k) + ")");
        inner *= extent;
    }
    const int64_t scalar_bytes = compiler::scalar_bits(scalar->scalar) / 8;
    std::vector<int64_t> shape(t.shape, t.shape + outer), byte_strides;
    for (int k = 0; k < outer; ++k) {
        if (t.shape[k] > 0x7fffffff)
            throw RuntimeError("from_dlpack: extent " + std::to_string(t.shape[k]) + " exceeds Weft's int32 shapes");
        byte_strides.push_back(strides[static_cast<size_t>(k)] * scalar_bytes);
    }
    void* data = static_cast<char*>(t.data) + t.byte_offset;
    return Array::wrap(data, dtype, shape, byte_strides, device, std::move(keep));
}

}  // namespace weft::runtime
