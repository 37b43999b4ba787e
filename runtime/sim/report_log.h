// runtime/sim/report_log.h: appending to the sim devices' log of launches and copies (internal
// to runtime/sim). Tools read the log through sim_backend.h's [SECTION] Reports; launches and
// copies share one sequence, and the log keeps the last kSimReportLog of each.
#pragma once

#include <memory>

#include "runtime/sim/sim_backend.h"

namespace weft::runtime {

// Gives the report the next sequence number and appends it.
void log_sim_launch(std::shared_ptr<SimLaunchReport> report);
void log_sim_copy(SimCopyReport copy);

}  // namespace weft::runtime
