// runtime/cpu/cpp_compiler.cpp: compile_cpp_to_object, Clang's front end and back end in process.
//
// Why in process, and why an object file: spawning a compiler costs a process and a real file
// system, and the disk cache wants bytes it can hand to another process later. So we build a
// CompilerInstance by hand, the way the `clang -cc1` driver does, and run EmitObjAction with its
// output redirected to a memory buffer (CompilerInstance::setOutputStream, which CodeGenAction
// takes before it would open a file). The files it may read live in an InMemoryFileSystem: the
// main file and the listed headers, nothing else.
//
// The arguments are cc1 arguments, not driver arguments: the driver would add the system include
// paths, the resource directory and -fmath-errno, none of which we want. Things the driver would
// normally decide and that matter here are spelled out:
//   -vectorize-loops -vectorize-slp   the driver turns these on at -O2 and above; cc1 does not
//   -ffp-contract=off                 no FMA contraction: CPU results are plain IEEE, reproducible
//   -pic-is-pie                       position independent, calls to libm through PLT stubs that
//                                     the JIT fills; local definitions are called directly
//   -fno-use-cxa-atexit               static destructors register with atexit, not through
//                                     __dso_handle, which a JIT-loaded object does not have
//   -fbracket-depth 2048              see cc1_arguments
#include <memory>
#include <string>
#include <vector>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/VirtualFileSystem.h>
#include <llvm/Support/raw_ostream.h>

#include "runtime/cpu/clang_jit.h"
#include "runtime/cpu/llvm_host.h"

namespace weft::runtime {
namespace {

// Root of the in-memory file system; the compiler's working directory. Files are named relative
// to it, so diagnostics read "main.cpp:3:5: error: ..." rather than an absolute path.
constexpr const char* kVirtualRoot = "/weft";

std::vector<std::string> cc1_arguments(const SourceFile& main, const CppCompileOptions& options) {
    const detail::HostTarget& host = detail::host_target();
    std::vector<std::string> args = {
        "-triple",
        host.triple,
        "-emit-obj",
        "-main-file-name",
        main.name,
        "-mrelocation-model",
        "pic",
        "-pic-level",
        "2",
        "-pic-is-pie",
        "-std=c++20",
        "-x",
        "c++",
        "-fno-rtti",  // exceptions are already off in cc1 unless -fcxx-exceptions is given
        "-fno-use-cxa-atexit",
        "-ffp-contract=off",
        "-nostdsysteminc",
        "-nobuiltininc",
        "-nostdinc++",
        "-I",
        kVirtualRoot,  // so that #include <name> finds the listed headers as well
        "-ferror-limit",
        "20",
        // The generated code brackets every operation, so its nesting is a few times the depth of
        // the kernel's expressions (at most 256 levels, compiler/frontend/parser.cpp) plus that of
        // its blocks (at most 100); Clang's default limit of 256 would reject valid kernels.
        "-fbracket-depth",
        "2048",
    };
    if (options.opt_level < 0 || options.opt_level > 3) {
        throw CppCompileError("opt_level must be between 0 and 3, got " + std::to_string(options.opt_level) + ".");
    }
    args.push_back("-O" + std::to_string(options.opt_level));
    if (options.opt_level >= 2) {
        args.push_back("-vectorize-loops");
        args.push_back("-vectorize-slp");
    }
    if (options.debug_info) {
        args.push_back("-debug-info-kind=limited");
        args.push_back("-dwarf-version=5");
    }
    if (options.target_cpu == "native") {
        args.push_back("-target-cpu");
        args.push_back(host.cpu);
        for (const std::string& feature : host.features) {
            args.push_back("-target-feature");
            args.push_back(feature);
        }
    } else if (!options.target_cpu.empty()) {
        args.push_back("-target-cpu");
        args.push_back(options.target_cpu);
    }
    for (const std::string& define : options.defines) {
        args.push_back("-D");
        args.push_back(define);
    }
    args.push_back(main.name);
    return args;
}

llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> make_file_system(const SourceFile& main,
                                                                         const std::vector<SourceFile>& headers) {
    auto fs = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
    fs->setCurrentWorkingDirectory(kVirtualRoot);
    auto add = [&](const SourceFile& file, const char* what) {
        if (file.name.empty()) { throw CppCompileError(std::string("the ") + what + " has an empty file name."); }
        if (!fs->addFile(file.name, /*ModificationTime=*/0, llvm::MemoryBuffer::getMemBufferCopy(file.text, file.name))) {
            throw CppCompileError("the file name '" + file.name + "' of a " + what +
                                  " is given twice, or names both a file and a folder.");
        }
    };
    add(main, "main file");
    for (const SourceFile& header : headers) add(header, "header");
    return fs;
}

}  // namespace

std::string compile_cpp_to_object(const SourceFile& main, const std::vector<SourceFile>& headers,
                                  const CppCompileOptions& options) {
    detail::ensure_llvm_initialized();
    const std::vector<std::string> args = cc1_arguments(main, options);
    std::vector<const char*> argv;
    argv.reserve(args.size());
    for (const std::string& a : args) argv.push_back(a.c_str());

    std::string diagnostics;
    llvm::raw_string_ostream diagnostics_stream(diagnostics);
    auto diag_options = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
    diag_options->ShowColors = false;
    diag_options->ShowPresumedLoc = true;  // honour #line: errors point at the kernel's .py file
    clang::TextDiagnosticPrinter printer(diagnostics_stream, diag_options.get());

    auto invocation = std::make_shared<clang::CompilerInvocation>();
    {
        clang::DiagnosticsEngine argument_diags(llvm::makeIntrusiveRefCnt<clang::DiagnosticIDs>(), diag_options, &printer,
                                                /*ShouldOwnClient=*/false);
        if (!clang::CompilerInvocation::CreateFromArgs(*invocation, argv, argument_diags) || argument_diags.hasErrorOccurred()) {
            diagnostics_stream.flush();
            throw CppCompileError(
                "the C++ compiler rejected its options (a Weft bug or a bad "
                "CppCompileOptions):\n" +
                diagnostics);
        }
    }

    llvm::SmallString<0> object;  // declared before `compiler`, which may still own its stream
    clang::CompilerInstance compiler;
    compiler.setInvocation(invocation);
    compiler.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
    compiler.setVerboseOutputStream(diagnostics_stream);  // "N errors generated." goes here
    compiler.createFileManager(make_file_system(main, headers));

    compiler.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(object));

    clang::EmitObjAction action;
    const bool ok = compiler.ExecuteAction(action);
    diagnostics_stream.flush();
    if (!ok || compiler.getDiagnostics().hasErrorOccurred()) { throw CppCompileError(diagnostics); }
    if (object.empty()) { throw CppCompileError("clang produced no object code for '" + main.name + "'.\n" + diagnostics); }
    return std::string(object.data(), object.size());
}

}  // namespace weft::runtime
