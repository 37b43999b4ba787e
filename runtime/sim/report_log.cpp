// runtime/sim/report_log.cpp: the log of sim launches and copies (report_log.h), and the
// readers of sim_backend.h's [SECTION] Reports.
#include "runtime/sim/report_log.h"

#include <deque>
#include <mutex>

namespace weft::runtime {

namespace {

std::mutex g_reports_mu;
std::deque<std::shared_ptr<const SimLaunchReport>> g_reports;
std::deque<SimCopyReport> g_copies;
uint64_t g_next_sequence = 0;

}  // namespace

void log_sim_launch(std::shared_ptr<SimLaunchReport> report) {
    std::lock_guard<std::mutex> lock(g_reports_mu);
    report->sequence = g_next_sequence++;
    g_reports.push_back(std::move(report));
    while (g_reports.size() > kSimReportLog) g_reports.pop_front();
}

void log_sim_copy(SimCopyReport c) {
    std::lock_guard<std::mutex> lock(g_reports_mu);
    c.sequence = g_next_sequence++;
    g_copies.push_back(c);
    while (g_copies.size() > kSimReportLog) g_copies.pop_front();
}

uint64_t sim_report_mark() {
    std::lock_guard<std::mutex> lock(g_reports_mu);
    return g_next_sequence;
}

std::vector<std::shared_ptr<const SimLaunchReport>> sim_reports_since(uint64_t mark) {
    std::lock_guard<std::mutex> lock(g_reports_mu);
    std::vector<std::shared_ptr<const SimLaunchReport>> out;
    for (const auto& r : g_reports)
        if (r->sequence >= mark) out.push_back(r);
    return out;
}

std::vector<SimCopyReport> sim_copies_since(uint64_t mark) {
    std::lock_guard<std::mutex> lock(g_reports_mu);
    std::vector<SimCopyReport> out;
    for (const auto& c : g_copies)
        if (c.sequence >= mark) out.push_back(c);
    return out;
}

gpusim::Hotspots sim_hotspots_since(uint64_t mark, size_t max_lines) {
    const auto reports = sim_reports_since(mark);
    std::vector<const gpusim::TimingResult*> timed;
    for (const auto& r : reports)
        if (r->timed) timed.push_back(&r->result);
    gpusim::Hotspots h = gpusim::summarize_hotspots(timed, max_lines);
    for (const SimCopyReport& c : sim_copies_since(mark)) {
        ++h.copies;
        h.copy_bytes += c.bytes;
        h.copy_time_us += c.time_us;
    }
    return h;
}

}  // namespace weft::runtime
