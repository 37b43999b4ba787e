// runtime/sim/sim_backend.h: the `sim:ARCH` device: kernels run on gpusim.
//
// Arrays live in host memory (gpusim dereferences global addresses directly). A module is
// compiled by NVRTC to the PTX the CUDA device would load for that architecture
// (runtime/cuda/ptx.h, through the disk cache), parsed once by gpusim, and each launch runs on
// the simulator with the same parameter block the CUDA entry point takes. Every launch leaves
// its counts (per kernel, per source line, per PTX instruction) in a report log that tools read
// (`weft sim`, the viewer).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gpusim/launch.h"
#include "runtime/device.h"

namespace weft::runtime {

bool sim_arch_known(const std::string& arch);
std::vector<std::string> sim_arch_names();
std::string sim_ptx_arch(const std::string& arch);  // "h200" -> "sm_90"
std::unique_ptr<DeviceBackend> make_sim_backend(const Device& d);

// Reports of the launches on sim devices since the last call (oldest first).
std::vector<gpusim::LaunchResult> take_sim_reports();

}  // namespace weft::runtime
