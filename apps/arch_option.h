// apps/arch_option.h: --arch, one meaning in `weft compile`, `weft sim` and `weft audit`: the
// name of an architecture file in gpusim/arch/ (h200, h100, a100, rtx4090, v100, ...) or the
// path of one (gpusim/arch/resolve_arch.h). compile takes its PTX target from the file
// (sm_90 for h200), sim runs on it, audit computes occupancy with its figures.
#pragma once

#include <string>

#include "apps/cli.h"
#include "gpusim/arch/arch.h"

namespace weft::apps {

inline constexpr const char* kDefaultArch = "h200";

// The architecture --arch names (kDefaultArch without --arch). An unknown name is a UsageError
// ("--arch: unknown architecture 'h20'; did you mean 'h200'? known: ..."); a file that cannot be
// read or parsed is an error (exit 1) carrying the loader's file:line:col.
gpusim::ArchSpec arch_option(const Args& args);

}  // namespace weft::apps
