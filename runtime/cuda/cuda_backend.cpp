// runtime/cuda/cuda_backend.cpp: memory, copies, module loading and launches on cuda:N.
// See cuda_backend.h.
#include "runtime/cuda/cuda_backend.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "compiler/launch_list.h"
#include "compiler/native/launch.h"
#include "runtime/capture_check.h"
#include "runtime/cuda/cuda_context.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/grid_policy.h"
#include "runtime/cuda/ptx.h"
#include "runtime/errors.h"
#include "runtime/kernel_timing.h"
#include "runtime/launch_list.h"
#include "runtime/oob_report.h"

namespace weft::runtime {

namespace {

// Graph captures of this thread (runtime/capture_check.h): what they allocated (freed inside the
// graph) and the other memory freed while they ran (freed after the capture ends).
struct CaptureMemory {
    std::unordered_set<CUdeviceptr> allocated;
    std::vector<std::pair<int, CUdeviceptr>> freed_later;  // (ordinal, pointer)
};
thread_local CaptureMemory tls_capture_memory;

// Sets this thread's capture mode to relaxed for a scope: calls a capture prohibits (cuMemAlloc,
// cuMemFree) are allowed and are not recorded.
// True while `s` is recording a graph; never throws (destructors free memory).
bool stream_capturing(CUstream s) {
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    return cuda_driver().cuStreamIsCapturing(s, &status) == CUDA_SUCCESS && status != CU_STREAM_CAPTURE_STATUS_NONE;
}

struct RelaxedCaptureMode {
    CUstreamCaptureMode previous = CU_STREAM_CAPTURE_MODE_RELAXED;
    RelaxedCaptureMode() { cuda_driver().cuThreadExchangeStreamCaptureMode(&previous); }
    ~RelaxedCaptureMode() { cuda_driver().cuThreadExchangeStreamCaptureMode(&previous); }
};

class CudaModule : public LoadedModule {
public:
    // One part of a module (compiler::CodePart): its entries of that part only.
    CudaModule(CudaContext& ctx, const compiler::CompiledModule& m, const std::string& cubin, compiler::CodePart part)
        : ctx_(ctx) {
        const CudaDriver& cu = cuda_driver();
        ctx_.bind();
        ctx_.check(cu.cuModuleLoadData(&module_, cubin.data()), "cuModuleLoadData");
        for (const auto& k : m.gen.kernels) {
            CUfunction f = nullptr;
            if (part != compiler::CodePart::Backward)
                ctx_.check(cu.cuModuleGetFunction(&f, module_, k.cuda_symbol.c_str()), "cuModuleGetFunction");
            CUfunction b = nullptr;  // the backward entry (docs/autodiff.md), when the kernel has one
            if (k.has_backward && part != compiler::CodePart::Forward)
                ctx_.check(cu.cuModuleGetFunction(&b, module_, k.cuda_backward_symbol.c_str()), "cuModuleGetFunction");
            functions_.try_emplace(&k, f, b, std::make_shared<const KernelLabel>(KernelLabel{k.name, location(k)}),
                                   std::make_shared<const KernelLabel>(KernelLabel{k.name + " (backward)", location(k)}));
        }
    }

    ~CudaModule() override {
        const CudaDriver& cu = cuda_driver();
        if (oob_) cu.cuMemFree(oob_);  // errors ignored: a faulted context frees nothing anyway
        if (module_) cu.cuModuleUnload(module_);
    }

    void launch(const LaunchRequest& req) override {
        const CudaDriver& cu = cuda_driver();
        const compiler::KernelInfo& k = *req.kernel;
        ctx_.ensure_usable();
        ctx_.bind();
        auto it = functions_.find(&k);
        if (it == functions_.end())
            throw RuntimeError("kernel '" + k.name + "' is not part of the module loaded on " + ctx_.device().str());
        Entry& e = it->second;
        // Backward launches take the K_args_adj block (module.cpp packs it) in the same slot.
        CUfunction function = req.adjoint ? e.backward : e.function;
        if (!function)  // runtime/module.cpp hands each launch the part that has its entry
            throw RuntimeError(std::string(req.adjoint ? "backward " : "") + "launch of kernel '" + k.name +
                               "': the module part loaded on " + ctx_.device().str() + " has no such entry");

        wp::launch_bounds_t bounds = launch_bounds(req);
        long long blocks = (req.size + req.block_dim - 1) / req.block_dim;
        // Forward entries of kernels without barriers loop over a grid stride (cpp_codegen.cpp):
        // they may run on fewer blocks, a few waves of those the device holds at once.
        const bool strided = !req.adjoint && !k.uses_sync && !k.uses_warp_sync;
        const int waves = strided ? grid_waves_for(k, ctx_.grid_waves()) : 0;
        if (waves > 0) blocks = std::min(blocks, resident_blocks(e, function, req.block_dim) * waves);
        if (blocks > 0x7fffffffll)
            throw RuntimeError("launch of kernel '" + k.name + "': " + std::to_string(req.size) + " threads need " +
                               std::to_string(blocks) + " blocks of " + std::to_string(req.block_dim) +
                               ", more than a CUDA grid holds (2^31 - 1)");

        CUstream stream = ctx_.current_stream();
        CUdeviceptr oob = 0;
        if (req.debug) {
            if (ctx_.capturing(stream))
                throw RuntimeError("launch of kernel '" + k.name +
                                   "': debug-mode launches read their bounds record back after "
                                   "each launch and cannot be captured into a CUDA graph; capture without debug mode");
            // (runtime/module.cpp refuses the same with the capture checker's wording first.)
            if (!oob_) ctx_.check(cu.cuMemAlloc(&oob_, sizeof(wp::oob_record)), "cuMemAlloc");
            ctx_.check(cu.cuMemsetD8Async(oob_, 0, sizeof(wp::oob_record), stream), "cuMemsetD8Async");
            oob = oob_;
        }

        // The argument block travels by value: kernelParams[1] points at the bytes of K_args.
        alignas(16) static const std::byte kNoArgs[16] = {};
        void* args = req.args.empty() ? const_cast<std::byte*>(kNoArgs) : const_cast<std::byte*>(req.args.data());
        void* params[3] = {&bounds, args, &oob};
        LaunchRecord rec;
        rec.kernel = req.adjoint ? e.backward_label : e.label;
        rec.ndim = req.ndim;
        for (int d = 0; d < 4; ++d) rec.shape[d] = req.shape[d];
        rec.block_dim = req.block_dim;
        ctx_.log().record(rec);
        // Measured kernel times (runtime/kernel_timing.h): an event before and after the launch.
        CUevent timing[2] = {nullptr, nullptr};
        if (kernel_timing_active() && !ctx_.capturing(stream)) {
            for (CUevent& ev : timing) ctx_.check(cu.cuEventCreate(&ev, CU_EVENT_DEFAULT), "cuEventCreate");
            ctx_.check(cu.cuEventRecord(timing[0], stream), "cuEventRecord");
        }
        if (ctx_.uses_pdl()) {
            // Programmatic dependent launch (cuda_context.h): the entry's griddepcontrol.wait
            // orders it after the launch ahead of it; the same attribute is captured into graphs.
            CUlaunchAttribute attr{};
            attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmaticStreamSerializationAllowed = 1;
            CUlaunchConfig cfg{};
            cfg.gridDimX = static_cast<unsigned>(blocks);
            cfg.gridDimY = cfg.gridDimZ = 1;
            cfg.blockDimX = static_cast<unsigned>(req.block_dim);
            cfg.blockDimY = cfg.blockDimZ = 1;
            cfg.sharedMemBytes = 0;
            cfg.hStream = stream;
            cfg.attrs = &attr;
            cfg.numAttrs = 1;
            ctx_.check(cu.cuLaunchKernelEx(&cfg, function, params, nullptr), "cuLaunchKernelEx");
        } else {
            ctx_.check(cu.cuLaunchKernel(function, static_cast<unsigned>(blocks), 1, 1, static_cast<unsigned>(req.block_dim), 1,
                                         1, 0, stream, params, nullptr),
                       "cuLaunchKernel");
        }
        if (timing[0]) {
            ctx_.check(cu.cuEventRecord(timing[1], stream), "cuEventRecord");
            KernelTime t;
            t.kernel = rec.kernel->name;
            t.where = rec.kernel->where;
            t.device = ctx_.device().str();
            t.threads = req.size;
            CudaContext* ctx = &ctx_;
            record_pending_kernel_time(std::move(t), [ctx, start = timing[0], end = timing[1], rec](bool wanted) {
                const CudaDriver& d = cuda_driver();
                ctx->bind();
                float ms = 0.0f;
                CUresult synced = CUDA_SUCCESS, read = CUDA_SUCCESS;
                if (wanted) {
                    synced = d.cuEventSynchronize(end);
                    if (synced == CUDA_SUCCESS) read = d.cuEventElapsedTime(&ms, start, end);
                }
                d.cuEventDestroy(start);
                d.cuEventDestroy(end);
                if (wanted) {
                    ctx->check_launch(synced, rec);
                    ctx->check(read, "cuEventElapsedTime");
                }
                return double(ms) * 1000.0;
            });
        }

        if (req.debug) {
            wp::oob_record host{};
            ctx_.check(cu.cuMemcpyDtoHAsync(&host, oob_, sizeof host, stream), "cuMemcpyDtoHAsync");
            ctx_.check_launch(cu.cuStreamSynchronize(stream), rec);
            ctx_.log().clear();
            if (host.hit) throw RuntimeError(format_oob(k, host));
        } else if (ctx_.sync_every_launch() && !ctx_.capturing(stream)) {
            ctx_.check_launch(cu.cuStreamSynchronize(stream), rec);
            ctx_.log().clear();
        }
    }

private:
    static std::string location(const compiler::KernelInfo& k) {
        if (k.loc.line <= 0) return "";
        return std::string(k.loc.file ? k.loc.file->path : "?") + ":" + std::to_string(k.loc.display_line());
    }

    struct Entry;
    // Blocks of `block_dim` threads of `f` resident on the whole device at once (occupancy x SMs),
    // cached per entry for the last block_dim asked.
    long long resident_blocks(Entry& e, CUfunction f, int block_dim) {
        const long long cached = e.resident.load(std::memory_order_relaxed);
        if ((cached >> 32) == block_dim) return cached & 0xffffffffll;
        int per_sm = 0;
        ctx_.check(cuda_driver().cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, block_dim, 0),
                   "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        const long long n = std::max(1, per_sm) * static_cast<long long>(ctx_.sm_count());
        e.resident.store((static_cast<long long>(block_dim) << 32) | n, std::memory_order_relaxed);
        return n;
    }

    CudaContext& ctx_;
    CUmodule module_ = nullptr;
    CUdeviceptr oob_ = 0;
    struct Entry {
        CUfunction function = nullptr;
        CUfunction backward = nullptr;
        std::shared_ptr<const KernelLabel> label;
        std::shared_ptr<const KernelLabel> backward_label;
        std::atomic<long long> resident{0};  // block_dim << 32 | resident blocks (resident_blocks)
        Entry(CUfunction f, CUfunction b, std::shared_ptr<const KernelLabel> l, std::shared_ptr<const KernelLabel> bl)
            : function(f), backward(b), label(std::move(l)), backward_label(std::move(bl)) {}
    };
    // Keyed by the KernelInfo of the CompiledModule this was loaded from: launch() receives those.
    std::unordered_map<const compiler::KernelInfo*, Entry> functions_;
};

// A launch list (runtime/launch_list.h) on cuda: the list's own module, its parameter block
// (every case's bounds and arguments), the barrier counter in device memory, and
// a cooperative launch of a grid the device holds at once (the grid barrier waits for every block).
class CudaLaunchList final : public LoadedLaunchList {
public:
    CudaLaunchList(CudaContext& ctx, const LaunchListPlan& plan)
        : ctx_(ctx), count_(static_cast<int>(plan.sequence.size())), params_(plan.params) {
        const CudaDriver& cu = cuda_driver();
        ctx_.ensure_usable();
        ctx_.bind();
        CudaBinaries bin = build_cuda_binaries(plan.source, ctx_.arch(), "a launch list");
        ctx_.check(cu.cuModuleLoadData(&module_, bin.cubin.data()), "cuModuleLoadData");
        ctx_.check(cu.cuModuleGetFunction(&function_, module_, compiler::kLaunchListEntry), "cuModuleGetFunction");
        block_dim_ = plan.block_dim;
        int per_sm = 0;
        ctx_.check(cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, function_, block_dim_, 0),
                   "cuOccupancyMaxActiveBlocksPerMultiprocessor");
        if (per_sm < 1)
            throw RuntimeError("launch list: a block of " + std::to_string(block_dim_) +
                               " threads of its entry does not fit an SM of " + ctx_.device().str());
        long long blocks = std::min<long long>(plan.needed_blocks, static_cast<long long>(per_sm) * ctx_.sm_count());
        if (plan.max_blocks > 0) blocks = std::min<long long>(blocks, plan.max_blocks);
        blocks_ = static_cast<int>(blocks);
        ctx_.check(cu.cuMemAlloc(&memory_, 16), "cuMemAlloc");
        label_ = std::make_shared<const KernelLabel>(KernelLabel{plan.label, ""});
    }
    ~CudaLaunchList() override {
        const CudaDriver& cu = cuda_driver();
        if (memory_) cu.cuMemFree(memory_);
        if (module_) cu.cuModuleUnload(module_);
    }

    int blocks() const override { return blocks_; }

    void run() override {
        const CudaDriver& cu = cuda_driver();
        ctx_.ensure_usable();
        ctx_.bind();
        CUstream stream = ctx_.current_stream();
        ctx_.check(cu.cuMemsetD32Async(memory_, 0, 1, stream), "cuMemsetD32Async");
        CUdeviceptr counter = memory_;
        int first = 0, count = count_;
        void* params[4] = {params_.data(), &first, &count, &counter};
        LaunchRecord rec;
        rec.kernel = label_;
        rec.shape[0] = static_cast<long long>(blocks_) * block_dim_;
        rec.block_dim = block_dim_;
        ctx_.log().record(rec);
        CUlaunchAttribute attrs[2]{};
        unsigned n = 0;
        if (blocks_ > 1) {  // the grid barrier needs every block resident
            attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
            attrs[n++].value.cooperative = 1;
        }
        if (blocks_ == 1 && ctx_.uses_pdl()) {  // a cooperative grid waits for the stream as it is
            attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attrs[n++].value.programmaticStreamSerializationAllowed = 1;
        }
        CUlaunchConfig cfg{};
        cfg.gridDimX = static_cast<unsigned>(blocks_);
        cfg.gridDimY = cfg.gridDimZ = 1;
        cfg.blockDimX = static_cast<unsigned>(block_dim_);
        cfg.blockDimY = cfg.blockDimZ = 1;
        cfg.hStream = stream;
        cfg.attrs = n ? attrs : nullptr;
        cfg.numAttrs = n;
        ctx_.check(cu.cuLaunchKernelEx(&cfg, function_, params, nullptr), "cuLaunchKernelEx (launch list)");
        if (ctx_.sync_every_launch() && !ctx_.capturing(stream)) {
            ctx_.check_launch(cu.cuStreamSynchronize(stream), rec);
            ctx_.log().clear();
        }
    }

private:
    CudaContext& ctx_;
    int count_;
    std::vector<std::byte> params_;  // weft_list_params, passed by value at each launch
    int block_dim_ = 256;
    int blocks_ = 1;
    CUmodule module_ = nullptr;
    CUfunction function_ = nullptr;
    CUdeviceptr memory_ = 0;  // the barrier counter
    std::shared_ptr<const KernelLabel> label_;
};

// An event recorded on the marking thread's current stream.
class CudaQueueMark final : public QueueMark {
public:
    explicit CudaQueueMark(CudaContext& ctx) : ctx_(ctx) {
        const CudaDriver& cu = cuda_driver();
        ctx_.check(cu.cuEventCreate(&event_, CU_EVENT_DISABLE_TIMING), "cuEventCreate");
        ctx_.check(cu.cuEventRecord(event_, ctx_.current_stream()), "cuEventRecord");
    }
    ~CudaQueueMark() override {
        ctx_.bind();
        cuda_driver().cuEventDestroy(event_);
    }
    void wait() const override {
        ctx_.bind();
        ctx_.check(cuda_driver().cuEventSynchronize(event_), "cuEventSynchronize");
    }
    CUevent event() const { return event_; }

private:
    CudaContext& ctx_;
    CUevent event_ = nullptr;
};

// A GL buffer object registered with the driver (write-discard: CUDA only ever fills it). Each
// copy runs on the buffer's own stream: it waits for the mark (or for the calling thread's current
// stream as it is now), maps the buffer, copies, unmaps (GL's next use waits for the copy) and
// waits for the copy to finish.
class CudaGlBuffer final : public GraphicsResource {
public:
    CudaGlBuffer(CudaContext& ctx, unsigned gl_buffer) : ctx_(ctx), gl_buffer_(gl_buffer) {
        const CudaDriver& cu = cuda_driver();
        ctx_.check(cu.cuGraphicsGLRegisterBuffer(&resource_, gl_buffer, CU_GRAPHICS_REGISTER_FLAGS_WRITE_DISCARD),
                   "cuGraphicsGLRegisterBuffer");
        CUresult r = cu.cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING);
        if (r != CUDA_SUCCESS) cu.cuGraphicsUnregisterResource(resource_);
        ctx_.check(r, "cuStreamCreate");
    }
    ~CudaGlBuffer() override {  // no throw from a destructor
        ctx_.bind();
        cuda_driver().cuGraphicsUnregisterResource(resource_);
        cuda_driver().cuStreamDestroy(stream_);
    }

    void copy_from(const void* src, size_t bytes, const QueueMark* after) override {
        if (!bytes) return;
        ctx_.ensure_usable();
        ctx_.bind();
        const CudaDriver& cu = cuda_driver();
        CUstream s = stream_;
        if (after) {
            ctx_.check(cu.cuStreamWaitEvent(s, static_cast<const CudaQueueMark*>(after)->event(), 0), "cuStreamWaitEvent");
        } else {
            CudaQueueMark now(ctx_);
            ctx_.check(cu.cuStreamWaitEvent(s, now.event(), 0), "cuStreamWaitEvent");
        }
        ctx_.check(cu.cuGraphicsMapResources(1, &resource_, s), "cuGraphicsMapResources");
        CUdeviceptr dst = 0;
        size_t size = 0;
        CUresult r = cu.cuGraphicsResourceGetMappedPointer(&dst, &size, resource_);
        if (r == CUDA_SUCCESS && bytes > size) {
            cu.cuGraphicsUnmapResources(1, &resource_, s);
            throw RuntimeError(ctx_.device().str() + ": cannot copy " + std::to_string(bytes) + " bytes into GL buffer " +
                               std::to_string(gl_buffer_) + " of " + std::to_string(size) + " bytes");
        }
        if (r == CUDA_SUCCESS) r = cu.cuMemcpyDtoDAsync(dst, reinterpret_cast<CUdeviceptr>(src), bytes, s);
        CUresult u = cu.cuGraphicsUnmapResources(1, &resource_, s);
        ctx_.check(r, "cuGraphicsResourceGetMappedPointer / cuMemcpyDtoDAsync");
        ctx_.check(u, "cuGraphicsUnmapResources");
        ctx_.check(cu.cuStreamSynchronize(s), "cuStreamSynchronize");
    }

private:
    CudaContext& ctx_;
    unsigned gl_buffer_;
    CUgraphicsResource resource_ = nullptr;
    CUstream stream_ = nullptr;
};

class CudaBackend : public DeviceBackend {
public:
    explicit CudaBackend(CudaContext& ctx) : ctx_(ctx) {}

    Device device() const override { return ctx_.device(); }

    void* allocate(size_t bytes) override {
        const CudaDriver& cu = cuda_driver();
        ctx_.ensure_usable();
        ctx_.bind();
        CUdeviceptr p = 0;
        const size_t n = std::max<size_t>(bytes, 1);
        CUresult r = ctx_.uses_mem_pool() ? cu.cuMemAllocAsync(&p, n, ctx_.current_stream()) : cu.cuMemAlloc(&p, n);
        if (r == CUDA_ERROR_OUT_OF_MEMORY) {
            size_t free_bytes = 0, total = 0;
            cu.cuMemGetInfo(&free_bytes, &total);
            throw RuntimeError("out of memory on " + ctx_.device().str() + " allocating " + std::to_string(bytes) + " bytes (" +
                               std::to_string(free_bytes >> 20) + " MiB free of " + std::to_string(total >> 20) + " MiB)");
        }
        ctx_.check(r, ctx_.uses_mem_pool() ? "cuMemAllocAsync" : "cuMemAlloc");
        if (stream_capturing(ctx_.current_stream())) tls_capture_memory.allocated.insert(p);
        return reinterpret_cast<void*>(p);
    }

    void* allocate_outside_capture(size_t bytes) override {
        if (!stream_capturing(ctx_.current_stream())) return allocate(bytes);
        ctx_.ensure_usable();
        ctx_.bind();
        CUdeviceptr p = 0;
        CUresult r;
        {
            RelaxedCaptureMode relaxed;
            r = cuda_driver().cuMemAlloc(&p, std::max<size_t>(bytes, 1));
        }
        ctx_.check(r, "cuMemAlloc (outside the capture)");
        std::lock_guard<std::mutex> lock(outside_mu_);
        outside_.insert(p);
        return reinterpret_cast<void*>(p);
    }

    void free_outside_capture(void* q) override {
        const CUdeviceptr d = reinterpret_cast<CUdeviceptr>(q);
        bool outside = false;
        {
            std::lock_guard<std::mutex> lock(outside_mu_);
            outside = outside_.erase(d) > 0;
        }
        if (!outside) {  // allocated while no capture ran: an ordinary allocation
            free(q);
            return;
        }
        try {
            ctx_.bind();
        } catch (const RuntimeError&) { return; }
        RelaxedCaptureMode relaxed;  // (a graph may be destroyed while another one is captured)
        cuda_driver().cuMemFree(d);
    }

    // Never throws: arrays free their memory from destructors, also after a fault.
    void free(void* p) override {
        if (!p) return;
        const CudaDriver& cu = cuda_driver();
        try {
            ctx_.bind();
        } catch (const RuntimeError&) { return; }
        const CUdeviceptr d = reinterpret_cast<CUdeviceptr>(p);
        if (stream_capturing(ctx_.current_stream())) {
            // A graph allocation is freed inside the graph; anything else after the capture.
            if (!tls_capture_memory.allocated.erase(d)) {
                tls_capture_memory.freed_later.emplace_back(ctx_.ordinal(), d);
                return;
            }
        }
        if (ctx_.uses_mem_pool())
            cu.cuMemFreeAsync(d, ctx_.current_stream());
        else
            cu.cuMemFree(d);
    }

    void memset(void* dst, int value, size_t bytes) override {
        prepare();
        ctx_.check(cuda_driver().cuMemsetD8Async(ptr(dst), static_cast<unsigned char>(value), bytes, ctx_.current_stream()),
                   "cuMemsetD8Async");
    }

    // Pattern fills on the stream (capturable, unlike a copy from pageable host memory): the
    // element is cut into words of the widest size (4, 2 or 1 bytes) that divides it and the
    // address; a word repeated across the element is one memset of the whole range, otherwise
    // each word position is a 2-D memset of one word per row, rows element_size bytes apart.
    void fill(void* dst, const void* value, size_t element_size, size_t count) override {
        if (!count || !element_size) return;
        prepare();
        const CudaDriver& cu = cuda_driver();
        CUstream s = ctx_.current_stream();
        const auto addr = reinterpret_cast<uintptr_t>(dst);
        const size_t unit = element_size % 4 == 0 && addr % 4 == 0 ? 4 : element_size % 2 == 0 && addr % 2 == 0 ? 2 : 1;
        const size_t words = element_size / unit;
        auto word = [&](size_t k) {
            uint32_t w = 0;
            std::memcpy(&w, static_cast<const std::byte*>(value) + k * unit, unit);
            return w;
        };
        bool uniform = true;
        for (size_t k = 1; k < words; ++k) uniform &= word(k) == word(0);
        if (uniform) {
            const size_t n = words * count;
            if (unit == 4) ctx_.check(cu.cuMemsetD32Async(ptr(dst), word(0), n, s), "cuMemsetD32Async");
            if (unit == 2)
                ctx_.check(cu.cuMemsetD16Async(ptr(dst), static_cast<unsigned short>(word(0)), n, s), "cuMemsetD16Async");
            if (unit == 1) ctx_.check(cu.cuMemsetD8Async(ptr(dst), static_cast<unsigned char>(word(0)), n, s), "cuMemsetD8Async");
            return;
        }
        for (size_t k = 0; k < words; ++k) {
            CUdeviceptr d = ptr(dst) + k * unit;
            if (unit == 4) ctx_.check(cu.cuMemsetD2D32Async(d, element_size, word(k), 1, count, s), "cuMemsetD2D32Async");
            if (unit == 2)
                ctx_.check(cu.cuMemsetD2D16Async(d, element_size, static_cast<unsigned short>(word(k)), 1, count, s),
                           "cuMemsetD2D16Async");
            if (unit == 1)
                ctx_.check(cu.cuMemsetD2D8Async(d, element_size, static_cast<unsigned char>(word(k)), 1, count, s),
                           "cuMemsetD2D8Async");
        }
    }

    // Pageable host memory: the call returns once the source has been staged, so `src` may be
    // reused at once; the copy itself is ordered on the current stream.
    void copy_from_host(void* dst, const void* src, size_t bytes) override {
        if (!bytes) return;
        prepare();
        ctx_.check(cuda_driver().cuMemcpyHtoDAsync(ptr(dst), src, bytes, ctx_.current_stream()), "cuMemcpyHtoDAsync");
    }

    // Waits for the current stream: everything launched before the copy has finished.
    void copy_to_host(void* dst, const void* src, size_t bytes) override {
        if (!bytes) return;
        prepare();
        CUstream s = ctx_.current_stream();
        ctx_.check(cuda_driver().cuMemcpyDtoHAsync(dst, ptr(src), bytes, s), "cuMemcpyDtoHAsync");
        ctx_.synchronize_stream(s);
    }

    void copy_within(void* dst, const void* src, size_t bytes) override {
        if (!bytes) return;
        prepare();
        ctx_.check(cuda_driver().cuMemcpyDtoDAsync(ptr(dst), ptr(src), bytes, ctx_.current_stream()), "cuMemcpyDtoDAsync");
    }

    void synchronize() override {
        ctx_.synchronize();
        run_deferred_checks(ctx_.device());
    }

    bool capturing() override { return ctx_.capturing(ctx_.current_stream()); }

    std::shared_ptr<QueueMark> mark_queue() override {
        prepare();
        return std::make_shared<CudaQueueMark>(ctx_);
    }

    std::unique_ptr<GraphicsResource> register_gl_buffer(unsigned gl_buffer) override {
        prepare();
        return std::make_unique<CudaGlBuffer>(ctx_, gl_buffer);
    }

    bool loads_backward_separately() const override { return true; }

    std::unique_ptr<LoadedLaunchList> load_launch_list(const LaunchListPlan& plan) override {
        return std::make_unique<CudaLaunchList>(ctx_, plan);
    }

    std::unique_ptr<LoadedModule> load(const compiler::CompiledModule& m, bool debug, compiler::CodePart part) override {
        (void)debug;  // the generated source already differs in debug mode
        ctx_.ensure_usable();
        CudaBinaries bin = build_cuda_binaries(m, ctx_.arch(), part);
        return std::make_unique<CudaModule>(ctx_, m, bin.cubin, part);
    }

private:
    void prepare() {
        ctx_.ensure_usable();
        ctx_.bind();
    }
    static CUdeviceptr ptr(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

    CudaContext& ctx_;
    std::mutex outside_mu_;
    std::unordered_set<CUdeviceptr> outside_;  // allocate_outside_capture's cuMemAlloc memory
};

}  // namespace

void free_after_capture(int ordinal) {
    CaptureMemory& m = tls_capture_memory;
    m.allocated.clear();  // graph allocations still alive: the graph owns them now
    std::vector<std::pair<int, CUdeviceptr>> keep;
    std::vector<CUdeviceptr> now;
    for (const auto& f : m.freed_later) {
        if (f.first == ordinal)
            now.push_back(f.second);
        else
            keep.push_back(f);
    }
    m.freed_later = std::move(keep);
    if (now.empty()) return;
    CudaContext& ctx = CudaContext::get(ordinal);
    try {
        ctx.bind();
    } catch (const RuntimeError&) { return; }
    for (CUdeviceptr p : now) {
        if (ctx.uses_mem_pool())
            cuda_driver().cuMemFreeAsync(p, ctx.current_stream());
        else
            cuda_driver().cuMemFree(p);
    }
}

bool cuda_device_available(int ordinal) { return CudaContext::exists(ordinal); }

std::unique_ptr<DeviceBackend> make_cuda_backend(int ordinal) { return std::make_unique<CudaBackend>(CudaContext::get(ordinal)); }

}  // namespace weft::runtime
