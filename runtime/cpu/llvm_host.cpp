// runtime/cpu/llvm_host.cpp: LLVM's global initialisation (once) and the host target description.
#include "runtime/cpu/llvm_host.h"

#include <algorithm>
#include <mutex>

#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Support/Host.h>
#include <llvm/Support/TargetSelect.h>

#include "runtime/cpu/clang_jit.h"

namespace weft::runtime {
namespace detail {

void ensure_llvm_initialized() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        llvm::InitializeNativeTargetAsmParser();  // generated code may hold inline asm
    });
}

const HostTarget& host_target() {
    static const HostTarget host = [] {
        HostTarget h;
        h.triple = llvm::Triple::normalize(llvm::sys::getProcessTriple());
        h.cpu = llvm::sys::getHostCPUName().str();
        // A CPU newer than this LLVM (or a VM hiding its model) reads as "generic", which the x86
        // back end does not accept as a CPU name. Its baseline is "x86-64"; the explicit feature
        // list below still turns on everything the host has (AVX2, AVX-512, ...).
        const llvm::Triple triple(h.triple);
        if (h.cpu == "generic" && triple.isX86()) { h.cpu = triple.getArch() == llvm::Triple::x86_64 ? "x86-64" : "i686"; }
        llvm::StringMap<bool> features;
        if (llvm::sys::getHostCPUFeatures(features)) {
            for (const auto& f : features) { h.features.push_back((f.getValue() ? "+" : "-") + f.getKey().str()); }
        }
        // StringMap iterates in hash order; sort so the cache key is stable.
        std::sort(h.features.begin(), h.features.end(),
                  [](const std::string& a, const std::string& b) { return a.substr(1) < b.substr(1); });
        return h;
    }();
    return host;
}

}  // namespace detail

std::string host_target_triple_and_cpu() {
    const detail::HostTarget& host = detail::host_target();
    std::string key = host.triple + "/" + host.cpu + "/";
    for (size_t i = 0; i < host.features.size(); ++i) {
        // Only enabled features: the disabled ones follow from the enabled set and the CPU.
        if (host.features[i][0] != '+') continue;
        if (key.back() != '/') key += ',';
        key += host.features[i];
    }
    return key;
}

}  // namespace weft::runtime
