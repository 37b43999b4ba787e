// apps/sim_report.h: the sim-specific parts of `weft sim`: its options (architecture,
// scheduler, instruction trace and its filters, Chrome trace) and its report of the timed
// launch (text or JSON), so that apps/cmd_launch.cpp only calls in here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/cli.h"

namespace weft::apps {

// The option names `weft sim` adds to `weft launch`'s (valued options).
const std::vector<std::string>& sim_option_names();
// Usage text of those options.
std::string sim_options_usage();

// Reads --arch (apps/arch_option.h), --scheduler and the trace
// options, sets the sim device's settings, and returns the device string ("sim:h200").
// Throws UsageError naming the option for a bad value.
std::string configure_sim(const Args& args);

// Prints the report of the launches since `mark` (text or json) and writes the Chrome trace
// if --chrome-trace was given. `path` is the kernel module (for source lines).
int print_sim_report(const Args& args, const std::string& path, uint64_t mark);

}  // namespace weft::apps
