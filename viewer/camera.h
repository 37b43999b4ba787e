// viewer/camera.h: the orbit / pan / zoom camera, in Eigen, without any GL.
//
//            up (y)
//            |   . eye = target + distance (cos p sin y, sin p, cos p cos y)
//            |  /
//            | / pitch p
//   target   +------------ z
//           /  yaw y, around the y axis
//          x
//
// The renderer takes view() and projection() as they are (OpenGL conventions: right-handed eye
// space looking down -z, clip z in [-w, w]); the tests and the picker use project() and ray(),
// which work in pixels of the image the renderer writes: x to the right, y down from the top-left
// corner, pixel centres at +0.5. So a test computes with the same maths where an object must
// appear, and a click becomes the same ray the image was drawn with.
#pragma once

#include <Eigen/Dense>

namespace weft::viewer {

struct Ray {
    Eigen::Vector3f origin;
    Eigen::Vector3f direction;  // unit length
};

class OrbitCamera {
public:
    Eigen::Vector3f target{0.0f, 0.5f, 0.0f};  // m, the point orbited around
    float distance = 4.0f;                     // m, from target to eye; kept in [1e-3, 1e5]
    float yaw = 0.6f;                          // rad, around +y; 0 looks down -z from +z
    float pitch = 0.35f;                       // rad, above the horizon; kept in (-pi/2, pi/2)
    float fov_y = 0.8f;                        // rad, vertical field of view
    float near_plane = 0.01f;                  // m
    float far_plane = 1000.0f;                 // m

    Eigen::Vector3f eye() const;
    Eigen::Matrix4f view() const;                    // world -> eye space
    Eigen::Matrix4f projection(float aspect) const;  // eye -> clip space; aspect = width / height

    // Mouse moves, in pixels of a window `height` pixels tall.
    void orbit(float dx, float dy);              // left drag: yaw and pitch, 0.01 rad per pixel
    void pan(float dx, float dy, float height);  // middle / shift drag: target follows the cursor
    void zoom(float wheel_steps);                // wheel: distance x 0.9 per step forward

    // Frames an axis-aligned box (min, max): target at its centre, distance so that it fits.
    void fit(const Eigen::Vector3f& lo, const Eigen::Vector3f& hi);

    // World point -> pixel (x right, y down, of a width x height image) and eye depth (m, > 0 in
    // front). Returns false for a point behind the eye.
    bool project(const Eigen::Vector3f& world, int width, int height, Eigen::Vector2f& pixel, float* depth = nullptr) const;
    // The ray through pixel (x, y) of a width x height image, from the eye.
    Ray ray(float x, float y, int width, int height) const;
};

}  // namespace weft::viewer
