// runtime/sim/sim_module.cpp: launches of a module on a sim device (sim_module.h).
//
// Why the timing model on every launch: a sim device exists to say where a frame's cycles go,
// so a launch that only counted instructions would answer the wrong question. Settings can
// turn timing off (WEFT_SIM_TIMING=0) for tests that only need results and counts.
#include "runtime/sim/sim_module.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "compiler/native/launch.h"
#include "gpusim/arch/occupancy.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/cuda/grid_policy.h"
#include "runtime/cancel.h"
#include "compiler/launch_list.h"
#include "runtime/errors.h"
#include "runtime/launch_list.h"
#include "runtime/module_cache.h"
#include "runtime/oob_report.h"
#include "runtime/sim/allocations.h"
#include "runtime/sim/report_log.h"
#include "runtime/sim/sim_backend.h"
#include "support/hash.h"

namespace weft::runtime {

namespace {

std::mutex g_trace_mu;  // launches append their JSONL trace whole

}  // namespace

void SimModule::launch(const LaunchRequest& req) {
    const compiler::KernelInfo& k = *req.kernel;
    const wp::launch_bounds_t bounds = launch_bounds(req);
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
    const int waves =
        !req.adjoint && !k.uses_sync && !k.uses_warp_sync ? grid_waves_for(k, grid_waves_from_env(kGridWavesAuto)) : 0;
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
    run_entry(symbol, k.name, grid, block, pk.bytes(), sim_global_buffers(k, req, oob_ptr));
    if (req.debug && oob.hit) throw RuntimeError(format_oob(k, oob));
}

void SimModule::run_entry(const std::string& symbol, const std::string& label, gpusim::Dim3 grid, gpusim::Dim3 block,
                          std::span<const std::byte> params, gpusim::GlobalMemoryMap buffers) {
    const SimSettings settings = sim_settings();
    for (const auto& g : module_.global_storage())  // the module's own variables (math tables)
        buffers.add(reinterpret_cast<uint64_t>(g.data()), g.size(), "a module variable");
    auto report = std::make_shared<SimLaunchReport>();
    report->device = "sim:" + arch_name_;
    report->timed = sim_timing_enabled(settings);
    try {
        if (report->timed) {
            gpusim::TimingOptions o;
            o.arch = sim_arch(arch_name_);
            o.threads = sim_threads(settings);
            o.scheduler = sim_scheduler(settings.scheduler);
            o.block_timeline = settings.timeline;
            const gpusim::KernelResources* res = resources(symbol, o.arch);
            o.registers_per_thread = res ? res->registers : 0;  // 0: ptxas missing, no register limit
            if (res) o.static_shared_bytes = res->shared_bytes;
            if (const gpusim::SassTiming* st = sass_timing(symbol, o.arch)) {
                o.issue_weights = st->issue_weights;
                o.shared_issue = st->shared_issue;
                o.load_hoist = st->load_hoist;
                o.stall_site = st->stall_site;
            }
            o.launch.global_memory = &buffers;
            o.launch.cancel = &cancel_flag();
            std::ostringstream trace;
            if (settings.trace) {
                o.instruction_trace = &trace;
                o.trace_filter = settings.trace_filter;
            }
            report->result = gpusim::launch_timed(module_, symbol, grid, block, params, o);
            if (sass_.kernels.count(symbol))  // filled by sass_timing() above, read-only since
                report->result.sass_instructions =
                    gpusim::estimate_sass_instructions(sass_, module_, symbol, report->result.counts);
            if (settings.trace) {
                std::lock_guard<std::mutex> lock(g_trace_mu);
                *settings.trace << trace.str();
                settings.trace->flush();
            }
        } else {
            gpusim::LaunchOptions o;
            o.threads = sim_threads(settings);
            o.sm_count = static_cast<uint32_t>(sim_arch(arch_name_).sm_count);
            o.global_memory = &buffers;
            o.cancel = &cancel_flag();
            report->result.arch = arch_name_;
            report->result.counts = gpusim::launch(module_, symbol, grid, block, params, o);
        }
    } catch (const gpusim::SimError& e) {
        throw RuntimeError("kernel '" + label + "' failed on the simulator: " + e.what());
    } catch (const gpusim::OccupancyError& e) {
        throw RuntimeError("kernel '" + label + "' cannot run on sim:" + arch_name_ + ": " + e.what());
    }
    report->result.counts.kernel = label;
    report->symbol = symbol;
    log_sim_launch(std::move(report));
}

const gpusim::KernelResources* SimModule::resources(const std::string& symbol, const gpusim::ArchSpec& arch) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!resources_done_) {
        resources_done_ = true;
        // ptxas takes a few hundred ms per module: its answer is kept in the disk cache.
        const std::string key = support::hash_hex("ptxas-resources-v2\n" + std::to_string(arch.cc_major) +
                                                  std::to_string(arch.cc_minor) + "\n" + ptx_);
        if (auto hit = cache_load(key, "ptxasres")) {
            std::istringstream in(*hit);
            std::string name;
            gpusim::KernelResources r;
            while (in >> name >> r.registers >> r.shared_bytes >> r.stack_bytes >> r.spill_stores >> r.spill_loads)
                resources_[name] = r;
        } else if (std::filesystem::exists(gpusim::ptxas_path())) {
            try {
                resources_ = gpusim::ptxas_resources(ptx_, arch);
            } catch (const gpusim::PtxasError& e) {
                throw RuntimeError(std::string("ptxas could not assemble this module's PTX for the occupancy calculator: ") +
                                   e.what());
            }
            std::ostringstream out;
            for (const auto& [name, r] : resources_)
                out << name << " " << r.registers << " " << r.shared_bytes << " " << r.stack_bytes << " " << r.spill_stores << " "
                    << r.spill_loads << "\n";
            cache_store(key, "ptxasres", out.str());
        }
    }
    auto it = resources_.find(symbol);
    return it == resources_.end() ? nullptr : &it->second;
}

const gpusim::SassTiming* SimModule::sass_timing(const std::string& symbol, const gpusim::ArchSpec& arch) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!sass_done_) {
        sass_done_ = true;
        const std::string key =
            support::hash_hex("sass-map-v2\n" + std::to_string(arch.cc_major) + std::to_string(arch.cc_minor) + "\n" + ptx_);
        bool cached = false;
        if (auto hit = cache_load(key, "sassmap")) {
            try {
                sass_ = gpusim::sass_map_from_text(*hit);
                cached = true;
            } catch (const gpusim::SassMapError&) {  // unreadable: run ptxas again
            }
        }
        if (!cached && std::filesystem::exists(gpusim::ptxas_path())) {
            try {
                sass_ = gpusim::map_sass(ptx_, arch);
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

SimLaunchList::SimLaunchList(DeviceBackend& backend, std::unique_ptr<SimModule> module, const LaunchListPlan& plan)
    : backend_(backend),
      module_(std::move(module)),
      cases_(plan.cases),
      params_(plan.params),
      sequence_(plan.sequence),
      count_(static_cast<int>(plan.sequence.size())),
      block_dim_(plan.block_dim) {
    const long long needed = plan.needed_blocks;
    const int64_t resident = module_->resident_blocks(compiler::kLaunchListEntry, block_dim_);
    long long blocks = resident > 0 ? std::min<long long>(needed, resident) : needed;
    if (plan.max_blocks > 0) blocks = std::min<long long>(blocks, plan.max_blocks);
    blocks_ = static_cast<int>(std::max<long long>(blocks, 1));
    memory_ = static_cast<std::byte*>(backend_.allocate(16));
    std::memset(memory_, 0, 16);
    label_ = plan.label;
}

SimLaunchList::~SimLaunchList() { backend_.free(memory_); }

void SimLaunchList::run() {
    std::memset(memory_, 0, 4);  // the barrier counter
    const gpusim::Dim3 block{static_cast<uint32_t>(block_dim_), 1, 1};
    auto params = [&](int first, int count) {
        gpusim::ParamPacker pk;
        pk.add_bytes(params_.data(), params_.size(), 16);
        pk.add(static_cast<int32_t>(first));
        pk.add(static_cast<int32_t>(count));
        pk.add(static_cast<const void*>(memory_));
        return pk;
    };
    if (blocks_ == 1) {  // the whole list in one block: its barriers are bar.sync
        std::vector<std::pair<const compiler::KernelInfo*, const LaunchRequest*>> launches;
        for (const LaunchRequest& c : cases_) launches.emplace_back(c.kernel, &c);
        module_->run_entry(compiler::kLaunchListEntry, label_, gpusim::Dim3{1, 1, 1}, block, params(0, count_).bytes(),
                           sim_global_buffers(launches));
        return;
    }
    // A step per simulated launch of the list's grid: the grid barrier is the launch's end.
    for (int s = 0; s < count_; ++s) {
        const LaunchRequest& c = cases_[static_cast<size_t>(sequence_[static_cast<size_t>(s)])];
        module_->run_entry(compiler::kLaunchListEntry, label_ + ": " + c.kernel->name,
                           gpusim::Dim3{static_cast<uint32_t>(blocks_), 1, 1}, block, params(s, 1).bytes(),
                           sim_global_buffers({{c.kernel, &c}}));
    }
}

int64_t SimModule::resident_blocks(const std::string& symbol, int block_dim) {
    const gpusim::ArchSpec& arch = sim_arch(arch_name_);
    const gpusim::KernelResources* res = resources(symbol, arch);
    if (!res) return 0;
    try {
        const gpusim::Occupancy occ = gpusim::compute_occupancy(arch, block_dim, res->registers, res->shared_bytes);
        if (occ.blocks_per_sm == 0)
            throw gpusim::OccupancyError("no block of " + std::to_string(block_dim) + " threads fits an SM (limited by " +
                                         gpusim::occupancy_limit_name(occ.limiter) + ": " + std::to_string(res->registers) +
                                         " registers per thread)");
        return int64_t{occ.blocks_per_sm} * arch.sm_count;
    } catch (const gpusim::OccupancyError& e) {
        throw RuntimeError("'" + symbol + "' cannot run on sim:" + arch_name_ + ": " + e.what());
    }
}

}  // namespace weft::runtime
