// runtime/sim/sim_module.h: a module loaded on a sim device, and its launches (internal to
// runtime/sim; sim_backend.h describes the device).
//
// A launch packs the parameter block the CUDA entry point takes, gets the grid the cuda device
// would give it, and runs gpusim::launch_timed with the architecture file, ptxas's register
// count and what the timing model reads off ptxas's machine code (gpusim::sass_timing). ptxas
// runs once per module (for each of the two) and its answers are kept in the disk cache.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "gpusim/arch/ptxas.h"
#include "gpusim/ptx/module.h"
#include "gpusim/sass/sass_map.h"
#include "runtime/device.h"

namespace weft::runtime {

class SimModule : public LoadedModule {
public:
    SimModule(gpusim::Module m, std::string ptx, std::string arch)
        : module_(std::move(m)), ptx_(std::move(ptx)), arch_name_(std::move(arch)) {}
    void launch(const LaunchRequest& req) override;

private:
    // ptxas's registers and static shared memory of an entry, once per module; null when
    // ptxas is not installed (the launch then has no register limit).
    const gpusim::KernelResources* resources(const std::string& symbol, const gpusim::ArchSpec& arch);
    // What the timing model takes from ptxas's machine code for an entry; null when ptxas is
    // missing (one issue cycle per PTX instruction).
    const gpusim::SassTiming* sass_timing(const std::string& symbol, const gpusim::ArchSpec& arch);

    gpusim::Module module_;
    std::string ptx_;
    bool sass_done_ = false;
    gpusim::SassMap sass_;
    std::map<std::string, gpusim::SassTiming> sass_timing_;  // by entry, computed at its first launch
    std::string arch_name_;
    std::mutex mu_;
    bool resources_done_ = false;
    std::map<std::string, gpusim::KernelResources> resources_;
};

}  // namespace weft::runtime
