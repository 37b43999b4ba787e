// engine/scene_reader.h: reading one TOML table of a scene file (docs/scene-format.md), shared by
// the scene loader (engine/scene.cpp) and the solver families' own blocks (engine/scene_blocks.def).
//
// A TableReader wraps a table: every key the loader accepts is asked for by name with its type,
// default and range, and finish() reports any key nobody asked for, with a did-you-mean, so the
// list of valid keys lives in one place, the code that reads them. Each error is one SceneError
// whose message starts with "FILE:LINE:COLUMN: ".
//
//   for_each_entry(root, "mpm", [&](TableReader& r) {            // every [[mpm]] table
//       float e = float(r.number("E", 1e4, 0.0, INFINITY, true));  // > 0, default 1e4
//       std::string m = r.string("material", "elastic", {"elastic", "sand"});
//   });                                                           // then r.finish() for each
//
// toml++ is optional (the H200 image has none): WEFT_SCENE_FILES is 1 where it is found, and code
// that reads tables compiles only then.
#pragma once

#if __has_include(<toml++/toml.h>)
#define WEFT_SCENE_FILES 1
#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "engine/model_builder.h"
#include "engine/scene.h"
#include "support/closest_name.h"

namespace weft::engine {

inline std::string format_number(double v) {
    std::ostringstream os;
    os << v;
    return os.str();
}

inline const char* toml_type_word(const toml::node& n) {
    switch (n.type()) {
        case toml::node_type::string: return "a string";
        case toml::node_type::integer: return "an integer";
        case toml::node_type::floating_point: return "a number";
        case toml::node_type::boolean: return "a boolean";
        case toml::node_type::array: return "an array";
        case toml::node_type::table: return "a table";
        default: return "a date or time";
    }
}

class TableReader {
public:
    TableReader(const std::string& file, const toml::table& t, std::string where)
        : file_(file), t_(t), where_(std::move(where)) {}

    const std::string& where() const { return where_; }  // the table's name in messages, e.g. "[[body.shape]]"
    [[noreturn]] void fail(const toml::source_region& r, const std::string& msg) const {
        throw SceneError(file_ + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column) + ": " + msg);
    }
    [[noreturn]] void fail_at(const std::string& key, const std::string& msg) const {
        const toml::node* n = t_.get(key);
        fail(n ? n->source() : t_.source(), msg);
    }

    // "FILE:LINE:COLUMN" of `key`'s value, else of the table.
    std::string where(const std::string& key) const {
        const toml::node* n = t_.get(key);
        const auto& b = (n ? n->source() : t_.source()).begin;
        return file_ + ":" + std::to_string(b.line) + ":" + std::to_string(b.column);
    }

    const toml::node* get(const std::string& key) {
        asked_.insert(key);
        return t_.get(key);
    }
    bool has(const std::string& key) {
        asked_.insert(key);
        return t_.contains(key);
    }
    const toml::node& require(const std::string& key) {
        const toml::node* n = get(key);
        if (!n) fail(t_.source(), "missing key '" + key + "' in " + where_);
        return *n;
    }

    double number_of(const std::string& key, const toml::node& n) const {
        if (auto v = n.value_exact<double>()) return check_float(key, n, *v);
        if (auto v = n.value_exact<int64_t>()) return check_float(key, n, double(*v));
        fail(n.source(), "'" + key + "' must be a number, got " + toml_type_word(n));
    }
    // The engine computes in float32: a number it cannot hold (nan, inf, past FLT_MAX, or so small
    // that it would silently become 0, turning a mass into a fixed particle) is an error here.
    double check_float(const std::string& key, const toml::node& n, double v) const {
        if (std::isnan(v)) fail(n.source(), "'" + key + "' must be a number, got nan");
        if (std::isinf(v)) fail(n.source(), "'" + key + "' must be finite, got " + format_number(v));
        if (std::abs(v) > double(FLT_MAX))
            fail(n.source(),
                 "'" + key + "' = " + format_number(v) +
                     " is outside the float32 range the engine computes in (|x| <= " + format_number(double(FLT_MAX)) + ")");
        if (v != 0 && std::abs(v) < double(FLT_MIN))
            fail(n.source(), "'" + key + "' = " + format_number(v) + " is too small for float32 (nonzero values need |x| >= " +
                                 format_number(double(FLT_MIN)) + "); it would become 0 (write 0 if that is meant)");
        return v;
    }
    double number(const std::string& key, double dflt, double lo = -INFINITY, double hi = INFINITY, bool open_lo = false) {
        const toml::node* n = get(key);
        double v = n ? number_of(key, *n) : dflt;
        if (n) check_range(key, *n, v, lo, hi, open_lo);
        return v;
    }
    double required_number(const std::string& key, double lo = -INFINITY, double hi = INFINITY, bool open_lo = false) {
        const toml::node& n = require(key);
        double v = number_of(key, n);
        check_range(key, n, v, lo, hi, open_lo);
        return v;
    }
    void check_range(const std::string& key, const toml::node& n, double v, double lo, double hi, bool open_lo) const {
        if (open_lo ? !(v > lo) : !(v >= lo))
            fail(n.source(),
                 "'" + key + "' must be " + (open_lo ? "> " : ">= ") + format_number(lo) + ", got " + format_number(v));
        if (!(v <= hi)) fail(n.source(), "'" + key + "' must be <= " + format_number(hi) + ", got " + format_number(v));
    }
    int integer(const std::string& key, int dflt, int lo, int hi) {
        const toml::node* n = get(key);
        if (!n) return dflt;
        return integer_of(key, *n, lo, hi);
    }
    int required_integer(const std::string& key, int lo, int hi) { return integer_of(key, require(key), lo, hi); }
    int integer_of(const std::string& key, const toml::node& n, int lo, int hi) const {
        auto v = n.value_exact<int64_t>();
        if (!v) fail(n.source(), "'" + key + "' must be an integer, got " + toml_type_word(n));
        if (*v < lo) fail(n.source(), "'" + key + "' must be >= " + std::to_string(lo) + ", got " + std::to_string(*v));
        if (*v > hi) fail(n.source(), "'" + key + "' must be <= " + std::to_string(hi) + ", got " + std::to_string(*v));
        return int(*v);
    }
    bool boolean(const std::string& key, bool dflt) {
        const toml::node* n = get(key);
        if (!n) return dflt;
        auto v = n->value_exact<bool>();
        if (!v) fail(n->source(), "'" + key + "' must be true or false, got " + toml_type_word(*n));
        return *v;
    }
    std::string string(const std::string& key, const std::string& dflt, const std::vector<std::string>& allowed = {}) {
        const toml::node* n = get(key);
        if (!n) return dflt;
        auto v = n->value_exact<std::string>();
        if (!v) fail(n->source(), "'" + key + "' must be a string, got " + toml_type_word(*n));
        if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
            std::string list;
            for (const auto& a : allowed) list += (list.empty() ? "'" : ", '") + a + "'";
            std::string near = support::closest_name(*v, allowed);
            fail(n->source(), "'" + key + "' must be one of " + list + ", got '" + *v + "'" +
                                  (near.empty() ? "" : " (did you mean '" + near + "'?)"));
        }
        return *v;
    }
    // A fixed-length array of numbers.
    std::vector<double> numbers(const std::string& key, size_t count, const std::vector<double>& dflt, bool required = false) {
        const toml::node* n = required ? &require(key) : get(key);
        if (!n) return dflt;
        const toml::array* a = n->as_array();
        if (!a)
            fail(n->source(),
                 "'" + key + "' must be an array of " + std::to_string(count) + " numbers, got " + toml_type_word(*n));
        if (a->size() != count)
            fail(n->source(), "'" + key + "' must have " + std::to_string(count) + " elements, got " + std::to_string(a->size()));
        std::vector<double> out;
        for (const auto& e : *a) out.push_back(number_of(key, e));
        return out;
    }
    Vec3 vec3(const std::string& key, Vec3 dflt = Vec3::Zero(), bool required = false) {
        auto v = numbers(key, 3, {dflt.x(), dflt.y(), dflt.z()}, required);
        return Vec3(float(v[0]), float(v[1]), float(v[2]));
    }
    // rot_axis (3 numbers) and rot_angle (degrees), each name after `prefix` ("parent_rot_axis")
    Quat rotation(const std::string& prefix = "") {
        Vec3 axis = vec3(prefix + "rot_axis", Vec3(1, 0, 0));
        double angle = number(prefix + "rot_angle", 0.0);
        if (axis.norm() < 1e-9f) fail_at(prefix + "rot_axis", "'" + prefix + "rot_axis' must not be zero");
        return Quat(Eigen::AngleAxisf(float(angle * M_PI / 180.0), axis.normalized()));
    }

    void finish() const {
        std::vector<std::string> known(asked_.begin(), asked_.end());
        for (const auto& [k, node] : t_) {
            std::string key(k.str());
            if (asked_.count(key)) continue;
            std::string near = support::closest_name(key, known);
            fail(k.source().begin.line ? k.source() : node.source(),
                 "unknown key '" + key + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
        }
    }
    const toml::table& table() const { return t_; }
    const std::string& file() const { return file_; }
    bool asked(const std::string& key) const { return asked_.count(key) != 0; }

private:
    std::string file_;
    const toml::table& t_;
    std::string where_;
    std::set<std::string> asked_;
};

// Bytes a particle and each element take on the host (builder) and on the device (model, two
// states, force slots), rounded up: enough to refuse a scene too large for memory from its counts,
// before anything is allocated, instead of ending in std::bad_alloc. The grids: a smoke cell holds
// about 30 floats (model, two states, the projection's scratch and multigrid levels), an MPM node
// the integrator's three grid arrays (7 floats).
struct Footprint {
    double particles = 0, springs = 0, tris = 0, edges = 0, tets = 0;
    double bytes() const { return particles * 256 + springs * 96 + tris * 192 + edges * 128 + tets * 256; }
};
inline constexpr double kSmokeCellBytes = 128, kMpmNodeBytes = 32;

// Fails at `key` if what the scene holds so far (its particles, elements and the smoke or MPM
// grid set so far) plus `add` needs more than s.memory_limit (engine/scene.cpp).
void check_memory(const TableReader& r, const std::string& key, const Scene& s, Footprint add);

// Each [[name]] entry as a TableReader.
template <class F>
void for_each_entry(TableReader& root, const std::string& name, F&& f) {
    const toml::node* n = root.get(name);
    if (!n) return;
    const toml::array* arr = n->as_array();
    if (!arr || !arr->is_array_of_tables())
        root.fail(n->source(), "'" + name + "' must be an array of tables ([[" + name + "]]), got " + toml_type_word(*n));
    for (const auto& e : *arr) {
        TableReader r(root.file(), *e.as_table(), "[[" + name + "]]");
        try {
            f(r);
        } catch (const BuildError& b) { r.fail(e.source(), "[[" + name + "]]: " + b.what()); }
        r.finish();
    }
}

// A [[shape]] of type "mesh": `obj` (a Wavefront OBJ file, relative to the scene's folder) or
// inline `vertices` ([[x, y, z], ...]) and `indices` (3 per triangle, from 0).
Mesh read_mesh(TableReader& r);

// A mesh table's shape: the mesh (read_mesh), `scale` (each > 0), `sdf_resolution` (64, 4 to 512)
// and `sdf_margin` (-1: automatic) of [[shape]] and [[body.shape]]; `add` makes the builder's
// shape from them, and a BuildError it throws is located at the table's obj or vertices.
template <class Add>
void read_mesh_shape(TableReader& r, Add&& add) {
    Mesh mesh = read_mesh(r);
    Vec3 scale = r.vec3("scale", Vec3::Ones());
    if (!(scale.x() > 0 && scale.y() > 0 && scale.z() > 0)) r.fail_at("scale", "'scale' must all be > 0");
    int resolution = r.integer("sdf_resolution", 64, 4, 512);
    float margin = float(r.number("sdf_margin", -1.0, 0.0));  // -1: automatic (absent)
    try {
        add(mesh, scale, resolution, margin);
    } catch (const BuildError& e) { r.fail_at(r.has("obj") ? "obj" : "vertices", e.what()); }
}

// [worlds] and [worlds.vary] (engine/scene_worlds.cpp): replaces s.builder, once every other
// block is read, by the worlds of `range`.
void read_worlds(TableReader& root, Scene& s, WorldRange range);

// The families' block readers (engine/scene_blocks.def).
#define WEFT_SCENE_BLOCKS(reader) void reader(TableReader& root, Scene& s);
#include "engine/scene_blocks.def"
#undef WEFT_SCENE_BLOCKS

}  // namespace weft::engine

#else
#define WEFT_SCENE_FILES 0
#endif
