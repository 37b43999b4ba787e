// gpusim/timing/hotspots.cpp — summarize_hotspots(): sums launches per kernel and per
// (kernel, file, line), then ranks by time (hotspots.h explains the line-time estimate).
#include "gpusim/timing/hotspots.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace weft::gpusim {

Hotspots summarize_hotspots(std::span<const TimingResult* const> launches, size_t max_lines) {
    Hotspots h;
    std::map<std::string, KernelHotspot> kernels;
    std::map<std::tuple<std::string, std::string, int32_t>, std::pair<LineHotspot, TimingCounters>> lines;
    for (const TimingResult* r : launches) {
        ++h.launches;
        h.time_us += r->time_us;
        KernelHotspot& k = kernels[r->counts.kernel];
        k.kernel = r->counts.kernel;
        ++k.launches;
        k.cycles += r->cycles;
        k.time_us += r->time_us;
        uint64_t total_warp_cycles = 0;
        for (const TimingCounters& t : r->per_line) total_warp_cycles += t.warp_cycles();
        for (size_t i = 0; i < r->per_line.size() && i < r->counts.per_line.size(); ++i) {
            const LineCounters& lc = r->counts.per_line[i];
            const TimingCounters& t = r->per_line[i];
            auto& [line, sum] = lines[{r->counts.kernel, lc.file_name, lc.line}];
            line.kernel = r->counts.kernel;
            line.file = lc.file_name;
            line.line = lc.line;
            line.counts += lc.counts;
            if (total_warp_cycles)
                line.time_us += r->time_us * static_cast<double>(t.warp_cycles()) / static_cast<double>(total_warp_cycles);
            sum += t;
        }
    }
    for (auto& [name, k] : kernels) {
        k.share = h.time_us > 0 ? k.time_us / h.time_us : 0;
        h.kernels.push_back(k);
    }
    std::stable_sort(h.kernels.begin(), h.kernels.end(),
                     [](const KernelHotspot& a, const KernelHotspot& b) { return a.time_us > b.time_us; });
    for (auto& [key, e] : lines) {
        LineHotspot& l = e.first;
        const TimingCounters& t = e.second;
        l.warp_cycles = t.warp_cycles();
        l.share = h.time_us > 0 ? l.time_us / h.time_us : 0;
        int best = 0;
        for (int s = 1; s < kNumStalls; ++s)
            if (t.stall_cycles[s] > t.stall_cycles[best]) best = s;
        l.top_stall = static_cast<Stall>(best);
        l.shared_requests = l.counts.shared_requests;
        l.shared_wavefronts = t.shared_wavefronts;
        l.shared_excess_wavefronts = t.shared_excess_wavefronts();
        l.global_requests = t.global_requests;
        l.global_sectors = t.global_sectors;
        h.lines.push_back(l);
    }
    std::stable_sort(h.lines.begin(), h.lines.end(),
                     [](const LineHotspot& a, const LineHotspot& b) { return a.time_us > b.time_us; });
    if (h.lines.size() > max_lines) h.lines.resize(max_lines);
    return h;
}

}  // namespace weft::gpusim
