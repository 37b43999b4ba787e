// runtime/cuda/cuda_context.cpp: a device's primary context, default stream, memory pool and
// error checks. See cuda_context.h.
#include "runtime/cuda/cuda_context.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>

#include "runtime/config.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/grid_policy.h"
#include "runtime/errors.h"

namespace weft::runtime {

namespace {

// Per thread: the context last made current, and the current stream of each device.
thread_local CUcontext tls_bound = nullptr;
thread_local CUstream tls_stream[CudaContext::kMaxDevices] = {};

std::string device_name(int ordinal) { return "cuda:" + std::to_string(ordinal); }

}  // namespace

bool CudaContext::exists(int ordinal) {
    if (ordinal < 0 || ordinal >= kMaxDevices || !cuda_available()) return false;
    return ordinal < cuda_driver().device_count;
}

CudaContext& CudaContext::get(int ordinal) {
    static std::mutex mu;
    static CudaContext* contexts[kMaxDevices] = {};
    if (ordinal < 0 || ordinal >= kMaxDevices) throw RuntimeError("device '" + device_name(ordinal) + "' does not exist");
    std::lock_guard<std::mutex> lock(mu);
    if (!contexts[ordinal]) {
        if (!cuda_available())
            throw RuntimeError("device '" + device_name(ordinal) + "' is not available: " + cuda_unavailable_reason());
        if (ordinal >= cuda_driver().device_count)
            throw RuntimeError("device '" + device_name(ordinal) + "' does not exist: this machine has " +
                               std::to_string(cuda_driver().device_count) + " CUDA device(s)");
        contexts[ordinal] = new CudaContext(ordinal);  // never destroyed, see the header
    }
    return *contexts[ordinal];
}

CudaContext::CudaContext(int ordinal) : ordinal_(ordinal), log_(device_name(ordinal)) {
    const CudaDriver& cu = cuda_driver();
    check(cu.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
    char name[256] = {};
    check(cu.cuDeviceGetName(name, sizeof name, device_), "cuDeviceGetName");
    name_ = name;
    int major = 0, minor = 0, pools = 0;
    check(cu.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device_), "cuDeviceGetAttribute");
    check(cu.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device_), "cuDeviceGetAttribute");
    check(cu.cuDeviceGetAttribute(&sm_count_, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device_), "cuDeviceGetAttribute");
    check(cu.cuDeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device_), "cuDeviceGetAttribute");
    arch_ = "sm_" + std::to_string(major) + std::to_string(minor);
    pdl_supported_ = major >= 9;
    check(cu.cuDevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    bind();
    check(cu.cuStreamCreate(&default_stream_, CU_STREAM_DEFAULT), "cuStreamCreate");
    if (pools) {
        // Keep freed memory in the pool instead of returning it to the driver at each
        // synchronisation: a simulation step frees and allocates the same sizes every frame.
        CUmemoryPool pool = nullptr;
        check(cu.cuDeviceGetDefaultMemPool(&pool, device_), "cuDeviceGetDefaultMemPool");
        cuuint64_t threshold = std::numeric_limits<cuuint64_t>::max();
        check(cu.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold), "cuMemPoolSetAttribute");
        mem_pool_ = true;
    }
    const char* env = std::getenv("WEFT_CUDA_SYNC");
    sync_env_ = env && *env && std::strcmp(env, "0") != 0;
    set_grid_waves(grid_waves_from_env(grid_waves()));
    if (const char* pdl = std::getenv("WEFT_CUDA_PDL"); pdl && *pdl) set_pdl_enabled(std::strcmp(pdl, "0") != 0);
}

void CudaContext::bind() {
    if (tls_bound == context_) return;
    check(cuda_driver().cuCtxSetCurrent(context_), "cuCtxSetCurrent");
    tls_bound = context_;
}

CUstream CudaContext::current_stream() const {
    CUstream s = tls_stream[ordinal_];
    return s ? s : default_stream_;
}

CUstream CudaContext::set_current_stream(CUstream s) {
    CUstream previous = current_stream();
    tls_stream[ordinal_] = s == default_stream_ ? nullptr : s;
    return previous;
}

void CudaContext::ensure_usable() const {
    if (faulted_.load(std::memory_order_acquire))
        throw RuntimeError("device " + device_name(ordinal_) +
                           " is unusable after a kernel fault (restart the process): " + fault_);
}

void CudaContext::raise_fault(CUresult r, const char* what, const LaunchRecord* exact) {
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (!faulted_.load()) {
        fault_ = log_.fault_message(r, what, exact);
        faulted_.store(true, std::memory_order_release);
        throw RuntimeError(fault_);
    }
    ensure_usable();  // throws: the context is already known to be lost
    throw RuntimeError(fault_);
}

void CudaContext::check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    if (is_sticky_cuda_error(r)) raise_fault(r, what, nullptr);
    ensure_usable();
    throw RuntimeError(device_name(ordinal_) + ": " + what + " failed: " + describe_cuda_error(r));
}

void CudaContext::check_launch(CUresult r, const LaunchRecord& rec) {
    if (r == CUDA_SUCCESS) return;
    if (is_sticky_cuda_error(r)) raise_fault(r, "cuStreamSynchronize", &rec);
    check(r, "cuStreamSynchronize");
}

void CudaContext::synchronize_stream(CUstream s) {
    ensure_usable();
    bind();
    check(cuda_driver().cuStreamSynchronize(s), "cuStreamSynchronize");
    log_.clear();
}

void CudaContext::synchronize() {
    ensure_usable();
    bind();
    check(cuda_driver().cuCtxSynchronize(), "cuCtxSynchronize");
    log_.clear();
}

bool CudaContext::capturing(CUstream s) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    check(cuda_driver().cuStreamIsCapturing(s, &status), "cuStreamIsCapturing");
    return status != CU_STREAM_CAPTURE_STATUS_NONE;
}

bool CudaContext::sync_every_launch() const { return sync_env_ || config().debug; }

}  // namespace weft::runtime
