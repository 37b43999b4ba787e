// The sim device. See sim_backend.h.
#include "runtime/sim/sim_backend.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "compiler/native/launch.h"
#include "gpusim/parse_ptx.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/cuda/ptx.h"
#include "runtime/errors.h"
#include "runtime/oob_report.h"

namespace weft::runtime {

namespace {

// Architectures the simulator models, with the PTX target NVRTC compiles for.
const std::map<std::string, std::string>& archs() {
    static const std::map<std::string, std::string> a = {
        {"h200", "sm_90"}, {"h100", "sm_90"}, {"a100", "sm_80"}, {"rtx4090", "sm_89"}, {"v100", "sm_70"}};
    return a;
}

std::mutex g_reports_mu;
std::vector<gpusim::LaunchResult> g_reports;

class SimModule : public LoadedModule {
public:
    SimModule(gpusim::Module m, int sm_count) : module_(std::move(m)), sm_count_(sm_count) {}

    void launch(const LaunchRequest& req) override {
        const compiler::KernelInfo& k = *req.kernel;
        wp::launch_bounds_t bounds{};
        bounds.ndim = req.ndim;
        for (int d = 0; d < 4; ++d) bounds.shape[d] = static_cast<wp::int32>(d < req.ndim ? req.shape[d] : 1);
        bounds.size = req.size;
        wp::oob_record oob{};
        wp::oob_record* oob_ptr = req.debug ? &oob : nullptr;
        gpusim::ParamPacker pk;
        pk.add(bounds, 8);
        pk.add_bytes(req.args.data(), req.args.size(), std::max<size_t>(req.adjoint ? k.adj_args_align : k.args_align, 1));
        pk.add(oob_ptr);
        int64_t blocks = (req.size + req.block_dim - 1) / req.block_dim;
        if (blocks > 0x7fffffff) throw RuntimeError("launch of kernel '" + k.name + "' needs more than 2^31-1 blocks");
        gpusim::LaunchOptions o;
        o.threads = cpu_threads();
        o.sm_count = static_cast<uint32_t>(sm_count_);
        gpusim::LaunchResult r;
        try {
            r = gpusim::launch(module_, req.adjoint ? k.cuda_backward_symbol : k.cuda_symbol, {static_cast<uint32_t>(blocks), 1, 1},
                               {static_cast<uint32_t>(req.block_dim), 1, 1}, pk.bytes(), o);
        } catch (const gpusim::SimError& e) {
            throw RuntimeError("kernel '" + k.name + "' failed on the simulator: " + e.what());
        }
        r.kernel = k.name;
        if (req.debug && oob.hit) throw RuntimeError(format_oob(k, oob));
        std::lock_guard<std::mutex> lock(g_reports_mu);
        g_reports.push_back(std::move(r));
        if (g_reports.size() > 4096) g_reports.erase(g_reports.begin(), g_reports.begin() + 2048);
    }

private:
    gpusim::Module module_;
    int sm_count_;
};

class SimBackend : public DeviceBackend {
public:
    explicit SimBackend(Device d) : device_(std::move(d)) {}
    Device device() const override { return device_; }
    void* allocate(size_t bytes) override {
        void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
        if (!p) throw RuntimeError("out of host memory allocating " + std::to_string(bytes) + " bytes for " + device_.str());
        return p;
    }
    void free(void* p) override { std::free(p); }
    void memset(void* dst, int value, size_t bytes) override { std::memset(dst, value, bytes); }
    void copy_to_host(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
    void copy_from_host(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
    void copy_within(void* dst, const void* src, size_t bytes) override { std::memmove(dst, src, bytes); }
    void synchronize() override {}

    std::unique_ptr<LoadedModule> load(const compiler::CompiledModule& m, bool debug) override {
        (void)debug;
        std::string ptx;
        try {
            ptx = generate_ptx(m, sim_ptx_arch(device_.arch));
        } catch (const std::exception& e) {
            throw RuntimeError(std::string("NVRTC rejected the code generated for this module (a Weft bug):\n") + e.what());
        }
        try {
            gpusim::Module mod = gpusim::parse_ptx(ptx, "module.ptx");
            // Kernel source lines are inlined into the generated entry points: keep counts on the
            // kernel's own lines, and builtins (the native headers) on the line that called them.
            std::set<std::string> sources;
            for (const auto& f : m.ast.files) sources.insert(f->path);
            mod.attribute_innermost_in([&](const std::string& file) {
                for (const auto& src : sources)
                    if (file == src || (file.size() > src.size() && file.compare(file.size() - src.size(), src.size(), src) == 0))
                        return true;
                return false;
            });
            return std::make_unique<SimModule>(std::move(mod), 132);
        } catch (const gpusim::PtxError& e) {
            throw RuntimeError(std::string("the simulator cannot read this module's PTX: ") + e.what());
        }
    }

private:
    Device device_;
};

}  // namespace

bool sim_arch_known(const std::string& arch) { return archs().count(arch) > 0; }

std::vector<std::string> sim_arch_names() {
    std::vector<std::string> v;
    for (const auto& [k, a] : archs()) v.push_back(k);
    return v;
}

std::string sim_ptx_arch(const std::string& arch) {
    auto it = archs().find(arch);
    if (it == archs().end()) {
        std::string names;
        for (const auto& n : sim_arch_names()) names += (names.empty() ? "" : ", ") + n;
        throw RuntimeError("unknown simulator architecture '" + arch + "'; known: " + names);
    }
    return it->second;
}

std::unique_ptr<DeviceBackend> make_sim_backend(const Device& d) {
    sim_ptx_arch(d.arch);  // validates
    return std::make_unique<SimBackend>(d);
}

std::vector<gpusim::LaunchResult> take_sim_reports() {
    std::lock_guard<std::mutex> lock(g_reports_mu);
    std::vector<gpusim::LaunchResult> out;
    out.swap(g_reports);
    return out;
}

}  // namespace weft::runtime
