// tests/runtime/dlpack_test.cpp: runtime/dlpack.h, both ways, without copying.
//
// Host tensors run on the cpu device, or on sim:h200 (also host memory) in builds without the CPU
// JIT, as on the GPU machine. The reference is the memory itself: an exported tensor must point
// at the array's bytes with the spec's element strides, and an imported foreign tensor (built by
// hand here, with strides and a byte offset) must read back the values at the addresses the
// DLPack specification gives. CUDA tests skip, saying why, without a GPU.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>
#include <vector>

#include "runtime/dlpack.h"
#include "runtime/errors.h"

namespace weft::runtime {
namespace {

using compiler::ScalarKind;

Device host_device() {
    Device cpu;
    if (device_available(cpu)) return cpu;
    return parse_device("sim:h200");
}

std::vector<int64_t> dims(const int64_t* p, int n) { return {p, p + n}; }

template <typename F>
void expect_error(F f, const std::string& fragment) {
    try {
        f();
        ADD_FAILURE() << "expected RuntimeError containing: " << fragment;
    } catch (const RuntimeError& e) { EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what(); }
}

TEST(DLPack, ExportSharesTheArraysMemoryWithElementStrides) {
    Array a = Array::zeros(compiler::float32_type(), {2, 3}, host_device());
    DLManagedTensor* t = to_dlpack(a);
    EXPECT_EQ(t->dl_tensor.data, a.data());
    EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU);
    EXPECT_EQ(t->dl_tensor.ndim, 2);
    EXPECT_EQ(t->dl_tensor.dtype.code, kDLFloat);
    EXPECT_EQ(t->dl_tensor.dtype.bits, 32);
    EXPECT_EQ(t->dl_tensor.dtype.lanes, 1);
    EXPECT_EQ(dims(t->dl_tensor.shape, 2), (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(dims(t->dl_tensor.strides, 2), (std::vector<int64_t>{3, 1}));
    // Writes through the tensor are writes to the array.
    static_cast<float*>(t->dl_tensor.data)[4] = 7.5f;
    std::vector<float> host(6);
    a.copy_to_host(host.data(), 24);
    EXPECT_EQ(host[4], 7.5f);
    // The tensor keeps the memory alive after the last array handle goes.
    const void* p = a.data();
    a = Array();
    EXPECT_EQ(static_cast<float*>(t->dl_tensor.data)[4], 7.5f);
    EXPECT_EQ(t->dl_tensor.data, p);
    t->deleter(t);
}

TEST(DLPack, VectorElementsBecomeTrailingDimensionsAndFoldBack) {
    const auto v3 = compiler::vector_type(3, ScalarKind::Float64);
    Array a = Array::zeros(v3, {4}, host_device());
    std::vector<double> values(12);
    std::iota(values.begin(), values.end(), 1.0);
    a.copy_from_host(values.data(), 96);
    DLManagedTensor* t = to_dlpack(a);
    EXPECT_EQ(t->dl_tensor.ndim, 2);
    EXPECT_EQ(dims(t->dl_tensor.shape, 2), (std::vector<int64_t>{4, 3}));
    EXPECT_EQ(dims(t->dl_tensor.strides, 2), (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(t->dl_tensor.dtype.bits, 64);
    Array back = from_dlpack(t, v3);
    EXPECT_EQ(back.dtype(), v3);
    EXPECT_EQ(back.shape(), (std::vector<int64_t>{4}));
    EXPECT_EQ(back.data(), a.data());
    // Without a dtype: the scalar tensor as it is.
    Array flat = from_dlpack(to_dlpack(a));
    EXPECT_EQ(flat.dtype(), compiler::float64_type());
    EXPECT_EQ(flat.shape(), (std::vector<int64_t>{4, 3}));
    EXPECT_EQ(flat.strides(), (std::vector<int64_t>{24, 8}));
    const auto m22 = compiler::matrix_type(2, 2, ScalarKind::Float32);
    DLManagedTensor* tm = to_dlpack(Array::zeros(m22, {5}, host_device()));
    EXPECT_EQ(dims(tm->dl_tensor.shape, 3), (std::vector<int64_t>{5, 2, 2}));
    EXPECT_EQ(dims(tm->dl_tensor.strides, 3), (std::vector<int64_t>{4, 2, 1}));
    tm->deleter(tm);
}

// A foreign producer: every other double of a buffer, from a byte offset, in a (3, 2) view.
struct Foreign {
    std::vector<double> buffer = std::vector<double>(32);
    int64_t shape[2] = {3, 2};
    int64_t strides[2] = {6, 2};  // elements
    int deleted = 0;
    DLManagedTensor tensor{};
    Foreign() {
        std::iota(buffer.begin(), buffer.end(), 0.0);
        tensor.dl_tensor.data = buffer.data();
        tensor.dl_tensor.device = {kDLCPU, 0};
        tensor.dl_tensor.ndim = 2;
        tensor.dl_tensor.dtype = {kDLFloat, 64, 1};
        tensor.dl_tensor.shape = shape;
        tensor.dl_tensor.strides = strides;
        tensor.dl_tensor.byte_offset = 8;  // starts at buffer[1]
        tensor.manager_ctx = this;
        tensor.deleter = [](DLManagedTensor* self) { ++static_cast<Foreign*>(self->manager_ctx)->deleted; };
    }
};

TEST(DLPack, ImportFollowsStridesAndOffsetAndCallsTheDeleterOnce) {
    if (!host_device().is_host_memory()) GTEST_SKIP();
    Foreign f;
    {
        Array a = from_dlpack(&f.tensor);
        EXPECT_EQ(a.device(), Device{});
        EXPECT_EQ(a.shape(), (std::vector<int64_t>{3, 2}));
        EXPECT_EQ(a.strides(), (std::vector<int64_t>{48, 16}));
        EXPECT_EQ(a.data(), f.buffer.data() + 1);
        EXPECT_FALSE(a.is_contiguous());
        // Element (i, j) is buffer[1 + 6 i + 2 j] by the DLPack rule.
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 2; ++j) {
                const char* base = static_cast<const char*>(a.data());
                double v;
                std::memcpy(&v, base + i * a.strides()[0] + j * a.strides()[1], 8);
                EXPECT_EQ(v, 1.0 + 6 * i + 2 * j);
            }
        Array copy = a;  // a second handle
        a = Array();
        EXPECT_EQ(f.deleted, 0);
    }
    EXPECT_EQ(f.deleted, 1);
}

TEST(DLPack, ErrorsSayWhatDoesNotFitAndStillReleaseTheTensor) {
    const auto s = compiler::struct_type("dlpack_test", "Body", {{"mass", compiler::float32_type()}});
    expect_error([&] { to_dlpack(Array::zeros(s, {3}, host_device())); }, "holds structs, which have no DLPack form");
    {
        Foreign f;
        f.tensor.dl_tensor.dtype = {kDLComplex, 64, 1};
        expect_error([&] { from_dlpack(&f.tensor); }, "element type complex64 has no Weft dtype");
        EXPECT_EQ(f.deleted, 1);
    }
    {
        Foreign f;
        f.tensor.dl_tensor.device = {kDLROCM, 0};
        expect_error([&] { from_dlpack(&f.tensor); }, "DLPack device type 10");
        EXPECT_EQ(f.deleted, 1);
    }
    {
        Foreign f;  // shape (3, 2): a vec3 needs a trailing 3
        expect_error([&] { from_dlpack(&f.tensor, compiler::vector_type(3, ScalarKind::Float64)); },
                     "needs trailing dimension(s) (3,) but the tensor's shape is (3, 2)");
    }
    {
        Foreign f;  // trailing 2 with stride 2: not packed
        expect_error([&] { from_dlpack(&f.tensor, compiler::vector_type(2, ScalarKind::Float64)); },
                     "are not packed in the tensor (stride 2 in dimension 1)");
    }
    {
        Foreign f;
        expect_error([&] { from_dlpack(&f.tensor, compiler::vector_type(2, ScalarKind::Float32)); },
                     "has float32 components but the tensor holds float64");
    }
}

TEST(DLPack, CudaArraysRoundTripOnTheDevice) {
    const Device gpu{DeviceKind::Cuda, 0, {}};
    if (!device_available(gpu)) GTEST_SKIP() << "no CUDA GPU here (device cuda:0 is not available)";
    Array a = Array::empty(compiler::float32_type(), {1000}, gpu);
    std::vector<float> values(1000);
    std::iota(values.begin(), values.end(), 0.5f);
    a.copy_from_host(values.data(), 4000);
    DLManagedTensor* t = to_dlpack(a);
    EXPECT_EQ(t->dl_tensor.device.device_type, kDLCUDA);
    EXPECT_EQ(t->dl_tensor.device.device_id, 0);
    EXPECT_EQ(t->dl_tensor.data, a.data());
    Array b = from_dlpack(t);
    EXPECT_EQ(b.device(), gpu);
    EXPECT_EQ(b.data(), a.data());
    std::vector<float> back(1000);
    b.copy_to_host(back.data(), 4000);
    EXPECT_EQ(back, values);
    // A write through one is seen through the other: same device memory.
    std::vector<float> twos(1000, 2.0f);
    b.copy_from_host(twos.data(), 4000);
    a.copy_to_host(back.data(), 4000);
    EXPECT_EQ(back, twos);
}

}  // namespace
}  // namespace weft::runtime
