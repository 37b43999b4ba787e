// runtime/cuda/pinned.cpp: pinned host arrays. See pinned.h.
#include "runtime/cuda/pinned.h"

#include <cstring>
#include <memory>

#include "runtime/cuda/cuda_context.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/errors.h"

namespace weft::runtime {

Array pinned_zeros(compiler::Type dtype, const std::vector<int64_t>& shape, bool requires_grad) {
    if (!CudaContext::exists(0))
        throw RuntimeError("pinned host memory needs a CUDA driver and GPU: " +
                           (cuda_available() ? std::string("no device 0") : cuda_unavailable_reason()));
    CudaContext& ctx = CudaContext::get(0);
    ctx.bind();
    int64_t count = 1;
    std::vector<int64_t> strides(shape.size());
    const int64_t elem = static_cast<int64_t>(compiler::type_size(dtype));
    for (size_t k = shape.size(); k-- > 0;) {
        strides[k] = count * elem;
        count *= shape[k];
    }
    const size_t bytes = static_cast<size_t>(std::max<int64_t>(count * elem, 1));
    void* p = nullptr;
    ctx.check(cuda_driver().cuMemHostAlloc(&p, bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc");
    std::memset(p, 0, bytes);
    std::shared_ptr<void> owner(p, [](void* q) { cuda_driver().cuMemFreeHost(q); });
    Array a = Array::wrap(p, dtype, shape, strides, Device{}, std::move(owner));
    if (requires_grad) a.set_requires_grad(true);
    return a;
}

bool is_pinned(const Array& a) {
    if (!a.valid() || !a.device().is_host_memory() || !cuda_available()) return false;
    unsigned int type = 0;
    CUresult r =
        cuda_driver().cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, reinterpret_cast<CUdeviceptr>(a.data()));
    return r == CUDA_SUCCESS && type == CU_MEMORYTYPE_HOST;
}

}  // namespace weft::runtime
