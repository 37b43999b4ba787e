// engine/body_inertia.cpp: see body_inertia.h.
#include "engine/body_inertia.h"

#include <cmath>
#include <cstdio>
#include <map>
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

std::vector<int> welded_vertices(const Mesh& mesh) {
    std::map<std::array<float, 3>, int> first;
    std::vector<int> out(mesh.vertices.size());
    for (size_t v = 0; v < mesh.vertices.size(); ++v) {
        const Eigen::Vector3f& x = mesh.vertices[v];
        out[v] = first.emplace(std::array<float, 3>{x.x(), x.y(), x.z()}, int(v)).first->second;
    }
    return out;
}

MassProperties mesh_mass_properties(const Mesh& mesh, const Eigen::Vector3d& scale, double density) {
    const std::vector<int> id = welded_vertices(mesh);
    // Every directed edge of the welded mesh once, and its reverse once: closed and consistently wound.
    std::map<std::pair<int, int>, int> edges;
    for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        const int a = id[size_t(mesh.indices[t])], b = id[size_t(mesh.indices[t + 1])], c = id[size_t(mesh.indices[t + 2])];
        if (a == b || b == c || c == a) continue;  // a degenerate triangle bounds nothing
        for (auto e : {std::pair<int, int>{a, b}, {b, c}, {c, a}}) ++edges[e];
    }
    auto name = [](const std::pair<int, int>& e) {
        return "edge (" + std::to_string(e.first) + ", " + std::to_string(e.second) + ")";
    };
    for (const auto& [e, n] : edges) {
        if (n > 1)
            throw std::invalid_argument(name(e) + " is wound the same way by " + std::to_string(n) +
                                        " triangles (the winding is inconsistent, or more than two triangles share it)");
        if (!edges.count({e.second, e.first}))
            throw std::invalid_argument("the mesh is not closed: " + name(e) +
                                        " has a triangle on one side only, so the mesh has no volume");
    }
    std::vector<Eigen::Vector3d> x(mesh.vertices.size());
    Eigen::Vector3d o = Eigen::Vector3d::Zero();
    for (size_t v = 0; v < x.size(); ++v) {
        x[v] = mesh.vertices[v].cast<double>().cwiseProduct(scale);
        o += x[v] / double(x.size());
    }
    double six_v = 0.0;                                // 6 V
    Eigen::Vector3d first = Eigen::Vector3d::Zero();   // 24 x the first moment about o
    Eigen::Matrix3d second = Eigen::Matrix3d::Zero();  // 120 x the second moment about o
    for (size_t t = 0; t + 2 < mesh.indices.size(); t += 3) {
        const Eigen::Vector3d a = x[size_t(mesh.indices[t])] - o, b = x[size_t(mesh.indices[t + 1])] - o,
                              c = x[size_t(mesh.indices[t + 2])] - o;
        const double d = a.dot(b.cross(c));
        const Eigen::Vector3d s = a + b + c;
        six_v += d;
        first += d * s;
        second += d * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
    }
    const double volume = six_v / 6.0;
    if (!(volume > 0.0)) {
        char v[32];
        std::snprintf(v, sizeof v, "%g", volume);
        throw std::invalid_argument(std::string("the mesh's volume is ") + v +
                                    " m^3: its triangles must wind counter-clockwise seen from outside");
    }
    MassProperties p;
    p.mass = density * volume;
    const Eigen::Vector3d d = first / (4.0 * six_v);  // the centre of mass from o
    p.com = o + d;
    const Eigen::Matrix3d C = density * second / 120.0;  // integral of rho r r^T about o
    const Eigen::Matrix3d I_o = C.trace() * Eigen::Matrix3d::Identity() - C;
    p.inertia = I_o - p.mass * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
    return p;
}

}  // namespace weft::engine
