// engine/obj_reader.h: a minimal Wavefront OBJ reader for mesh collision shapes.
//
//   Mesh m = read_obj("scenes/pyramid.obj");     // ObjError on any mistake
//
// Reads `v x y z [w]` and `f a b c ...` lines; a face's entries may be `i`, `i/t`, `i//n` or
// `i/t/n` (only the position index i is used; negative indices count back from the last vertex),
// and a polygon of n > 3 corners becomes a fan of n - 2 triangles. Every other statement (vn, vt,
// o, g, s, usemtl, mtllib, l, ...) and `#` comments are skipped. Errors name the file, line and
// column: `scenes/x.obj:7:9: face index 12 is out of range (the file has 8 vertices before this line)`.
#pragma once

#include <stdexcept>
#include <string>

#include "engine/mesh_sdf.h"

namespace weft::engine {

struct ObjError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Mesh read_obj(const std::string& path);
// Parses `text` as if read from `path` (errors name `path`).
Mesh parse_obj(const std::string& text, const std::string& path);

}  // namespace weft::engine
