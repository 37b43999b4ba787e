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
        const std::vector<Eigen::Vector3f> x = frame.particles[g].host_positions();
        const std::vector<float> r = frame.particles[g].host_radius();
        for (size_t i = 0; i < x.size(); ++i) {
            Eigen::Vector3f oc = ray.origin - x[i];
            float b = ray.direction.dot(oc);
            float disc = b * b - (oc.squaredNorm() - r[i] * r[i]);
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
    const ParticleData& p = frame.particles[size_t(pick.group)];
    Eigen::Vector3f x;
    if (p.position_array) {
        std::vector<float> v = p.position_array->read(size_t(pick.particle));
        x = Eigen::Vector3f(v[0], v[1], v[2]);
    } else {
        x = p.positions[size_t(pick.particle)];
    }
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
