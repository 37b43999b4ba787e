// runtime/cuda/cuda_driver.cpp: dlopen("libcuda.so.1") once and fill the CudaDriver table.
//
// Loading happens at most once per process, under a function-local static (thread-safe in
// C++11 and later). The outcome, a table or a reason, is kept for good: a process that found no
// driver does not keep retrying dlopen. The library is never dlclose'd; the driver lives as long
// as the process.
//
// Resolution of one entry point, say cuMemAlloc (which cuda.h turns into cuMemAlloc_v2):
//   1. cuGetProcAddress("cuMemAlloc", CUDA_VERSION): the driver returns the version of the
//      function that matches the header we compiled against; this is NVIDIA's recommended way,
//      and it also reaches functions that are not exported by name.
//   2. dlsym("cuMemAlloc_v2"): drivers older than CUDA 11.3 have no cuGetProcAddress.
// The base name given to cuGetProcAddress is the versioned name with its _vN suffix removed, so
// that a name cuda.h maps to a different function altogether (cuGraphInstantiate ->
// cuGraphInstantiateWithFlags) asks for the function whose prototype we hold.
//
// Asking for CUDA_VERSION is right only while the newest version of a function keeps the prototype
// cuda.h declares under its plain name. CUDA 13.0 broke that for cuCtxSynchronize: the header
// still declares cuCtxSynchronize(void), but cuGetProcAddress("cuCtxSynchronize", 13000) returns
// cuCtxSynchronize_v2(CUcontext ctx). Called with no argument, it read a garbage context and
// failed with CUDA_ERROR_CONTEXT_IS_DESTROYED (every synchronize(device) on the H200, 2026-12-02).
// Such functions are pinned below to the version whose prototype we hold; the static_asserts
// check the pins against cudaTypedefs.h, and cuda_driver_test checks every entry
// point's arity against the typedef of the version it asks for.
#include "runtime/cuda/cuda_driver.h"

#include <dlfcn.h>

#include <cctype>
#include <cstring>
#include <string>
#include <type_traits>

#include <cudaTypedefs.h>

namespace weft::runtime {
namespace {

#define WEFT_STRINGIFY_EXPANDED(x) WEFT_STRINGIFY(x)
#define WEFT_STRINGIFY(x) #x

// cuGetProcAddress of CUDA 12+ (exported as cuGetProcAddress_v2) and of CUDA 11.3-11.8.
using GetProcAddressV2 = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
using GetProcAddressV1 = CUresult (*)(const char*, void**, int, cuuint64_t);

// Entry points whose newest version has another prototype than cuda.h's plain name (see above).
struct PinnedVersion {
    const char* base;
    int version;
};
constexpr PinnedVersion kPinned[] = {
    {"cuCtxSynchronize", 2000},  // 13.0 added cuCtxSynchronize_v2(CUcontext)
};
static_assert(std::is_same_v<decltype(&::cuCtxSynchronize), PFN_cuCtxSynchronize_v2000>);

template <typename F>
struct FunctionArity;
template <typename R, typename... A>
struct FunctionArity<R (*)(A...)> {
    static constexpr int value = sizeof...(A);
};

struct LoadResult {
    CudaDriver driver;
    std::string unavailable_reason;  // empty when the driver is usable
};

// "cuMemAlloc_v2" -> "cuMemAlloc"; names without a _vN suffix are returned as they are.
std::string base_name(const std::string& versioned) {
    const size_t v = versioned.rfind("_v");
    if (v == std::string::npos || v + 2 >= versioned.size()) return versioned;
    for (size_t i = v + 2; i < versioned.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(versioned[i]))) return versioned;
    }
    return versioned.substr(0, v);
}

class Resolver {
public:
    explicit Resolver(void* library) : library_(library) {
        get_proc_v2_ = reinterpret_cast<GetProcAddressV2>(dlsym(library, "cuGetProcAddress_v2"));
        if (get_proc_v2_ == nullptr) { get_proc_v1_ = reinterpret_cast<GetProcAddressV1>(dlsym(library, "cuGetProcAddress")); }
    }

    // Address of the entry point cuda.h calls `versioned`, or nullptr.
    void* resolve(const std::string& versioned) const {
        const std::string base = base_name(versioned);
        const int version = cuda_entry_point_version(base);
        void* address = nullptr;
        if (get_proc_v2_ != nullptr) {
            CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
            if (get_proc_v2_(base.c_str(), &address, version, CU_GET_PROC_ADDRESS_DEFAULT, &status) != CUDA_SUCCESS ||
                status != CU_GET_PROC_ADDRESS_SUCCESS) {
                address = nullptr;
            }
        } else if (get_proc_v1_ != nullptr) {
            if (get_proc_v1_(base.c_str(), &address, version, CU_GET_PROC_ADDRESS_DEFAULT) != CUDA_SUCCESS) { address = nullptr; }
        }
        if (address == nullptr) address = dlsym(library_, versioned.c_str());
        return address;
    }

private:
    void* library_;
    GetProcAddressV2 get_proc_v2_ = nullptr;
    GetProcAddressV1 get_proc_v1_ = nullptr;
};

LoadResult load_driver() {
    LoadResult result;
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        const char* why = dlerror();
        result.unavailable_reason = std::string(
                                        "the CUDA driver library libcuda.so.1 could not be "
                                        "loaded (") +
                                    (why ? why : "no reason given") + "); is NVIDIA's driver installed?";
        return result;
    }
    const Resolver resolver(library);
    CudaDriver& d = result.driver;
    std::string missing;
#define WEFT_CUDA_DRIVER_RESOLVE(name)                                                            \
    d.name = reinterpret_cast<decltype(d.name)>(resolver.resolve(WEFT_STRINGIFY_EXPANDED(name))); \
    if (d.name == nullptr) missing += std::string(missing.empty() ? "" : ", ") + WEFT_STRINGIFY_EXPANDED(name);
    WEFT_CUDA_DRIVER_ENTRY_POINTS(WEFT_CUDA_DRIVER_RESOLVE)
#undef WEFT_CUDA_DRIVER_RESOLVE
    if (!missing.empty()) {
        result.unavailable_reason = "the CUDA driver is too old for Weft: it lacks " + missing +
                                    " (Weft was built against CUDA " + std::to_string(CUDA_VERSION / 1000) + "." +
                                    std::to_string(CUDA_VERSION % 1000 / 10) + ").";
        return result;
    }
    d.cuDriverGetVersion(&d.driver_version);
    const CUresult init = d.cuInit(0);
    if (init != CUDA_SUCCESS) {
        const char* name = nullptr;
        d.cuGetErrorName(init, &name);
        result.unavailable_reason = std::string("cuInit failed with ") + (name ? name : "an unknown error") +
                                    "; no usable GPU is visible to this process.";
        return result;
    }
    if (d.cuDeviceGetCount(&d.device_count) != CUDA_SUCCESS || d.device_count <= 0) {
        result.unavailable_reason = "the CUDA driver loaded but reports no GPU.";
        return result;
    }
    return result;
}

const LoadResult& loaded() {
    static const LoadResult result = load_driver();
    return result;
}

}  // namespace

int cuda_entry_point_version(const std::string& base) {
    for (const PinnedVersion& p : kPinned)
        if (base == p.base) return p.version;
    return CUDA_VERSION;
}

std::vector<CudaEntryPoint> cuda_entry_points() {
    std::vector<CudaEntryPoint> out;
#define WEFT_CUDA_DRIVER_DESCRIBE(name)                                                                                          \
    out.push_back({base_name(WEFT_STRINGIFY_EXPANDED(name)), cuda_entry_point_version(base_name(WEFT_STRINGIFY_EXPANDED(name))), \
                   FunctionArity<decltype(&::name)>::value});
    WEFT_CUDA_DRIVER_ENTRY_POINTS(WEFT_CUDA_DRIVER_DESCRIBE)
#undef WEFT_CUDA_DRIVER_DESCRIBE
    return out;
}

bool cuda_available() { return loaded().unavailable_reason.empty(); }

std::string cuda_unavailable_reason() { return loaded().unavailable_reason; }

const CudaDriver& cuda_driver() {
    const LoadResult& result = loaded();
    if (!result.unavailable_reason.empty()) {
        throw CudaError(CUDA_ERROR_NOT_INITIALIZED, "CUDA is not available: " + result.unavailable_reason);
    }
    return result.driver;
}

void check(CUresult result, const char* what) {
    if (result == CUDA_SUCCESS) return;
    const char* name = nullptr;
    const char* description = nullptr;
    const LoadResult& state = loaded();
    if (state.driver.cuGetErrorName != nullptr) state.driver.cuGetErrorName(result, &name);
    if (state.driver.cuGetErrorString != nullptr) { state.driver.cuGetErrorString(result, &description); }
    std::string message = std::string(what) + " failed: ";
    message += name ? name : "CUDA error " + std::to_string(static_cast<int>(result));
    if (description) message += std::string(" (") + description + ")";
    throw CudaError(result, message);
}

}  // namespace weft::runtime
