// engine/gradient_param.cpp: one table of names (arrays and scene keys, each with the column it
// picks) and the parser of NAME[INDEX].COMPONENT.
#include "engine/gradient_param.h"

#include <algorithm>
#include <cctype>

#include "support/closest_name.h"

namespace weft::engine {

namespace {

struct Entry {
    const char* name;
    const char* array;
    int column;   // -1: every scalar of an element; else the scalar within each element (row)
    int columns;  // scalars per element when column >= 0
};

// Arrays with gradients that the solvers read, then the scene keys that fill them
// (docs/scene-format.md).
const Entry kEntries[] = {
    {"particle_q", "particle_q", -1, 0},
    {"particle_qd", "particle_qd", -1, 0},
    {"particle_inv_mass", "particle_inv_mass", -1, 0},
    {"particle_radius", "particle_radius", -1, 0},
    {"spring_rest_length", "spring_rest_length", -1, 0},
    {"spring_stiffness", "spring_stiffness", -1, 0},
    {"spring_damping", "spring_damping", -1, 0},
    {"tri_poses", "tri_poses", -1, 0},
    {"tri_activations", "tri_activations", -1, 0},
    {"tri_materials", "tri_materials", -1, 0},
    {"edge_rest_angle", "edge_rest_angle", -1, 0},
    {"edge_bending_properties", "edge_bending_properties", -1, 0},
    {"tet_poses", "tet_poses", -1, 0},
    {"tet_activations", "tet_activations", -1, 0},
    {"tet_materials", "tet_materials", -1, 0},
    {"particle.pos", "particle_q", -1, 0},
    {"particle.vel", "particle_qd", -1, 0},
    {"particle.radius", "particle_radius", -1, 0},
    {"spring.ke", "spring_stiffness", -1, 0},
    {"spring.kd", "spring_damping", -1, 0},
    {"spring.rest_length", "spring_rest_length", -1, 0},
    {"spring_grid.ke", "spring_stiffness", -1, 0},
    {"spring_grid.kd", "spring_damping", -1, 0},
    {"cloth.tri_ke", "tri_materials", 0, 5},
    {"cloth.tri_ka", "tri_materials", 1, 5},
    {"cloth.tri_kd", "tri_materials", 2, 5},
    {"cloth.edge_ke", "edge_bending_properties", 0, 2},
    {"cloth.edge_kd", "edge_bending_properties", 1, 2},
    {"soft_body.k_mu", "tet_materials", 0, 3},
    {"soft_body.k_lambda", "tet_materials", 1, 3},
    {"soft_body.k_damp", "tet_materials", 2, 3},
};

runtime::Array array_named(const std::string& name, const Model& m, const State& s) {
    if (name == "particle_q") return s.particle_q;
    if (name == "particle_qd") return s.particle_qd;
    if (name == "particle_inv_mass") return m.particle_inv_mass;
    if (name == "particle_radius") return m.particle_radius;
    if (name == "spring_rest_length") return m.spring_rest_length;
    if (name == "spring_stiffness") return m.spring_stiffness;
    if (name == "spring_damping") return m.spring_damping;
    if (name == "tri_poses") return m.tri_poses;
    if (name == "tri_activations") return m.tri_activations;
    if (name == "tri_materials") return m.tri_materials;
    if (name == "edge_rest_angle") return m.edge_rest_angle;
    if (name == "edge_bending_properties") return m.edge_bending_properties;
    if (name == "tet_poses") return m.tet_poses;
    if (name == "tet_activations") return m.tet_activations;
    return m.tet_materials;
}

std::string err(const std::string& context, const std::string& spec, const std::string& msg) {
    return context + " '" + spec + "': " + msg;
}

}  // namespace

std::vector<std::string> gradient_param_names() {
    std::vector<std::string> out;
    for (const Entry& e : kEntries) out.push_back(e.name);
    return out;
}

ParamAddress parse_param_address(const std::string& spec, const std::string& context) {
    // NAME ('[' INDEX ']')? ('.' x|y|z)?  -- scene keys hold a '.', so the component is split off
    // only when what precedes it is not a name by itself.
    std::string name = spec, comp;
    int64_t index = -1;
    size_t open = spec.find('[');
    if (open != std::string::npos) {
        name = spec.substr(0, open);
        size_t close = spec.find(']', open);
        if (close == std::string::npos) throw GradientParamError(err(context, spec, "expected ']' after the index"));
        std::string digits = spec.substr(open + 1, close - open - 1);
        if (digits.empty() || digits.size() > 12 ||
            !std::all_of(digits.begin(), digits.end(), [](char c) { return std::isdigit((unsigned char)c); }))
            throw GradientParamError(err(context, spec, "the index must be an integer >= 0, got '" + digits + "'"));
        index = std::stoll(digits);
        std::string rest = spec.substr(close + 1);
        if (!rest.empty()) {
            if (rest[0] != '.' || rest.size() < 2)
                throw GradientParamError(
                    err(context, spec, "unexpected '" + rest + "' after the index (a component is .x, .y or .z)"));
            comp = rest.substr(1);
        }
    } else {
        size_t dot = spec.rfind('.');
        bool known = false;
        for (const Entry& e : kEntries) known |= spec == e.name;
        if (!known && dot != std::string::npos) {
            name = spec.substr(0, dot);
            comp = spec.substr(dot + 1);
        }
    }
    const Entry* entry = nullptr;
    for (const Entry& e : kEntries)
        if (name == e.name) entry = &e;
    if (!entry) {
        std::string near = support::closest_name(spec, gradient_param_names());
        if (near.empty()) near = support::closest_name(name, gradient_param_names());
        throw GradientParamError(err(context, spec,
                                     "unknown parameter '" + name + "'" +
                                         (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                                         "; parameters are Model arrays, initial-State arrays (particle_q, particle_qd) or "
                                         "scene keys such as spring.ke and cloth.tri_ke"));
    }
    ParamAddress a;
    a.spec = spec;
    a.name = name;
    a.array_name = entry->array;
    a.index = index;
    a.component = comp;
    a.column = entry->column;
    return a;
}

std::vector<int64_t> param_scalars(const ParamAddress& a, int64_t rows, int64_t per_row, bool vec3,
                                   std::vector<std::string>* labels, const std::string& context) {
    int comp_index = -1;
    if (!a.component.empty()) {
        if (!vec3)
            throw GradientParamError(
                err(context, a.spec,
                    "'." + a.component + "' applies to vec3 arrays (particle_q, particle_qd); '" + a.name + "' is not one"));
        if (a.component != "x" && a.component != "y" && a.component != "z")
            throw GradientParamError(err(context, a.spec, "unknown component '" + a.component + "': use .x, .y or .z"));
        comp_index = a.component[0] - 'x';
    }
    if (a.index >= rows)
        throw GradientParamError(err(
            context, a.spec,
            "index " + std::to_string(a.index) + " is out of range ('" + a.name + "' has " + std::to_string(rows) + " entries)"));
    std::vector<int64_t> scalars;
    const int64_t first = a.index >= 0 ? a.index : 0, last = a.index >= 0 ? a.index + 1 : rows;
    for (int64_t r = first; r < last; ++r) {
        for (int64_t k = 0; k < per_row; ++k) {
            if (a.column >= 0 && k != a.column) continue;
            if (comp_index >= 0 && k != comp_index) continue;
            scalars.push_back(r * per_row + k);
            if (!labels) continue;
            std::string label = a.name + "[" + std::to_string(r) + "]";
            if (vec3)
                label += std::string(".") + char('x' + k);
            else if (per_row > 1 && a.column < 0)
                label = a.name + "[" + std::to_string(r) + ", " + std::to_string(k) + "]";
            labels->push_back(label);
        }
    }
    return scalars;
}

GradientParam resolve_gradient_param(const std::string& spec, const Model& model, const State& initial) {
    const ParamAddress a = parse_param_address(spec);
    GradientParam p;
    p.spec = spec;
    p.array_name = a.array_name;
    p.array = array_named(p.array_name, model, initial);
    if (!p.array.valid() || p.array.size() == 0 || p.array.shape(0) == 0)
        throw GradientParamError(
            err("--wrt", spec, "'" + p.array_name + "' is empty in this scene (nothing of that kind was built)"));
    if (!p.array.requires_grad())
        throw GradientParamError(
            err("--wrt", spec, "'" + p.array_name + "' has no gradient array (build the model with requires_grad)"));
    const int64_t rows = p.array.shape(0);
    const int64_t per_row = int64_t(p.array.nbytes() / sizeof(float)) / rows;
    p.scalars = param_scalars(a, rows, per_row, p.array.dtype() == vec3_type(), &p.labels);
    return p;
}

}  // namespace weft::engine
