// tests/runtime/cpu/jit_object_runner.cpp: loads an object file written by another process.
//
// Usage: jit_object_runner <object file> <symbol> <float x>. Loads the object with JitLibrary,
// calls `float symbol(float x)` and prints the result with %g. This is the disk cache's path: the
// bytes were compiled in the test process and are linked here, in a fresh one.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>

#include "runtime/cpu/clang_jit.h"

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s <object file> <symbol> <float x>\n", argv[0]);
        return 2;
    }
    try {
        std::ifstream in(argv[1], std::ios::binary);
        if (!in) {
            std::printf("cannot open %s\n", argv[1]);
            return 1;
        }
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        auto library = weft::runtime::JitLibrary::load(bytes, {});
        auto fn = reinterpret_cast<float (*)(float)>(library->lookup(argv[2]));
        std::printf("%g\n", static_cast<double>(fn(std::strtof(argv[3], nullptr))));
        return 0;
    } catch (const std::exception& e) {
        std::printf("error: %s\n", e.what());
        return 1;
    }
}
