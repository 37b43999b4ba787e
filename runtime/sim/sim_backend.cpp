// runtime/sim/sim_backend.cpp: the sim device's DeviceBackend (see sim_backend.h): host memory
// for arrays, copies timed as the GPU would take them, and modules compiled by NVRTC to the PTX
// the cuda device would load, parsed once by gpusim. Launches are sim_module.cpp's;
// architectures sim_arch.cpp's, settings sim_settings.cpp's, the report log report_log.cpp's.
#include "runtime/sim/sim_backend.h"

#include <cstdlib>
#include <cstring>
#include <set>

#include "gpusim/ptx/parse_ptx.h"
#include "runtime/cuda/ptx.h"
#include "runtime/launch_list.h"
#include "runtime/errors.h"
#include "runtime/sim/allocations.h"
#include "runtime/sim/report_log.h"
#include "runtime/sim/sim_module.h"

namespace weft::runtime {

namespace {

class SimBackend : public DeviceBackend {
public:
    explicit SimBackend(Device d) : device_(std::move(d)) {}
    Device device() const override { return device_; }
    void* allocate(size_t bytes) override {
        void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
        if (!p) throw RuntimeError("out of host memory allocating " + std::to_string(bytes) + " bytes for " + device_.str());
        sim_allocation_added(p, bytes);
        return p;
    }
    void free(void* p) override {
        sim_allocation_removed(p);
        std::free(p);
    }
    void memset(void* dst, int value, size_t bytes) override { std::memset(dst, value, bytes); }
    void copy_to_host(void* dst, const void* src, size_t bytes) override {
        std::memcpy(dst, src, bytes);
        record(SimCopyReport::Kind::DeviceToHost, bytes);
    }
    void copy_from_host(void* dst, const void* src, size_t bytes) override {
        std::memcpy(dst, src, bytes);
        record(SimCopyReport::Kind::HostToDevice, bytes);
    }
    void copy_within(void* dst, const void* src, size_t bytes) override {
        std::memmove(dst, src, bytes);
        record(SimCopyReport::Kind::DeviceToDevice, bytes);
    }
    void synchronize() override {}

    bool loads_backward_separately() const override { return true; }

    std::unique_ptr<LoadedLaunchList> load_launch_list(const LaunchListPlan& plan) override {
        std::string ptx = build_cuda_binaries(plan.source, sim_ptx_arch(device_.arch), "a launch list").ptx;
        try {
            gpusim::Module mod = gpusim::parse_ptx(ptx, "launch_list.ptx");
            const std::set<std::string> sources(plan.source_files.begin(), plan.source_files.end());
            mod.attribute_innermost_in([&](const std::string& file) { return is_kernel_source(file, sources); });
            return std::make_unique<SimLaunchList>(
                *this, std::make_unique<SimModule>(std::move(mod), std::move(ptx), device_.arch), plan);
        } catch (const gpusim::PtxError& e) {
            throw RuntimeError(std::string("the simulator cannot read a launch list's PTX: ") + e.what());
        }
    }

    std::unique_ptr<LoadedModule> load(const compiler::CompiledModule& m, bool debug, compiler::CodePart part) override {
        (void)debug;
        std::string ptx;
        try {
            ptx = generate_ptx(m, sim_ptx_arch(device_.arch), part);
        } catch (const std::exception& e) {
            throw RuntimeError(std::string("NVRTC rejected the code generated for this module (a Weft bug):\n") + e.what());
        }
        try {
            gpusim::Module mod = gpusim::parse_ptx(ptx, "module.ptx");
            // Kernel source lines are inlined into the generated entry points: keep counts on the
            // kernel's own lines, and builtins (the native headers) on the line that called them.
            std::set<std::string> sources;
            for (const auto& f : m.ast.files) sources.insert(f->path);
            mod.attribute_innermost_in([&](const std::string& file) { return is_kernel_source(file, sources); });
            return std::make_unique<SimModule>(std::move(mod), std::move(ptx), device_.arch);
        } catch (const gpusim::PtxError& e) {
            throw RuntimeError(std::string("the simulator cannot read this module's PTX: ") + e.what());
        }
    }

private:
    // Whether a PTX .file entry is one of the kernel sources (PTX may hold them made absolute).
    static bool is_kernel_source(const std::string& file, const std::set<std::string>& sources) {
        for (const auto& src : sources)
            if (file == src || (file.size() > src.size() && file.compare(file.size() - src.size(), src.size(), src) == 0))
                return true;
        return false;
    }

    void record(SimCopyReport::Kind kind, size_t bytes) {
        const gpusim::ArchSpec& a = sim_arch(device_.arch);
        SimCopyReport c;
        c.device = device_.str();
        c.kind = kind;
        c.bytes = bytes;
        // GB/s = 1e3 bytes per microsecond; a device-to-device copy reads and writes every byte.
        c.time_us = kind == SimCopyReport::Kind::DeviceToDevice ? 2.0 * static_cast<double>(bytes) / (a.dram_bandwidth_gbs * 1e3)
                                                                : static_cast<double>(bytes) / (a.pcie_gbs * 1e3);
        log_sim_copy(c);
    }

    Device device_;
};

}  // namespace

std::unique_ptr<DeviceBackend> make_sim_backend(const Device& d) {
    sim_arch(d.arch);  // validates
    return std::make_unique<SimBackend>(d);
}

}  // namespace weft::runtime
