// runtime/cuda/nvrtc_compiler.cpp: compile_cuda_to_ptx / compile_cuda_to_cubin over NVRTC.
//
// One nvrtcProgram per call, destroyed on every path (a small RAII holder), so calls from several
// threads share nothing; NVRTC documents only nvrtcGetTypeName, which we do not use, as unsafe to
// call concurrently.
//
// NVRTC writes locations EDG-style, "main.cu(3): error: ...". We rewrite them to clang's
// "main.cu:3: error: ..." so that callers (and tests) read one format from both devices. NVRTC
// gives no column, so there is none.
//
// NVRTC also makes every relative file name in the PTX's .file table absolute by prefixing the
// process's working directory ("/home/me/run/kernels/foo.py"). That would make the PTX, and so
// the module cache, depend on where the program was started, and gpusim's source lines would name
// paths nobody wrote; we strip that prefix again, leaving the names as the source spelled them.
#include "runtime/cuda/nvrtc_compiler.h"

#include <unistd.h>

#include <cctype>
#include <string>
#include <vector>

#include <nvrtc.h>

namespace weft::runtime {
namespace {

class Program {
public:
    Program(const SourceFile& main, const std::vector<SourceFile>& headers) {
        std::vector<const char*> texts, names;
        for (const SourceFile& h : headers) {
            texts.push_back(h.text.c_str());
            names.push_back(h.name.c_str());
        }
        const nvrtcResult r =
            nvrtcCreateProgram(&program_, main.text.c_str(), main.name.c_str(), static_cast<int>(headers.size()),
                               texts.empty() ? nullptr : texts.data(), names.empty() ? nullptr : names.data());
        if (r != NVRTC_SUCCESS) {
            throw CudaCompileError(std::string("NVRTC could not create a program for '") + main.name +
                                   "': " + nvrtcGetErrorString(r) + ".");
        }
    }
    ~Program() { nvrtcDestroyProgram(&program_); }
    Program(const Program&) = delete;
    Program& operator=(const Program&) = delete;

    nvrtcProgram get() const { return program_; }

    std::string log() const {
        size_t size = 0;
        if (nvrtcGetProgramLogSize(program_, &size) != NVRTC_SUCCESS || size <= 1) return "";
        std::string text(size, '\0');
        if (nvrtcGetProgramLog(program_, text.data()) != NVRTC_SUCCESS) return "";
        text.resize(size - 1);  // the size counts the terminating NUL
        return text;
    }

private:
    nvrtcProgram program_ = nullptr;
};

// "main.cu(12): error: x" -> "main.cu:12: error: x"; other lines are kept as they are.
std::string clang_style_locations(const std::string& log) {
    std::string out;
    size_t begin = 0;
    while (begin < log.size()) {
        size_t end = log.find('\n', begin);
        if (end == std::string::npos) end = log.size();
        std::string line = log.substr(begin, end - begin);
        const size_t open = line.find('(');
        const size_t close = line.find("): ", open == std::string::npos ? 0 : open);
        if (open != std::string::npos && open > 0 && close != std::string::npos && close > open + 1) {
            bool digits = true;
            for (size_t i = open + 1; i < close; ++i) digits &= std::isdigit(line[i]) != 0;
            if (digits) {
                line = line.substr(0, open) + ":" + line.substr(open + 1, close - open - 1) + ":" + line.substr(close + 2);
            }
        }
        out += line;
        if (end < log.size()) out += '\n';
        begin = end + 1;
    }
    return out;
}

// "sm_90" -> "90", "sm_90a" -> "90a"; anything else is a user error.
std::string arch_number(const std::string& arch) {
    bool ok = arch.size() > 3 && arch.compare(0, 3, "sm_") == 0;
    size_t i = 3;
    size_t first_letter = arch.size();
    for (; ok && i < arch.size(); ++i) {
        if (std::isdigit(arch[i])) {
            ok = first_letter == arch.size();
        } else if (arch[i] == 'a' || arch[i] == 'f') {
            ok = i > 3 && first_letter == arch.size() && i + 1 == arch.size();
            first_letter = i;
        } else {
            ok = false;
        }
    }
    if (!ok) {
        throw CudaCompileError("CUDA architecture '" + arch + "' is not of the form sm_NN (for example sm_90 or sm_90a).");
    }
    return arch.substr(3);
}

std::vector<std::string> nvrtc_options(const CudaCompileOptions& options, bool real_arch) {
    const std::string number = arch_number(options.arch);
    std::vector<std::string> args = {
        "--gpu-architecture=" + std::string(real_arch ? "sm_" : "compute_") + number,
        "-std=c++20",
    };
    if (options.line_info) args.push_back("-lineinfo");
    if (options.debug) args.push_back("-G");
    if (!options.fmad) args.push_back("--fmad=false");
    if (options.max_registers < 0) {
        throw CudaCompileError("max_registers must be 0 (no limit) or positive, got " + std::to_string(options.max_registers) +
                               ".");
    }
    if (options.max_registers > 0) { args.push_back("--maxrregcount=" + std::to_string(options.max_registers)); }
    for (const std::string& define : options.defines) args.push_back("-D" + define);
    return args;
}

// `\t.file\t2 "/cwd/kernels/foo.py"` -> `\t.file\t2 "kernels/foo.py"`, for the current directory,
// but only where the source spelled the name relative (`#line 3 "kernels/foo.py"`): a name that was
// absolute already stays as written, so the PTX does not depend on where the compiler ran.
std::string relative_file_table(const std::string& ptx, const std::string& source) {
    char buffer[4096];
    if (::getcwd(buffer, sizeof buffer) == nullptr) return ptx;
    std::string prefix = "\"" + std::string(buffer);
    if (prefix.back() != '/') prefix += '/';
    std::string out;
    out.reserve(ptx.size());
    size_t begin = 0;
    while (begin < ptx.size()) {
        size_t end = ptx.find('\n', begin);
        end = end == std::string::npos ? ptx.size() : end + 1;
        std::string line = ptx.substr(begin, end - begin);
        const size_t directive = line.find_first_not_of(" \t");
        if (directive != std::string::npos && line.compare(directive, 6, ".file\t") == 0) {
            const size_t at = line.find(prefix, directive);
            if (at != std::string::npos) {
                const size_t close = line.find('"', at + prefix.size());
                std::string relative =
                    line.substr(at + prefix.size(), close == std::string::npos ? std::string::npos : close - at - prefix.size());
                bool written_relative =
                    source.find(" \"" + relative + "\"") != std::string::npos || relative.find('/') == std::string::npos;
                if (written_relative) line.replace(at, prefix.size(), "\"");
            }
        }
        out += line;
        begin = end;
    }
    return out;
}

enum class Output { kPtx, kCubin, kBoth };

CudaBinaries compile(const SourceFile& main, const std::vector<SourceFile>& headers, const CudaCompileOptions& options,
                     Output output) {
    const std::vector<std::string> args = nvrtc_options(options, output != Output::kPtx);
    std::vector<const char*> argv;
    for (const std::string& a : args) argv.push_back(a.c_str());

    Program program(main, headers);
    const nvrtcResult r = nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
    if (r != NVRTC_SUCCESS) {
        std::string log = clang_style_locations(program.log());
        if (log.empty()) log = std::string(nvrtcGetErrorString(r)) + "\n";
        throw CudaCompileError(log);
    }

    CudaBinaries result;
    if (output != Output::kCubin) {
        size_t size = 0;
        std::string& bytes = result.ptx;
        nvrtcResult got = nvrtcGetPTXSize(program.get(), &size);
        if (got == NVRTC_SUCCESS) {
            bytes.resize(size);
            got = nvrtcGetPTX(program.get(), bytes.data());
            if (!bytes.empty() && bytes.back() == '\0') bytes.pop_back();
            if (options.line_info || options.debug) bytes = relative_file_table(bytes, main.text);
        }
        if (got != NVRTC_SUCCESS || bytes.empty()) {
            throw CudaCompileError(std::string("NVRTC compiled '") + main.name +
                                   "' but returned no PTX: " + nvrtcGetErrorString(got) + ".");
        }
    }
    if (output != Output::kPtx) {
        size_t size = 0;
        std::string& bytes = result.cubin;
        nvrtcResult got = nvrtcGetCUBINSize(program.get(), &size);
        if (got == NVRTC_SUCCESS) {
            bytes.resize(size);
            got = nvrtcGetCUBIN(program.get(), bytes.data());
        }
        if (got != NVRTC_SUCCESS || bytes.empty()) {
            throw CudaCompileError(std::string("NVRTC compiled '") + main.name +
                                   "' but returned no cubin: " + nvrtcGetErrorString(got) + ".");
        }
    }
    return result;
}

}  // namespace

std::string compile_cuda_to_ptx(const SourceFile& main, const std::vector<SourceFile>& headers,
                                const CudaCompileOptions& options) {
    return compile(main, headers, options, Output::kPtx).ptx;
}

std::string compile_cuda_to_cubin(const SourceFile& main, const std::vector<SourceFile>& headers,
                                  const CudaCompileOptions& options) {
    return compile(main, headers, options, Output::kCubin).cubin;
}

CudaBinaries compile_cuda_to_ptx_and_cubin(const SourceFile& main, const std::vector<SourceFile>& headers,
                                           const CudaCompileOptions& options) {
    return compile(main, headers, options, Output::kBoth);
}

std::string nvrtc_version() {
    int major = 0, minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "nvrtc unknown";
    return "nvrtc " + std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace weft::runtime
