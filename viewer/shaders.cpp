// viewer/shaders.cpp: the GLSL sources of the renderer's programs (viewer/shaders.h) and their
// compilation.
#define GL_GLEXT_PROTOTYPES 1
#include "viewer/shaders.h"

#include <GL/glext.h>

#include <string>

#include "runtime/errors.h"

namespace weft::viewer::shaders {

namespace {

// |value|: the length of the first `width` floats of a vertex attribute (an attribute of fewer
// than 4 floats reads as (x, y, z, 1), so the rest must be masked off).
const char* kValueMagnitude = R"(
float magnitude(vec4 value, int width) {
    return length(value * vec4(lessThan(ivec4(0, 1, 2, 3), ivec4(width))));
}
)";

}  // namespace

// ---------------------------------------------------------------------------------------------
// Shaders. `LIGHTING` is prepended to every fragment shader that shades.
const char* const kLighting = R"(
uniform vec3 u_light;        // unit, towards the light
uniform float u_ambient;
uniform int u_use_shadow;
uniform mat4 u_light_vp;     // world -> light clip space
uniform sampler2DShadow u_shadow;

float lit_fraction(vec3 world, vec3 n) {
    if (u_use_shadow == 0) return 1.0;
    float slope = 1.0 - abs(dot(n, u_light));
    vec4 p = u_light_vp * vec4(world + n * (0.004 + 0.01 * slope), 1.0);
    vec3 s = p.xyz / p.w * 0.5 + 0.5;
    if (any(lessThan(s, vec3(0.0))) || any(greaterThan(s, vec3(1.0)))) return 1.0;
    float texel = 1.0 / float(textureSize(u_shadow, 0).x);
    float sum = 0.0;
    for (int dx = -1; dx <= 1; ++dx)
        for (int dy = -1; dy <= 1; ++dy) sum += texture(u_shadow, vec3(s.xy + vec2(dx, dy) * texel, s.z - 0.0015));
    return sum / 9.0;
}

vec3 shade(vec3 albedo, vec3 n, vec3 world) {
    float d = max(dot(n, u_light), 0.0) * lit_fraction(world, n);
    return albedo * (u_ambient + (1.0 - u_ambient) * d);
}
)";

// u_normal_texture = 1: the normals are not an attribute but were summed per vertex into
// u_normals by the normal pass (kNormalGeometry), vertex i at texel (i % width, i / width).
const char* const kMeshVertex = R"(
layout(location = 0) in vec3 a_pos;
layout(location = 1) in vec3 a_normal;
uniform mat4 u_vp;
uniform int u_normal_texture;
uniform sampler2D u_normals;
out vec3 v_world;
out vec3 v_normal;
void main() {
    v_world = a_pos;
    vec3 n = a_normal;
    if (u_normal_texture == 1) {
        int w = textureSize(u_normals, 0).x;
        n = texelFetch(u_normals, ivec2(gl_VertexID % w, gl_VertexID / w), 0).xyz;
        if (!(dot(n, n) > 0.0)) n = vec3(0.0, 1.0, 0.0);
    }
    v_normal = n;
    gl_Position = u_vp * vec4(a_pos, 1.0);
}
)";

// The normal pass of a mesh drawn from a vertex array: each triangle's unnormalised face normal is
// added (blending GL_ONE, GL_ONE into a float texture) to the texel of each of its three vertices,
// the same area-weighted sum as snapshot() makes on the host.
const char* const kNormalVertex = R"(
layout(location = 0) in vec3 a_pos;
out vec3 v_pos;
flat out int v_id;
void main() {
    v_pos = a_pos;
    v_id = gl_VertexID;
    gl_Position = vec4(0.0, 0.0, 0.0, 1.0);
}
)";

const char* const kNormalGeometry = R"(
layout(triangles) in;
layout(points, max_vertices = 3) out;
in vec3 v_pos[];
flat in int v_id[];
uniform ivec2 u_size;
out vec3 g_normal;
void main() {
    vec3 n = cross(v_pos[1] - v_pos[0], v_pos[2] - v_pos[0]);
    if (any(isnan(n)) || any(isinf(n))) return;
    for (int k = 0; k < 3; ++k) {
        vec2 texel = vec2(float(v_id[k] % u_size.x), float(v_id[k] / u_size.x)) + 0.5;
        gl_Position = vec4(texel / vec2(u_size) * 2.0 - 1.0, 0.0, 1.0);
        g_normal = n;
        EmitVertex();
        EndPrimitive();
    }
}
)";

const char* const kNormalFragment = R"(
in vec3 g_normal;
out vec4 o_sum;
void main() { o_sum = vec4(g_normal, 0.0); }
)";

// The range pass of vertex arrays: blending with GL_MAX into two texels of a float texture,
// texel 0 gets max(x + r) (xyz) and max |value| (w), texel 1 max(-x + r): the box around the
// particles with their radius and the largest value, without reading the vertices back.
const char* const kRangeVertex = R"(
layout(location = 0) in vec3 a_pos;
layout(location = 1) in float a_radius;
layout(location = 2) in vec4 a_value;
uniform int u_value_width;  // 0: no value
uniform float u_sign;       // +1: texel 0, -1: texel 1
flat out vec4 v_out;
void main() {
    bool bad = any(isnan(a_pos)) || any(isinf(a_pos));
    float value = u_value_width > 0 && u_sign > 0.0 ? magnitude(a_value, u_value_width) : -1e30;
    if (isnan(value) || isinf(value)) value = -1e30;
    v_out = bad ? vec4(-1e30, -1e30, -1e30, value) : vec4(u_sign * a_pos + vec3(a_radius), value);
    gl_Position = vec4(u_sign > 0.0 ? -0.5 : 0.5, 0.0, 0.0, 1.0);
}
)";

const char* const kRangeFragment = R"(
flat in vec4 v_out;
out vec4 o_max;
void main() { o_max = v_out; }
)";

const char* const kMeshFragment = R"(
in vec3 v_world;
in vec3 v_normal;
uniform vec3 u_color;
uniform vec3 u_back_color;
out vec4 o_color;
void main() {
    vec3 n = normalize(v_normal);
    vec3 albedo = u_color;
    if (!gl_FrontFacing) { n = -n; albedo = u_back_color; }
    o_color = vec4(shade(albedo, n, v_world), 1.0);
}
)";

const char* const kDepthFragment = R"(
void main() {}
)";

// Sphere impostors: one quad per instance in the plane through the centre facing the eye, wide
// enough to hold the sphere's silhouette; the fragment intersects its eye ray with the sphere.
// The colour map of frame_data.cpp's color_map(), for particles coloured on the GPU.
const char* const kParticleVertex = R"(
layout(location = 0) in vec2 a_corner;
layout(location = 1) in vec3 a_center;
layout(location = 2) in float a_radius;
layout(location = 3) in vec3 a_color;
layout(location = 4) in vec4 a_value;
uniform mat4 u_view;
uniform mat4 u_proj;
uniform int u_ortho;
uniform int u_value_width;  // 0: a_color; else the colour map of |a_value| (its first u_value_width floats)
uniform float u_value_lo;
uniform float u_value_hi;
vec3 color_map(float t) {
    const vec3 s0 = vec3(0.12, 0.15, 0.55), s1 = vec3(0.15, 0.40, 0.85), s2 = vec3(0.10, 0.70, 0.70);
    const vec3 s3 = vec3(0.45, 0.85, 0.30), s4 = vec3(0.98, 0.90, 0.15);
    t = (isnan(t) || isinf(t)) ? 0.0 : clamp(t, 0.0, 1.0) * 4.0;
    int i = min(int(t), 3);
    float f = t - float(i);
    vec3 a = i == 0 ? s0 : i == 1 ? s1 : i == 2 ? s2 : s3;
    vec3 b = i == 0 ? s1 : i == 1 ? s2 : i == 2 ? s3 : s4;
    return (1.0 - f) * a + f * b;
}
out vec3 v_eye;
flat out vec3 v_center;
flat out float v_radius;
flat out vec3 v_color;
void main() {
    vec3 c = (u_view * vec4(a_center, 1.0)).xyz;
    // The silhouette of a sphere seen from distance D spans r D / sqrt(D^2 - r^2) in that plane.
    float D = length(c);
    float grow = u_ortho == 1 ? 1.05 : min(1.5 * D / sqrt(max(D * D - a_radius * a_radius, 1e-12)), 8.0);
    v_eye = c + vec3(a_corner * a_radius * grow, 0.0);
    v_center = c;
    v_radius = a_radius;
    v_color = a_color;
    if (u_value_width > 0)
        v_color = color_map((magnitude(a_value, u_value_width) - u_value_lo) / max(u_value_hi - u_value_lo, 1e-12));
    gl_Position = u_proj * vec4(v_eye, 1.0);
}
)";

const char* const kParticleFragment = R"(
in vec3 v_eye;
flat in vec3 v_center;
flat in float v_radius;
flat in vec3 v_color;
uniform mat4 u_proj;
uniform mat4 u_view_inverse;
uniform int u_ortho;
uniform int u_depth_only;
out vec4 o_color;
void main() {
    vec3 o = u_ortho == 1 ? v_eye : vec3(0.0);
    vec3 d = u_ortho == 1 ? vec3(0.0, 0.0, -1.0) : normalize(v_eye);
    vec3 oc = o - v_center;
    float b = dot(oc, d);
    float disc = b * b - (dot(oc, oc) - v_radius * v_radius);
    if (disc < 0.0) discard;
    vec3 p = o + (-b - sqrt(disc)) * d;  // the nearer hit
    vec4 clip = u_proj * vec4(p, 1.0);
    gl_FragDepth = clip.z / clip.w * 0.5 + 0.5;
    if (u_depth_only == 1) { o_color = vec4(0.0); return; }
    vec3 n = mat3(u_view_inverse) * ((p - v_center) / v_radius);
    vec3 world = (u_view_inverse * vec4(p, 1.0)).xyz;
    o_color = vec4(shade(v_color, n, world), 1.0);
}
)";

const char* const kLineVertex = R"(
layout(location = 0) in vec3 a_pos;
uniform mat4 u_vp;
void main() { gl_Position = u_vp * vec4(a_pos, 1.0); }
)";

const char* const kLineFragment = R"(
uniform vec3 u_color;
out vec4 o_color;
void main() { o_color = vec4(u_color, 1.0); }
)";

// The ground: a large quad on the plane with anti-aliased lines every metre (darker) and every
// 10 m (darker still), fading into the background with distance.
const char* const kGroundFragment = R"(
in vec3 v_world;
in vec3 v_normal;
uniform vec3 u_color;
uniform vec3 u_tangent_u;
uniform vec3 u_tangent_v;
uniform vec3 u_eye;
uniform vec3 u_background;
uniform float u_fade;
out vec4 o_color;
float grid(vec2 uv, float cell) {
    vec2 g = abs(fract(uv / cell - 0.5) - 0.5) / fwidth(uv / cell);
    return 1.0 - clamp(min(g.x, g.y), 0.0, 1.0);
}
void main() {
    vec2 uv = vec2(dot(v_world, u_tangent_u), dot(v_world, u_tangent_v));
    vec3 albedo = u_color * (1.0 - 0.25 * grid(uv, 1.0)) * (1.0 - 0.25 * grid(uv, 10.0));
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    vec3 c = shade(albedo, n, v_world);
    float f = clamp(length(v_world - u_eye) / u_fade, 0.0, 1.0);
    o_color = vec4(mix(c, u_background, f * f), 1.0);
}
)";

// Volumes: the grid's box is drawn (its front faces, or its back faces from inside), and each
// fragment marches its eye ray through the box, summing the field (trilinear, clamped at the
// edges) at the centres of u_steps equal segments; the medium keeps exp(-sigma * integral) of
// what is behind it and adds its colour for the rest (premultiplied alpha).
const char* const kVolumeFragment = R"(
in vec3 v_world;
in vec3 v_normal;
uniform vec3 u_eye;
uniform vec3 u_lo;
uniform vec3 u_hi;
uniform sampler3D u_field;
uniform float u_sigma;       // 1/m per unit of field (already divided by the value drawn fully dense)
uniform vec3 u_color;
uniform int u_steps;
out vec4 o_color;
void main() {
    vec3 d = normalize(v_world - u_eye);
    vec3 inv = 1.0 / (abs(d) + vec3(1e-20)) * sign(d + vec3(1e-30));
    vec3 t0 = (u_lo - u_eye) * inv, t1 = (u_hi - u_eye) * inv;
    vec3 tn = min(t0, t1), tf = max(t0, t1);
    float ta = max(max(tn.x, tn.y), max(tn.z, 0.0));
    float tb = min(min(tf.x, tf.y), tf.z);
    if (tb <= ta) discard;
    float ds = (tb - ta) / float(u_steps);
    float sum = 0.0;
    for (int i = 0; i < u_steps; ++i) {
        vec3 p = u_eye + d * (ta + (float(i) + 0.5) * ds);
        sum += texture(u_field, (p - u_lo) / (u_hi - u_lo)).r;
    }
    float kept = exp(-u_sigma * sum * ds);
    o_color = vec4(u_color * (1.0 - kept), 1.0 - kept);
}
)";

namespace {

GLuint compile(GLenum kind, const std::string& source, const char* name) {
    GLuint s = glCreateShader(kind);
    const char* text = source.c_str();
    glShaderSource(s, 1, &text, nullptr);
    glCompileShader(s);
    GLint ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[4096] = {};
        glGetShaderInfoLog(s, sizeof log, nullptr, log);
        throw runtime::RuntimeError(std::string("viewer: the ") + name + " shader does not compile:\n" + log);
    }
    return s;
}

}  // namespace

GLuint program(const char* vertex, const char* fragment, bool lighting, const char* name, const char* geometry) {
    std::string header = "#version 330 core\n";
    GLuint p = glCreateProgram();
    GLuint vs = compile(GL_VERTEX_SHADER, header + kValueMagnitude + vertex, name);
    GLuint fs = compile(GL_FRAGMENT_SHADER, header + (lighting ? kLighting : "") + fragment, name);
    GLuint gs = geometry ? compile(GL_GEOMETRY_SHADER, header + geometry, name) : 0;
    glAttachShader(p, vs);
    glAttachShader(p, fs);
    if (gs) glAttachShader(p, gs);
    glLinkProgram(p);
    glDeleteShader(vs);
    glDeleteShader(fs);
    if (gs) glDeleteShader(gs);
    GLint ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[4096] = {};
        glGetProgramInfoLog(p, sizeof log, nullptr, log);
        throw runtime::RuntimeError(std::string("viewer: the ") + name + " shaders do not link:\n" + log);
    }
    return p;
}

}  // namespace weft::viewer::shaders
