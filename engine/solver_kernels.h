// engine/solver_kernels.h: the engine's solver kernels (kernels/*.py, embedded in the library at
// build time) compiled as kernel modules and looked up by name.
//
// Kernels are grouped into modules, one per solver part, with the files each needs:
//   particles  (kernels/particles.py)                      integrate_particles, accumulate_forces
//   springs, triangles, bending, tetrahedra                eval_springs, eval_triangles, ...
//   contact    (geometry.py, hash_grid.py, contact.py)     eval_particle_terms
//   hash_grid  (hash_grid.py)                              build_grid, sort_grid_buckets
//   xpbd       (geometry.py, hash_grid.py, bending.py, xpbd.py)
//   broad_phase (worlds.py, hash_grid.py, broad_phase.py) build_shape_grid, find_body_candidates
//   rigid      (geometry.py, broad_phase.py, joints.py, rigid.py)  eval_body_forces, integrate_bodies
// Code both solvers need is a @wp.func in one file that both groups list, not a copy: geometry.py
// (shape_contact, shape_contact_at, ground_contact: the shape and ground tests), hash_grid.py (grid_cell_neighbor:
// the neighbour test), bending.py (dihedral_angle, dihedral_angle_gradients).
// A module is compiled on first use (the front end in-process, device code through the disk
// cache), so a scene compiles only the kernels it launches. Diagnostics name "kernels/<file>.py".
// WEFT_KERNELS_DIR=<dir> reads the .py files from <dir> instead (for editing kernels without a
// rebuild).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/module.h"

namespace weft::engine {

// "kernels/<file>.py" -> its text, as embedded at build time.
const std::map<std::string, std::string>& embedded_kernel_sources();

// The kernel `name` of module `group` (above). Throws runtime::RuntimeError for an unknown group
// or kernel, compiler::CompileError if a kernel file does not compile.
runtime::Kernel solver_kernel(const std::string& group, const std::string& name);

// Every module group and its source files.
const std::map<std::string, std::vector<std::string>>& solver_module_groups();

// The compiled module of a group (compiling it on first use).
std::shared_ptr<runtime::Module> solver_module(const std::string& group);

}  // namespace weft::engine
