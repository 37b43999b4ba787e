// runtime/launch_list.cpp: see launch_list.h.
#include "runtime/launch_list.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

#include "compiler/launch_list.h"
#include "compiler/native/launch.h"
#include "runtime/config.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"

namespace weft::runtime {

class LaunchCollector {
public:
    struct Collected {
        Kernel kernel;
        LaunchRequest req;
    };
    Device device;
    std::vector<Collected> launches;
    std::string refused;  // the first thing the work did that a list cannot hold
    void refuse(const std::string& what) {
        if (refused.empty()) refused = what;
    }
};

namespace {

thread_local LaunchCollector* tls_collector = nullptr;

// An integer setting from the environment, or `fallback` when unset.
int int_from_env(const char* name, int fallback, long lo, long hi, const char* expected) {
    const char* e = std::getenv(name);
    if (!e || !*e) return fallback;
    char* end = nullptr;
    const long v = std::strtol(e, &end, 10);
    if (*end || v < lo || v > hi) throw RuntimeError(std::string(name) + "=" + e + ": expected " + expected);
    return static_cast<int>(v);
}

}  // namespace

LaunchCollector* active_launch_collector() { return tls_collector; }

void collect_launch(LaunchCollector& c, const Kernel& k, const LaunchOptions& options, LaunchRequest req) {
    if (options.adjoint) return c.refuse("a backward launch of kernel '" + k.name() + "'");
    if (req.debug) return c.refuse("a debug-mode launch of kernel '" + k.name() + "'");
    if (options.device != c.device)
        return c.refuse("a launch of kernel '" + k.name() + "' on " + options.device.str() + " (the list is for " +
                        c.device.str() + ")");
    if (req.size == 0) return;  // launch() runs nothing either
    c.launches.push_back({k, std::move(req)});
}

void refuse_collected(LaunchCollector& c, const std::string& operation) { c.refuse(operation); }

std::string launch_list_unavailable(const Device& device) {
    if (!device.supports(Capability::PersistentLaunch)) return device.str() + " runs no launch lists";
    if (config().debug) return "debug mode checks every launch on its own";
    if (active_recorder()) return "a Tape is recording: it must see every launch";
    return "";
}

LaunchListRecording::LaunchListRecording(const Device& device) : collector_(std::make_unique<LaunchCollector>()) {
    const std::string why = launch_list_unavailable(device);
    if (!why.empty()) throw RuntimeError("cannot record a launch list: " + why);
    if (tls_collector) throw RuntimeError("cannot record a launch list inside another one");
    collector_->device = device;
    tls_collector = collector_.get();
}

LaunchListRecording::~LaunchListRecording() {
    if (tls_collector == collector_.get()) tls_collector = nullptr;
}

LaunchList LaunchListRecording::finish(const LaunchListOptions& options) {
    if (tls_collector != collector_.get()) throw RuntimeError("LaunchListRecording::finish: the recording has ended");
    tls_collector = nullptr;
    return LaunchList(std::move(*collector_), options);
}

LaunchList::LaunchList(const Device& device, const std::function<void()>& work, const LaunchListOptions& options) {
    if (!work) throw RuntimeError("LaunchList: no work to collect");
    why_not_ = launch_list_unavailable(device);
    if (!why_not_.empty()) return;
    LaunchListRecording recording(device);
    work();
    *this = recording.finish(options);
}

LaunchList::LaunchList(LaunchCollector&& c, const LaunchListOptions& options) {
    const Device device = c.device;
    if (!c.refused.empty()) {
        why_not_ = "the work does what a launch list cannot hold: " + c.refused;
        return;
    }
    if (c.launches.empty()) {
        why_not_ = "the work launches nothing";
        return;
    }
    LaunchListPlan plan;
    plan.max_blocks =
        int_from_env("WEFT_LAUNCH_LIST_BLOCKS", options.max_blocks, 0, 1 << 20, "a number of blocks >= 0 (0: no limit)");
    const int block_dim =
        int_from_env("WEFT_LAUNCH_LIST_BLOCK_DIM", options.block_dim, 0, 1024, "threads per block, 1 to 1024 (0: the launches')");
    plan.block_dim = block_dim > 0 ? block_dim : c.launches.front().req.block_dim;
    std::vector<compiler::ListedKernel> cases;
    std::vector<Kernel> kernels;  // kept by the list once it is valid: its modules stay alive
    std::set<const compiler::CompiledModule*> modules;
    std::string names;
    for (auto& l : c.launches) {
        const compiler::CompiledModule& cm = l.kernel.module()->compiled(false);
        const compiler::KernelInfo* info = cm.find_kernel(l.kernel.name());
        std::string why = compiler::launch_list_refusal(*info);
        if (why.empty() && block_dim == 0 && l.req.block_dim != plan.block_dim)
            why = "kernel '" + l.kernel.name() + "' runs in blocks of " + std::to_string(l.req.block_dim) +
                  " threads, the list's first launch in " + std::to_string(plan.block_dim);
        if (!why.empty()) {
            why_not_ = why;
            return;
        }
        l.req.kernel = info;
        // A case per distinct (kernel, shape, argument block): the substeps of a frame that swap
        // two states repeat two launches of each kernel.
        size_t k = 0;
        while (k < plan.cases.size() &&
               !(plan.cases[k].kernel == info && plan.cases[k].ndim == l.req.ndim &&
                 std::equal(plan.cases[k].shape, plan.cases[k].shape + 4, l.req.shape) && plan.cases[k].args == l.req.args))
            ++k;
        if (k == plan.cases.size()) {
            plan.needed_blocks = std::max<long long>(plan.needed_blocks, (l.req.size + plan.block_dim - 1) / plan.block_dim);
            plan.cases.push_back(std::move(l.req));
            cases.push_back({&cm, info});
            if (names.find("'" + info->name + "'") == std::string::npos)
                names += (names.empty() ? "'" : ", '") + info->name + "'";
            kernels.push_back(l.kernel);
            if (modules.insert(&cm).second)
                for (const auto& f : cm.ast.files) plan.source_files.push_back(f->path);
        }
        plan.sequence.push_back(static_cast<int32_t>(k));
    }
    if (plan.sequence.size() > compiler::kLaunchListMaxSteps) {
        why_not_ = "it has " + std::to_string(plan.sequence.size()) + " launches, more than the " +
                   std::to_string(compiler::kLaunchListMaxSteps) + " a list's order table holds";
        return;
    }
    const compiler::LaunchListLayout layout = compiler::launch_list_layout(cases);
    if (layout.size > compiler::kLaunchParamLimit) {
        why_not_ = "its " + std::to_string(plan.cases.size()) + " distinct launches' arguments take " +
                   std::to_string(layout.size) + " bytes, more than the " + std::to_string(compiler::kLaunchParamLimit) +
                   " bytes a launch's parameters hold";
        return;
    }
    plan.params.assign(layout.size, std::byte{0});
    for (size_t i = 0; i < plan.cases.size(); ++i) {
        const LaunchRequest& r = plan.cases[i];
        const wp::launch_bounds_t bounds = launch_bounds(r);
        std::memcpy(plan.params.data() + layout.bounds_offset[i], &bounds, sizeof bounds);
        std::memcpy(plan.params.data() + layout.args_offset[i], r.args.data(), r.args.size());
    }
    plan.source = compiler::launch_list_source(cases, plan.sequence);
    plan.label = "launch list of " + std::to_string(plan.sequence.size()) + " launches (" + names + ")";
    try {
        loaded_ = backend(device).load_launch_list(plan);
    } catch (const RuntimeError& e) {  // e.g. a block of WEFT_LAUNCH_LIST_BLOCK_DIM threads does not fit an SM
        why_not_ = std::string("it could not be loaded on ") + device.str() + ": " + e.what();
        return;
    }
    kernels_ = std::move(kernels);
    steps_ = plan.sequence.size();
    cases_ = plan.cases.size();
}

LaunchList::~LaunchList() = default;
LaunchList::LaunchList(LaunchList&&) noexcept = default;
LaunchList& LaunchList::operator=(LaunchList&&) noexcept = default;

void LaunchList::run() const {
    if (!loaded_) throw RuntimeError("LaunchList::run: the list is not valid (" + why_not_ + ")");
    loaded_->run();
}

int LaunchList::blocks() const { return loaded_ ? loaded_->blocks() : 0; }

}  // namespace weft::runtime
