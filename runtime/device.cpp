// Device names and the backend registry. See device.h.
#include "runtime/device.h"

#include <cstddef>
#include <cstring>
#include <map>
#include <vector>
#include <mutex>

#include "compiler/native/launch.h"
#include "runtime/errors.h"

#if WEFT_HAVE_CPU_JIT
#include "runtime/cpu/cpu_backend.h"
#endif
#if WEFT_HAVE_CUDA
#include "runtime/cuda/cuda_backend.h"
#endif
#if WEFT_HAVE_SIM
#include "runtime/sim/sim_backend.h"
#endif

namespace weft::runtime {

std::string Device::str() const {
    switch (kind) {
        case DeviceKind::Cpu: return "cpu";
        case DeviceKind::Cuda: return "cuda:" + std::to_string(ordinal);
        case DeviceKind::Sim: return "sim:" + arch;
    }
    return "?";
}

wp::launch_bounds_t launch_bounds(const LaunchRequest& req) {
    wp::launch_bounds_t b{};
    b.ndim = req.ndim;
    for (int d = 0; d < 4; ++d) b.shape[d] = static_cast<wp::int32>(d < req.ndim ? req.shape[d] : 1);
    b.size = req.size;
    return b;
}

bool Device::supports(Capability c) const {
    switch (c) {
        case Capability::GraphCapture: return kind == DeviceKind::Cuda;     // CUDA graphs; cpu and sim run the work again
        case Capability::GraphicsInterop: return kind == DeviceKind::Cuda;  // cpu and sim memory is the host's already
        case Capability::PersistentLaunch: return kind != DeviceKind::Cpu;  // the CPU has no launch cost to save
    }
    return false;
}

Device parse_device(const std::string& s) {
    Device d;
    auto colon = s.find(':');
    std::string head = s.substr(0, colon), tail = colon == std::string::npos ? "" : s.substr(colon + 1);
    if (head == "cpu" && colon == std::string::npos) return d;
    if (head == "cuda") {
        d.kind = DeviceKind::Cuda;
        if (colon != std::string::npos) {
            if (tail.empty() || tail.find_first_not_of("0123456789") != std::string::npos || tail.size() > 3)
                throw RuntimeError("invalid device '" + s + "': expected cuda:N with N a device number");
            d.ordinal = std::stoi(tail);
        }
        return d;
    }
    if (head == "sim") {
        d.kind = DeviceKind::Sim;
        if (colon != std::string::npos) {
            if (tail.empty()) throw RuntimeError("invalid device '" + s + "': expected sim:ARCH, e.g. sim:h200");
            d.arch = tail;
        }
        return d;
    }
    throw RuntimeError("invalid device '" + s + "': expected 'cpu', 'cuda[:N]' or 'sim[:ARCH]'");
}

namespace {

struct Registry {
    std::mutex mu;
    std::map<std::string, std::unique_ptr<DeviceBackend>> backends;
};

Registry& registry() {
    static Registry* r = new Registry();  // never destroyed: backends may be used at exit
    return *r;
}

}  // namespace

void DeviceBackend::fill(void* dst, const void* value, size_t element_size, size_t count) {
    std::vector<std::byte> host(element_size * count);
    for (size_t i = 0; i < count; ++i) std::memcpy(host.data() + i * element_size, value, element_size);
    copy_from_host(dst, host.data(), host.size());
}

std::unique_ptr<GraphicsResource> DeviceBackend::register_gl_buffer(unsigned gl_buffer) {
    throw RuntimeError(device().str() + ": cannot share memory with OpenGL (buffer " + std::to_string(gl_buffer) +
                       "); its arrays are in host memory, upload them instead");
}

std::unique_ptr<LoadedLaunchList> DeviceBackend::load_launch_list(const LaunchListPlan&) {
    throw RuntimeError(device().str() + ": runs no launch lists (runtime/launch_list.h); run the launches one by one");
}

bool device_available(const Device& d) {
    switch (d.kind) {
        case DeviceKind::Cpu:
#if WEFT_HAVE_CPU_JIT
            return true;
#else
            return false;
#endif
        case DeviceKind::Cuda:
#if WEFT_HAVE_CUDA
            return cuda_device_available(d.ordinal);
#else
            return false;
#endif
        case DeviceKind::Sim:
#if WEFT_HAVE_SIM
            return sim_arch_known(d.arch);
#else
            return false;
#endif
    }
    return false;
}

DeviceBackend& backend(const Device& d) {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mu);
    std::string key = d.str();
    auto it = r.backends.find(key);
    if (it != r.backends.end()) return *it->second;
    std::unique_ptr<DeviceBackend> b;
    switch (d.kind) {
        case DeviceKind::Cpu:
#if WEFT_HAVE_CPU_JIT
            b = make_cpu_backend();
#else
            throw RuntimeError(
                "device 'cpu' is not available: this build of Weft has no CPU JIT (configure with WEFT_WITH_LLVM=ON)");
#endif
            break;
        case DeviceKind::Cuda:
#if WEFT_HAVE_CUDA
            b = make_cuda_backend(d.ordinal);
#else
            throw RuntimeError("device '" + key + "' is not available: this build of Weft has no CUDA support");
#endif
            break;
        case DeviceKind::Sim:
#if WEFT_HAVE_SIM
            b = make_sim_backend(d);
#else
            throw RuntimeError("device '" + key + "' is not available: the simulator needs NVRTC (a build with CUDA)");
#endif
            break;
    }
    DeviceBackend& ref = *b;
    r.backends.emplace(key, std::move(b));
    return ref;
}

}  // namespace weft::runtime
