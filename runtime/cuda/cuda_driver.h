// runtime/cuda/cuda_driver.h: the CUDA driver API, loaded at run time from libcuda.so.1.
//
// Weft never links libcuda: a machine without a GPU (or without NVIDIA's driver) must still run
// the CPU and sim devices, and the build machine need not have a driver at all. So the driver is
// dlopen'ed on first use and its entry points are gathered into one table of function pointers,
// CudaDriver. Each pointer has the exact type of the toolkit's cuda.h prototype, and the version
// that header means: cuda.h maps names like cuMemAlloc to cuMemAlloc_v2 by macro, so a member
// spelled `cuMemAlloc` is really `cuMemAlloc_v2`, with the _v2 type and the _v2 entry point. Call
// them as driver.cuMemAlloc(&ptr, bytes) and the macros line up on both sides.
//
// Entry points are resolved through cuGetProcAddress (asking for the CUDA_VERSION the toolkit
// header has) and, on drivers older than CUDA 11.3, through dlsym of the versioned name.
//
//     if (!weft::runtime::cuda_available()) { ... use cpu ... }
//     const CudaDriver& cu = weft::runtime::cuda_driver();
//     check(cu.cuMemAlloc(&ptr, n), "cuMemAlloc");
//
// [SECTION] entry points
// [SECTION] loading
// [SECTION] errors
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include <cuda.h>

// cudaGL.h's one function Weft uses, declared here so that the runtime includes no GL header
// (cudaGL.h includes GL/gl.h; its GLuint is unsigned int). The same declaration as cudaGL.h's.
extern "C" CUresult CUDAAPI cuGraphicsGLRegisterBuffer(CUgraphicsResource* pCudaResource, unsigned int buffer,
                                                       unsigned int Flags);

namespace weft::runtime {

// [SECTION] entry points

// X(name) for every driver function Weft uses; names as cuda.h spells them (unversioned).
// (A table kept by hand: clang-format reflows it differently on every run.)
// clang-format off
#define WEFT_CUDA_DRIVER_ENTRY_POINTS(X)                                                        \
    /* initialisation, devices, contexts */                                                     \
    X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetAttribute)   \
    X(cuDeviceGetName) X(cuDeviceTotalMem) X(cuDevicePrimaryCtxRetain)                           \
    X(cuDevicePrimaryCtxRelease) X(cuCtxSetCurrent) X(cuCtxGetCurrent) X(cuCtxSynchronize)      \
    X(cuMemGetInfo) X(cuCtxSetLimit) X(cuCtxGetLimit) X(cuPointerGetAttribute)                  \
    /* modules and launches */                                                                  \
    X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction)           \
    X(cuModuleGetGlobal) X(cuLaunchKernel) X(cuLaunchKernelEx) X(cuFuncGetAttribute)           \
    X(cuFuncSetAttribute)                                                                       \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                              \
    /* memory */                                                                                \
    X(cuMemAlloc) X(cuMemFree) X(cuMemAllocAsync) X(cuMemFreeAsync) X(cuMemcpyHtoD)              \
    X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync)                   \
    X(cuMemcpyDtoDAsync) X(cuMemsetD8) X(cuMemsetD8Async) X(cuMemHostAlloc) X(cuMemFreeHost)    \
    X(cuMemsetD16Async) X(cuMemsetD32Async) X(cuMemsetD2D8Async) X(cuMemsetD2D16Async)          \
    X(cuMemsetD2D32Async)                                                                       \
    X(cuDeviceGetDefaultMemPool) X(cuMemPoolSetAttribute)                                       \
    /* streams, events, graphs */                                                               \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamWaitEvent)             \
    X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)               \
    X(cuEventDestroy) X(cuStreamBeginCapture) X(cuStreamEndCapture) X(cuGraphInstantiate)       \
    X(cuGraphLaunch) X(cuGraphExecDestroy) X(cuGraphDestroy)                                    \
    X(cuStreamQuery) X(cuEventQuery) X(cuStreamIsCapturing) X(cuGraphGetNodes)                  \
    /* OpenGL interop (the viewer's vertex buffers) */                                           \
    X(cuGraphicsGLRegisterBuffer) X(cuGraphicsUnregisterResource) X(cuGraphicsMapResources)      \
    X(cuGraphicsUnmapResources) X(cuGraphicsResourceGetMappedPointer)                           \
    X(cuThreadExchangeStreamCaptureMode)                                                        \
    /* errors */                                                                                \
    X(cuGetErrorName) X(cuGetErrorString)
// clang-format on

// The loaded driver: one pointer per entry point, never null once cuda_driver() has returned.
struct CudaDriver {
#define WEFT_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
    WEFT_CUDA_DRIVER_ENTRY_POINTS(WEFT_CUDA_DRIVER_MEMBER)
#undef WEFT_CUDA_DRIVER_MEMBER
    int driver_version = 0;  // cuDriverGetVersion, e.g. 13000 for CUDA 13.0
    int device_count = 0;    // cuDeviceGetCount after cuInit
};

// [SECTION] loading

// True when libcuda.so.1 loads, every entry point resolves, cuInit succeeds and there is at least
// one device. Never throws and never crashes: no library or no GPU is a clean false. The first
// call loads the driver (thread-safe); later calls return the cached answer.
bool cuda_available();

// Why cuda_available() is false, as a plain sentence ("" when it is true).
std::string cuda_unavailable_reason();

// The driver table. Throws CudaError with cuda_unavailable_reason() when CUDA is not available.
const CudaDriver& cuda_driver();

// The CUDA version asked of cuGetProcAddress for an entry point, by its base name (cuda.h's
// versioned name without _vN: "cuMemAlloc", "cuGraphInstantiateWithFlags"): CUDA_VERSION, except
// for the few whose newest version changed its prototype (cuda_driver.cpp says which and why).
int cuda_entry_point_version(const std::string& base);

// Every entry point of the table as resolved: base name, version asked for, and the number of
// parameters of the prototype Weft calls it with (checked against cudaTypedefs.h by a test).
struct CudaEntryPoint {
    std::string base;
    int version = 0;
    int arity = 0;
};
std::vector<CudaEntryPoint> cuda_entry_points();

// [SECTION] errors

// A driver call failed. what(): "<what> failed: CUDA_ERROR_NAME (the driver's description)".
class CudaError : public std::runtime_error {
public:
    CudaError(CUresult code, const std::string& message) : std::runtime_error(message), code_(code) {}
    CUresult code() const { return code_; }

private:
    CUresult code_;
};

// Throws CudaError when `result` is not CUDA_SUCCESS; `what` names the call, e.g. "cuMemAlloc".
void check(CUresult result, const char* what);

}  // namespace weft::runtime
