// The builtin list of docs/kernel-language.md, generated from the builtin table: `weft builtins
// --markdown` prints it, and a test checks that the document holds exactly this text between its
// `<!-- BEGIN BUILTINS -->` and `<!-- END BUILTINS -->` markers.
#pragma once

#include <string>

namespace weft::compiler {

std::string builtins_markdown();

}  // namespace weft::compiler
