// runtime/sim/sim_settings.cpp: the process-wide settings of the sim devices (sim_backend.h,
// [SECTION] Settings). Scheduler names are gpusim's (gpusim/timing/policy_names.h).
#include <cstdlib>
#include <mutex>

#include "gpusim/timing/policy_names.h"
#include "runtime/errors.h"
#include "runtime/sim/sim_backend.h"

namespace weft::runtime {

namespace {

std::mutex g_settings_mu;
SimSettings g_settings;

}  // namespace

gpusim::SchedulerFactory sim_scheduler(const std::string& name) {
    try {
        return gpusim::scheduler_by_name(name);
    } catch (const gpusim::SimError& e) { throw RuntimeError(e.what()); }
}

void set_sim_settings(const SimSettings& s) {
    sim_scheduler(s.scheduler);
    try {
        gpusim::check_trace_filter(s.trace_filter);
    } catch (const gpusim::SimError& e) { throw RuntimeError(e.what()); }
    std::lock_guard<std::mutex> lock(g_settings_mu);
    g_settings = s;
}

SimSettings sim_settings() {
    std::lock_guard<std::mutex> lock(g_settings_mu);
    return g_settings;
}

bool sim_timing_enabled(const SimSettings& s) {
    const char* e = std::getenv("WEFT_SIM_TIMING");
    if (e && std::string(e) == "0") return false;
    return s.timing;
}

}  // namespace weft::runtime
