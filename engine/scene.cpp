// engine/scene.cpp: the TOML scene loader: the tables every scene may have ([simulation],
// [model], [contact], [output]) and the particle engine's blocks; each solver family's own blocks
// come from engine/scene_blocks.def. Tables are read through engine/scene_reader.h.
#include "engine/scene.h"

#include "engine/integrator_registry.h"
#include "engine/scene_reader.h"

#include <array>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#if WEFT_SCENE_FILES

namespace weft::engine {

namespace {

double physical_memory() {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && size > 0 ? double(pages) * double(size) : INFINITY;
}

std::string gib(double bytes) {
    std::ostringstream os;
    os.precision(3);
    os << bytes / double(1ull << 30) << " GiB";
    return os.str();
}

}  // namespace

void check_memory(const TableReader& r, const std::string& key, const Scene& s, Footprint add) {
    const ModelBuilder& b = s.builder;
    Footprint total = add;
    total.particles += b.particle_count();
    total.springs += double(b.spring_rest_length.size());
    total.tris += double(b.tri_indices.size());
    total.edges += double(b.edge_indices.size());
    total.tets += double(b.tet_indices.size());
    const auto& sr = b.smoke.resolution;
    const double smoke_cells = double(sr[0]) * sr[1] * sr[2];
    const double mpm_nodes =
        b.mpm_grid.dx > 0 ? double(b.mpm_grid.cells[0] + 1) * (b.mpm_grid.cells[1] + 1) * (b.mpm_grid.cells[2] + 1) : 0.0;
    double need = total.bytes() + smoke_cells * kSmokeCellBytes + mpm_nodes * kMpmNodeBytes;
    double have = s.memory_limit > 0 ? s.memory_limit : physical_memory();
    if (need <= have) return;
    std::string counts;
    for (auto [n, what] : {std::pair<double, const char*>{total.particles, " particles"},
                           {total.springs, " springs"},
                           {total.tris, " triangles"},
                           {total.tets, " tetrahedra"},
                           {smoke_cells, " smoke cells"},
                           {mpm_nodes, " MPM grid nodes"}}) {
        if (n <= 0) continue;
        std::ostringstream os;
        os.precision(4);
        os << n << what;
        counts += (counts.empty() ? "" : ", ") + os.str();
    }
    r.fail_at(key, "'" + key + "' makes the scene too large for memory: about " + gib(need) + " for " + counts +
                       (s.memory_limit > 0 ? ", and the limit is " : ", and this machine has ") + gib(have));
}

namespace {

// The options the solver declares, read from [simulation] with their types and ranges.
void read_solver_options(TableReader& r, Scene& s) {
    const IntegratorInfo& info = integrator_info(s.solver);
    for (const OptionSpec& o : info.options) {
        double v = o.type == OptionSpec::Type::Integer ? double(r.integer(o.name, int(o.default_value), int(o.min), int(o.max)))
                                                       : r.number(o.name, o.default_value, o.min, o.max, o.min_open);
        s.solver_options.set(o.name, v);
    }
}

// Before finish(): a key nobody asked for that is an option of another solver is named as such.
void reject_other_solvers_options(TableReader& r, const Scene& s) {
    for (const auto& [k, node] : r.table()) {
        std::string key(k.str());
        if (r.asked(key)) continue;
        for (const std::string& other : integrator_names())
            for (const OptionSpec& o : integrator_info(other).options)
                if (o.name == key)
                    r.fail(k.source().begin.line ? k.source() : node.source(),
                           "'" + key + "' is an option of solver '" + other + "', not of '" + s.solver + "'");
    }
}

// Records the explicit-stability estimates of a stiffness `ke` and a damping `kd` acting on
// particles of mass `m` (docs/scene-format.md, "Stability"); m <= 0: the lightest moving particle
// of the scene, filled in once every particle is known. Friction (kf) is left out: its force is
// capped by the Coulomb limit, so a large kf cannot make the step diverge.
void note_stiffness(Scene& s, const TableReader& r, const std::string& table, const std::string& module,
                    std::initializer_list<std::pair<const char*, double>> params, double m) {
    for (auto [key, value] : params) {
        if (!(value > 0)) continue;
        StabilityEstimate e;
        e.where = r.where(key);
        e.is_default = !r.table().contains(key);
        e.key = table + " '" + key + "'";
        e.module = module;
        e.stiffness = std::string(key).find("ke") != std::string::npos;
        e.coefficient = value;
        e.mass = m;
        s.stability.push_back(e);
    }
}

// The elements' rates (stability.h) on the builder's arrays: elements [begin, end) of one family.
ElementRates builder_element_rates(const ModelBuilder& b, int nodes, size_t begin, size_t end, double dt) {
    std::vector<int32_t> idx;
    std::vector<float> poses, mat, q, mass(b.particle_mass.size());
    const int dims = nodes - 1;
    for (size_t e = begin; e < end; ++e) {
        for (int u = 0; u < nodes; ++u) idx.push_back(nodes == 3 ? b.tri_indices[e][size_t(u)] : b.tet_indices[e][size_t(u)]);
        for (int r = 0; r < dims; ++r)
            for (int c = 0; c < dims; ++c) poses.push_back(nodes == 3 ? b.tri_poses[e](r, c) : b.tet_poses[e](r, c));
        for (int k = 0; k < 3; ++k) mat.push_back(nodes == 3 ? b.tri_materials[e][size_t(k)] : b.tet_materials[e][size_t(k)]);
    }
    for (const Vec3& x : b.particle_q) q.insert(q.end(), {x.x(), x.y(), x.z()});
    for (size_t i = 0; i < mass.size(); ++i) mass[i] = (b.particle_flags[i] & ParticleFlags_Active) ? b.particle_mass[i] : 0.0f;
    return element_rates(nodes, idx, poses, mat, 3, 0, end - begin, q, mass, std::pow(kStabilityLimit / dt, 2),
                         kStabilityLimit / dt);
}

// The two element estimates of a block's triangles (nodes 3: 'tri_ke' with 'tri_ka', and 'tri_kd')
// or tetrahedra (nodes 4: 'k_mu' with 'k_lambda', and 'k_damp'), elements [begin, end) of the
// builder, computed as the block adds them (from the values it writes, as the other estimates;
// the block's particles and masses are known by then).
void note_elements(Scene& s, const TableReader& r, const std::string& table, int nodes, size_t begin, size_t end,
                   std::array<std::pair<const char*, double>, 3> keys) {
    if (begin == end || !integrator_info(s.solver).can(IntegratorCaps_Explicit)) return;
    const double dt = 1.0 / (double(s.fps) * s.substeps);
    const ElementRates rates = builder_element_rates(s.builder, nodes, begin, end, dt);
    if (rates.elements == 0) return;  // nothing moves
    for (int k : {0, 2}) {
        StabilityEstimate e;
        e.where = r.where(keys[size_t(k)].first);
        e.is_default = !r.table().contains(keys[size_t(k)].first);
        e.key = table + " '" + keys[size_t(k)].first + "'";
        e.module = nodes == 3 ? "triangles" : "tetrahedra";
        e.stiffness = k == 0;
        e.coefficient = keys[size_t(k)].second;
        if (k == 0) e.with = std::string("'") + keys[1].first + "' = " + format_number(keys[1].second);
        e.element_nodes = nodes;
        e.element_begin = begin;
        e.element_end = end;
        e.value = e.stiffness ? std::sqrt(rates.omega2) * dt : rates.damping * dt;
        s.stability.push_back(e);
    }
}

// The estimates once dt and the masses are known: sqrt(k/m) dt for stiffnesses, c dt / m for
// damping and friction coefficients (the elements' are in already).
void finish_stability(Scene& s) {
    double lightest = 0;
    for (size_t i = 0; i < s.builder.particle_mass.size(); ++i) {
        double m = s.builder.particle_mass[i];
        if (m > 0 && (s.builder.particle_flags[i] & ParticleFlags_Active) && (lightest == 0 || m < lightest)) lightest = m;
    }
    const double dt = 1.0 / (double(s.fps) * s.substeps);
    std::vector<StabilityEstimate> kept;
    for (StabilityEstimate e : s.stability) {
        if (e.element_nodes != 0) {  // computed by note_elements
            kept.push_back(e);
            continue;
        }
        if (e.mass <= 0) e.mass = lightest;
        if (e.mass <= 0) continue;  // nothing moves
        e.value = explicit_term(e.stiffness, e.coefficient, e.mass, dt);
        kept.push_back(e);
    }
    std::stable_sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) { return a.value > b.value; });
    s.stability = kept;
}

void read_scene(TableReader& root, Scene& s) {
    if (const toml::node* n = root.get("scene")) {
        if (!n->is_table()) root.fail(n->source(), "'scene' must be a table, got " + std::string(toml_type_word(*n)));
        TableReader r(root.file(), *n->as_table(), "[scene]");
        s.name = r.string("name", s.name);
        r.finish();
    }
    const toml::node* sim = root.get("simulation");
    if (!sim) root.fail(root.table().source(), "missing table [simulation]");
    if (!sim->is_table()) root.fail(sim->source(), "'simulation' must be a table, got " + std::string(toml_type_word(*sim)));
    {
        TableReader r(root.file(), *sim->as_table(), "[simulation]");
        s.solver = r.string("solver", s.solver, integrator_names());
        read_solver_options(r, s);
        s.fps = float(r.number("fps", s.fps, 0.0, 1e6, true));
        s.substeps = r.integer("substeps", s.substeps, 1, 100000);
        s.frames = r.integer("frames", s.frames, 0, kMaxFrames);
        s.device = r.string("device", s.device);
        reject_other_solvers_options(r, s);
        r.finish();
    }
    ModelBuilder& b = s.builder;
    if (const toml::node* n = root.get("model")) {
        if (!n->is_table()) root.fail(n->source(), "'model' must be a table, got " + std::string(toml_type_word(*n)));
        TableReader r(root.file(), *n->as_table(), "[model]");
        float g = float(r.number("gravity", -9.80665));
        Vec3 up = r.vec3("up_vector", Vec3(0, 1, 0));
        if (up.norm() < 1e-9f) r.fail_at("up_vector", "'up_vector' must not be zero");
        b.gravity = up.normalized() * g;
        b.ground = r.boolean("ground", true);
        if (r.has("ground_normal") || r.has("ground_offset"))
            b.set_ground_plane(r.vec3("ground_normal", Vec3(0, 1, 0)), float(r.number("ground_offset", 0.0)));
        b.particle_drag = float(r.number("drag", 0.0, 0.0));
        b.particle_max_velocity = float(r.number("max_velocity", 1e5, 0.0, INFINITY, true));
        b.default_particle_radius = float(r.number("particle_radius", 0.1, 0.0));
        r.finish();
    }
    if (const toml::node* n = root.get("contact")) {
        if (!n->is_table()) root.fail(n->source(), "'contact' must be a table, got " + std::string(toml_type_word(*n)));
        TableReader r(root.file(), *n->as_table(), "[contact]");
        b.soft_contact_ke = float(r.number("ke", b.soft_contact_ke, 0.0));
        b.soft_contact_kd = float(r.number("kd", b.soft_contact_kd, 0.0));
        b.soft_contact_kf = float(r.number("kf", b.soft_contact_kf, 0.0));
        b.soft_contact_mu = float(r.number("mu", b.soft_contact_mu, 0.0));
        note_stiffness(s, r, "[contact]", "contact", {{"ke", b.soft_contact_ke}, {"kd", b.soft_contact_kd}}, 0);
        r.finish();
    }
    if (const toml::node* n = root.get("particle_contact")) {
        if (!n->is_table()) root.fail(n->source(), "'particle_contact' must be a table, got " + std::string(toml_type_word(*n)));
        TableReader r(root.file(), *n->as_table(), "[particle_contact]");
        b.particle_contact = r.boolean("enabled", true);
        b.particle_ke = float(r.number("ke", b.particle_ke, 0.0));
        b.particle_kd = float(r.number("kd", b.particle_kd, 0.0));
        b.particle_kf = float(r.number("kf", b.particle_kf, 0.0));
        b.particle_mu = float(r.number("mu", b.particle_mu, 0.0));
        if (b.particle_contact)
            note_stiffness(s, r, "[particle_contact]", "contact", {{"ke", b.particle_ke}, {"kd", b.particle_kd}}, 0);
        r.finish();
    }
    for_each_entry(root, "particle", [&](TableReader& r) {
        Vec3 pos = r.vec3("pos", Vec3::Zero(), true);
        Vec3 vel = r.vec3("vel");
        float mass = float(r.required_number("mass", 0.0));
        float radius = float(r.number("radius", b.default_particle_radius, 0.0));
        bool active = r.boolean("active", true);
        b.add_particle(pos, vel, mass, radius, active ? ParticleFlags_Active : 0u);
    });
    for_each_entry(root, "particle_block", [&](TableReader& r) {
        Vec3 pos = r.vec3("pos", Vec3::Zero(), true);
        auto dim = r.numbers("dim", 3, {}, true);
        Vec3 vel = r.vec3("vel");
        float spacing = float(r.required_number("spacing", 0.0, INFINITY, true));
        float mass = float(r.required_number("mass", 0.0));
        float radius = float(r.number("radius", spacing / 2, 0.0));
        float jitter = float(r.number("jitter", 0.0, 0.0, 1.0));
        int seed = r.integer("seed", 42, 0, 1 << 30);
        int d[3];
        for (int k = 0; k < 3; ++k) {
            if (dim[size_t(k)] < 1 || dim[size_t(k)] > 1000 || dim[size_t(k)] != std::floor(dim[size_t(k)]))
                r.fail_at("dim", "'dim' must hold integers from 1 to 1000, got " + format_number(dim[size_t(k)]));
            d[k] = int(dim[size_t(k)]);
        }
        check_memory(r, "dim", s, {double(d[0]) * d[1] * d[2]});
        uint64_t state = uint64_t(seed) * 6364136223846793005ull + 1442695040888963407ull;
        auto rnd = [&] {  // deterministic jitter in [-0.5, 0.5)
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            return float((state >> 40) & 0xffffff) / float(1 << 24) - 0.5f;
        };
        for (int z = 0; z < d[2]; ++z)
            for (int y = 0; y < d[1]; ++y)
                for (int x = 0; x < d[0]; ++x) {
                    Vec3 p = pos + Vec3(float(x), float(y), float(z)) * spacing;
                    if (jitter > 0) p += Vec3(rnd(), rnd(), rnd()) * (jitter * spacing);
                    b.add_particle(p, vel, mass, radius);
                }
    });
    for_each_entry(root, "spring", [&](TableReader& r) {
        int n = b.particle_count();
        int i = r.required_integer("i", 0, 1 << 30), j = r.required_integer("j", 0, 1 << 30);
        for (auto [key, v] : {std::pair<const char*, int>{"i", i}, {"j", j}})
            if (v >= n)
                r.fail_at(key, "'" + std::string(key) + "' = " + std::to_string(v) + " is out of range (the scene has " +
                                   std::to_string(n) + " particles before this spring)");
        if (i == j) r.fail_at("j", "a spring needs two different particles, got i = j = " + std::to_string(i));
        float ke = float(r.required_number("ke", 0.0));
        float kd = float(r.number("kd", 0.0, 0.0));
        float rest = float(r.number("rest_length", -1.0, -1.0));
        b.add_spring(i, j, ke, kd, rest);
        double mi = b.particle_mass[size_t(i)], mj = b.particle_mass[size_t(j)];
        double m = mi > 0 && mj > 0 ? std::min(mi, mj) : std::max(mi, mj);
        if (m > 0) note_stiffness(s, r, "[[spring]]", "springs", {{"ke", ke}, {"kd", kd}}, m);
    });
    for_each_entry(root, "spring_grid", [&](TableReader& r) {
        SpringGridDef d;
        d.pos = r.vec3("pos", d.pos);
        auto dim = r.numbers("dim", 2, {}, true);
        for (double v : dim)
            if (v < 2 || v > 4096 || v != std::floor(v))
                r.fail_at("dim", "'dim' must hold integers from 2 to 4096, got " + format_number(v));
        d.dim_x = int(dim[0]);
        d.dim_z = int(dim[1]);
        check_memory(r, "dim", s, {double(d.dim_x) * d.dim_z, 6.0 * d.dim_x * d.dim_z});
        d.spacing = float(r.number("spacing", d.spacing, 0.0, INFINITY, true));
        d.mass = float(r.number("mass", d.mass, 0.0));
        d.ke = float(r.number("ke", d.ke, 0.0));
        d.kd = float(r.number("kd", d.kd, 0.0));
        d.fix_corners = r.boolean("fix_corners", d.fix_corners);
        d.particle_radius = float(r.number("radius", -1.0, -1.0));
        b.add_spring_grid(d);
        if (d.mass > 0) note_stiffness(s, r, "[[spring_grid]]", "springs", {{"ke", d.ke}, {"kd", d.kd}}, d.mass);
    });
    for_each_entry(root, "cloth", [&](TableReader& r) {
        ClothGridDef d;
        d.pos = r.vec3("pos", d.pos);
        d.rot = r.rotation();
        d.vel = r.vec3("vel", d.vel);
        auto dim = r.numbers("dim", 2, {}, true);
        for (double v : dim)
            if (v < 1 || v > 4096 || v != std::floor(v))
                r.fail_at("dim", "'dim' must hold integers from 1 to 4096, got " + format_number(v));
        d.dim_x = int(dim[0]);
        d.dim_y = int(dim[1]);
        {
            double cells = double(d.dim_x) * d.dim_y;
            check_memory(r, "dim", s, {double(d.dim_x + 1) * (d.dim_y + 1), 6.0 * cells, 2.0 * cells, 3.0 * cells});
        }
        auto cell = r.numbers("cell", 2, {0.1, 0.1});
        if (!(cell[0] > 0 && cell[1] > 0)) r.fail_at("cell", "'cell' sizes must be > 0");
        d.cell_x = float(cell[0]);
        d.cell_y = float(cell[1]);
        d.mass = float(r.number("mass", d.mass, 0.0));
        d.reverse_winding = r.boolean("reverse_winding", false);
        d.fix_left = r.boolean("fix_left", false);
        d.fix_right = r.boolean("fix_right", false);
        d.fix_top = r.boolean("fix_top", false);
        d.fix_bottom = r.boolean("fix_bottom", false);
        d.tri_ke = float(r.number("tri_ke", d.tri_ke, 0.0));
        d.tri_ka = float(r.number("tri_ka", d.tri_ka, 0.0, INFINITY, true));
        d.tri_kd = float(r.number("tri_kd", d.tri_kd, 0.0));
        d.edge_ke = float(r.number("edge_ke", d.edge_ke, 0.0));
        d.edge_kd = float(r.number("edge_kd", d.edge_kd, 0.0));
        d.add_springs = r.boolean("add_springs", false);
        d.spring_ke = float(r.number("spring_ke", d.spring_ke, 0.0));
        d.spring_kd = float(r.number("spring_kd", d.spring_kd, 0.0));
        d.particle_radius = float(r.number("radius", -1.0, -1.0));
        const size_t tri0 = b.tri_indices.size();
        b.add_cloth_grid(d);
        note_elements(s, r, "[[cloth]]", 3, tri0, b.tri_indices.size(),
                      {{{"tri_ke", d.tri_ke}, {"tri_ka", d.tri_ka}, {"tri_kd", d.tri_kd}}});
        if (d.add_springs && d.mass > 0)
            note_stiffness(s, r, "[[cloth]]", "springs", {{"spring_ke", d.spring_ke}, {"spring_kd", d.spring_kd}}, d.mass);
    });
    for_each_entry(root, "soft_body", [&](TableReader& r) {
        SoftGridDef d;
        d.pos = r.vec3("pos", d.pos);
        d.rot = r.rotation();
        d.vel = r.vec3("vel", d.vel);
        auto dim = r.numbers("dim", 3, {}, true);
        for (double v : dim)
            if (v < 1 || v > 1024 || v != std::floor(v))
                r.fail_at("dim", "'dim' must hold integers from 1 to 1024, got " + format_number(v));
        d.dim_x = int(dim[0]);
        d.dim_y = int(dim[1]);
        d.dim_z = int(dim[2]);
        check_memory(r, "dim", s,
                     {double(d.dim_x + 1) * (d.dim_y + 1) * (d.dim_z + 1), 0, 0, 0, 5.0 * d.dim_x * d.dim_y * d.dim_z});
        auto cell = r.numbers("cell", 3, {0.1, 0.1, 0.1});
        if (!(cell[0] > 0 && cell[1] > 0 && cell[2] > 0)) r.fail_at("cell", "'cell' sizes must be > 0");
        d.cell_x = float(cell[0]);
        d.cell_y = float(cell[1]);
        d.cell_z = float(cell[2]);
        d.density = float(r.number("density", d.density, 0.0, INFINITY, true));
        d.k_mu = float(r.number("k_mu", d.k_mu, 0.0));
        d.k_lambda = float(r.number("k_lambda", d.k_lambda, 0.0, INFINITY, true));
        d.k_damp = float(r.number("k_damp", d.k_damp, 0.0));
        d.fix_left = r.boolean("fix_left", false);
        d.fix_right = r.boolean("fix_right", false);
        d.fix_top = r.boolean("fix_top", false);
        d.fix_bottom = r.boolean("fix_bottom", false);
        d.particle_radius = float(r.number("radius", -1.0, -1.0));
        const size_t tet0 = b.tet_indices.size();
        try {
            b.add_soft_grid(d);
        } catch (const BuildError& e) { r.fail_at("cell", e.what()); }
        note_elements(s, r, "[[soft_body]]", 4, tet0, b.tet_indices.size(),
                      {{{"k_mu", d.k_mu}, {"k_lambda", d.k_lambda}, {"k_damp", d.k_damp}}});
    });
    for_each_entry(root, "shape", [&](TableReader& r) {
        std::string type = r.string("type", "", {"sphere", "box", "capsule", "cylinder", "cone", "plane", "mesh"});
        if (type.empty()) r.fail(r.table().source(), "missing key 'type' in [[shape]]");
        float thickness = float(r.number("thickness", 0.0, 0.0));
        // Friction of the shape as an MPM collider (docs/mpm.md); particle solvers touch static
        // shapes with [contact]'s material, so there the key would be ignored: an error instead.
        const bool has_mu = r.has("mu");
        if (has_mu && s.solver != "mpm")
            r.fail_at("mu",
                      "'mu' of a [[shape]] is its friction as a collider of the mpm solver; particles touch static shapes "
                      "with [contact] mu (solver '" +
                          s.solver + "')");
        const float mu = float(r.number("mu", b.default_shape_mu, 0.0));
        const auto set_mu = [&] {
            if (has_mu) b.shape_material.back()[4] = mu;
        };
        if (type == "plane") {
            auto p = r.numbers("plane", 4, {0, 1, 0, 0});
            if (std::abs(p[0]) + std::abs(p[1]) + std::abs(p[2]) == 0) r.fail_at("plane", "'plane' normal must not be zero");
            b.add_shape_plane(Eigen::Vector4f(float(p[0]), float(p[1]), float(p[2]), float(p[3])), thickness);
            set_mu();
            return;
        }
        Vec3 pos = r.vec3("pos", Vec3::Zero(), type != "mesh");
        Quat rot = r.rotation();
        if (type == "mesh") {
            read_mesh_shape(r, [&](const Mesh& mesh, const Vec3& scale, int resolution, float margin) {
                b.add_shape_mesh(pos, mesh, rot, scale, thickness, resolution, margin);
            });
        }
        if (type == "sphere") b.add_shape_sphere(pos, float(r.required_number("radius", 0.0, INFINITY, true)), rot, thickness);
        if (type == "box") {
            Vec3 h = r.vec3("half_extents", Vec3::Zero(), true);
            if (!(h.x() > 0 && h.y() > 0 && h.z() > 0)) r.fail_at("half_extents", "'half_extents' must all be > 0");
            b.add_shape_box(pos, h.x(), h.y(), h.z(), rot, thickness);
        }
        if (type == "capsule")
            b.add_shape_capsule(pos, float(r.required_number("radius", 0.0, INFINITY, true)),
                                float(r.required_number("half_height", 0.0)), rot, thickness);
        if (type == "cylinder" || type == "cone") {
            float radius = float(r.required_number("radius", 0.0, INFINITY, true));
            float half = float(r.required_number("half_height", 0.0, INFINITY, true));
            if (type == "cylinder")
                b.add_shape_cylinder(pos, radius, half, rot, thickness);
            else
                b.add_shape_cone(pos, radius, half, rot, thickness);
        }
        set_mu();
    });
#define WEFT_SCENE_BLOCKS(reader) reader(root, s);
#include "engine/scene_blocks.def"
#undef WEFT_SCENE_BLOCKS
    if (const toml::node* n = root.get("output")) {
        if (!n->is_table()) root.fail(n->source(), "'output' must be a table, got " + std::string(toml_type_word(*n)));
        TableReader r(root.file(), *n->as_table(), "[output]");
        s.output.dir = r.string("dir", "");
        s.output.every = r.integer("every", 1, 1, 1 << 30);
        if (const toml::node* f = r.get("formats")) {
            const toml::array* a = f->as_array();
            if (!a) r.fail(f->source(), "'formats' must be an array of strings, got " + std::string(toml_type_word(*f)));
            s.output.npz = s.output.ply = s.output.vdb = false;
            for (const auto& e : *a) {
                auto v = e.value_exact<std::string>();
                if (!v || (*v != "npz" && *v != "ply" && *v != "vdb"))
                    r.fail(e.source(), "'formats' entries must be \"npz\", \"ply\" or \"vdb\"");
                if (*v == "vdb" && s.builder.smoke.resolution[0] == 0)
                    r.fail(e.source(), "\"vdb\" writes the smoke grid (OpenVDB), and this scene has no [smoke] table");
                (*v == "npz" ? s.output.npz : *v == "ply" ? s.output.ply : s.output.vdb) = true;
            }
        }
        r.finish();
    }
}

}  // namespace

Scene parse_scene(const std::string& text, const std::string& path, double memory_limit, WorldRange range) {
    Scene s;
    s.path = path;
    s.memory_limit = memory_limit;
    s.name = std::filesystem::path(path).stem().string();
    toml::table root;
    try {
        root = toml::parse(text, path);
    } catch (const toml::parse_error& e) {
        const auto& b = e.source().begin;
        throw SceneError(path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) + ": " +
                         std::string(e.description()));
    }
    TableReader r(path, root, "the scene");
    const TableReader& root_reader = r;
    try {
        read_scene(r, s);
        read_worlds(r, s, range);
    } catch (const BuildError& e) { throw SceneError(path + ": " + e.what()); }
    r.finish();
    const bool smoke = s.builder.smoke.resolution != std::array<int, 3>{0, 0, 0};  // a [smoke] grid (engine/scene_smoke.cpp)
    if (s.builder.empty() && !smoke) throw SceneError(path + ": the scene has no particles or bodies");
    if (!root_reader.table().contains("contact") && (s.builder.ground || !s.builder.shape_geo_type.empty())) {
        // The ground and shapes use [contact]'s defaults when the file has no [contact] table.
        for (auto [key, value] :
             {std::pair<const char*, double>{"ke", s.builder.soft_contact_ke}, {"kd", s.builder.soft_contact_kd}}) {
            StabilityEstimate e;
            e.where = path;
            e.key = std::string("[contact] '") + key + "'";
            e.is_default = true;
            e.module = "contact";
            e.stiffness = std::string(key) == "ke";
            e.coefficient = value;
            s.stability.push_back(e);
        }
    }
    if (integrator_info(s.solver).can(IntegratorCaps_Explicit))
        finish_stability(s);
    else
        s.stability.clear();  // an implicit (constraint) solver has no explicit limit
    return s;
}

Scene load_scene(const std::string& path, WorldRange range) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw SceneError(path + ": is a directory; give a scene file (.toml), e.g. " + path +
                         (path.empty() || path.back() == '/' ? "" : "/") + "scene.toml");
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw SceneError(path + ": is not a regular file (a device, FIFO or socket); give a scene file (.toml)");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw SceneError(path + ": cannot open the scene file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_scene(ss.str(), path, 0.0, range);
}

}  // namespace weft::engine

#else  // A machine without toml++ (the H200 image): everything but scene files builds.

namespace weft::engine {

Scene parse_scene(const std::string&, const std::string& path, double, WorldRange) {
    throw SceneError(path +
                     ": this build of Weft cannot read scene files: toml++ was not found when it was built "
                     "(Debian: apt-get install libtomlplusplus-dev, then rebuild)");
}

Scene load_scene(const std::string& path, WorldRange range) { return parse_scene("", path); }

}  // namespace weft::engine
#endif

namespace weft::engine {

// The stability warnings need no toml++: builds without it (the H200 image) link them too.
std::string StabilityEstimate::term() const {
    std::ostringstream os;
    if (element_nodes == 0) {
        os << (stiffness ? "sqrt(k/m) dt" : "k dt / m") << " = " << value << " with m = " << mass << " kg";
    } else {
        os << (stiffness ? "sqrt(lambda_max(M^-1 K)) dt" : "lambda_max(M^-1 C) dt") << " = " << value << " over the block's "
           << element_end - element_begin << (element_nodes == 3 ? " triangles" : " tetrahedra");
        if (!with.empty()) os << " (with " << with << ")";
    }
    return os.str();
}

std::vector<std::string> Scene::warnings() const {
    std::vector<std::string> out;
    size_t over = 0;
    for (const StabilityEstimate& e : stability) {
        if (e.value < kStabilityLimit) continue;
        if (++over > 5) continue;
        std::ostringstream os;
        os << e.where << ": warning: " << e.key << " = " << e.coefficient << (e.is_default ? " (the default)" : "")
           << " exceeds the explicit scheme's stability limit: " << e.term() << " and dt = " << dt()
           << " s (must stay well below 2); ";
        double need = std::ceil(double(substeps) * e.value / 1.0);
        if (need <= 100000)
            os << "raise substeps to " << int64_t(need) << " or lower it";
        else
            os << "lower it (or raise the mass)";
        out.push_back(os.str());
    }
    if (over > 5) out.push_back(path + ": warning: " + std::to_string(over - 5) + " more parameters exceed the stability limit");
    out.insert(out.end(), import_warnings.begin(), import_warnings.end());
    return out;
}

}  // namespace weft::engine
