// runtime/source_file.h: one named source text, the unit both compilers of the runtime take.
//
// The CPU JIT (runtime/cpu) and NVRTC (runtime/cuda) both compile a main file plus a set of
// headers that live in memory, never on disk. Keeping the type here, header-only and free of
// any LLVM or CUDA include, lets either library be built without the other.
#pragma once

#include <string>

namespace weft::runtime {

struct SourceFile {
    std::string name;  // file name as diagnostics show it and as #include finds it, e.g. "main.cpp"
    std::string text;  // the whole file
};

}  // namespace weft::runtime
