// viewer/frame_profile.cpp: see frame_profile.h.
#include "viewer/frame_profile.h"

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "engine/solver_kernels.h"
#include "runtime/sim/sim_backend.h"

namespace weft::viewer {

namespace {

std::string nth_line(const std::string& text, int line) {
    std::istringstream in(text);
    std::string s;
    for (int i = 1; std::getline(in, s); ++i)
        if (i == line) return s;
    return "";
}

}  // namespace

std::string source_line(const std::string& file, int line) {
    if (line <= 0) return "";
    for (const auto& [name, text] : engine::embedded_kernel_sources())
        if (file == name || (file.size() > name.size() && file.compare(file.size() - name.size(), name.size(), name) == 0 &&
                             file[file.size() - name.size() - 1] == '/'))
            return nth_line(text, line);
    std::ifstream f(file);
    if (!f) return "";
    std::stringstream text;
    text << f.rdbuf();
    return nth_line(text.str(), line);
}

FrameProfile frame_profile(const gpusim::Hotspots& h) {
    FrameProfile p;
    p.launches = h.launches;
    p.time_us = h.time_us;
    p.copies = h.copies;
    p.copy_bytes = h.copy_bytes;
    p.copy_time_us = h.copy_time_us;
    std::map<std::string, size_t> index;
    for (const gpusim::KernelHotspot& k : h.kernels) {
        index[k.kernel] = p.kernels.size();
        p.kernels.push_back({k.kernel, k.launches, k.cycles, k.time_us, k.share, {}});
    }
    for (const gpusim::LineHotspot& l : h.lines) {
        auto it = index.find(l.kernel);
        if (it == index.end()) continue;
        ProfileKernel& k = p.kernels[it->second];
        ProfileLine line;
        line.file = l.file;
        line.line = l.line;
        line.text = source_line(l.file, l.line);
        line.time_us = l.time_us;
        line.share = k.time_us > 0 ? l.time_us / k.time_us : 0.0;
        line.top_stall = gpusim::stall_name(l.top_stall);
        line.shared_wavefronts = l.shared_wavefronts;
        line.shared_excess_wavefronts = l.shared_excess_wavefronts;
        line.sectors_per_request = l.global_requests ? double(l.global_sectors) / double(l.global_requests) : 0.0;
        k.lines.push_back(std::move(line));
    }
    std::stable_sort(p.kernels.begin(), p.kernels.end(),
                     [](const ProfileKernel& a, const ProfileKernel& b) { return a.cycles > b.cycles; });
    return p;
}

FrameProfile frame_profile_since(uint64_t mark) {
    return frame_profile(runtime::sim_hotspots_since(mark, std::numeric_limits<size_t>::max()));
}

}  // namespace weft::viewer
