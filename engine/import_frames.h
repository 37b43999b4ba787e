// engine/import_frames.h: rigid transforms (double precision) and rotation conventions of robot
// description files, shared by the URDF and MJCF importers.
//
//   Frame world_child = world_parent * Frame{origin, rpy_quat(r, p, y)};
#pragma once

#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <array>
#include <string>

#include "engine/model_builder.h"

namespace weft::engine {

struct Frame {
    Eigen::Vector3d p = Eigen::Vector3d::Zero();
    Eigen::Quaterniond q = Eigen::Quaterniond::Identity();

    Frame operator*(const Frame& o) const { return Frame{p + q * o.p, (q * o.q).normalized()}; }
    Frame inverse() const {
        Eigen::Quaterniond qi = q.conjugate();
        return Frame{-(qi * p), qi};
    }
    ModelBuilder::Xform xform() const { return ModelBuilder::Xform{p.cast<float>(), q.cast<float>()}; }
    static Frame from(const ModelBuilder::Xform& x) { return Frame{x.p.cast<double>(), x.q.cast<double>().normalized()}; }
};

// URDF's fixed-axis roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll).
inline Eigen::Quaterniond rpy_quat(double roll, double pitch, double yaw) {
    using Eigen::AngleAxisd;
    using Eigen::Vector3d;
    return Eigen::Quaterniond(AngleAxisd(yaw, Vector3d::UnitZ()) * AngleAxisd(pitch, Vector3d::UnitY()) *
                              AngleAxisd(roll, Vector3d::UnitX()));
}

// The rotation taking the local y axis (the builder's capsule axis) onto `dir` (unit).
inline Eigen::Quaterniond y_onto(const Eigen::Vector3d& dir) {
    return Eigen::Quaterniond::FromTwoVectors(Eigen::Vector3d::UnitY(), dir.normalized());
}

}  // namespace weft::engine
