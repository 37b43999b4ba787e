// runtime/errors.h: the runtime's user-facing error. Bad arguments to a launch, a bad device
// string, a kernel that faults or indexes out of range: each raises RuntimeError with one plain
// sentence naming what and where. (Compile errors are weft::compiler::CompileError.)
#pragma once

#include <stdexcept>
#include <string>

namespace weft::runtime {

class RuntimeError : public std::runtime_error {
public:
    explicit RuntimeError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace weft::runtime
