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
    FrameProfile p = frame_profile(runtime::sim_hotspots_since(mark, std::numeric_limits<size_t>::max()));
    for (const auto& r : runtime::sim_reports_since(mark)) {
        p.device = r->device;
        break;
    }
    return p;
}

FrameProfile measured_profile(const std::vector<runtime::KernelTime>& times, const std::string& device) {
    FrameProfile p;
    p.measured = true;
    p.device = device.empty() && !times.empty() ? times.front().device : device;
    std::map<std::string, size_t> index;
    for (const runtime::KernelTime& t : times) {
        auto [it, fresh] = index.try_emplace(t.kernel, p.kernels.size());
        if (fresh) p.kernels.push_back({t.kernel, 0, 0, 0.0, 0.0, {}});
        ProfileKernel& k = p.kernels[it->second];
        ++k.launches;
        k.time_us += t.time_us;
        ++p.launches;
        p.time_us += t.time_us;
    }
    for (ProfileKernel& k : p.kernels) k.share = p.time_us > 0 ? k.time_us / p.time_us : 0.0;
    std::stable_sort(p.kernels.begin(), p.kernels.end(),
                     [](const ProfileKernel& a, const ProfileKernel& b) { return a.time_us > b.time_us; });
    return p;
}

double kernel_time_us(const FrameProfile& p, const std::string& name) {
    for (const ProfileKernel& k : p.kernels)
        if (k.name == name) return k.time_us;
    return -1.0;
}

}  // namespace weft::viewer
