// engine/import_shapes.h: collision geometry of URDF and MJCF files as the builder's shapes, with
// the importer's material (ImportOptions contact_*), and a located warning for every geometry the
// builder cannot hold as it is (cylinders are the builder's own, GEO_CYLINDER, with their exact
// mass and inertia):
//
//   mesh            an OBJ file becomes add_shape_mesh (static, or on a body with the mass of the
//                   solid it bounds; an open one adds no mass, with a warning); other formats
//                   (STL, DAE) are skipped
//   plane on a body skipped (planes are static)
//
// Sizes are already scaled; `t` places the shape in its body's frame (or in the world for body -1).
#pragma once

#include <Eigen/Core>
#include <string>

#include "engine/import_frames.h"
#include "engine/import_options.h"
#include "engine/model_builder.h"
#include "engine/xml_reader.h"

namespace weft::engine {

class ShapeImport {
public:
    ShapeImport(const XmlFile& f, ModelBuilder& b, const ImportOptions& o, ImportWarnings& w) : f_(f), b_(b), o_(o), w_(w) {}

    void sphere(ElementReader& r, int body, const Frame& t, double radius, double density);
    void box(ElementReader& r, int body, const Frame& t, const Eigen::Vector3d& half, double density);
    void capsule(ElementReader& r, int body, const Frame& t, double radius, double half_height, double density);  // along local y
    void cylinder(ElementReader& r, int body, const Frame& t, double radius, double half_height,
                  double density);  // along local y
    // `file` already resolved ("" = a warning was given); `scale` per axis. On a body, the solid the
    // mesh bounds gets `density`, or the density that gives it `mass` when mass >= 0 (MJCF's geom
    // mass); a mesh that bounds no solid (open, or wound inconsistently) is added without mass, with
    // a warning that says why.
    void mesh(ElementReader& r, int body, const Frame& t, const std::string& file, const Eigen::Vector3d& scale, double density,
              double mass = -1.0);
    void plane(ElementReader& r, int body, const Frame& t);  // the plane z = 0 of frame t

    // Volume (m^3) of a sphere, box or capsule (MJCF's geom mass -> density).
    static double volume(int geo_type, const Eigen::Vector3d& scale);

private:
    ShapeParams params(double density) const;
    template <class F>
    void located(ElementReader& r, F&& add);  // a BuildError becomes an ImportError at the element
    const XmlFile& f_;
    ModelBuilder& b_;
    const ImportOptions& o_;
    ImportWarnings& w_;
};

// The builder's joint from the world to the root body `root` for ImportOptions::base_joint (Warp's
// D6 string), at the root's pose: one axis, "px"/"py"/"pz" prismatic or "rx"/"ry"/"rz" revolute;
// several ("px,py,rz") a D6 joint of those axes. Returns the joint's index.
int add_axis_base_joint(ModelBuilder& b, const ImportOptions& o, int root, const std::string& name);

// A free joint's coordinates (joint_q: position, quaternion x, y, z, w) set to its child's pose in
// the parent's frame, so that eval_fk puts the body where the file does (Warp sets them the same).
void set_free_coordinates(ModelBuilder& b, int joint);

// ImportError "parse_urdf: scale must be > 0, got 0" for options out of range (`call` names the caller).
void check_import_options(const ImportOptions& o, const std::string& call);

}  // namespace weft::engine
