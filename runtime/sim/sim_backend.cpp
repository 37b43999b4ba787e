// The sim device. See sim_backend.h.
//
// Why the timing model on every launch: a sim device exists to say where a frame's cycles go,
// so a launch that only counted instructions would answer the wrong question. Settings can
// turn timing off (WEFT_SIM_TIMING=0) for tests that only need results and counts.
#include "runtime/sim/sim_backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "compiler/native/launch.h"
#include "gpusim/global_memory.h"
#include "gpusim/occupancy.h"
#include "gpusim/parse_ptx.h"
#include "gpusim/sass_map.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/cuda/grid_policy.h"
#include "runtime/cuda/ptx.h"
#include "runtime/errors.h"
#include "support/hash.h"
#include "runtime/module_cache.h"
#include "runtime/oob_report.h"

namespace weft::runtime {

namespace {

constexpr const char* kPtxas = "/usr/local/cuda/bin/ptxas";

// Architectures by name: the built-in files, plus any registered from a file.
std::mutex g_arch_mu;
std::map<std::string, gpusim::ArchSpec>& arch_table() {
    static std::map<std::string, gpusim::ArchSpec> t = [] {
        std::map<std::string, gpusim::ArchSpec> m;
        for (const std::string& n : gpusim::builtin_arch_names()) m[n] = gpusim::builtin_arch(n);
        return m;
    }();
    return t;
}

std::mutex g_settings_mu;
SimSettings g_settings;

std::mutex g_reports_mu;
std::deque<std::shared_ptr<const SimLaunchReport>> g_reports;
uint64_t g_next_sequence = 0;

std::deque<SimCopyReport> g_copies;  // guarded by g_reports_mu

// Live allocations of every sim device (base -> bytes): a launch may touch only these and its
// arrays' own extents, so a read past an array's end is an error, not a read of host memory.
std::mutex g_alloc_mu;
std::map<uint64_t, uint64_t> g_allocations;

// The launch's global buffers: every live allocation, named after the array parameter that
// points into it; an array outside every allocation (foreign memory) by its own extent.
gpusim::GlobalMemoryMap global_buffers(const compiler::KernelInfo& k, const LaunchRequest& req, const void* oob) {
    gpusim::GlobalMemoryMap map;
    std::lock_guard<std::mutex> lock(g_alloc_mu);
    auto add_array = [&](const std::string& name, size_t offset) {
        if (offset + 64 > req.args.size()) return;
        uint64_t data;
        int32_t shape[4], ndim;
        int64_t strides[4];
        std::memcpy(&data, req.args.data() + offset, 8);
        std::memcpy(shape, req.args.data() + offset + 8, 16);
        std::memcpy(strides, req.args.data() + offset + 24, 32);
        std::memcpy(&ndim, req.args.data() + offset + 56, 4);
        if (data == 0) return;
        auto it = g_allocations.upper_bound(data);
        if (it != g_allocations.begin() && data < std::prev(it)->first + std::prev(it)->second) {
            map.add(std::prev(it)->first, std::prev(it)->second, name);
            return;
        }
        uint64_t extent = 0;
        for (int d = 0; d < std::clamp(ndim, 1, 4); ++d) {
            if (shape[d] <= 0) return;
            extent += static_cast<uint64_t>(shape[d] - 1) * static_cast<uint64_t>(std::abs(strides[d]));
        }
        extent += static_cast<uint64_t>(std::abs(strides[std::clamp(ndim, 1, 4) - 1]));
        map.add(data, extent, name);
    };
    for (const auto& p : k.params)
        if (compiler::is_array(p.type)) add_array(p.name, p.offset);
    if (req.adjoint) {
        for (const auto& p : k.adj_params)
            if (compiler::is_array(p.type)) add_array("adj_" + p.name, p.offset);
        add_array("status", k.adj_status_offset);
    }
    for (const auto& [base, bytes] : g_allocations) map.add(base, bytes);
    if (oob) map.add(reinterpret_cast<uint64_t>(oob), sizeof(wp::oob_record), "oob_record");
    return map;
}
std::mutex g_trace_mu;  // launches append their JSONL trace whole

bool timing_enabled(const SimSettings& s) {
    const char* e = std::getenv("WEFT_SIM_TIMING");
    if (e && std::string(e) == "0") return false;
    return s.timing;
}

class SimModule : public LoadedModule {
public:
    SimModule(gpusim::Module m, std::string ptx, std::string arch) : module_(std::move(m)), ptx_(std::move(ptx)), arch_name_(std::move(arch)) {}

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
        const std::string symbol = req.adjoint ? k.cuda_backward_symbol : k.cuda_symbol;
        // The grid the cuda device would launch (runtime/cuda/grid_policy.h): forward entries of
        // kernels without barriers loop over a grid stride and get at most a few waves of the
        // blocks the GPU holds at once, per WEFT_CUDA_GRID_WAVES (auto by default).
        const int waves = !req.adjoint && !k.uses_sync ? grid_waves_for(k, grid_waves_from_env(kGridWavesAuto)) : 0;
        if (waves > 0) {
            const gpusim::ArchSpec& arch = sim_arch(arch_name_);
            const gpusim::KernelResources* res = resources(symbol, arch);
            try {
                const gpusim::Occupancy occ =
                    gpusim::compute_occupancy(arch, req.block_dim, res ? res->registers : 0, res ? res->shared_bytes : 0);
                if (occ.blocks_per_sm > 0) blocks = std::min<int64_t>(blocks, int64_t{occ.blocks_per_sm} * arch.sm_count * waves);
            } catch (const gpusim::OccupancyError&) {  // the block does not fit: the launch below says why
            }
        }
        if (blocks > 0x7fffffff) throw RuntimeError("launch of kernel '" + k.name + "' needs more than 2^31-1 blocks");
        const gpusim::Dim3 grid{static_cast<uint32_t>(blocks), 1, 1}, block{static_cast<uint32_t>(req.block_dim), 1, 1};
        const SimSettings settings = sim_settings();
        gpusim::GlobalMemoryMap buffers = global_buffers(k, req, oob_ptr);
        for (const auto& g : module_.global_storage())  // the module's own variables (math tables)
            buffers.add(reinterpret_cast<uint64_t>(g.data()), g.size(), "a module variable");
        auto report = std::make_shared<SimLaunchReport>();
        report->device = "sim:" + arch_name_;
        report->timed = timing_enabled(settings);
        try {
            if (report->timed) {
                gpusim::TimingOptions o;
                o.arch = sim_arch(arch_name_);
                o.threads = cpu_threads();
                o.scheduler = sim_scheduler(settings.scheduler);
                o.block_timeline = settings.timeline;
                const gpusim::KernelResources* res = resources(symbol, o.arch);
                o.registers_per_thread = res ? res->registers : 0;  // 0: ptxas missing, no register limit
                if (res) o.static_shared_bytes = res->shared_bytes;
                if (const gpusim::SassTiming* st = sass_timing(symbol, o.arch)) {
                    o.issue_weights = st->issue_weights;
                    o.shared_issue = st->shared_issue;
                    o.load_hoist = st->load_hoist;
                }
                o.launch.global_memory = &buffers;
                std::ostringstream trace;
                if (settings.trace) {
                    o.instruction_trace = &trace;
                    o.trace_filter = settings.trace_filter;
                }
                report->result = gpusim::launch_timed(module_, symbol, grid, block, pk.bytes(), o);
                if (sass_.kernels.count(symbol))  // filled by sass_timing() above, read-only since
                    report->result.sass_instructions = gpusim::estimate_sass_instructions(sass_, module_, symbol, report->result.counts);
                if (settings.trace) {
                    std::lock_guard<std::mutex> lock(g_trace_mu);
                    *settings.trace << trace.str();
                    settings.trace->flush();
                }
            } else {
                gpusim::LaunchOptions o;
                o.threads = cpu_threads();
                o.sm_count = static_cast<uint32_t>(sim_arch(arch_name_).sm_count);
                o.global_memory = &buffers;
                report->result.arch = arch_name_;
                report->result.counts = gpusim::launch(module_, symbol, grid, block, pk.bytes(), o);
            }
        } catch (const gpusim::SimError& e) {
            throw RuntimeError("kernel '" + k.name + "' failed on the simulator: " + e.what());
        } catch (const gpusim::OccupancyError& e) {
            throw RuntimeError("kernel '" + k.name + "' cannot run on sim:" + arch_name_ + ": " + e.what());
        }
        report->result.counts.kernel = k.name;
        report->symbol = symbol;
        if (req.debug && oob.hit) throw RuntimeError(format_oob(k, oob));
        std::lock_guard<std::mutex> lock(g_reports_mu);
        report->sequence = g_next_sequence++;
        g_reports.push_back(std::move(report));
        while (g_reports.size() > kSimReportLog) g_reports.pop_front();
    }

private:
    // ptxas's registers and static shared memory of an entry, once per module; null when
    // ptxas is not installed (the launch then has no register limit).
    const gpusim::KernelResources* resources(const std::string& symbol, const gpusim::ArchSpec& arch) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!resources_done_) {
            resources_done_ = true;
            // ptxas takes a few hundred ms per module: its answer is kept in the disk cache.
            const std::string key = support::hash_hex("ptxas-resources-v1\n" + std::to_string(arch.cc_major) + std::to_string(arch.cc_minor) + "\n" + ptx_);
            if (auto hit = cache_load(key, "ptxasres")) {
                std::istringstream in(*hit);
                std::string name;
                gpusim::KernelResources r;
                while (in >> name >> r.registers >> r.shared_bytes >> r.stack_bytes >> r.spill_stores >> r.spill_loads) resources_[name] = r;
            } else if (std::filesystem::exists(kPtxas)) {
                try {
                    resources_ = gpusim::ptxas_resources(ptx_, arch, kPtxas);
                } catch (const gpusim::OccupancyError& e) {
                    throw RuntimeError(std::string("ptxas could not assemble this module's PTX for the occupancy calculator: ") + e.what());
                }
                std::ostringstream out;
                for (const auto& [name, r] : resources_)
                    out << name << " " << r.registers << " " << r.shared_bytes << " " << r.stack_bytes << " " << r.spill_stores << " " << r.spill_loads << "\n";
                cache_store(key, "ptxasres", out.str());
            }
        }
        auto it = resources_.find(symbol);
        return it == resources_.end() ? nullptr : &it->second;
    }

    // What the timing model takes from ptxas's machine code for an entry (gpusim::sass_timing:
    // issue weights, shared accesses as ptxas merged them, loads where it scheduled them), the
    // same three that gpusim_validate sets, so the sim device times kernels as the model scored
    // against the H200 does. ptxas runs once per module; its line table and instruction words
    // (not only the line counts: the shared-access and load-schedule rules decode the words) are
    // kept in the disk cache. Null when ptxas is missing (one issue cycle per PTX instruction).
    const gpusim::SassTiming* sass_timing(const std::string& symbol, const gpusim::ArchSpec& arch) {
        std::lock_guard<std::mutex> lock(mu_);
        if (!sass_done_) {
            sass_done_ = true;
            const std::string key = support::hash_hex("sass-map-v2\n" + std::to_string(arch.cc_major) + std::to_string(arch.cc_minor) + "\n" + ptx_);
            bool cached = false;
            if (auto hit = cache_load(key, "sassmap")) {
                try {
                    sass_ = gpusim::sass_map_from_text(*hit);
                    cached = true;
                } catch (const gpusim::SassMapError&) {  // unreadable: run ptxas again
                }
            }
            if (!cached && std::filesystem::exists(kPtxas)) {
                try {
                    sass_ = gpusim::map_sass(ptx_, arch, kPtxas);
                } catch (const gpusim::SassMapError& e) {
                    throw RuntimeError(std::string("ptxas could not assemble this module's PTX for the timing model: ") + e.what());
                }
                cache_store(key, "sassmap", gpusim::sass_map_to_text(sass_));
            }
        }
        if (!sass_.kernels.count(symbol)) return nullptr;
        auto it = sass_timing_.find(symbol);
        if (it == sass_timing_.end()) it = sass_timing_.emplace(symbol, gpusim::sass_timing(sass_, module_, symbol)).first;
        return &it->second;  // std::map nodes are stable
    }

    gpusim::Module module_;
    std::string ptx_;
    bool sass_done_ = false;
    gpusim::SassMap sass_;
    std::map<std::string, gpusim::SassTiming> sass_timing_;  // by entry, computed at its first launch
    std::string arch_name_;
    std::mutex mu_;
    bool resources_done_ = false;
    std::map<std::string, gpusim::KernelResources> resources_;
};

class SimBackend : public DeviceBackend {
public:
    explicit SimBackend(Device d) : device_(std::move(d)) {}
    Device device() const override { return device_; }
    void* allocate(size_t bytes) override {
        void* p = std::aligned_alloc(256, (bytes + 255) / 256 * 256);
        if (!p) throw RuntimeError("out of host memory allocating " + std::to_string(bytes) + " bytes for " + device_.str());
        std::lock_guard<std::mutex> lock(g_alloc_mu);
        g_allocations[reinterpret_cast<uint64_t>(p)] = bytes;
        return p;
    }
    void free(void* p) override {
        {
            std::lock_guard<std::mutex> lock(g_alloc_mu);
            g_allocations.erase(reinterpret_cast<uint64_t>(p));
        }
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
            return std::make_unique<SimModule>(std::move(mod), std::move(ptx), device_.arch);
        } catch (const gpusim::PtxError& e) {
            throw RuntimeError(std::string("the simulator cannot read this module's PTX: ") + e.what());
        }
    }

private:
    void record(SimCopyReport::Kind kind, size_t bytes) {
        const gpusim::ArchSpec& a = sim_arch(device_.arch);
        SimCopyReport c;
        c.device = device_.str();
        c.kind = kind;
        c.bytes = bytes;
        // GB/s = 1e3 bytes per microsecond; a device-to-device copy reads and writes every byte.
        c.time_us = kind == SimCopyReport::Kind::DeviceToDevice ? 2.0 * static_cast<double>(bytes) / (a.dram_bandwidth_gbs * 1e3)
                                                                : static_cast<double>(bytes) / (a.pcie_gbs * 1e3);
        std::lock_guard<std::mutex> lock(g_reports_mu);
        c.sequence = g_next_sequence++;
        g_copies.push_back(c);
        while (g_copies.size() > kSimReportLog) g_copies.pop_front();
    }

    Device device_;
};

std::string known_list() {
    std::string names;
    for (const auto& n : sim_arch_names()) names += (names.empty() ? "" : ", ") + n;
    return names;
}

}  // namespace

bool sim_arch_known(const std::string& arch) {
    std::lock_guard<std::mutex> lock(g_arch_mu);
    return arch_table().count(arch) > 0;
}

std::vector<std::string> sim_arch_names() {
    std::lock_guard<std::mutex> lock(g_arch_mu);
    std::vector<std::string> v;
    for (const auto& [k, a] : arch_table()) v.push_back(k);
    return v;
}

const gpusim::ArchSpec& sim_arch(const std::string& arch) {
    {
        std::lock_guard<std::mutex> lock(g_arch_mu);
        auto it = arch_table().find(arch);
        if (it != arch_table().end()) return it->second;  // std::map nodes are stable
    }
    throw RuntimeError("unknown simulator architecture '" + arch + "'; known: " + known_list());
}

std::string sim_ptx_arch(const std::string& arch) {
    const gpusim::ArchSpec& a = sim_arch(arch);
    return "sm_" + std::to_string(a.cc_major) + std::to_string(a.cc_minor);
}

std::string register_sim_arch_file(const std::string& path) {
    gpusim::ArchSpec a;
    try {
        a = gpusim::load_arch(path);
    } catch (const gpusim::ArchError& e) {
        throw RuntimeError(e.what());
    }
    if (a.name.empty() || a.name.find_first_of(": \t/") != std::string::npos)
        throw RuntimeError(path + ": the architecture's \"name\" must be a plain word to use as sim:NAME; got '" + a.name + "'");
    std::lock_guard<std::mutex> lock(g_arch_mu);
    arch_table()[a.name] = a;
    return a.name;
}

std::unique_ptr<DeviceBackend> make_sim_backend(const Device& d) {
    sim_arch(d.arch);  // validates
    return std::make_unique<SimBackend>(d);
}

gpusim::SchedulerFactory sim_scheduler(const std::string& name) {
    if (name == "gto") return gpusim::gto_scheduler();
    if (name == "lrr") return gpusim::lrr_scheduler();
    if (name == "two-level") return gpusim::two_level_scheduler();
    if (name == "latency-hiding") return gpusim::latency_hiding_scheduler();
    throw RuntimeError("unknown warp scheduler '" + name + "'; known: gto, lrr, two-level, latency-hiding");
}

void set_sim_settings(const SimSettings& s) {
    sim_scheduler(s.scheduler);
    try {
        gpusim::check_trace_filter(s.trace_filter);
    } catch (const gpusim::SimError& e) {
        throw RuntimeError(e.what());
    }
    std::lock_guard<std::mutex> lock(g_settings_mu);
    g_settings = s;
}

SimSettings sim_settings() {
    std::lock_guard<std::mutex> lock(g_settings_mu);
    return g_settings;
}

uint64_t sim_report_mark() {
    std::lock_guard<std::mutex> lock(g_reports_mu);
    return g_next_sequence;
}

std::vector<std::shared_ptr<const SimLaunchReport>> sim_reports_since(uint64_t mark) {
    std::lock_guard<std::mutex> lock(g_reports_mu);
    std::vector<std::shared_ptr<const SimLaunchReport>> out;
    for (const auto& r : g_reports)
        if (r->sequence >= mark) out.push_back(r);
    return out;
}

std::vector<SimCopyReport> sim_copies_since(uint64_t mark) {
    std::lock_guard<std::mutex> lock(g_reports_mu);
    std::vector<SimCopyReport> out;
    for (const auto& c : g_copies)
        if (c.sequence >= mark) out.push_back(c);
    return out;
}

gpusim::Hotspots sim_hotspots_since(uint64_t mark, size_t max_lines) {
    const auto reports = sim_reports_since(mark);
    std::vector<const gpusim::TimingResult*> timed;
    for (const auto& r : reports)
        if (r->timed) timed.push_back(&r->result);
    gpusim::Hotspots h = gpusim::summarize_hotspots(timed, max_lines);
    for (const SimCopyReport& c : sim_copies_since(mark)) {
        ++h.copies;
        h.copy_bytes += c.bytes;
        h.copy_time_us += c.time_us;
    }
    return h;
}

}  // namespace weft::runtime
