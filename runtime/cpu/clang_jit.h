// runtime/cpu/clang_jit.h: the CPU device's compiler and loader, Clang and LLVM ORC in process.
//
// Generated C++ goes through two separate steps, so that the disk cache can sit between them:
//
//     SourceFile + headers ──compile_cpp_to_object──> ELF object bytes ──JitLibrary::load──> code
//         (Clang, in memory)                            (cacheable: any process   (ORC LLJIT,
//                                                        on the same host/CPU)     RuntimeDyld)
//
// The compiler sees no real file system: the main file and the listed headers are served from an
// in-memory file system, and there is no system include path, so the builtins header must be
// self-contained (compiler/native/ includes no system header for exactly this reason).
//
// Thread safety: every function here may be called from several threads at once. LLVM's global
// initialisation runs once (std::call_once); each compile owns its CompilerInstance, and each
// JitLibrary owns its own LLJIT, so no lock is held while compiling or linking.
//
// [SECTION] options and errors
// [SECTION] compile_cpp_to_object
// [SECTION] JitLibrary
// [SECTION] host_target_triple_and_cpu
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/source_file.h"

namespace weft::runtime {

// [SECTION] options and errors

struct CppCompileOptions {
    int opt_level = 3;                  // 0..3, as -O0..-O3; never fast-math (results match IEEE/GPU)
    bool debug_info = false;            // emit DWARF line tables and variables (-g)
    std::vector<std::string> defines;   // "NAME" or "NAME=VALUE", e.g. "WP_DEBUG=1"
    std::string target_cpu = "native";  // "native" = host CPU name and features; else an LLVM CPU name
};

// Clang rejected the source. what() holds clang's diagnostics as text, one per line in the form
// "file:line:col: error: message", followed by the source line and a caret.
class CppCompileError : public std::runtime_error {
public:
    explicit CppCompileError(const std::string& diagnostics) : std::runtime_error(diagnostics) {}
};

// The JIT could not load an object or find a symbol in it. what() is a plain sentence.
class JitError : public std::runtime_error {
public:
    explicit JitError(const std::string& message) : std::runtime_error(message) {}
};

// [SECTION] compile_cpp_to_object

// Compiles one C++20 translation unit to a relocatable ELF object (the returned bytes), in
// process. `main.name` is the name diagnostics use; `headers` are visible to #include "name" and
// #include <name> by their names and nothing else is. Generated code is compiled with
// -fno-exceptions -fno-rtti, position independent, for the target CPU of `options`.
// Throws CppCompileError with clang's diagnostics when the source has errors.
std::string compile_cpp_to_object(const SourceFile& main, const std::vector<SourceFile>& headers,
                                  const CppCompileOptions& options);

// [SECTION] JitLibrary

// One loaded object file: its code is linked into this process's memory and stays there until
// the JitLibrary is destroyed. Undefined symbols of the object resolve, in order, to
// `extra_symbols` and then to the symbols of the current process (libm, libc).
class JitLibrary {
public:
    // Links `object_bytes` (from compile_cpp_to_object, possibly in another process) eagerly, so
    // that an unresolved symbol is reported here, by name. `extra_symbols` are host functions the
    // object may call (name -> address), e.g. {"weft_cpu_sync_threads", &weft_cpu_sync_threads}.
    // Throws JitError when the bytes are not an object for this host or a symbol is unresolved.
    static std::unique_ptr<JitLibrary> load(const std::string& object_bytes,
                                            const std::vector<std::pair<std::string, void*>>& extra_symbols);

    // Address of a symbol the object defines, by its C (unmangled) name; use extern "C" entry
    // points. Throws JitError naming the symbol when it is not defined. Thread-safe.
    void* lookup(const std::string& symbol) const;

    ~JitLibrary();
    JitLibrary(const JitLibrary&) = delete;
    JitLibrary& operator=(const JitLibrary&) = delete;

    struct Impl;

private:
    explicit JitLibrary(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// [SECTION] host_target_triple_and_cpu

// "x86_64-pc-linux-gnu/znver3/+avx2,+fma,..." : the host triple, CPU name and enabled features.
// Objects compiled with target_cpu = "native" run only where this string is the same, so it is
// part of the disk cache's key.
std::string host_target_triple_and_cpu();

}  // namespace weft::runtime
