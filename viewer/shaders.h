// viewer/shaders.h: the GLSL 3.30 sources of the renderer's programs (viewer/renderer.cpp draws
// with them) and the call that compiles and links them.
//
//   mesh, depth, ground, volume   kMeshVertex with kMeshFragment, kDepthFragment, kGroundFragment,
//                                 kVolumeFragment (normals from an attribute or the normal pass)
//   particles                     kParticleVertex / kParticleFragment: sphere impostors, coloured
//                                 by an attribute or by the colour map of |value|
//   lines                         kLineVertex / kLineFragment
//   normal pass                   kNormalVertex / kNormalGeometry / kNormalFragment: face normals
//                                 added per vertex into a float texture
//   range pass                    kRangeVertex / kRangeFragment: the box and largest |value| of
//                                 vertex arrays by GL_MAX blending
//
// Every fragment shader that shades gets kLighting (Lambert, ambient, 3x3 PCF shadow) first, every
// vertex shader the `magnitude(value, width)` helper.
#pragma once

#include <GL/gl.h>

namespace weft::viewer::shaders {

extern const char* const kLighting;
extern const char* const kMeshVertex;
extern const char* const kMeshFragment;
extern const char* const kDepthFragment;
extern const char* const kGroundFragment;
extern const char* const kVolumeFragment;
extern const char* const kParticleVertex;
extern const char* const kParticleFragment;
extern const char* const kLineVertex;
extern const char* const kLineFragment;
extern const char* const kNormalVertex;
extern const char* const kNormalGeometry;
extern const char* const kNormalFragment;
extern const char* const kRangeVertex;
extern const char* const kRangeFragment;

// Compiles and links a program (GLSL 3.30 core; `lighting` prepends kLighting to the fragment
// shader, `geometry` may be null). Throws runtime::RuntimeError naming `name`, with the driver's log.
GLuint program(const char* vertex, const char* fragment, bool lighting, const char* name, const char* geometry = nullptr);

}  // namespace weft::viewer::shaders
