// libFuzzer target: the whole front end (parse, semantic analysis, IR verification, C++ code
// generation) on arbitrary bytes. Any crash, hang, sanitizer report or internal-error exception
// is a bug; compile errors are the expected outcome for most inputs.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "compiler/driver.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    weft::compiler::DiagnosticEngine diags;
    auto m = weft::compiler::analyze_module({{"fuzz.py", text, 0}}, {}, diags);
    if (!diags.has_errors() && m->ir) {
        weft::compiler::CompileOptions co;
        weft::compiler::generate_code(*m, co);
        co.debug = true;
        weft::compiler::generate_code(*m, co);
    }
    (void)diags.format_all();
    return 0;
}
