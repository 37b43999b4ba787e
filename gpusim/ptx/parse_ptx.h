// gpusim/ptx/parse_ptx.h — PTX text in, decoded Module out.
//
// Accepts what NVRTC and nvcc emit for sm_70..sm_90 with -lineinfo (see tests/gpusim for the
// forms covered). Anything malformed or unsupported throws PtxError with line:col and a plain
// sentence; no input crashes the parser (tests/gpusim and gpusim/fuzz check that).
#pragma once

#include <string_view>

#include "gpusim/errors.h"
#include "gpusim/ptx/module.h"

namespace weft::gpusim {

// Parses `text` (a whole PTX module); `name` is used in error messages and reports.
Module parse_ptx(std::string_view text, std::string_view name);

}  // namespace weft::gpusim
