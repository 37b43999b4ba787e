// viewer/picking.cpp: ray-sphere intersection, |o + t d - c|^2 = r^2 with |d| = 1:
// t = -b -+ sqrt(b^2 - (|o - c|^2 - r^2)), b = d.(o - c); the nearer root in front of the eye.
#include "viewer/picking.h"

#include <cmath>
#include <cstdio>

namespace weft::viewer {

Pick pick_particle(const Ray& ray, const FrameData& frame) {
    Pick best;
    float best_t = INFINITY;
    for (size_t g = 0; g < frame.particles.size(); ++g) {
        const ParticleData& p = frame.particles[g];
        for (size_t i = 0; i < p.positions.size(); ++i) {
            Eigen::Vector3f oc = ray.origin - p.positions[i];
            float b = ray.direction.dot(oc);
            float disc = b * b - (oc.squaredNorm() - p.radius[i] * p.radius[i]);
            if (!(disc >= 0.0f)) continue;
            float s = std::sqrt(disc);
            float t = -b - s < 0.0f ? (-b + s >= 0.0f ? 0.0f : -1.0f) : -b - s;
            if (t < 0.0f || t >= best_t) continue;
            best_t = t;
            best = {int(g), int(i), t};
        }
    }
    return best;
}

std::string describe_pick(const Pick& pick, const FrameData& frame, const std::vector<Eigen::Vector3f>& velocity) {
    if (pick.group < 0) return "no particle";
    const Eigen::Vector3f& x = frame.particles[size_t(pick.group)].positions[size_t(pick.particle)];
    char text[256];
    int n = snprintf(text, sizeof text, "particle %d: position (%.3f, %.3f, %.3f) m", pick.particle, double(x.x()), double(x.y()),
                     double(x.z()));
    if (size_t(pick.particle) < velocity.size()) {
        const Eigen::Vector3f& v = velocity[size_t(pick.particle)];
        snprintf(text + n, sizeof text - size_t(n), ", velocity (%.3f, %.3f, %.3f) m/s", double(v.x()), double(v.y()),
                 double(v.z()));
    }
    return text;
}

}  // namespace weft::viewer
