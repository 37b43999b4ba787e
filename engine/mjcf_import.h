// engine/mjcf_import.h: MuJoCo XML (MJCF) models into a ModelBuilder (Warp 1.9.1's parse_mjcf).
//
//   ModelBuilder b;
//   ImportOptions o;  o.stiffness = 0;  o.damping = 0;
//   ImportResult r = parse_mjcf("pendulum.xml", b, o);  // ImportError "pendulum.xml:12: joint 'j0': ..."
//
// What is read (docs/import.md has the full table):
//   <compiler>   angle (degree | radian), eulerseq, meshdir, autolimits
//   <option>     gravity (turned into the builder's frame, set on builder.gravity), timestep (in the result)
//   <default>    classes, nested (a class inherits its parent's values), used through class= and
//                childclass= on joint, geom, inertial-free bodies and actuators
//   <asset>      <mesh name file scale>
//   <worldbody>  <body> trees with pos and quat | euler | axisangle | xyaxes | zaxis; <inertial>;
//                <geom> sphere, box, capsule, cylinder (fromto too), plane, mesh; one <joint> per
//                body (hinge, slide, ball, free) or <freejoint>, with range / limited, stiffness,
//                damping, armature; geoms of the worldbody are static shapes
//   <actuator>   motor (FORCE), position (TARGET_POSITION, kp), velocity (TARGET_VELOCITY, kv) on a joint
//
// MJCF's frame is turned onto the builder's by options.up_axis (Warp's rule: "Z" turns +z into +y)
// and placed by options.xform. Bodies are placed with every joint at 0.
#pragma once

#include <string>

#include "engine/import_options.h"
#include "engine/model_builder.h"

namespace weft::engine {

ImportResult parse_mjcf(const std::string& path, ModelBuilder& builder, const ImportOptions& options = {});
// Parses `text` as if read from `path` (messages name `path`; meshes are found next to it).
ImportResult parse_mjcf_string(const std::string& text, const std::string& path, ModelBuilder& builder,
                               const ImportOptions& options = {});

}  // namespace weft::engine
