// engine/body_inertia.cpp: see body_inertia.h.
#include "engine/body_inertia.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/model.h"

namespace weft::engine {

namespace {

constexpr double kPi = 3.14159265358979323846;

// The inertia about point `o` of a body whose inertia about its centre of mass `c` is I.
Eigen::Matrix3d parallel_axis(const Eigen::Matrix3d& I, double m, const Eigen::Vector3d& d) {
    return I + m * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
}

}  // namespace

MassProperties shape_mass_properties(int geo_type, const Eigen::Vector3d& s, double rho) {
    MassProperties p;
    if (geo_type == GEO_SPHERE) {
        const double r = s.x();
        p.mass = 4.0 / 3.0 * kPi * r * r * r * rho;
        p.inertia = Eigen::Matrix3d::Identity() * (0.4 * p.mass * r * r);
    } else if (geo_type == GEO_BOX) {
        const double x = s.x(), y = s.y(), z = s.z();
        p.mass = 8.0 * x * y * z * rho;
        p.inertia.diagonal() << p.mass / 3.0 * (y * y + z * z), p.mass / 3.0 * (x * x + z * z), p.mass / 3.0 * (x * x + y * y);
    } else if (geo_type == GEO_CAPSULE) {
        const double r = s.x(), h = s.y();  // radius, half height of the cylinder
        const double mc = kPi * r * r * 2.0 * h * rho;
        const double ms = 4.0 / 3.0 * kPi * r * r * r * rho;  // both hemispheres
        p.mass = mc + ms;
        const double ia = mc * (0.25 * r * r + h * h / 3.0) + ms * (0.4 * r * r + h * h + 0.75 * h * r);
        const double ib = (0.5 * mc + 0.4 * ms) * r * r;
        p.inertia.diagonal() << ia, ib, ia;
    } else if (geo_type == GEO_CYLINDER) {
        const double r = s.x(), h = s.y();
        p.mass = kPi * r * r * 2.0 * h * rho;
        const double ia = p.mass * (0.25 * r * r + h * h / 3.0);
        p.inertia.diagonal() << ia, 0.5 * p.mass * r * r, ia;
    } else if (geo_type == GEO_CONE) {
        const double r = s.x(), h = s.y();  // base radius at +h, apex at -h
        p.mass = kPi * r * r * 2.0 * h * rho / 3.0;
        p.com = Eigen::Vector3d(0.0, 0.5 * h, 0.0);  // a quarter of the height 2h above the base
        const double ia = 0.15 * p.mass * (r * r + h * h);
        p.inertia.diagonal() << ia, 0.3 * p.mass * r * r, ia;
    } else {
        throw std::invalid_argument("shape_mass_properties: no mass properties for shape type " + std::to_string(geo_type));
    }
    return p;
}

MassProperties combine(const MassProperties& body, const MassProperties& part, const Eigen::Vector3d& pos,
                       const Eigen::Quaterniond& rot) {
    const double m = body.mass + part.mass;
    if (m <= 0.0) return body;
    const Eigen::Matrix3d R = rot.normalized().toRotationMatrix();
    const Eigen::Vector3d part_com = pos + R * part.com;
    MassProperties out;
    out.mass = m;
    out.com = (body.com * body.mass + part_com * part.mass) / m;
    out.inertia = parallel_axis(body.inertia, body.mass, out.com - body.com) +
                  parallel_axis(R * part.inertia * R.transpose(), part.mass, out.com - part_com);
    return out;
}

}  // namespace weft::engine
