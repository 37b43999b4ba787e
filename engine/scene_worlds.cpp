// engine/scene_worlds.cpp: a scene's [worlds] table (docs/scene-format.md, "Batched worlds in
// scenes"): the model every other block built, replicated as separate worlds in one set of arrays
// (engine/replicate_worlds.h), then [worlds.vary]'s per-world values written into each world's copy.
//
//   [worlds]
//   count = 64                 # worlds, 1 .. kMaxWorlds
//   spacing = [3.0, 0, 0]      # world w is moved by w * spacing (default: none)
//   [worlds.vary]
//   "spring.ke" = { from = 100.0, to = 1000.0 }                # linear in w
//   "cloth.tri_ke" = { from = 1e2, to = 1e4, scale = "log" }   # geometric in w
//   "particle_qd[7].y" = [0.0, 0.5, ...]                       # one value per world
//
// A vary key is a parameter name of `weft gradcheck --wrt` (engine/gradient_param.h): the same
// table and parser, read here against the builder's arrays rather than the Model's. The value of
// world w goes to every scalar the name picks in world w's copy. The loader checks every entry
// against the one-world model (unknown names, indices, components, list lengths, log ranges that
// cross zero) before anything is replicated, so no mistake surfaces at run time.
#include "engine/gradient_param.h"
#include "engine/replicate_worlds.h"
#include "engine/scene_reader.h"

#if WEFT_SCENE_FILES

#include <cmath>
#include <cstring>
#include <map>

namespace weft::engine {

namespace {

// The model's integer arrays: a user may well try to vary one; say why it cannot be.
const char* const kIntegerArrays[] = {"particle_flags", "spring_indices", "tri_indices", "edge_indices", "tet_indices",
                                      "shape_body",     "shape_geo_type", "joint_type",  "joint_parent", "joint_child",
                                      "particle_world", "shape_world",    "body_world"};

// One builder array as rows of float32 scalars. particle_inv_mass is stored as the mass: a value
// v is written as the mass 1 / v (0 for v = 0, a kinematic particle).
struct FloatRows {
    float* data = nullptr;
    int64_t rows = 0, per_row = 1;
    bool vec3 = false, inverse = false;
};

template <class T>
FloatRows rows_of(std::vector<T>& v, int64_t per_row, bool vec3 = false) {
    static_assert(sizeof(T) % sizeof(float) == 0);
    return {reinterpret_cast<float*>(v.data()), int64_t(v.size()), per_row, vec3, false};
}

// The builder's array behind a gradient-parameter array name; data null where the builder has no
// such array (a Model array that starts at zero and that no scene key sets).
FloatRows builder_rows(ModelBuilder& b, const std::string& array) {
    if (array == "particle_q") return rows_of(b.particle_q, 3, true);
    if (array == "particle_qd") return rows_of(b.particle_qd, 3, true);
    if (array == "particle_inv_mass") {
        FloatRows r = rows_of(b.particle_mass, 1);
        r.inverse = true;
        return r;
    }
    if (array == "particle_radius") return rows_of(b.particle_radius, 1);
    if (array == "spring_rest_length") return rows_of(b.spring_rest_length, 1);
    if (array == "spring_stiffness") return rows_of(b.spring_stiffness, 1);
    if (array == "spring_damping") return rows_of(b.spring_damping, 1);
    if (array == "tri_poses") return rows_of(b.tri_poses, 4);
    if (array == "tri_materials") return rows_of(b.tri_materials, 5);
    if (array == "edge_rest_angle") return rows_of(b.edge_rest_angle, 1);
    if (array == "edge_bending_properties") return rows_of(b.edge_bending_properties, 2);
    if (array == "tet_poses") return rows_of(b.tet_poses, 9);
    if (array == "tet_materials") return rows_of(b.tet_materials, 3);
    return {};  // tri_activations, tet_activations
}

struct Vary {
    std::string name;
    std::string array;
    std::vector<int64_t> scalars;  // within one world's rows
    std::vector<double> values;    // per world of the scene
};

// [worlds.vary]'s leaves, with dotted names rebuilt: `spring.ke = {...}` written without quotes is
// the table spring holding ke; a table all of whose values are tables is such a namespace.
void collect_leaves(const toml::table& t, const std::string& prefix,
                    std::vector<std::pair<std::string, const toml::node*>>& out) {
    for (const auto& [k, node] : t) {
        std::string name = prefix + std::string(k.str());
        const toml::table* sub = node.as_table();
        bool ns = sub && !sub->empty();
        if (sub)
            for (const auto& [k2, n2] : *sub) ns = ns && n2.is_table();
        if (ns)
            collect_leaves(*sub, name + ".", out);
        else
            out.emplace_back(name, &node);
    }
}

std::vector<double> read_values(const TableReader& vary, const std::string& name, const toml::node& n, int count) {
    std::vector<double> v;
    if (const toml::array* a = n.as_array()) {
        if (int64_t(a->size()) != count)
            vary.fail(n.source(), "'" + name + "' must list " + std::to_string(count) + " values (one per world), got " +
                                      std::to_string(a->size()));
        for (const auto& e : *a) v.push_back(vary.number_of(name, e));
        return v;
    }
    const toml::table* t = n.as_table();
    if (!t)
        vary.fail(n.source(), "'" + name + "' must be a list of " + std::to_string(count) +
                                  " values or a range { from = A, to = B, scale = \"linear\" | \"log\" }, got " +
                                  toml_type_word(n));
    TableReader r(vary.file(), *t, "[worlds.vary] '" + name + "'");
    const double from = r.required_number("from"), to = r.required_number("to");
    const std::string scale = r.string("scale", "linear", {"linear", "log"});
    r.finish();
    if (scale == "log" && !((from > 0 && to > 0) || (from < 0 && to < 0)))
        r.fail_at(from > 0 || from < 0 ? "to" : "from", "a log range needs 'from' and 'to' of one sign and nonzero, got " +
                                                            format_number(from) + " and " + format_number(to));
    for (int w = 0; w < count; ++w) {
        const double f = count > 1 ? double(w) / double(count - 1) : 0.0;
        v.push_back(scale == "log" ? from * std::pow(to / from, f) : from + (to - from) * f);
    }
    if (count > 1) v.back() = to;  // the range's ends exactly
    return v;
}

}  // namespace

void read_worlds(TableReader& root, Scene& s, WorldRange range) {
    const toml::node* n = root.get("worlds");
    if (!n) {
        if (range.parts > 1)
            root.fail(root.table().source(), "the scene has no [worlds] table, so it cannot be split across " +
                                                 std::to_string(range.parts) +
                                                 " processes; add [worlds] count = N (docs/scene-format.md)");
        return;
    }
    if (!n->is_table()) root.fail(n->source(), "'worlds' must be a table, got " + std::string(toml_type_word(*n)));
    TableReader r(root.file(), *n->as_table(), "[worlds]");
    SceneWorlds& w = s.worlds;
    w.count = r.required_integer("count", 1, kMaxWorlds);
    w.spacing = r.vec3("spacing");
    const toml::node* vary_node = r.get("vary");
    r.finish();
    if (range.parts > w.count)
        r.fail_at("count", "the scene has " + std::to_string(w.count) + " worlds, fewer than the " + std::to_string(range.parts) +
                               " processes of this job (each needs one world at least)");
    ModelBuilder& b = s.builder;
    if (b.smoke.resolution != std::array<int, 3>{0, 0, 0})
        r.fail_at("count", "a scene with a [smoke] grid cannot have worlds: the grid is one per model");
    if (!b.mpm_material.empty())
        r.fail_at("count", "a scene with [[mpm]] particles cannot have worlds: they share one grid per model");

    // Every vary entry, checked against the one-world model.
    std::vector<Vary> vary;
    if (vary_node) {
        const toml::table* vt = vary_node->as_table();
        if (!vt) r.fail(vary_node->source(), "'vary' must be a table, got " + std::string(toml_type_word(*vary_node)));
        TableReader vr(root.file(), *vt, "[worlds.vary]");
        std::vector<std::pair<std::string, const toml::node*>> leaves;
        collect_leaves(*vt, "", leaves);
        std::map<std::string, std::map<int64_t, std::string>> taken;  // array -> scalar -> the entry setting it
        for (const auto& [name, node] : leaves) {
            for (const char* int_array : kIntegerArrays)
                if (name.rfind(int_array, 0) == 0 &&
                    (name.size() == std::strlen(int_array) || name[std::strlen(int_array)] == '['))
                    vr.fail(node->source(), "'" + name + "': '" + int_array +
                                                "' is an integer array; [worlds.vary] sets float parameters "
                                                "(Model arrays such as spring_stiffness, or scene keys such as spring.ke)");
            Vary v;
            v.name = name;
            try {
                ParamAddress a = parse_param_address(name, "[worlds.vary]");
                v.array = a.array_name;
                FloatRows rows = builder_rows(b, a.array_name);
                if (!rows.data && rows.rows == 0 && a.array_name.find("activations") != std::string::npos)
                    throw GradientParamError(
                        "[worlds.vary] '" + name + "': '" + a.array_name +
                        "' starts at 0 in every model (no scene key sets it), so worlds cannot differ in it");
                if (rows.rows == 0)
                    throw GradientParamError("[worlds.vary] '" + name + "': '" + a.array_name +
                                             "' is empty in this scene (nothing of that kind was built)");
                v.scalars = param_scalars(a, rows.rows, rows.per_row, rows.vec3, nullptr, "[worlds.vary]");
            } catch (const GradientParamError& e) { vr.fail(node->source(), e.what()); }
            for (int64_t k : v.scalars) {
                auto [it, fresh] = taken[v.array].emplace(k, name);
                if (!fresh)
                    vr.fail(node->source(),
                            "'" + name + "' and '" + it->second + "' both set a value of " + v.array + "; name each scalar once");
            }
            v.values = read_values(vr, name, *node, w.count);
            vary.push_back(std::move(v));
        }
    }

    // This process's worlds, refused before anything is allocated when they cannot fit.
    w.first = int(int64_t(w.count) * range.part / range.parts);
    const int last = int(int64_t(w.count) * (range.part + 1) / range.parts);
    w.built = last - w.first;
    w.particles = b.particle_count();
    w.bodies = b.body_count();
    const double more = double(w.built - 1);
    check_memory(r, "count", s,
                 {more * b.particle_count(), more * double(b.spring_rest_length.size()), more * double(b.tri_indices.size()),
                  more * double(b.edge_indices.size()), more * double(b.tet_indices.size())});
    // World k of the builder is world first + k of the scene, and is moved as that one.
    ModelBuilder batched = replicate_worlds(b, w.built, w.spacing, w.first);
    for (const Vary& v : vary) {
        FloatRows rows = builder_rows(batched, v.array);
        const int64_t world_scalars = rows.rows / w.built * rows.per_row;
        for (int k = 0; k < w.built; ++k) {
            const float value = float(v.values[size_t(w.first + k)]);
            for (int64_t sc : v.scalars) {
                float& slot = rows.data[int64_t(k) * world_scalars + sc];
                slot = rows.inverse ? (value > 0 ? 1.0f / value : 0.0f) : value;
            }
        }
    }
    s.builder = std::move(batched);
}

}  // namespace weft::engine

#endif
