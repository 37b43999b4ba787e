// gpusim/exec/launch.cpp — validates a launch, runs its blocks (on one or several host threads),
// and gathers the counts. See launch.h for the semantics.
#include "gpusim/exec/launch.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "gpusim/ptx/call_graph.h"
#include "gpusim/exec/run_block.h"

namespace weft::gpusim {

Counters& Counters::operator+=(const Counters& o) {
    warp_instructions += o.warp_instructions;
    thread_instructions += o.thread_instructions;
    global_loads += o.global_loads;
    global_stores += o.global_stores;
    shared_loads += o.shared_loads;
    shared_stores += o.shared_stores;
    shared_requests += o.shared_requests;
    local_loads += o.local_loads;
    local_stores += o.local_stores;
    atomics += o.atomics;
    branches += o.branches;
    divergent_branches += o.divergent_branches;
    return *this;
}

namespace {

std::string dims(Dim3 d) { return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")"; }

// Per host thread: reusable memory and its own counters.
struct Worker {
    std::vector<Counters> per_instr;
    LoopTripLog loops;
    std::vector<std::byte> shared;
    std::vector<std::byte> local;
    RegisterFile regs;
    uint64_t budget = 0;
};

}  // namespace

LaunchResult launch(const Module& module, std::string_view kernel_name, Dim3 grid, Dim3 block, std::span<const std::byte> params,
                    const LaunchOptions& options) {
    const Function* kernel = module.find_function(kernel_name);
    if (!kernel || !kernel->is_entry) {
        std::string names;
        for (const Function& f : module.functions())
            if (f.is_entry) names += (names.empty() ? "" : ", ") + f.name;
        throw SimError("module '" + module.name() + "' has no kernel named '" + std::string(kernel_name) + "'" +
                       (names.empty() ? "" : " (kernels: " + names + ")"));
    }
    if (!kernel->has_body)
        throw SimError("kernel '" + kernel->name + "' is declared but not defined in module '" + module.name() + "'");
    const std::string who = "launch of kernel '" + kernel->name + "'";
    if (params.size() != kernel->param_bytes) {
        std::string layout;
        for (const ParamInfo& p : kernel->params)
            layout += "\n  " + p.name + ": offset " + std::to_string(p.offset) + ", " + std::to_string(p.size) +
                      " bytes, align " + std::to_string(p.align);
        throw SimError(who + ": the kernel takes " + std::to_string(kernel->param_bytes) + " bytes of parameters, " +
                       std::to_string(params.size()) + " were given; layout:" + layout);
    }
    if (grid.count() == 0 || block.count() == 0)
        throw SimError(who + ": grid " + dims(grid) + " and block " + dims(block) + " must not be empty");
    if (block.count() > 1024)
        throw SimError(who + ": block " + dims(block) + " has " + std::to_string(block.count()) + " threads, more than 1024");
    if (grid.y > 65535 || grid.z > 65535) throw SimError(who + ": grid " + dims(grid) + " exceeds 65535 in y or z");
    if (block.z > 64) throw SimError(who + ": block " + dims(block) + " exceeds 64 in z");
    if (kernel->reqntid[0] && (block.x != kernel->reqntid[0] || block.y != std::max(1u, kernel->reqntid[1]) ||
                               block.z != std::max(1u, kernel->reqntid[2])))
        throw SimError(who + ": block " + dims(block) + " differs from the kernel's .reqntid");
    if (kernel->maxntid[0] &&
        block.count() > uint64_t{kernel->maxntid[0]} * std::max(1u, kernel->maxntid[1]) * std::max(1u, kernel->maxntid[2]))
        throw SimError(who + ": block " + dims(block) + " exceeds the kernel's .maxntid");
    if (options.threads < 1) throw SimError(who + ": LaunchOptions::threads must be at least 1");

    const uint64_t shared_size = options.dynamic_shared_bytes
                                     ? uint64_t{module.dynamic_shared_offset()} + options.dynamic_shared_bytes
                                     : module.static_shared_bytes();
    const int32_t kernel_index = static_cast<int32_t>(kernel - module.functions().data());
    const int64_t stack = stack_bytes_needed(module, kernel_index);
    const uint64_t local_per_thread = stack < 0 ? options.stack_bytes : static_cast<uint64_t>(stack);
    const uint64_t nblocks = grid.count();
    const uint32_t nthreads = static_cast<uint32_t>(block.count());
    const size_t ninstr = module.instructions().size();

    const int nworkers = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(options.threads), nblocks));
    std::vector<Worker> workers(static_cast<size_t>(nworkers));
    std::atomic<uint64_t> next_block{0};
    std::atomic<bool> stop{false};
    std::mutex error_mutex;
    uint64_t error_block = UINT64_MAX;
    std::exception_ptr error;

    const std::vector<int32_t> functions = reachable_functions(module, static_cast<int32_t>(kernel - module.functions().data()));
    auto work = [&](Worker& wk) {
        wk.per_instr.assign(ninstr, Counters{});
        wk.shared.resize(shared_size);
        wk.local.resize(local_per_thread * nthreads);
        wk.budget = options.max_warp_instructions;
        BlockContext ctx;
        ctx.module = &module;
        ctx.kernel = kernel;
        ctx.code = module.instructions().data();
        ctx.functions = &functions;
        ctx.grid = grid;
        ctx.block = block;
        ctx.params = params;
        ctx.shared = wk.shared.data();
        ctx.shared_size = shared_size;
        ctx.local = wk.local.data();
        ctx.local_per_thread = local_per_thread;
        ctx.nthreads = nthreads;
        ctx.per_instr = wk.per_instr.data();
        if (options.count) ctx.loop_log = &wk.loops;
        ctx.options = &options;
        ctx.concurrent = nworkers > 1;
        ctx.budget = &wk.budget;
        for (;;) {
            if (stop.load(std::memory_order_relaxed)) return;
            const uint64_t b = next_block.fetch_add(1);
            if (b >= nblocks) return;
            ctx.block_linear = b;
            ctx.ctaid = {static_cast<uint32_t>(b % grid.x), static_cast<uint32_t>((b / grid.x) % grid.y),
                         static_cast<uint32_t>(b / (uint64_t{grid.x} * grid.y))};
            std::fill(wk.shared.begin(), wk.shared.end(), std::byte{0});
            std::fill(wk.local.begin(), wk.local.end(), std::byte{0});
            try {
                run_block(ctx, wk.regs);
            } catch (...) {
                std::lock_guard<std::mutex> lock(error_mutex);
                if (b < error_block) {
                    error_block = b;
                    error = std::current_exception();
                }
                stop = true;
                return;
            }
        }
    };
    if (nworkers == 1) {
        work(workers[0]);
    } else {
        std::vector<std::thread> pool;
        for (int i = 0; i < nworkers; ++i) pool.emplace_back(work, std::ref(workers[static_cast<size_t>(i)]));
        for (std::thread& t : pool) t.join();
    }
    if (error) std::rethrow_exception(error);

    LaunchResult result;
    result.kernel = kernel->name;
    result.grid = grid;
    result.block = block;
    std::vector<Counters> per_instr(ninstr);
    for (const Worker& wk : workers)
        for (size_t i = 0; i < ninstr; ++i) per_instr[i] += wk.per_instr[i];
    std::map<std::pair<int32_t, int32_t>, Counters> lines;
    for (size_t i = 0; i < ninstr; ++i) {
        const Counters& k = per_instr[i];
        if (k.warp_instructions == 0) continue;
        result.total += k;
        const Instr& in = module.instructions()[i];
        InstructionCounters ic;
        ic.index = static_cast<int32_t>(i);
        ic.ptx_line = in.ptx_line;
        ic.counts = k;
        if (in.loc >= 0) {
            const SourceLoc& loc = module.locations()[in.loc];
            ic.file = loc.report_file();
            ic.line = loc.report_line();
            lines[{ic.file, ic.line}] += k;
        }
        if (options.count) {
            ic.text = module.instruction_text(static_cast<int32_t>(i));
            result.per_instruction.push_back(std::move(ic));
        }
    }
    if (options.count) {
        LoopTripLog loops;
        for (const Worker& wk : workers) loops.merge(wk.loops);
        result.loops = loops.loops();
        for (const auto& [key, k] : lines) {
            LineCounters lc;
            lc.file = key.first;
            if (key.first >= 0 && static_cast<size_t>(key.first) < module.files().size())
                lc.file_name = module.files()[key.first];
            lc.line = key.second;
            lc.counts = k;
            result.per_line.push_back(std::move(lc));
        }
    }
    return result;
}

}  // namespace weft::gpusim
