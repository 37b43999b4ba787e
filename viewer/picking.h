// viewer/picking.h: which particle a click hits, with the camera's ray (viewer/camera.h) against
// the drawn spheres (the same positions and radii the renderer draws, so what is seen is what is
// picked), and what the picker panel shows of it.
#pragma once

#include <string>

#include "viewer/camera.h"
#include "viewer/frame_data.h"

namespace weft::viewer {

struct Pick {
    int group = -1;      // index into FrameData::particles; -1: nothing hit
    int particle = -1;   // index within the group (the particle's index in the model)
    float distance = 0;  // m, from the eye along the ray to the sphere's surface
};

// The nearest sphere the ray enters (a ray starting inside a sphere picks it at distance 0).
Pick pick_particle(const Ray& ray, const FrameData& frame);

// "particle 12: position (0.100, 0.250, -0.300) m, velocity (...) m/s" for the picker panel;
// `velocity` from the State's particle_qd (host copy) may be empty.
std::string describe_pick(const Pick& pick, const FrameData& frame, const std::vector<Eigen::Vector3f>& velocity);

}  // namespace weft::viewer
