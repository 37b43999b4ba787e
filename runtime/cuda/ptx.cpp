// runtime/cuda/ptx.cpp: NVRTC compilation of a module, through the disk cache. See ptx.h.
#include "runtime/cuda/ptx.h"

#include "compiler/native_headers.h"
#include "runtime/errors.h"
#include "runtime/module_cache.h"
#include "support/hash.h"

namespace weft::runtime {

namespace {

std::vector<SourceFile> native_sources() {
    std::vector<SourceFile> v;
    for (const auto& h : compiler::native_headers()) v.push_back({h.name, h.text});
    return v;
}

// The generated C++ is one translation unit; NVRTC calls it by this name in its messages only
// (the #line directives name the kernel sources everywhere else).
constexpr const char* kMainName = "weft_generated.cpp";  // as the code generator names it in #line

}  // namespace

CudaCompileOptions cuda_module_options(const std::string& arch) {
    CudaCompileOptions o;
    o.arch = arch;
    o.line_info = true;
    o.debug = false;
    o.fmad = false;
    return o;
}

std::string cuda_cache_key(const std::string& source, const CudaCompileOptions& o) {
    support::Hasher h;
    // "ptx-files-2": the .file table keeps absolute names as written (bump when post-processing changes).
    h.add("cuda").add("ptx-files-2").add(compiler::compiler_version()).add(nvrtc_version()).add(o.arch);
    h.add(static_cast<uint64_t>(o.line_info)).add(static_cast<uint64_t>(o.debug)).add(static_cast<uint64_t>(o.fmad));
    h.add(static_cast<uint64_t>(o.max_registers));
    for (const auto& d : o.defines) h.add(d);
    h.add(source);
    for (const auto& hdr : compiler::native_headers()) h.add(hdr.name).add(hdr.text);
    return h.hex();
}

std::string cuda_cache_key(const compiler::CompiledModule& m, const CudaCompileOptions& o, compiler::CodePart part) {
    return cuda_cache_key(m.gen.source(part), o);
}

CudaBinaries build_cuda_binaries(const std::string& source, const std::string& arch, const std::string& what) {
    const CudaCompileOptions o = cuda_module_options(arch);
    std::string key;
    CudaBinaries out;
    try {
        key = cuda_cache_key(source, o);
        auto ptx = cache_load(key, "ptx");
        auto cubin = cache_load(key, "cubin");
        if (ptx && cubin) return {std::move(*ptx), std::move(*cubin)};
        out = compile_cuda_to_ptx_and_cubin({kMainName, source}, native_sources(), o);
    } catch (const CudaCompileError& e) {
        const std::string text = e.what();
        if (text.find("is not of the form sm_NN") != std::string::npos) throw RuntimeError(text);
        throw RuntimeError("NVRTC rejected the code generated for " + what + " (a Weft bug):\n" + text);
    }
    cache_store(key, "ptx", out.ptx);
    cache_store(key, "cubin", out.cubin);
    return out;
}

CudaBinaries build_cuda_binaries(const compiler::CompiledModule& m, const std::string& arch, compiler::CodePart part) {
    if (m.gen.source(part).empty())
        throw RuntimeError("internal error (runtime/cuda/ptx.cpp): the module has no " +
                           std::string(compiler::code_part_name(part)) + " code to compile");
    return build_cuda_binaries(m.gen.source(part), arch, "this module");
}

std::string generate_ptx(const compiler::CompiledModule& m, const std::string& arch, compiler::CodePart part) {
    if (auto ptx = cache_load(cuda_cache_key(m, cuda_module_options(arch), part), "ptx")) return std::move(*ptx);
    return build_cuda_binaries(m, arch, part).ptx;
}

}  // namespace weft::runtime
