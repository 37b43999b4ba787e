// libFuzzer target: the .npz / .npy reader (apps/npz.cpp, `weft launch --inputs`) on arbitrary
// bytes. Any crash, hang (a zip64 size that wraps once looped forever), sanitizer report or
// allocation past the input's size is a bug: a malformed archive may only raise the reader's
// runtime_error naming the file and the field.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "apps/npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string bytes(reinterpret_cast<const char*>(data), size);
    try {
        auto arrays = weft::apps::read_npz_bytes(bytes, "fuzz.npz");
        size_t total = 0;
        for (const auto& [name, a] : arrays) total += a.data.size();
        if (total > size) __builtin_trap();  // every byte read must come from the input
    } catch (const std::runtime_error&) {}
    try {
        (void)weft::apps::parse_npy(bytes, "fuzz.npy");  // a bare .npy as well
    } catch (const std::runtime_error&) {}
    return 0;
}
