// The CPU device. See cpu_backend.h.
#include "runtime/cpu/cpu_backend.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <map>
#include <mutex>
#include <thread>

#include "compiler/native/launch.h"
#include "compiler/native_headers.h"
#include "runtime/cpu/block_fibers.h"
#include "runtime/cpu/clang_jit.h"
#include "runtime/cpu/crash_report.h"
#include "runtime/cancel.h"
#include "runtime/cpu/thread_pool.h"
#include "runtime/errors.h"
#include "runtime/module_cache.h"
#include "runtime/oob_report.h"
#include "support/hash.h"

namespace weft::runtime {

namespace {

// Where weft_cpu_cancel() leaves a range of threads: set by the worker around each call into
// the kernel's range entry (a jump up the same stack; block fibers end through abandon()).
thread_local std::jmp_buf* t_cancel_point = nullptr;

}  // namespace
}  // namespace weft::runtime

extern "C" void weft_cpu_cancel(void* block) {
    if (block) static_cast<weft::runtime::BlockFibers*>(block)->abandon();
    if (weft::runtime::t_cancel_point) std::longjmp(*weft::runtime::t_cancel_point, 1);
    std::abort();  // generated code is only ever called from the workers below
}

namespace weft::runtime {

namespace {

using RangeFn = void (*)(const wp::launch_bounds_t*, const void*, wp::thread_ctx*, wp::int64, wp::int64);
using ThreadFn = void (*)(const wp::launch_bounds_t*, const void*, const wp::thread_ctx*);

std::vector<SourceFile> native_sources() {
    std::vector<SourceFile> v;
    for (const auto& h : compiler::native_headers()) v.push_back({h.name, h.text});
    return v;
}

// True when every array argument is dense and row-major, so the kernel's contiguous entry point
// (plain data + index addressing, which vectorises) computes the same addresses.
bool all_arrays_dense(const compiler::KernelInfo& k, const std::vector<std::byte>& args) {
    if (k.arrays_in_structs) return false;
    for (const auto& p : k.params) {
        if (!compiler::is_array(p.type)) continue;
        wp::array_t<unsigned char> d;
        std::memcpy(&d, args.data() + p.offset, sizeof d);
        int64_t expect = static_cast<int64_t>(compiler::type_size(p.type->elem));
        for (int dim = d.ndim - 1; dim >= 0; --dim) {
            if (d.shape[dim] != 1 && d.strides[dim] != expect) return false;
            expect *= d.shape[dim];
        }
    }
    return true;
}

// Statements of a body, nested ones included (cpu_opt_level's measure of a function's size).
int64_t statement_count(const compiler::ir::Block& b) {
    int64_t n = 0;
    for (const auto& s : b) n += 1 + statement_count(s->body) + statement_count(s->orelse);
    return n;
}

// Reports a compilation that takes long on stderr: once after kFirst seconds (what, how big, at
// which level), then every kEvery seconds, from a thread of its own that the destructor ends.
class CompileProgress {
public:
    static constexpr int kFirst = 5, kEvery = 30;
    CompileProgress(std::string module, int64_t lines, int level)
        : watcher_([this, module = std::move(module), lines, level] {
              auto start = std::chrono::steady_clock::now();
              std::unique_lock<std::mutex> lock(mu_);
              int next = kFirst;
              while (!cv_.wait_until(lock, start + std::chrono::seconds(next), [this] { return done_; })) {
                  std::fprintf(stderr,
                               next == kFirst ? "weft: compiling module '%s' for the cpu device (%lld lines of C++, -O%d): "
                                                "%d s so far\n"
                                              : "weft: still compiling module '%s' (%lld lines of C++, -O%d): %d s so far\n",
                               module.c_str(), static_cast<long long>(lines), level, next);
                  next += next == kFirst ? kEvery - kFirst : kEvery;
              }
          }) {}
    ~CompileProgress() {
        {
            std::lock_guard<std::mutex> lock(mu_);
            done_ = true;
        }
        cv_.notify_all();
        watcher_.join();
    }

private:
    std::mutex mu_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread watcher_;  // last: starts once the members it uses exist
};

class CpuModule : public LoadedModule {
public:
    CpuModule(std::unique_ptr<JitLibrary> lib, const compiler::CompiledModule& m) : lib_(std::move(lib)) {
        for (const auto& k : m.gen.kernels) {
            Entry e;
            e.range = reinterpret_cast<RangeFn>(lib_->lookup(k.cpu_range_symbol));
            e.range_contig = reinterpret_cast<RangeFn>(lib_->lookup(k.cpu_range_contig_symbol));
            e.thread = reinterpret_cast<ThreadFn>(lib_->lookup(k.cpu_thread_symbol));
            if (k.has_backward) {
                e.range_backward = reinterpret_cast<RangeFn>(lib_->lookup(k.cpu_range_backward_symbol));
                e.thread_backward = reinterpret_cast<ThreadFn>(lib_->lookup(k.cpu_thread_backward_symbol));
            }
            entries_[k.name] = e;
        }
    }

    void launch(const LaunchRequest& req) override {
        const compiler::KernelInfo& k = *req.kernel;
        const Entry& e = entries_.at(k.name);
        const RangeFn range = req.adjoint ? e.range_backward : all_arrays_dense(k, req.args) ? e.range_contig : e.range;
        const ThreadFn thread = req.adjoint ? e.thread_backward : e.thread;
        if (!range || !thread) throw RuntimeError("kernel '" + k.name + "' has no backward entry in this module");
        const wp::launch_bounds_t bounds = launch_bounds(req);
        const int64_t bd = req.block_dim;
        const int64_t nblocks = (req.size + bd - 1) / bd;
        wp::oob_record oob{};
        ThreadPool& pool = cpu_thread_pool();
        // Kernels that synchronise a block or a warp run each block's threads as fibers.
        const bool fibers = k.uses_sync || k.uses_warp_sync;
        const bool per_block = fibers || k.shared_bytes > 0;
        // Chunks of whole blocks: enough chunks to balance, few enough to keep overhead low.
        int64_t target_chunks = per_block ? nblocks : std::max<int64_t>(1, std::min<int64_t>(nblocks, pool.size() * 8));
        int64_t blocks_per_chunk = (nblocks + target_chunks - 1) / target_chunks;
        int64_t nchunks = (nblocks + blocks_per_chunk - 1) / blocks_per_chunk;
        std::vector<WorkerState> states(static_cast<size_t>(pool.size()));
        auto run_chunk = [&](int64_t chunk, int worker) {
            WorkerState& ws = states[static_cast<size_t>(worker)];
            if (ws.smem.size() < std::max<size_t>(k.shared_bytes, 16))
                ws.smem.assign(std::max<size_t>(k.shared_bytes, 16), std::byte{0});
            wp::thread_ctx ctx{};
            ctx.block_dim = static_cast<wp::int32>(bd);
            ctx.grid_dim = static_cast<wp::int32>(nblocks);
            ctx.smem = reinterpret_cast<unsigned char*>(ws.smem.data());
            ctx.oob = req.debug ? &oob : nullptr;
            ctx.cancel = reinterpret_cast<const volatile int*>(&cancel_flag());
            int64_t b0 = chunk * blocks_per_chunk, b1 = std::min(nblocks, b0 + blocks_per_chunk);
            if (!per_block) {
                range(&bounds, req.args.data(), &ctx, b0 * bd, std::min<int64_t>(req.size, b1 * bd));
                return;
            }
            for (int64_t b = b0; b < b1 && !cancel_flag().load(std::memory_order_relaxed); ++b) {
                if (k.shared_bytes) std::memset(ws.smem.data(), 0, k.shared_bytes);
                if (!fibers) {
                    range(&bounds, req.args.data(), &ctx, b * bd, std::min<int64_t>(req.size, (b + 1) * bd));
                    continue;
                }
                if (!ws.fibers) ws.fibers = std::make_unique<BlockFibers>();
                wp::thread_ctx base = ctx;
                base.block = ws.fibers.get();
                base.block_idx = static_cast<wp::int32>(b);
                std::vector<wp::thread_ctx> ctxs(static_cast<size_t>(bd), base);
                // A barrier kernel runs whole blocks (runtime::launch checks the size); a kernel
                // with only warp collectives runs the threads of the launch, as on the GPU.
                const int64_t nthreads = k.uses_sync ? bd : std::min<int64_t>(bd, req.size - b * bd);
                try {
                    ws.fibers->run(static_cast<int>(nthreads), [&](int t) {
                        wp::thread_ctx& c = ctxs[static_cast<size_t>(t)];
                        c.thread_idx = t;
                        c.tid = b * bd + t;
                        thread(&bounds, req.args.data(), &c);
                    });
                } catch (const WarpSyncError& e) {
                    throw RuntimeError("kernel '" + k.name + "'" + (req.adjoint ? " (backward)" : "") + ", block " +
                                       std::to_string(b) + ": " + e.what());
                }
            }
        };
        std::atomic<int>& cancel = cancel_flag();
        install_crash_report();
        pool.parallel_for(nchunks, [&](int64_t chunk, int worker) {
            if (cancel.load(std::memory_order_relaxed)) return;
            std::jmp_buf point;
            if (setjmp(point)) {  // a loop of the kernel saw the flag (weft_cpu_cancel)
                set_running_kernel(nullptr, req.debug);
                t_cancel_point = nullptr;
                return;
            }
            t_cancel_point = &point;
            set_running_kernel(k.name.c_str(), req.debug);
            run_chunk(chunk, worker);
            set_running_kernel(nullptr, req.debug);
            t_cancel_point = nullptr;
        });
        throw_if_cancelled(k.name);
        if (req.debug && oob.hit) throw RuntimeError(format_oob(k, oob));
    }

private:
    struct Entry {
        RangeFn range = nullptr;
        RangeFn range_contig = nullptr;
        ThreadFn thread = nullptr;
        RangeFn range_backward = nullptr;  // adjoint entries (KernelInfo::has_backward)
        ThreadFn thread_backward = nullptr;
    };
    struct WorkerState {
        std::vector<std::byte> smem;
        std::unique_ptr<BlockFibers> fibers;
    };
    std::unique_ptr<JitLibrary> lib_;
    std::map<std::string, Entry> entries_;
};

class CpuBackend : public DeviceBackend {
public:
    Device device() const override { return Device{}; }
    void* allocate(size_t bytes) override {
        void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
        if (!p) throw RuntimeError("out of host memory allocating " + std::to_string(bytes) + " bytes");
        return p;
    }
    void free(void* p) override { std::free(p); }
    void memset(void* dst, int value, size_t bytes) override { std::memset(dst, value, bytes); }
    void copy_to_host(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
    void copy_from_host(void* dst, const void* src, size_t bytes) override { std::memcpy(dst, src, bytes); }
    void copy_within(void* dst, const void* src, size_t bytes) override { std::memmove(dst, src, bytes); }
    void synchronize() override {}

    std::unique_ptr<LoadedModule> load(const compiler::CompiledModule& m, bool debug, compiler::CodePart part) override {
        (void)debug;                          // the generated source already differs in debug mode
        if (part != compiler::CodePart::All)  // loads_backward_separately() is false
            throw std::logic_error("internal error (runtime/cpu/cpu_backend.cpp): the cpu device loads whole modules");
        std::string key = cpu_cache_key(m);
        std::string object;
        if (auto hit = cache_load(key, "o")) {
            object = std::move(*hit);
        } else {
            SourceFile main{"weft_generated.cpp", m.gen.cpp};
            CppCompileOptions o;
            const int64_t lines = std::count(m.gen.cpp.begin(), m.gen.cpp.end(), '\n');
            int64_t largest = 0;
            for (const auto& f : m.ir->functions) largest = std::max(largest, statement_count(f->body));
            o.opt_level = cpu_opt_level(largest);
            try {
                CompileProgress progress(m.ir ? m.ir->name : "?", lines, o.opt_level);
                object = compile_cpp_to_object(main, native_sources(), o);
            } catch (const CppCompileError& e) {
                throw RuntimeError(std::string("the C++ compiler rejected the code generated for this module (a Weft bug):\n") +
                                   e.what());
            }
            cache_store(key, "o", object);
        }
        std::vector<std::pair<std::string, void*>> symbols = {
            {"weft_cpu_sync_threads", reinterpret_cast<void*>(&weft_cpu_sync_threads)},
            {"weft_cpu_warp_exchange", reinterpret_cast<void*>(&weft_cpu_warp_exchange)},
            {"weft_cpu_cancel", reinterpret_cast<void*>(&weft_cpu_cancel)}};
        return std::make_unique<CpuModule>(JitLibrary::load(object, symbols), m);
    }
};

}  // namespace

int cpu_opt_level(int64_t largest_function_statements) {
    if (largest_function_statements <= kCpuO3MaxStatements) return 3;
    if (largest_function_statements <= kCpuO1MaxStatements) return 1;
    return 0;
}

std::string cpu_cache_key(const compiler::CompiledModule& m) {
    support::Hasher h;
    h.add("cpu").add(compiler::compiler_version()).add(host_target_triple_and_cpu()).add(m.gen.cpp);
    for (const auto& hdr : compiler::native_headers()) h.add(hdr.name).add(hdr.text);
    return h.hex();
}

std::unique_ptr<DeviceBackend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace weft::runtime
