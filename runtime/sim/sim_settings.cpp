// runtime/sim/sim_settings.cpp: the process-wide settings of the sim devices (sim_backend.h,
// [SECTION] Settings). Scheduler names are gpusim's (gpusim/timing/policy_names.h).
#include <cstdlib>
#include <mutex>
#include <string>

#include "gpusim/timing/policy_names.h"
#include "runtime/cpu/thread_pool.h"
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
    if (s.threads < 0)
        throw RuntimeError("sim settings: threads must be >= 1, or 0 for the default (WEFT_SIM_THREADS, else every core); got " +
                           std::to_string(s.threads));
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

int sim_threads(const SimSettings& s) {
    if (s.threads > 0) return s.threads;
    if (const char* e = std::getenv("WEFT_SIM_THREADS"); e && *e) {
        const std::string v = e;
        size_t used = 0;
        int n = 0;
        try {
            n = std::stoi(v, &used);
        } catch (const std::exception&) { used = 0; }
        if (used != v.size() || n < 1)
            throw RuntimeError("WEFT_SIM_THREADS must be a positive integer (the host threads gpusim simulates with); got '" + v +
                               "'");
        return n;
    }
    return cpu_threads();
}

bool sim_timing_enabled(const SimSettings& s) {
    const char* e = std::getenv("WEFT_SIM_TIMING");
    if (e && std::string(e) == "0") return false;
    return s.timing;
}

}  // namespace weft::runtime
