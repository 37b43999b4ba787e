// gpusim/arch/ptxas.h — running ptxas on a module's PTX for an architecture file's target
// (sm_XX from its compute capability), and ptxas's resource report per kernel.
//
// The one place Weft runs ptxas: the occupancy calculator's register counts (the sim device,
// the timing model, `weft audit`), and the machine code whose line table and instruction words
// the SASS map reads (sass/sass_map.h; the audit's shared-access widths). ptxas is
// $WEFT_PTXAS, or /usr/local/cuda/bin/ptxas.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "gpusim/arch/arch.h"

namespace weft::gpusim {

class PtxasError : public std::runtime_error {
public:
    PtxasError(const std::string& what, std::string log) : std::runtime_error(what), log_(std::move(log)) {}
    const std::string& log() const { return log_; }  // what ptxas printed (empty if it did not run)

private:
    std::string log_;
};

// $WEFT_PTXAS when set, else /usr/local/cuda/bin/ptxas.
std::string ptxas_path();

struct PtxasOptions {
    std::string ptxas = ptxas_path();
    bool verbose = true;    // -v: the resource report (registers, shared memory, stack, spills)
    bool lineinfo = false;  // -lineinfo: the cubin's PTX line table (what the SASS map reads)
};

struct PtxasOutput {
    std::string log;    // stdout and stderr: with -v, the resource report
    std::string cubin;  // the ELF ptxas wrote
};

// Runs `ptxas [-v] [-lineinfo] -arch=<arch.sm_target()>` on `ptx`. Throws PtxasError, with the
// command and ptxas's output, when ptxas cannot be run or fails.
PtxasOutput run_ptxas(const std::string& ptx, const ArchSpec& arch, const PtxasOptions& options = {});

// ptxas's resource report of one kernel.
struct KernelResources {
    int registers = 0;
    uint32_t shared_bytes = 0;  // static shared memory
    uint32_t stack_bytes = 0;   // stack frame
    uint32_t spill_stores = 0, spill_loads = 0;
};

// The report of `ptxas -v`, per entry function (device functions' lines are not an entry's).
std::map<std::string, KernelResources> parse_ptxas_report(const std::string& log);

// run_ptxas (verbose) + parse_ptxas_report. Throws PtxasError.
std::map<std::string, KernelResources> ptxas_resources(const std::string& ptx, const ArchSpec& arch,
                                                       const std::string& ptxas = ptxas_path());

}  // namespace weft::gpusim
