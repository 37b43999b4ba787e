// engine/urdf_import.h: URDF robot descriptions into a ModelBuilder (Warp 1.9.1's parse_urdf).
//
//   ModelBuilder b;
//   ImportOptions o;  o.floating = true;
//   ImportResult r = parse_urdf("robot.urdf", b, o);  // ImportError "robot.urdf:41: joint 'knee': ..."
//   for (auto& w : r.warnings) std::cerr << w << "\n";
//
// Each <link> becomes a body, placed where the joints put it with every joint at 0 (the root at
// options.xform); its <collision> geometry (box, sphere, cylinder, mesh) becomes shapes with
// options.density and the contact_* material, or its <inertial> gives the mass when
// ignore_inertial_definitions is false. Each <joint> (revolute, continuous, prismatic, fixed,
// floating) becomes the builder's joint from the parent link's frame (its <origin>) to the child
// link's frame, with <axis> and <limit>; the root link is fixed to the world, free (floating) or
// on a one-axis base_joint. What the builder cannot represent is a warning naming the element
// (an STL or DAE mesh is skipped); docs/import.md lists them.
#pragma once

#include <string>

#include "engine/import_options.h"
#include "engine/model_builder.h"

namespace weft::engine {

ImportResult parse_urdf(const std::string& path, ModelBuilder& builder, const ImportOptions& options = {});
// Parses `text` as if read from `path` (messages name `path`; meshes are found next to it).
ImportResult parse_urdf_string(const std::string& text, const std::string& path, ModelBuilder& builder,
                               const ImportOptions& options = {});

}  // namespace weft::engine
