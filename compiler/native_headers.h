// The builtins header (compiler/native/*.h) as text embedded in the library. The CPU JIT maps
// these into an in-memory file system and NVRTC receives them as named headers; the umbrella
// that generated code includes is "weft_native.h".
#pragma once

#include <string>
#include <vector>

namespace weft::compiler {

struct NativeHeader {
    std::string name;  // file name, e.g. "vec.h"
    std::string text;
};

const std::vector<NativeHeader>& native_headers();

}  // namespace weft::compiler
