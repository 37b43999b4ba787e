// gpusim/arch/resolve_arch.h — what `--arch` means, in every command and on every device: the
// name of an architecture file in gpusim/arch/ (h200, h100, a100, rtx4090, v100, ...: compiled
// in, builtin_arch) or the path of one (it ends in .json or names a directory). `weft compile`
// derives its PTX target from the file (ArchSpec::sm_target), `weft sim` and sim:ARCH run on its
// figures, `weft audit` computes occupancy with them.
//
// An unknown name is one message everywhere:
//   unknown architecture 'h20'; did you mean 'h200'? known: a100, h100, h200, rtx4090, v100
//   (the files in gpusim/arch/), or the path of an architecture file (FILE.json)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gpusim/arch/arch.h"

namespace weft::gpusim {

// True when `arg` names a file rather than a built-in architecture: it ends in ".json" or has a '/'.
bool is_arch_path(std::string_view arg);

// The architecture `arg` names (a built-in name, or a file loaded with load_arch). Throws
// ArchError: the message above for an unknown name, the loader's file:line:col for a bad file.
ArchSpec resolve_arch(const std::string& arg);

// The message for an unknown architecture `name`, given the names that are known (the built-ins,
// or a device's table that also holds files registered under their "name").
std::string unknown_arch_message(const std::string& name, const std::vector<std::string>& known);

}  // namespace weft::gpusim
