// viewer/camera.cpp: look-at and perspective matrices (gluLookAt / gluPerspective) and their
// inverses for picking.
#include "viewer/camera.h"

#include <algorithm>
#include <cmath>

namespace weft::viewer {

namespace {

constexpr float kMaxPitch = 1.55f;  // just short of pi/2, where the look-at basis degenerates

}  // namespace

Eigen::Vector3f OrbitCamera::eye() const {
    float cp = std::cos(pitch), sp = std::sin(pitch);
    return target + distance * Eigen::Vector3f(cp * std::sin(yaw), sp, cp * std::cos(yaw));
}

Eigen::Matrix4f OrbitCamera::view() const {
    Eigen::Vector3f e = eye();
    Eigen::Vector3f f = (target - e).normalized();
    Eigen::Vector3f s = f.cross(Eigen::Vector3f::UnitY()).normalized();
    Eigen::Vector3f u = s.cross(f);
    Eigen::Matrix4f m = Eigen::Matrix4f::Identity();
    m.block<1, 3>(0, 0) = s.transpose();
    m.block<1, 3>(1, 0) = u.transpose();
    m.block<1, 3>(2, 0) = -f.transpose();
    m(0, 3) = -s.dot(e);
    m(1, 3) = -u.dot(e);
    m(2, 3) = f.dot(e);
    return m;
}

Eigen::Matrix4f OrbitCamera::projection(float aspect) const {
    float t = 1.0f / std::tan(0.5f * fov_y);
    Eigen::Matrix4f m = Eigen::Matrix4f::Zero();
    m(0, 0) = t / aspect;
    m(1, 1) = t;
    m(2, 2) = (far_plane + near_plane) / (near_plane - far_plane);
    m(2, 3) = 2.0f * far_plane * near_plane / (near_plane - far_plane);
    m(3, 2) = -1.0f;
    return m;
}

void OrbitCamera::orbit(float dx, float dy) {
    yaw -= 0.01f * dx;
    pitch = std::clamp(pitch + 0.01f * dy, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::pan(float dx, float dy, float height) {
    // One pixel at the target's depth is 2 d tan(fov/2) / height metres.
    float metres = 2.0f * distance * std::tan(0.5f * fov_y) / std::max(height, 1.0f);
    Eigen::Matrix4f v = view();
    Eigen::Vector3f right = v.block<1, 3>(0, 0).transpose(), up = v.block<1, 3>(1, 0).transpose();
    target += metres * (-dx * right + dy * up);
}

void OrbitCamera::zoom(float wheel_steps) { distance = std::clamp(distance * std::pow(0.9f, wheel_steps), 1e-3f, 1e5f); }

void OrbitCamera::fit(const Eigen::Vector3f& lo, const Eigen::Vector3f& hi) {
    target = 0.5f * (lo + hi);
    float radius = std::max(0.5f * (hi - lo).norm(), 0.05f);
    distance = std::clamp(1.1f * radius / std::sin(0.5f * fov_y), 1e-3f, 1e5f);
}

bool OrbitCamera::project(const Eigen::Vector3f& world, int width, int height, Eigen::Vector2f& pixel, float* depth) const {
    Eigen::Vector4f eye_p = view() * world.homogeneous();
    if (depth) *depth = -eye_p.z();
    if (eye_p.z() >= 0.0f) return false;
    Eigen::Vector4f clip = projection(float(width) / float(height)) * eye_p;
    float nx = clip.x() / clip.w(), ny = clip.y() / clip.w();
    pixel = Eigen::Vector2f(0.5f * (nx + 1.0f) * float(width), 0.5f * (1.0f - ny) * float(height));
    return true;
}

Ray OrbitCamera::ray(float x, float y, int width, int height) const {
    float nx = 2.0f * x / float(width) - 1.0f, ny = 1.0f - 2.0f * y / float(height);
    float t = std::tan(0.5f * fov_y), aspect = float(width) / float(height);
    Eigen::Vector3f d_eye(nx * t * aspect, ny * t, -1.0f);
    Eigen::Matrix3f rot = view().block<3, 3>(0, 0).transpose();  // eye -> world
    return {eye(), (rot * d_eye).normalized()};
}

}  // namespace weft::viewer
