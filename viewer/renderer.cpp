// viewer/renderer.cpp: buffers and the passes described in renderer.h (the GLSL is in shaders.cpp).
#define GL_GLEXT_PROTOTYPES 1
#include "viewer/renderer.h"

#include <GL/gl.h>
#include <GL/glext.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/device.h"
#include "runtime/errors.h"
#include "viewer/shaders.h"

namespace weft::viewer {

namespace {

using namespace shaders;
using Eigen::Matrix4f;
using Eigen::Vector3f;
constexpr int kShadowSize = 2048;

void set(GLuint p, const char* name, const Matrix4f& m) {
    glUniformMatrix4fv(glGetUniformLocation(p, name), 1, GL_FALSE, m.data());
}
void set(GLuint p, const char* name, const Vector3f& v) { glUniform3fv(glGetUniformLocation(p, name), 1, v.data()); }
void set(GLuint p, const char* name, float v) { glUniform1f(glGetUniformLocation(p, name), v); }
void set(GLuint p, const char* name, int v) { glUniform1i(glGetUniformLocation(p, name), v); }

template <class T>
void upload(GLuint buffer, GLenum target, const std::vector<T>& data) {
    glBindBuffer(target, buffer);
    glBufferData(target, GLsizeiptr(data.size() * sizeof(T)), data.data(), GL_STREAM_DRAW);
}

Matrix4f look_at(const Vector3f& eye, const Vector3f& at, const Vector3f& up_hint) {
    Vector3f f = (at - eye).normalized();
    Vector3f up = std::abs(f.dot(up_hint)) > 0.99f ? Vector3f(1, 0, 0) : up_hint;
    Vector3f s = f.cross(up).normalized(), u = s.cross(f);
    Matrix4f m = Matrix4f::Identity();
    m.block<1, 3>(0, 0) = s.transpose();
    m.block<1, 3>(1, 0) = u.transpose();
    m.block<1, 3>(2, 0) = -f.transpose();
    m(0, 3) = -s.dot(eye);
    m(1, 3) = -u.dot(eye);
    m(2, 3) = f.dot(eye);
    return m;
}

Matrix4f ortho(float half, float near_plane, float far_plane) {
    Matrix4f m = Matrix4f::Identity();
    m(0, 0) = m(1, 1) = 1.0f / half;
    m(2, 2) = -2.0f / (far_plane - near_plane);
    m(2, 3) = -(far_plane + near_plane) / (far_plane - near_plane);
    return m;
}

}  // namespace

struct Renderer::Impl {
    GLuint mesh = 0, depth = 0, particles = 0, lines = 0, ground = 0, volume = 0, normal_pass = 0, range_pass = 0;

    // Vertex buffers filled from the VertexArrays of the frame being drawn, one per distinct array
    // (particles, surfaces and lines of one State array share it): through CUDA-OpenGL interop for
    // a device array, by an upload for a host one. Kept between frames, grown when needed.
    struct ArrayBuffer {
        GLuint buffer = 0;
        size_t capacity = 0;
        std::unique_ptr<runtime::GraphicsResource> interop;  // registered with `device`; again after growing
        runtime::Device device;
    };
    std::vector<ArrayBuffer> array_buffers;
    std::vector<std::pair<const VertexArray*, GLuint>> filled;  // this frame's arrays and their buffers
    GLuint array_vao = 0, array_particle_vao = 0;

    GLuint array_buffer(const VertexArray& a) {
        for (const auto& [key, buffer] : filled)
            if (key == &a) return buffer;
        if (filled.size() == array_buffers.size()) {
            array_buffers.emplace_back();
            glGenBuffers(1, &array_buffers.back().buffer);
        }
        ArrayBuffer& b = array_buffers[filled.size()];
        const size_t bytes = std::max<size_t>(a.bytes(), 16);
        glBindBuffer(GL_ARRAY_BUFFER, b.buffer);
        if (bytes > b.capacity) {
            b.interop.reset();  // a registration is of the buffer's storage, which glBufferData replaces
            glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), nullptr, GL_DYNAMIC_DRAW);
            b.capacity = bytes;
        }
        if (a.device.valid()) {
            if (!b.interop || b.device != a.device.device()) {
                b.interop.reset();
                b.interop = runtime::backend(a.device.device()).register_gl_buffer(b.buffer);
                b.device = a.device.device();
            }
            b.interop->copy_from(a.device.data(), a.bytes(), a.ready.get());
        } else if (a.bytes()) {
            glBufferSubData(GL_ARRAY_BUFFER, 0, GLsizeiptr(a.bytes()), a.host.data());
        }
        filled.push_back({&a, b.buffer});
        return b.buffer;
    }

    // Attribute `location` of the bound VAO read from array `a` (null: the constant `fallback`).
    void bind_array(GLuint location, const VertexArrayRef& a, const Eigen::Vector4f& fallback, int divisor) {
        if (!a) {
            glDisableVertexAttribArray(location);
            glVertexAttrib4fv(location, fallback.data());
            return;
        }
        glBindBuffer(GL_ARRAY_BUFFER, array_buffer(*a));
        glVertexAttribPointer(location, a->width, GL_FLOAT, GL_FALSE, 0, nullptr);
        glEnableVertexAttribArray(location);
        glVertexAttribDivisor(location, GLuint(divisor));
    }

    // The range pass's target (two texels per range), and what it found for each particle set of
    // the frame being drawn.
    GLuint range_fbo = 0, range_texture = 0;
    int range_slots = 0;
    struct Range3 {
        Vector3f lo = Vector3f::Constant(INFINITY), hi = Vector3f::Constant(-INFINITY);
        float value_hi = 0.0f;
    };
    std::vector<float> value_hi;  // per particle set, as drawn (Renderer::last_value_ranges)
    struct RangeJob {
        VertexArrayRef positions, radius, value;
    };

    // For each job, the box of its positions (each grown by its radius) and its largest |value|,
    // found on the GPU in one pass and read back once.
    std::vector<Range3> gpu_ranges(const std::vector<RangeJob>& jobs) {
        std::vector<Range3> out(jobs.size());
        if (jobs.empty()) return out;
        const int slots = int(jobs.size());
        glBindTexture(GL_TEXTURE_2D, range_texture);
        if (slots > range_slots) {
            glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, 2 * slots, 1, 0, GL_RGBA, GL_FLOAT, nullptr);
            range_slots = slots;
        }
        glBindFramebuffer(GL_FRAMEBUFFER, range_fbo);
        glViewport(0, 0, 2 * range_slots, 1);
        const float clear[4] = {-1e30f, -1e30f, -1e30f, -1e30f};
        glClearBufferfv(GL_COLOR, 0, clear);
        glDisable(GL_DEPTH_TEST);
        glEnable(GL_BLEND);
        glBlendEquation(GL_MAX);
        glBlendFunc(GL_ONE, GL_ONE);
        glUseProgram(range_pass);
        glBindVertexArray(array_vao);
        for (int k = 0; k < slots; ++k) {
            const RangeJob& j = jobs[size_t(k)];
            glViewport(2 * k, 0, 2, 1);  // this job's two texels
            bind_array(0, j.positions, Eigen::Vector4f::Zero(), 0);
            bind_array(1, j.radius, Eigen::Vector4f::Zero(), 0);
            bind_array(2, j.value, Eigen::Vector4f::Zero(), 0);
            set(range_pass, "u_value_width", j.value ? j.value->width : 0);
            for (float sign : {1.0f, -1.0f}) {
                set(range_pass, "u_sign", sign);
                glDrawArrays(GL_POINTS, 0, GLsizei(j.positions->count));
            }
        }
        for (GLuint k : {0u, 1u, 2u}) glDisableVertexAttribArray(k);
        std::vector<float> texels(size_t(8 * slots));
        glReadPixels(0, 0, 2 * slots, 1, GL_RGBA, GL_FLOAT, texels.data());
        glBlendEquation(GL_FUNC_ADD);
        glDisable(GL_BLEND);
        glEnable(GL_DEPTH_TEST);
        for (int k = 0; k < slots; ++k) {
            const float* t = &texels[size_t(8 * k)];
            Range3& r = out[size_t(k)];
            if (t[0] > -1e29f) {
                r.hi = Vector3f(t[0], t[1], t[2]);
                r.lo = -Vector3f(t[4], t[5], t[6]);
            }
            r.value_hi = t[3] > 0.0f ? t[3] : 0.0f;
        }
        return out;
    }

    // Per-vertex normals of meshes drawn from vertex arrays (kNormalGeometry), one texture each.
    struct NormalTarget {
        GLuint fbo = 0, texture = 0;
        int width = 0, height = 0;
    };
    std::vector<NormalTarget> normal_targets;
    static constexpr int kNormalTextureWidth = 1024;

    GLuint vertex_normals(size_t slot, const MeshData& m, GLuint indices) {
        if (slot == normal_targets.size()) {
            normal_targets.emplace_back();
            glGenFramebuffers(1, &normal_targets.back().fbo);
            glGenTextures(1, &normal_targets.back().texture);
        }
        NormalTarget& t = normal_targets[slot];
        const int count = int(std::max<size_t>(m.position_array->count, 1));
        const int width = std::min(count, kNormalTextureWidth), height = (count + width - 1) / width;
        glBindTexture(GL_TEXTURE_2D, t.texture);
        if (width != t.width || height != t.height) {
            glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, width, height, 0, GL_RGBA, GL_FLOAT, nullptr);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
            glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
            glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t.texture, 0);
            t.width = width, t.height = height;
        }
        glBindFramebuffer(GL_FRAMEBUFFER, t.fbo);
        glViewport(0, 0, width, height);
        const float zero[4] = {0, 0, 0, 0};
        glClearBufferfv(GL_COLOR, 0, zero);
        glDisable(GL_DEPTH_TEST);
        glEnable(GL_BLEND);
        glBlendEquation(GL_FUNC_ADD);
        glBlendFunc(GL_ONE, GL_ONE);
        glUseProgram(normal_pass);
        glUniform2i(glGetUniformLocation(normal_pass, "u_size"), width, height);
        glBindVertexArray(array_vao);
        bind_array(0, m.position_array, Eigen::Vector4f::Zero(), 0);
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, indices);
        glDrawElements(GL_TRIANGLES, GLsizei(m.indices.size()), GL_UNSIGNED_INT, nullptr);
        glDisable(GL_BLEND);
        glEnable(GL_DEPTH_TEST);
        return t.texture;
    }
    GLuint volume_texture = 0;
    GLuint offscreen_fbo = 0, offscreen_color = 0, offscreen_depth = 0;  // render_offscreen's target
    // Line indices kept uploaded while their storage lives (IndexList::storage): a model's springs
    // are uploaded once, not every frame. Entries whose storage died are dropped each render.
    struct KeptIndices {
        std::weak_ptr<const std::vector<uint32_t>> storage;
        GLuint buffer = 0;
    };
    std::vector<KeptIndices> kept_indices;

    GLuint line_indices(const IndexList& list) {
        auto storage = list.storage();
        for (KeptIndices& k : kept_indices)
            if (!k.storage.owner_before(storage) && !storage.owner_before(k.storage)) return k.buffer;
        KeptIndices k;
        k.storage = storage;
        glGenBuffers(1, &k.buffer);
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, k.buffer);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER, GLsizeiptr(list.size() * sizeof(uint32_t)), list.data(), GL_STATIC_DRAW);
        kept_indices.push_back(k);
        return k.buffer;
    }
    void drop_dead_indices() {
        for (size_t i = 0; i < kept_indices.size();)
            if (kept_indices[i].storage.expired()) {
                glDeleteBuffers(1, &kept_indices[i].buffer);
                kept_indices[i] = kept_indices.back();
                kept_indices.pop_back();
            } else {
                ++i;
            }
    }
    int offscreen_width = 0, offscreen_height = 0, offscreen_samples = 0;
    GLuint vao = 0, position_buffer = 0, normal_buffer = 0, index_buffer = 0;
    GLuint particle_vao = 0, corner_buffer = 0, center_buffer = 0, radius_buffer = 0, color_buffer = 0;
    GLuint shadow_fbo = 0, shadow_texture = 0;
    // What the shadow map holds: the snapshot and the light (see FrameData::serial).
    uint64_t shadow_serial = 0;
    Vector3f shadow_light = Vector3f::Zero();

    // Uploaded meshes of the frame being drawn (one buffer set, drawn range by range).
    struct Range {
        const MeshData* mesh;
        GLint first_vertex;
        size_t first_index, count;
    };

    void bind_lighting(GLuint p, const Vector3f& light, const Matrix4f& light_vp, const RenderOptions& o) {
        set(p, "u_light", light);
        set(p, "u_ambient", o.ambient);
        set(p, "u_use_shadow", o.shadows ? 1 : 0);
        set(p, "u_light_vp", light_vp);
        set(p, "u_shadow", 0);
    }

    void draw_meshes(const std::vector<Range>& ranges, GLuint p, bool colors) {
        glBindVertexArray(vao);
        for (const Range& r : ranges) {
            if (colors) {
                set(p, "u_color", r.mesh->color);
                set(p, "u_back_color", r.mesh->back_color);
            }
            glDrawElementsBaseVertex(GL_TRIANGLES, GLsizei(r.count), GL_UNSIGNED_INT,
                                     reinterpret_cast<void*>(r.first_index * sizeof(uint32_t)), r.first_vertex);
        }
    }

    void draw_particles(const FrameData& frame, GLuint p) {
        for (size_t k = 0; k < frame.particles.size(); ++k) {
            const ParticleData& d = frame.particles[k];
            if (d.position_array) {
                if (!d.position_array->count) continue;
                glBindVertexArray(array_particle_vao);
                bind_array(1, d.position_array, Eigen::Vector4f::Zero(), 1);
                bind_array(2, d.radius_array, Eigen::Vector4f::Zero(), 1);
                bind_array(3, nullptr, Eigen::Vector4f(d.uniform.x(), d.uniform.y(), d.uniform.z(), 1.0f), 1);
                bind_array(4, d.value_array, Eigen::Vector4f::Zero(), 1);
                set(p, "u_value_width", d.value_array ? d.value_array->width : 0);
                set(p, "u_value_lo", d.value_lo);
                set(p, "u_value_hi", k < value_hi.size() ? value_hi[k] : d.value_hi);
                glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, GLsizei(d.position_array->count));
                continue;
            }
            if (d.positions.empty()) continue;
            glBindVertexArray(particle_vao);
            set(p, "u_value_width", 0);
            upload(center_buffer, GL_ARRAY_BUFFER, d.positions);
            upload(radius_buffer, GL_ARRAY_BUFFER, d.radius);
            upload(color_buffer, GL_ARRAY_BUFFER, d.colors);
            glDrawArraysInstanced(GL_TRIANGLE_STRIP, 0, 4, GLsizei(d.positions.size()));
        }
    }

    // Meshes drawn from vertex arrays: `normals` (one texture each, 0 for none: the shadow pass).
    void draw_array_meshes(const FrameData& frame, const std::vector<GLuint>& normals, GLuint p, bool colors) {
        size_t slot = 0;
        for (const MeshData& m : frame.meshes) {
            if (!m.position_array || m.indices.empty()) continue;
            glBindVertexArray(array_vao);
            bind_array(0, m.position_array, Eigen::Vector4f::Zero(), 0);
            bind_array(1, nullptr, Eigen::Vector4f(0, 1, 0, 0), 0);
            glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, line_indices(m.indices));
            GLuint texture = slot < normals.size() ? normals[slot] : 0;
            ++slot;
            set(p, "u_normal_texture", texture ? 1 : 0);
            glActiveTexture(GL_TEXTURE2);
            glBindTexture(GL_TEXTURE_2D, texture);
            glActiveTexture(GL_TEXTURE0);
            if (colors) {
                set(p, "u_color", m.color);
                set(p, "u_back_color", m.back_color);
            }
            glDrawElements(GL_TRIANGLES, GLsizei(m.indices.size()), GL_UNSIGNED_INT, nullptr);
        }
        set(p, "u_normal_texture", 0);
    }
};

Renderer::Renderer() : impl_(std::make_unique<Impl>()) {
    GLint major = 0, minor = 0;
    glGetIntegerv(GL_MAJOR_VERSION, &major);
    glGetIntegerv(GL_MINOR_VERSION, &minor);
    if (major * 10 + minor < 33)
        throw runtime::RuntimeError("viewer: needs OpenGL 3.3 core, the context is " + std::to_string(major) + "." +
                                    std::to_string(minor));
    Impl& g = *impl_;
    g.mesh = program(kMeshVertex, kMeshFragment, true, "mesh");
    g.depth = program(kMeshVertex, kDepthFragment, false, "shadow");
    g.particles = program(kParticleVertex, kParticleFragment, true, "particle");
    g.lines = program(kLineVertex, kLineFragment, false, "line");
    g.ground = program(kMeshVertex, kGroundFragment, true, "ground");
    g.volume = program(kMeshVertex, kVolumeFragment, false, "volume");
    g.normal_pass = program(kNormalVertex, kNormalFragment, false, "normal", kNormalGeometry);
    g.range_pass = program(kRangeVertex, kRangeFragment, false, "range");
    // The normals texture is on unit 2 (0: the shadow map, 1: volumes): two samplers of different
    // types on one unit make a draw fail.
    for (GLuint p : {g.mesh, g.depth, g.ground, g.volume}) {
        glUseProgram(p);
        set(p, "u_normals", 2);
        set(p, "u_normal_texture", 0);
    }
    glUseProgram(0);
    glGenTextures(1, &g.volume_texture);

    glGenVertexArrays(1, &g.array_vao);
    glGenVertexArrays(1, &g.array_particle_vao);
    glGenFramebuffers(1, &g.range_fbo);
    glGenTextures(1, &g.range_texture);
    glBindTexture(GL_TEXTURE_2D, g.range_texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA32F, 2, 1, 0, GL_RGBA, GL_FLOAT, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindFramebuffer(GL_FRAMEBUFFER, g.range_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, g.range_texture, 0);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);

    glGenVertexArrays(1, &g.vao);
    glBindVertexArray(g.vao);
    glGenBuffers(1, &g.position_buffer);
    glGenBuffers(1, &g.normal_buffer);
    glGenBuffers(1, &g.index_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, g.position_buffer);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
    glEnableVertexAttribArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, g.normal_buffer);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 0, nullptr);
    glEnableVertexAttribArray(1);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.index_buffer);

    glGenVertexArrays(1, &g.particle_vao);
    glBindVertexArray(g.particle_vao);
    const float corners[] = {-1, -1, 1, -1, -1, 1, 1, 1};
    glGenBuffers(1, &g.corner_buffer);
    glBindBuffer(GL_ARRAY_BUFFER, g.corner_buffer);
    glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glEnableVertexAttribArray(0);
    GLuint* instanced[] = {&g.center_buffer, &g.radius_buffer, &g.color_buffer};
    const int widths[] = {3, 1, 3};
    for (int k = 0; k < 3; ++k) {
        glGenBuffers(1, instanced[k]);
        glBindBuffer(GL_ARRAY_BUFFER, *instanced[k]);
        glVertexAttribPointer(GLuint(k + 1), widths[k], GL_FLOAT, GL_FALSE, 0, nullptr);
        glEnableVertexAttribArray(GLuint(k + 1));
        glVertexAttribDivisor(GLuint(k + 1), 1);
    }
    glBindVertexArray(g.array_particle_vao);  // the corners; the instanced attributes are bound per draw
    glBindBuffer(GL_ARRAY_BUFFER, g.corner_buffer);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, nullptr);
    glEnableVertexAttribArray(0);
    glBindVertexArray(0);

    glGenTextures(1, &g.shadow_texture);
    glBindTexture(GL_TEXTURE_2D, g.shadow_texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, kShadowSize, kShadowSize, 0, GL_DEPTH_COMPONENT, GL_FLOAT, nullptr);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_MODE, GL_COMPARE_REF_TO_TEXTURE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_COMPARE_FUNC, GL_LEQUAL);
    glGenFramebuffers(1, &g.shadow_fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, g.shadow_fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, g.shadow_texture, 0);
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}

Renderer::~Renderer() {
    Impl& g = *impl_;
    for (GLuint p : {g.mesh, g.depth, g.particles, g.lines, g.ground, g.volume, g.normal_pass, g.range_pass}) glDeleteProgram(p);
    glDeleteTextures(1, &g.volume_texture);
    for (Impl::ArrayBuffer& b : g.array_buffers) {
        b.interop.reset();  // unregistered before the buffer goes
        glDeleteBuffers(1, &b.buffer);
    }
    for (const Impl::NormalTarget& t : g.normal_targets) {
        glDeleteFramebuffers(1, &t.fbo);
        glDeleteTextures(1, &t.texture);
    }
    glDeleteVertexArrays(1, &g.array_vao);
    glDeleteVertexArrays(1, &g.array_particle_vao);
    glDeleteFramebuffers(1, &g.range_fbo);
    glDeleteTextures(1, &g.range_texture);
    for (const Impl::KeptIndices& k : g.kept_indices) glDeleteBuffers(1, &k.buffer);
    if (g.offscreen_fbo) {
        glDeleteFramebuffers(1, &g.offscreen_fbo);
        glDeleteRenderbuffers(1, &g.offscreen_color);
        glDeleteRenderbuffers(1, &g.offscreen_depth);
    }
    GLuint buffers[] = {g.position_buffer, g.normal_buffer, g.index_buffer, g.corner_buffer,
                        g.center_buffer,   g.radius_buffer, g.color_buffer};
    glDeleteBuffers(7, buffers);
    glDeleteVertexArrays(1, &g.vao);
    glDeleteVertexArrays(1, &g.particle_vao);
    glDeleteFramebuffers(1, &g.shadow_fbo);
    glDeleteTextures(1, &g.shadow_texture);
}

void Renderer::render(const FrameData& frame, const OrbitCamera& camera, int width, int height, const RenderOptions& o) {
    Impl& g = *impl_;
    GLint target = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &target);

    // Vertex arrays: into this frame's buffers; their box and value ranges found on the GPU.
    g.filled.clear();
    g.value_hi.assign(frame.particles.size(), 0.0f);
    Vector3f lo, hi;
    bool any = frame.bounds(lo, hi, true);
    auto grow = [&](const Impl::Range3& r) {
        if (!(r.lo.array() <= r.hi.array()).all()) return;
        lo = any ? lo.cwiseMin(r.lo) : r.lo;
        hi = any ? hi.cwiseMax(r.hi) : r.hi;
        any = true;
    };
    // One range per distinct positions array (particles first: their radius and value ranges).
    std::vector<Impl::RangeJob> jobs;
    std::vector<int> particle_job(frame.particles.size(), -1);
    auto job_of = [&](const VertexArrayRef& positions) {
        for (size_t k = 0; k < jobs.size(); ++k)
            if (jobs[k].positions == positions) return int(k);
        return -1;
    };
    for (size_t k = 0; k < frame.particles.size(); ++k) {
        const ParticleData& p = frame.particles[k];
        g.value_hi[k] = p.value_hi;
        if (!p.position_array || !p.position_array->count) continue;
        const bool auto_range = p.value_array && !(p.value_hi > p.value_lo);
        particle_job[k] = int(jobs.size());
        jobs.push_back({p.position_array, p.radius_array, auto_range ? p.value_array : nullptr});
    }
    for (const MeshData& m : frame.meshes)
        if (m.position_array && m.position_array->count && !m.indices.empty() && job_of(m.position_array) < 0)
            jobs.push_back({m.position_array, nullptr, nullptr});
    for (const LineData& l : frame.lines)
        if (l.position_array && l.position_array->count && !l.indices.empty() && job_of(l.position_array) < 0)
            jobs.push_back({l.position_array, nullptr, nullptr});
    std::vector<Impl::Range3> found = g.gpu_ranges(jobs);
    for (const Impl::Range3& r : found) grow(r);
    for (size_t k = 0; k < frame.particles.size(); ++k)
        if (particle_job[k] >= 0 && jobs[size_t(particle_job[k])].value) g.value_hi[k] = found[size_t(particle_job[k])].value_hi;
    std::vector<GLuint> normal_textures;
    for (const MeshData& m : frame.meshes) {
        if (!m.position_array || m.indices.empty()) continue;
        normal_textures.push_back(g.vertex_normals(normal_textures.size(), m, g.line_indices(m.indices)));
    }
    glBindFramebuffer(GL_FRAMEBUFFER, GLuint(target));

    // Scene bounds: the shadow box and the ground's size.
    if (!any) lo = hi = camera.target;
    Vector3f center = 0.5f * (lo + hi);
    float radius = std::max(0.5f * (hi - lo).norm(), 0.5f);

    // All meshes in one buffer set; the ground is the last range.
    std::vector<Vector3f> positions, normals;
    std::vector<uint32_t> indices;
    std::vector<Impl::Range> ranges;
    auto add = [&](const MeshData& m) {
        if (m.position_array) return;  // drawn from its array (draw_array_meshes)
        ranges.push_back({&m, GLint(positions.size()), indices.size(), m.indices.size()});
        positions.insert(positions.end(), m.positions.begin(), m.positions.end());
        normals.insert(normals.end(), m.normals.begin(), m.normals.end());
        indices.insert(indices.end(), m.indices.begin(), m.indices.end());
    };
    for (const MeshData& m : frame.meshes) add(m);
    MeshData ground;
    Vector3f tangent_u, tangent_v;
    const bool draw_ground = o.grid && frame.ground && frame.ground_plane.head<3>().norm() > 0;
    if (draw_ground) {
        Vector3f n = frame.ground_plane.head<3>().normalized();
        Vector3f origin = -n * frame.ground_plane[3] / frame.ground_plane.head<3>().norm();
        tangent_u = (std::abs(n.x()) < 0.9f ? Vector3f(1, 0, 0) : Vector3f(0, 0, 1)).cross(n).normalized();
        tangent_v = n.cross(tangent_u);
        Vector3f c = origin + tangent_u * tangent_u.dot(center - origin) + tangent_v * tangent_v.dot(center - origin);
        float half = std::max(50.0f, 20.0f * radius);
        for (int k = 0; k < 4; ++k) {
            float su = (k & 1) ? 1.0f : -1.0f, sv = (k & 2) ? 1.0f : -1.0f;
            ground.positions.push_back(c + half * (su * tangent_u + sv * tangent_v));
            ground.normals.push_back(n);
        }
        ground.indices = {0, 1, 2, 1, 3, 2};  // counter-clockwise seen from the normal side
    }
    const size_t scene_ranges = ranges.size();
    if (draw_ground) add(ground);
    glBindVertexArray(g.vao);
    upload(g.position_buffer, GL_ARRAY_BUFFER, positions);
    upload(g.normal_buffer, GL_ARRAY_BUFFER, normals);
    upload(g.index_buffer, GL_ELEMENT_ARRAY_BUFFER, indices);
    std::vector<Impl::Range> scene(ranges.begin(), ranges.begin() + long(scene_ranges));

    // Pass 1: the shadow map, an orthographic view along the light around the scene's sphere.
    Vector3f light = o.light_direction.normalized();
    Matrix4f light_view = look_at(center + 3.0f * radius * light, center, Vector3f(0, 1, 0));
    Matrix4f light_proj = ortho(1.05f * radius, 0.5f * radius, 5.5f * radius);
    Matrix4f light_vp = light_proj * light_view;
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LESS);
    glDepthMask(GL_TRUE);
    glDisable(GL_CULL_FACE);
    glDisable(GL_BLEND);
    const bool shadow_current = frame.serial != 0 && frame.serial == g.shadow_serial && light == g.shadow_light;
    if (o.shadows && !shadow_current) {
        g.shadow_serial = frame.serial;
        g.shadow_light = light;
        glBindFramebuffer(GL_FRAMEBUFFER, g.shadow_fbo);
        glViewport(0, 0, kShadowSize, kShadowSize);
        glClear(GL_DEPTH_BUFFER_BIT);
        glEnable(GL_POLYGON_OFFSET_FILL);
        glPolygonOffset(2.0f, 4.0f);
        glUseProgram(g.depth);
        set(g.depth, "u_vp", light_vp);
        g.draw_meshes(scene, g.depth, false);
        g.draw_array_meshes(frame, {}, g.depth, false);
        glUseProgram(g.particles);
        set(g.particles, "u_view", light_view);
        set(g.particles, "u_proj", light_proj);
        set(g.particles, "u_view_inverse", Matrix4f(light_view.inverse()));
        set(g.particles, "u_ortho", 1);
        set(g.particles, "u_depth_only", 1);
        g.draw_particles(frame, g.particles);
        glDisable(GL_POLYGON_OFFSET_FILL);
        glBindFramebuffer(GL_FRAMEBUFFER, GLuint(target));
    }

    // Pass 2: colour.
    glViewport(0, 0, width, height);
    glClearColor(o.background.x(), o.background.y(), o.background.z(), 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, g.shadow_texture);
    Matrix4f view = camera.view(), proj = camera.projection(float(width) / float(std::max(height, 1)));
    Matrix4f vp = proj * view;

    glUseProgram(g.mesh);
    set(g.mesh, "u_vp", vp);
    g.bind_lighting(g.mesh, light, light_vp, o);
    g.draw_meshes(scene, g.mesh, true);
    g.draw_array_meshes(frame, normal_textures, g.mesh, true);

    if (draw_ground) {
        glUseProgram(g.ground);
        set(g.ground, "u_vp", vp);
        g.bind_lighting(g.ground, light, light_vp, o);
        set(g.ground, "u_color", o.ground_color);
        set(g.ground, "u_tangent_u", tangent_u);
        set(g.ground, "u_tangent_v", tangent_v);
        set(g.ground, "u_eye", Vector3f(camera.eye()));
        set(g.ground, "u_background", o.background);
        set(g.ground, "u_fade", std::max(40.0f, 15.0f * radius));
        g.draw_meshes({ranges.back()}, g.ground, false);
    }

    glUseProgram(g.particles);
    set(g.particles, "u_view", view);
    set(g.particles, "u_proj", proj);
    set(g.particles, "u_view_inverse", Matrix4f(view.inverse()));
    set(g.particles, "u_ortho", 0);
    set(g.particles, "u_depth_only", 0);
    g.bind_lighting(g.particles, light, light_vp, o);
    g.draw_particles(frame, g.particles);

    glUseProgram(g.lines);
    set(g.lines, "u_vp", vp);
    glBindVertexArray(g.vao);
    g.drop_dead_indices();
    for (const LineData& l : frame.lines) {
        if (l.indices.empty()) continue;
        if (l.position_array) {
            glBindVertexArray(g.array_vao);
            g.bind_array(0, l.position_array, Eigen::Vector4f::Zero(), 0);
        } else {
            glBindVertexArray(g.vao);
            upload(g.position_buffer, GL_ARRAY_BUFFER, l.positions);
        }
        glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.line_indices(l.indices));
        set(g.lines, "u_color", l.color);
        glDrawElements(GL_LINES, GLsizei(l.indices.size()), GL_UNSIGNED_INT, nullptr);
    }
    glBindVertexArray(g.vao);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g.index_buffer);  // the vao's own, for the next frame's meshes

    // Volumes last: they are translucent, and blend over everything opaque in front of or behind
    // them (depth-tested against what is in front, not against what is inside them).
    for (const VolumeData& v : frame.volumes) {
        const size_t cells = size_t(v.dims[0]) * size_t(v.dims[1]) * size_t(v.dims[2]);
        if (cells == 0 || v.values.size() != cells) continue;
        Vector3f vlo = v.origin, vhi = v.origin + v.cell * Vector3f(float(v.dims[0]), float(v.dims[1]), float(v.dims[2]));
        glActiveTexture(GL_TEXTURE1);
        glBindTexture(GL_TEXTURE_3D, g.volume_texture);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexImage3D(GL_TEXTURE_3D, 0, GL_R32F, v.dims[0], v.dims[1], v.dims[2], 0, GL_RED, GL_FLOAT, v.values.data());
        glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
        glTexParameteri(GL_TEXTURE_3D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
        for (GLenum wrap : {GL_TEXTURE_WRAP_S, GL_TEXTURE_WRAP_T, GL_TEXTURE_WRAP_R})
            glTexParameteri(GL_TEXTURE_3D, wrap, GL_CLAMP_TO_EDGE);
        glActiveTexture(GL_TEXTURE0);
        std::vector<Vector3f> corners(8), normals(8, Vector3f::UnitY());
        for (int k = 0; k < 8; ++k)
            corners[size_t(k)] = Vector3f(k & 1 ? vhi.x() : vlo.x(), k & 2 ? vhi.y() : vlo.y(), k & 4 ? vhi.z() : vlo.z());
        // Twelve triangles, each counter-clockwise seen from outside the box.
        const std::vector<uint32_t> box = {0, 2, 1, 1, 2, 3, 4, 5, 6, 5, 7, 6, 0, 1, 4, 1, 5, 4,
                                           2, 6, 3, 3, 6, 7, 0, 4, 2, 2, 4, 6, 1, 3, 5, 3, 7, 5};
        glBindVertexArray(g.vao);
        upload(g.position_buffer, GL_ARRAY_BUFFER, corners);
        upload(g.normal_buffer, GL_ARRAY_BUFFER, normals);
        upload(g.index_buffer, GL_ELEMENT_ARRAY_BUFFER, box);
        const Vector3f eye = camera.eye();
        const bool inside = (eye.array() > vlo.array()).all() && (eye.array() < vhi.array()).all();
        glUseProgram(g.volume);
        set(g.volume, "u_vp", vp);
        set(g.volume, "u_eye", eye);
        set(g.volume, "u_lo", vlo);
        set(g.volume, "u_hi", vhi);
        set(g.volume, "u_field", 1);
        set(g.volume, "u_sigma", v.sigma() / v.value_hi);
        set(g.volume, "u_color", v.color);
        set(g.volume, "u_steps", std::clamp(2 * std::max({v.dims[0], v.dims[1], v.dims[2]}), 16, 256));
        glEnable(GL_CULL_FACE);
        glCullFace(inside ? GL_FRONT : GL_BACK);
        if (inside) glDisable(GL_DEPTH_TEST);
        glDepthMask(GL_FALSE);
        glEnable(GL_BLEND);
        glBlendFunc(GL_ONE, GL_ONE_MINUS_SRC_ALPHA);
        glDrawElements(GL_TRIANGLES, GLsizei(box.size()), GL_UNSIGNED_INT, nullptr);
        glDisable(GL_BLEND);
        glDepthMask(GL_TRUE);
        glEnable(GL_DEPTH_TEST);
        glDisable(GL_CULL_FACE);
    }
    glBindVertexArray(0);
    glUseProgram(0);
}

const std::vector<float>& Renderer::last_value_ranges() const { return impl_->value_hi; }

Image Renderer::render_image(const FrameData& frame, const OrbitCamera& camera, int width, int height, const RenderOptions& o) {
    if (width <= 0 || height <= 0 || width > 16384 || height > 16384)
        throw runtime::RuntimeError("viewer: cannot render a " + std::to_string(width) + " x " + std::to_string(height) +
                                    " image (1 to 16384 pixels a side)");
    GLint previous = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous);
    int samples = std::max(o.samples, 1);
    // A multisampled framebuffer drawn into, resolved into a plain one that is read back.
    GLuint fbo[2], color[2], depth = 0;
    glGenFramebuffers(2, fbo);
    glGenRenderbuffers(2, color);
    glGenRenderbuffers(1, &depth);
    glBindRenderbuffer(GL_RENDERBUFFER, color[0]);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
    glBindRenderbuffer(GL_RENDERBUFFER, depth);
    glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color[0]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth);
    glBindRenderbuffer(GL_RENDERBUFFER, color[1]);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo[1]);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color[1]);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo[0]);
    if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        throw runtime::RuntimeError("viewer: the offscreen framebuffer is incomplete");
    render(frame, camera, width, height, o);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo[0]);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo[1]);
    glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo[1]);
    Image image;
    image.width = width;
    image.height = height;
    image.rgba.resize(size_t(width) * size_t(height) * 4);
    std::vector<uint8_t> flipped(image.rgba.size());
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, flipped.data());
    size_t row = size_t(width) * 4;
    for (int y = 0; y < height; ++y) std::memcpy(&image.rgba[row * size_t(y)], &flipped[row * size_t(height - 1 - y)], row);
    glBindFramebuffer(GL_FRAMEBUFFER, GLuint(previous));
    glDeleteFramebuffers(2, fbo);
    glDeleteRenderbuffers(2, color);
    glDeleteRenderbuffers(1, &depth);
    return image;
}

void Renderer::render_offscreen(const FrameData& frame, const OrbitCamera& camera, int width, int height,
                                const RenderOptions& o) {
    Impl& g = *impl_;
    const int samples = std::max(o.samples, 1);
    if (!g.offscreen_fbo || g.offscreen_width != width || g.offscreen_height != height || g.offscreen_samples != samples) {
        if (!g.offscreen_fbo) {
            glGenFramebuffers(1, &g.offscreen_fbo);
            glGenRenderbuffers(1, &g.offscreen_color);
            glGenRenderbuffers(1, &g.offscreen_depth);
        }
        glBindRenderbuffer(GL_RENDERBUFFER, g.offscreen_color);
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_RGBA8, width, height);
        glBindRenderbuffer(GL_RENDERBUFFER, g.offscreen_depth);
        glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples, GL_DEPTH_COMPONENT24, width, height);
        glBindFramebuffer(GL_FRAMEBUFFER, g.offscreen_fbo);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, g.offscreen_color);
        glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, g.offscreen_depth);
        if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
            throw runtime::RuntimeError("viewer: the offscreen framebuffer is incomplete");
        g.offscreen_width = width, g.offscreen_height = height, g.offscreen_samples = samples;
    }
    GLint previous = 0;
    glGetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &previous);
    glBindFramebuffer(GL_FRAMEBUFFER, g.offscreen_fbo);
    render(frame, camera, width, height, o);
    glFinish();
    glBindFramebuffer(GL_FRAMEBUFFER, GLuint(previous));
}

}  // namespace weft::viewer
