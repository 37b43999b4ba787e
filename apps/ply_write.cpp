// apps/ply_write.cpp: see ply.h.
#include <limits>
#include <sstream>

#include "apps/ply.h"

namespace weft::apps {

std::string ply_text(const std::vector<float>& q, const std::vector<std::array<int32_t, 3>>& faces) {
    std::ostringstream os;
    os.precision(std::numeric_limits<float>::max_digits10);
    const size_t n = q.size() / 3;
    os << "ply\nformat ascii 1.0\nelement vertex " << n << "\nproperty float x\nproperty float y\nproperty float z\n";
    if (!faces.empty()) os << "element face " << faces.size() << "\nproperty list uchar int vertex_indices\n";
    os << "end_header\n";
    for (size_t i = 0; i < n; ++i) os << q[3 * i] << " " << q[3 * i + 1] << " " << q[3 * i + 2] << "\n";
    for (const auto& f : faces) os << "3 " << f[0] << " " << f[1] << " " << f[2] << "\n";
    return os.str();
}

}  // namespace weft::apps
