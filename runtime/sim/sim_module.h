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
#include <span>
#include <string>
#include <vector>

#include "gpusim/arch/ptxas.h"
#include "gpusim/exec/launch.h"
#include "gpusim/ptx/module.h"
#include "gpusim/sass/sass_map.h"
#include "runtime/device.h"

namespace weft::runtime {

class SimModule : public LoadedModule {
public:
    SimModule(gpusim::Module m, std::string ptx, std::string arch)
        : module_(std::move(m)), ptx_(std::move(ptx)), arch_name_(std::move(arch)) {}
    void launch(const LaunchRequest& req) override;
    // Runs the entry `symbol` on grid x block with these parameter bytes, timed as the settings
    // say, and logs its report under `label` (the kernel's name).
    void run_entry(const std::string& symbol, const std::string& label, gpusim::Dim3 grid, gpusim::Dim3 block,
                   std::span<const std::byte> params, gpusim::GlobalMemoryMap buffers);
    // Blocks of `block_dim` threads of `symbol` the architecture holds at once (occupancy x SMs);
    // 0 when ptxas is missing (no register count). RuntimeError when such a block does not fit.
    int64_t resident_blocks(const std::string& symbol, int block_dim);

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

// A launch list (runtime/launch_list.h) on a sim device. gpusim's blocks run one after the other,
// so a barrier across blocks could never complete inside one simulated launch; but a grid barrier
// between two steps means exactly that every block has finished the step before any starts the
// next. So each step is simulated as a launch of the list's entry with count = 1 (no barrier) on
// the grid the cuda device would give the list (the blocks the architecture holds at once, no
// more than the largest step needs), and reported as "launch list of N launches: KERNEL". With
// WEFT_LAUNCH_LIST_BLOCKS=1 the whole list is one launch of one block (its barriers are bar.sync).
struct LaunchListPlan;
class SimLaunchList final : public LoadedLaunchList {
public:
    SimLaunchList(DeviceBackend& backend, std::unique_ptr<SimModule> module, const LaunchListPlan& plan);
    ~SimLaunchList() override;
    void run() override;
    int blocks() const override { return blocks_; }

private:
    DeviceBackend& backend_;
    std::unique_ptr<SimModule> module_;
    std::vector<LaunchRequest> cases_;  // for the global buffers their arrays may touch
    std::vector<std::byte> params_;     // weft_list_params
    std::vector<int32_t> sequence_;     // the case of each step
    int count_ = 0;
    int block_dim_ = 256;
    int blocks_ = 1;
    std::byte* memory_ = nullptr;  // the barrier counter, on the sim device
    std::string label_;
};

}  // namespace weft::runtime
