// runtime/cpu/jit_library.cpp: JitLibrary, one ELF object linked into this process by ORC.
//
// Each JitLibrary owns its own LLJIT (its own ExecutionSession and JITDylib). That costs a few
// milliseconds and a little memory per loaded module, and buys independence: loads and lookups on
// different libraries share no lock, symbol names of two modules never collide, and destroying a
// JitLibrary frees exactly its code. LLVM 14's LLJIT links ELF objects with RuntimeDyld.
//
// Symbol resolution for the object's undefined symbols, in order:
//   1. extra_symbols   (absolute symbols defined in the JITDylib; they win over the process)
//   2. the process     (DynamicLibrarySearchGenerator: libm's sqrtf/sinf, libc's memcpy, ...)
//
// ORC links lazily, on the first lookup. load() forces that link at once, by looking up the
// object's own defined symbols, so a missing symbol is reported by load() and by name, not later
// inside a launch. ORC reports link failures to the session's error reporter, so we capture those
// messages and put them into the exception text.
//
// Objects are announced to debuggers through the GDB JIT interface (GDBRegistrationListener), so
// gdb/lldb can set breakpoints in JIT code; with debug_info and #line directives, on kernel lines.
//
// Not supported in JIT objects (none is needed by generated code): static constructors (ORC's
// generic platform runs them only for IR it compiled itself, not for objects), thread_local
// variables, and static objects with destructors (they would run at exit, after the JitLibrary
// that holds their code is gone).
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <llvm/ExecutionEngine/JITEventListener.h>
#include <llvm/ExecutionEngine/JITSymbol.h>
#include <llvm/ExecutionEngine/SectionMemoryManager.h>
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include "runtime/cpu/clang_jit.h"
#include "runtime/cpu/llvm_host.h"

// Generated code calls libm. libstdc++ already pulls libm into every C++ process, but keep one
// real reference so that no linker (--as-needed) can drop it from a program that links us.
#include <cmath>

namespace weft::runtime {

struct JitLibrary::Impl {
    std::unique_ptr<llvm::orc::LLJIT> jit;
    std::unordered_set<std::string> own_symbols;  // global symbols the object defines
    std::mutex errors_mutex;
    std::string session_errors;  // messages ORC sent to the error reporter, newest last

    std::string take_session_errors() {
        std::lock_guard<std::mutex> lock(errors_mutex);
        return std::exchange(session_errors, {});
    }
};

namespace {

float (*volatile keep_libm_linked)(float) = &::sqrtf;

std::string error_text(llvm::Error error) { return llvm::toString(std::move(error)); }

// Names of the global symbols the object defines (functions and data), as the linker sees them.
std::vector<std::string> defined_symbols(const llvm::MemoryBuffer& object) {
    std::vector<std::string> names;
    auto file = llvm::object::ObjectFile::createObjectFile(object.getMemBufferRef());
    if (!file) {
        throw JitError("the bytes given to JitLibrary::load are not an object file: " + error_text(file.takeError()) + ".");
    }
    for (const llvm::object::SymbolRef& symbol : (*file)->symbols()) {
        auto flags = symbol.getFlags();
        if (!flags) {
            llvm::consumeError(flags.takeError());
            continue;
        }
        if ((*flags & llvm::object::SymbolRef::SF_Undefined) || !(*flags & llvm::object::SymbolRef::SF_Global)) { continue; }
        auto type = symbol.getType();
        if (!type) {
            llvm::consumeError(type.takeError());
            continue;
        }
        if (*type != llvm::object::SymbolRef::ST_Function && *type != llvm::object::SymbolRef::ST_Data) { continue; }
        auto name = symbol.getName();
        if (!name) {
            llvm::consumeError(name.takeError());
            continue;
        }
        names.push_back(name->str());
    }
    return names;
}

}  // namespace

JitLibrary::JitLibrary(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

JitLibrary::~JitLibrary() = default;

std::unique_ptr<JitLibrary> JitLibrary::load(const std::string& object_bytes,
                                             const std::vector<std::pair<std::string, void*>>& extra_symbols) {
    detail::ensure_llvm_initialized();
    (void)keep_libm_linked;

    auto buffer = llvm::MemoryBuffer::getMemBufferCopy(object_bytes, "weft-jit-object");
    const std::vector<std::string> own_symbols = defined_symbols(*buffer);

    auto target = llvm::orc::JITTargetMachineBuilder::detectHost();
    if (!target) { throw JitError("the JIT does not support this host: " + error_text(target.takeError()) + "."); }
    auto jit =
        llvm::orc::LLJITBuilder()
            .setJITTargetMachineBuilder(std::move(*target))
            .setObjectLinkingLayerCreator([](llvm::orc::ExecutionSession& session,
                                             const llvm::Triple&) -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto layer = std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                    session, [] { return std::make_unique<llvm::SectionMemoryManager>(); });
                // A process-wide singleton, owned by LLVM.
                layer->registerJITEventListener(*llvm::JITEventListener::createGDBRegistrationListener());
                return std::unique_ptr<llvm::orc::ObjectLayer>(std::move(layer));
            })
            .create();
    if (!jit) { throw JitError("could not create the JIT: " + error_text(jit.takeError()) + "."); }

    auto impl = std::make_unique<Impl>();
    impl->jit = std::move(*jit);
    impl->own_symbols.insert(own_symbols.begin(), own_symbols.end());
    Impl* raw_impl = impl.get();
    impl->jit->getExecutionSession().setErrorReporter([raw_impl](llvm::Error error) {
        std::string text = error_text(std::move(error));
        std::lock_guard<std::mutex> lock(raw_impl->errors_mutex);
        if (!raw_impl->session_errors.empty()) raw_impl->session_errors += "; ";
        raw_impl->session_errors += text;
    });

    llvm::orc::LLJIT& lljit = *impl->jit;
    llvm::orc::JITDylib& dylib = lljit.getMainJITDylib();

    if (!extra_symbols.empty()) {
        llvm::orc::SymbolMap host_symbols;
        for (const auto& [name, address] : extra_symbols) {
            if (address == nullptr) { throw JitError("extra symbol '" + name + "' has a null address."); }
            host_symbols[lljit.mangleAndIntern(name)] = llvm::JITEvaluatedSymbol(
                llvm::pointerToJITTargetAddress(address), llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
        }
        if (llvm::Error e = dylib.define(llvm::orc::absoluteSymbols(std::move(host_symbols)))) {
            throw JitError("could not define the extra symbols: " + error_text(std::move(e)) + ".");
        }
    }

    auto process = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(lljit.getDataLayout().getGlobalPrefix());
    if (!process) {
        throw JitError("could not open the current process for symbol lookup: " + error_text(process.takeError()) + ".");
    }
    dylib.addGenerator(std::move(*process));

    if (llvm::Error e = lljit.addObjectFile(std::move(buffer))) {
        throw JitError("could not add the object file to the JIT: " + error_text(std::move(e)) + ".");
    }

    // Link now: the first lookup materializes the whole object (RuntimeDyld links an object as
    // one unit), resolving every undefined symbol or failing with their names.
    if (!own_symbols.empty()) {
        auto linked = lljit.lookupLinkerMangled(own_symbols.front());
        if (!linked) {
            std::string lookup_error = error_text(linked.takeError());
            std::string session = impl->take_session_errors();
            throw JitError(
                "could not link the JIT object: " + (session.empty() ? lookup_error : session + " (" + lookup_error + ")") + ".");
        }
    }
    return std::unique_ptr<JitLibrary>(new JitLibrary(std::move(impl)));
}

void* JitLibrary::lookup(const std::string& symbol) const {
    // Only the object's own symbols: the JITDylib would also answer for extra_symbols and, through
    // the process generator, for anything in libc, which is never what a caller means.
    if (impl_->own_symbols.count(symbol) == 0) {
        throw JitError("symbol '" + symbol +
                       "' is not defined by the JIT library (is it declared "
                       "extern \"C\" and not static?).");
    }
    auto found = impl_->jit->lookup(symbol);
    if (!found) {
        std::string detail = error_text(found.takeError());
        std::string session = impl_->take_session_errors();
        if (!session.empty()) detail = session + "; " + detail;
        throw JitError("symbol '" + symbol + "' is not defined by the JIT library (" + detail + ").");
    }
    return llvm::jitTargetAddressToPointer<void*>(found->getAddress());
}

}  // namespace weft::runtime
