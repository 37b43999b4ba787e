// The entry points of a kernel's generated code: the CUDA __global__ function and the CPU range and
// thread functions that call K_body (forward) or K_body_backward (the adjoint). See kernel_entries.h.
#include "compiler/codegen/kernel_entries.h"

#include "compiler/codegen/adjoint_codegen.h"
#include "compiler/ir/ir_visitor.h"

namespace weft::compiler {
namespace {

using ir::ExprKind;

// True when the function (or a func it calls) reads its block or thread index, or uses
// shared memory or barriers: only then does the CPU loop keep those indices up to date.
bool uses_block_indices(const ir::Function& f) {
    if (f.uses_sync || f.shared_bytes) return true;
    return ir::any_expr(f.body, [](const ir::Expr& e) {
        if (e.kind == ExprKind::CallFunc) return uses_block_indices(*e.func);
        if (e.kind != ExprKind::Intrinsic) return false;
        auto op = static_cast<ir::IntrinsicOp>(e.op);
        return op == ir::IntrinsicOp::BlockIdx || op == ir::IntrinsicOp::ThreadIdx || op == ir::IntrinsicOp::LaneId;
    });
}

bool uses_grid_dim(const ir::Function& f) {
    return ir::any_expr(f.body, [](const ir::Expr& e) {
        if (e.kind == ExprKind::CallFunc) return uses_grid_dim(*e.func);
        return e.kind == ExprKind::Intrinsic && static_cast<ir::IntrinsicOp>(e.op) == ir::IntrinsicOp::GridDim;
    });
}

}  // namespace

const char* const kCudaEntryGridWait =
    "#if __CUDA_ARCH__ >= 900\n"
    "    asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
    "#endif\n";

void emit_forward_entries(std::ostream& os, const ir::Function& f, const KernelInfo& info) {
    const std::string k = cpp_sanitize(f.name);
    int bd = f.block_dim > 0 ? f.block_dim : 256;
    size_t smem = f.shared_bytes > 0 ? f.shared_bytes : 16;
    os << "#if WP_CUDA\n";
    os << "extern \"C\" __global__ void";
    if (f.block_dim > 0) os << " __launch_bounds__(" << bd << ")";
    os << " " << info.cuda_symbol << "(wp::launch_bounds_t bounds, " << k << "_args args, wp::oob_record* oob) {\n";
    os << kCudaEntryGridWait;
    os << "    __shared__ __align__(16) unsigned char smem_[" << smem << "];\n";
    os << "    wp::thread_ctx ctx;\n";
    os << "    ctx.tid = static_cast<wp::int64>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
    os << "    ctx.block_idx = blockIdx.x; ctx.thread_idx = threadIdx.x; ctx.block_dim = blockDim.x; ctx.grid_dim = "
          "gridDim.x;\n";
    os << "    ctx.smem = smem_; ctx.oob = oob; ctx.block = nullptr;\n";
    if (f.uses_sync) {
        os << "    " << k << "_body<false>(ctx, bounds, args);\n";
    } else if (f.uses_warp_sync) {
        // One thread per launch index, no grid stride: a lane that looped on to its next index
        // would meet its warp's other lanes at a shuffle of another iteration.
        os << "    if (ctx.tid >= bounds.size) return;\n";
        os << "    " << k << "_body<false>(ctx, bounds, args);\n";
    } else {
        // A grid-stride loop: the runtime may launch fewer blocks than the launch has (a few
        // waves of resident blocks, runtime/cuda/README.md), and each thread then runs the
        // body for tid, tid + the grid's threads, ... Block indices and grid_dim stay those of
        // the full launch. With a full grid the loop runs once.
        os << "    if (ctx.tid >= bounds.size) return;\n";
        os << "    const wp::int64 stride_ = static_cast<wp::int64>(gridDim.x) * blockDim.x;\n";
        // A 64-bit division per thread is costly (with it, saxpy's full-grid launch measured 0.66
        // of the copy bandwidth on the H200, against 0.81 before the loop): only for kernels
        // that read wp.grid_dim().
        if (uses_grid_dim(f)) os << "    ctx.grid_dim = static_cast<wp::int32>((bounds.size + blockDim.x - 1) / blockDim.x);\n";
        os << "    do {\n";
        os << "        " << k << "_body<false>(ctx, bounds, args);\n";
        os << "        ctx.tid += stride_; ctx.block_idx += gridDim.x;\n";
        os << "    } while (ctx.tid < bounds.size);\n";
    }
    os << "}\n";
    os << "#else\n";
    const bool block_indices = uses_block_indices(f);
    for (bool contig : {false, true}) {
        os << "extern \"C\" void " << (contig ? info.cpu_range_contig_symbol : info.cpu_range_symbol)
           << "(const wp::launch_bounds_t* bounds, const void* args, wp::thread_ctx* ctx, "
              "wp::int64 begin, wp::int64 end) {\n";
        // Local copies of the argument block and the bounds: the body's stores (a float array
        // element) may alias the caller's block as far as the optimiser knows, so through a
        // reference it reloads every array pointer and scalar each iteration and cannot
        // vectorise; a copy whose address does not escape holds them in registers (saxpy:
        // scalar loop -> AVX2 vectors).
        os << "    const " << k << "_args a = *static_cast<const " << k << "_args*>(args);\n";
        os << "    const wp::launch_bounds_t b = *bounds;\n";
        os << "    wp::thread_ctx c = *ctx;\n";
        if (block_indices) {
            // Block and thread indices advance with the loop (no division per thread).
            os << "    const wp::int32 bd = ctx->block_dim;\n";
            os << "    c.block_idx = static_cast<wp::int32>(begin / bd);\n";
            os << "    c.thread_idx = static_cast<wp::int32>(begin % bd);\n";
        }
        // An int32 counter when the range allows it: wp.tid() is an int32, and a 32-bit
        // induction variable lets the compiler see the addresses as affine and vectorise.
        for (const char* counter : {"wp::int32", "wp::int64"}) {
            bool narrow = counter[4] == 'i' && counter[7] == '3';
            os << (narrow ? "    if (end <= 0x7fffffff) {\n" : "    } else {\n");
            os << "        for (" << counter << " t = static_cast<" << counter << ">(begin); t < static_cast<" << counter
               << ">(end); ++t) {\n";
            os << "            c.tid = t;\n";
            os << "            " << k << "_body<" << (contig ? "true" : "false") << ">(c, b, a);\n";
            if (block_indices) os << "            if (++c.thread_idx == bd) { c.thread_idx = 0; ++c.block_idx; }\n";
            os << "        }\n";
        }
        os << "    }\n";
        os << "}\n";
    }
    os << "extern \"C\" void " << info.cpu_thread_symbol
       << "(const wp::launch_bounds_t* bounds, const void* args, const wp::thread_ctx* ctx) {\n";
    os << "    " << k << "_body<false>(*ctx, *bounds, *static_cast<const " << k << "_args*>(args));\n";
    os << "}\n";
    os << "#endif\n\n";
}

void emit_backward_entries(std::ostream& os, const KernelInfo& info) {
    const std::string K = cpp_sanitize(info.name);
    os << "#if WP_CUDA\n";
    os << "extern \"C\" __global__ void " << info.cuda_backward_symbol << "(wp::launch_bounds_t bounds, " << K
       << "_args_adj args, wp::oob_record* oob) {\n";
    os << kCudaEntryGridWait;
    os << "    wp::thread_ctx ctx;\n";
    os << "    ctx.tid = static_cast<wp::int64>(blockIdx.x) * blockDim.x + threadIdx.x;\n";
    os << "    ctx.block_idx = blockIdx.x; ctx.thread_idx = threadIdx.x; ctx.block_dim = blockDim.x; ctx.grid_dim = gridDim.x;\n";
    os << "    ctx.smem = nullptr; ctx.oob = oob; ctx.block = nullptr;\n";
    os << "    if (ctx.tid >= bounds.size) return;\n";
    os << "    " << K << "_body_backward<false>(ctx, bounds, args);\n";
    os << "}\n#else\n";
    os << "extern \"C\" void " << info.cpu_range_backward_symbol << "(const wp::launch_bounds_t* bounds, const void* args, "
       << "wp::thread_ctx* ctx, wp::int64 begin, wp::int64 end) {\n";
    // Local copies, as the forward range function makes (emit_forward_entries): the
    // adjoint's atomic adds into float gradients would otherwise force a reload of the block.
    os << "    const " << K << "_args_adj a = *static_cast<const " << K << "_args_adj*>(args);\n";
    os << "    const wp::launch_bounds_t b = *bounds;\n";
    os << "    wp::thread_ctx c = *ctx;\n";
    os << "    const wp::int64 bd = c.block_dim;\n";
    os << "    for (wp::int64 t = begin; t < end; ++t) {\n";
    os << "        c.tid = t; c.block_idx = static_cast<wp::int32>(t / bd); c.thread_idx = static_cast<wp::int32>(t % bd);\n";
    os << "        " << K << "_body_backward<false>(c, b, a);\n";
    os << "    }\n}\n";
    os << "extern \"C\" void " << info.cpu_thread_backward_symbol
       << "(const wp::launch_bounds_t* bounds, const void* args, const wp::thread_ctx* ctx) {\n";
    os << "    " << K << "_body_backward<false>(*ctx, *bounds, *static_cast<const " << K << "_args_adj*>(args));\n";
    os << "}\n#endif\n\n";
}

}  // namespace weft::compiler
