// python/bindings/engine.cpp: the particle engine (engine/model.h, model_builder.h, the
// integrator registry). Thin: vectors and quaternions cross as tuples, arrays as _weft.Array
// handles, integrators as one Integrator class made by name; the Warp-named Python API
// (wp.sim.ModelBuilder(...).add_cloth_grid(pos=..., ...), wp.sim.XPBDIntegrator) is python/weft/sim.
#include <pybind11/stl.h>

#include <algorithm>

#include "engine/integrator_registry.h"
#include "engine/kinematics.h"
#include "engine/model_builder.h"
#include "engine/particle_grid.h"
#include "python/bindings/bindings.h"

namespace py = pybind11;
using namespace weft::engine;

namespace weft::python {
namespace {

using V3 = std::array<float, 3>;
using Q4 = std::array<float, 4>;  // x, y, z, w (Warp's quaternion order)

Vec3 v3(const V3& v) { return Vec3(v[0], v[1], v[2]); }
Quat q4(const Q4& q) { return Quat(q[3], q[0], q[1], q[2]).normalized(); }

// Exposes a Model/State array member as a read-write property.
template <typename C>
void array_property(py::class_<C>& cls, const char* name, Array C::*member) {
    cls.def_property(
        name, [member](const C& c) { return c.*member; }, [member](C& c, const Array& a) { c.*member = a; });
}

}  // namespace

void bind_engine(py::module_& m) {
    py::register_exception<BuildError>(m, "BuildError", PyExc_ValueError);

    py::class_<Model> model(m, "Model", "What does not change during a rollout (engine/model.h)");
    model.def_property_readonly("device", [](const Model& x) { return x.device.str(); })
        .def_readonly("requires_grad", &Model::requires_grad)
        .def_readonly("particle_count", &Model::particle_count)
        .def_readonly("spring_count", &Model::spring_count)
        .def_readonly("tri_count", &Model::tri_count)
        .def_readonly("edge_count", &Model::edge_count)
        .def_readonly("tet_count", &Model::tet_count)
        .def_readonly("shape_count", &Model::shape_count)
        .def_readonly("body_count", &Model::body_count)
        .def_readonly("joint_count", &Model::joint_count)
        .def_readonly("joint_axis_count", &Model::joint_axis_count)
        .def_readonly("num_worlds", &Model::num_worlds)
        .def_readonly("max_shape_candidates", &Model::max_shape_candidates)
        .def_readwrite("body_broad_phase", &Model::body_broad_phase)
        .def_readwrite("body_candidate_capacity", &Model::body_candidate_capacity)
        .def_readonly("particle_body_chunks", &Model::particle_body_chunks)
        .def_readonly("joint_coord_count", &Model::joint_coord_count)
        .def_readonly("joint_dof_count", &Model::joint_dof_count)
        .def_readonly("articulation_count", &Model::articulation_count)
        .def_readwrite("joint_attach_ke", &Model::joint_attach_ke)
        .def_readwrite("joint_attach_kd", &Model::joint_attach_kd)
        .def_readonly("mpm_particle_count", &Model::mpm_particle_count)
        .def_readwrite("ground_ke", &Model::ground_ke)
        .def_readwrite("ground_kd", &Model::ground_kd)
        .def_readwrite("ground_kf", &Model::ground_kf)
        .def_readwrite("ground_mu", &Model::ground_mu)
        .def_readonly("shape_sdf_size", &Model::shape_sdf_size)
        .def_readwrite("particle_max_radius", &Model::particle_max_radius)
        .def_readwrite("particle_max_velocity", &Model::particle_max_velocity)
        .def_readwrite("particle_drag", &Model::particle_drag)
        .def_readwrite("particle_contact", &Model::particle_contact)
        .def_readwrite("particle_ke", &Model::particle_ke)
        .def_readwrite("particle_kd", &Model::particle_kd)
        .def_readwrite("particle_kf", &Model::particle_kf)
        .def_readwrite("particle_mu", &Model::particle_mu)
        .def_readwrite("ground", &Model::ground)
        .def_readwrite("ground_plane", &Model::ground_plane)
        .def_readwrite("soft_contact_ke", &Model::soft_contact_ke)
        .def_readwrite("soft_contact_kd", &Model::soft_contact_kd)
        .def_readwrite("soft_contact_kf", &Model::soft_contact_kf)
        .def_readwrite("soft_contact_mu", &Model::soft_contact_mu)
        .def_readwrite("gravity", &Model::gravity)
        .def("state", &Model::state, py::arg("requires_grad") = -1,
             "A new State with the model's initial positions and velocities")
        .def("control", &Model::control);
    for (auto [name, member] : std::initializer_list<std::pair<const char*, Array Model::*>>{
             {"particle_q", &Model::particle_q},
             {"particle_qd", &Model::particle_qd},
             {"particle_mass", &Model::particle_mass},
             {"particle_inv_mass", &Model::particle_inv_mass},
             {"particle_radius", &Model::particle_radius},
             {"particle_flags", &Model::particle_flags},
             {"spring_indices", &Model::spring_indices},
             {"spring_rest_length", &Model::spring_rest_length},
             {"spring_stiffness", &Model::spring_stiffness},
             {"spring_damping", &Model::spring_damping},
             {"tri_indices", &Model::tri_indices},
             {"tri_poses", &Model::tri_poses},
             {"tri_activations", &Model::tri_activations},
             {"tri_materials", &Model::tri_materials},
             {"tri_areas", &Model::tri_areas},
             {"edge_indices", &Model::edge_indices},
             {"edge_rest_angle", &Model::edge_rest_angle},
             {"edge_bending_properties", &Model::edge_bending_properties},
             {"tet_indices", &Model::tet_indices},
             {"tet_poses", &Model::tet_poses},
             {"tet_activations", &Model::tet_activations},
             {"tet_materials", &Model::tet_materials},
             {"shape_body", &Model::shape_body},
             {"shape_materials", &Model::shape_materials},
             {"shape_material_share", &Model::shape_material_share},
             {"body_q", &Model::body_q},
             {"body_qd", &Model::body_qd},
             {"body_com", &Model::body_com},
             {"body_mass", &Model::body_mass},
             {"body_inv_mass", &Model::body_inv_mass},
             {"body_inertia", &Model::body_inertia},
             {"body_inv_inertia", &Model::body_inv_inertia},
             {"body_shape_start", &Model::body_shape_start},
             {"body_shape_list", &Model::body_shape_list},
             {"shape_world", &Model::shape_world},
             {"body_world", &Model::body_world},
             {"world_shape_start", &Model::world_shape_start},
             {"world_shape_list", &Model::world_shape_list},
             {"particle_world", &Model::particle_world},
             {"world_particle_start", &Model::world_particle_start},
             {"world_particle_list", &Model::world_particle_list},
             {"joint_type", &Model::joint_type},
             {"joint_parent", &Model::joint_parent},
             {"joint_child", &Model::joint_child},
             {"joint_X_p", &Model::joint_X_p},
             {"joint_X_c", &Model::joint_X_c},
             {"joint_axis_start", &Model::joint_axis_start},
             {"joint_axis_dim", &Model::joint_axis_dim},
             {"joint_axis", &Model::joint_axis},
             {"joint_mode", &Model::joint_mode},
             {"joint_axis_mode", &Model::joint_mode},  // Warp's name of the same array
             {"joint_act", &Model::joint_act},
             {"joint_target_ke", &Model::joint_target_ke},
             {"joint_target_kd", &Model::joint_target_kd},
             {"joint_limit_lower", &Model::joint_limit_lower},
             {"joint_limit_upper", &Model::joint_limit_upper},
             {"joint_limit_ke", &Model::joint_limit_ke},
             {"joint_limit_kd", &Model::joint_limit_kd},
             {"joint_q", &Model::joint_q},
             {"joint_qd", &Model::joint_qd},
             {"joint_q_start", &Model::joint_q_start},
             {"joint_qd_start", &Model::joint_qd_start},
             {"articulation_start", &Model::articulation_start},
             {"joint_armature", &Model::joint_armature},
             {"joint_linear_compliance", &Model::joint_linear_compliance},
             {"joint_angular_compliance", &Model::joint_angular_compliance},
             {"dof_joint", &Model::dof_joint},
             {"body_parent_joint", &Model::body_parent_joint},
             {"articulation_mass_start", &Model::articulation_mass_start},
             {"shape_transform", &Model::shape_transform},
             {"shape_geo_type", &Model::shape_geo_type},
             {"shape_geo_scale", &Model::shape_geo_scale},
             {"shape_geo_thickness", &Model::shape_geo_thickness},
             {"shape_sdf_values", &Model::shape_sdf_values},
             {"shape_sdf_dims", &Model::shape_sdf_dims},
             {"shape_sdf_origin", &Model::shape_sdf_origin},
             {"shape_sdf_cell", &Model::shape_sdf_cell},
             {"mpm_material", &Model::mpm_material},
             {"mpm_params", &Model::mpm_params},
             {"mpm_volume", &Model::mpm_volume}})
        array_property(model, name, member);

    py::class_<State> state(m, "State", "What a step changes: positions, velocities, forces");
    state.def_readonly("particle_count", &State::particle_count)
        .def_readonly("body_count", &State::body_count)
        .def("clear_forces", &State::clear_forces)
        .def(
            "__copy__", [](const State& s) { return s; }, "A State sharing this one's arrays (replace them to diverge)");
    for (auto [name, member] :
         std::initializer_list<std::pair<const char*, Array State::*>>{{"particle_q", &State::particle_q},
                                                                       {"particle_qd", &State::particle_qd},
                                                                       {"particle_f", &State::particle_f},
                                                                       {"body_q", &State::body_q},
                                                                       {"body_qd", &State::body_qd},
                                                                       {"body_f", &State::body_f},
                                                                       {"joint_q", &State::joint_q},
                                                                       {"joint_qd", &State::joint_qd},
                                                                       {"grid_bucket_count", &State::grid_bucket_count},
                                                                       {"grid_bucket_particles", &State::grid_bucket_particles},
                                                                       {"mpm_F", &State::mpm_F},
                                                                       {"mpm_C", &State::mpm_C},
                                                                       {"mpm_Jp", &State::mpm_Jp}})
        array_property(state, name, member);

    py::class_<Control> control(m, "Control", "Inputs of a step: external forces");
    array_property(control, "particle_f", &Control::particle_f);
    array_property(control, "body_f", &Control::body_f);
    array_property(control, "joint_act", &Control::joint_act);

    py::class_<ModelBuilder> b(m, "ModelBuilder", "Builds a Model on the host, then uploads it with finalize()");
    b.def(py::init([](float gravity, const V3& up) { return ModelBuilder(gravity, v3(up)); }), py::arg("gravity") = -9.80665f,
          py::arg("up_vector") = V3{0, 1, 0})
        .def_readwrite("default_particle_radius", &ModelBuilder::default_particle_radius)
        .def_readwrite("default_spring_ke", &ModelBuilder::default_spring_ke)
        .def_readwrite("default_spring_kd", &ModelBuilder::default_spring_kd)
        .def_readwrite("default_tri_ke", &ModelBuilder::default_tri_ke)
        .def_readwrite("default_tri_ka", &ModelBuilder::default_tri_ka)
        .def_readwrite("default_tri_kd", &ModelBuilder::default_tri_kd)
        .def_readwrite("default_edge_ke", &ModelBuilder::default_edge_ke)
        .def_readwrite("default_edge_kd", &ModelBuilder::default_edge_kd)
        .def_readwrite("soft_contact_ke", &ModelBuilder::soft_contact_ke)
        .def_readwrite("soft_contact_kd", &ModelBuilder::soft_contact_kd)
        .def_readwrite("soft_contact_kf", &ModelBuilder::soft_contact_kf)
        .def_readwrite("soft_contact_mu", &ModelBuilder::soft_contact_mu)
        .def_readwrite("particle_ke", &ModelBuilder::particle_ke)
        .def_readwrite("particle_kd", &ModelBuilder::particle_kd)
        .def_readwrite("particle_kf", &ModelBuilder::particle_kf)
        .def_readwrite("particle_mu", &ModelBuilder::particle_mu)
        .def_readwrite("particle_contact", &ModelBuilder::particle_contact)
        .def_readwrite("particle_drag", &ModelBuilder::particle_drag)
        .def_readwrite("particle_max_velocity", &ModelBuilder::particle_max_velocity)
        .def_readwrite("ground", &ModelBuilder::ground)
        .def_readwrite("ground_ke", &ModelBuilder::ground_ke)
        .def_readwrite("ground_kd", &ModelBuilder::ground_kd)
        .def_readwrite("ground_kf", &ModelBuilder::ground_kf)
        .def_readwrite("ground_mu", &ModelBuilder::ground_mu)
        .def_readwrite("ground_restitution", &ModelBuilder::ground_restitution)
        .def_readwrite("default_shape_ke", &ModelBuilder::default_shape_ke)
        .def_readwrite("default_shape_kd", &ModelBuilder::default_shape_kd)
        .def_readwrite("default_shape_kf", &ModelBuilder::default_shape_kf)
        .def_readwrite("default_shape_ka", &ModelBuilder::default_shape_ka)
        .def_readwrite("default_shape_mu", &ModelBuilder::default_shape_mu)
        .def_readwrite("default_shape_restitution", &ModelBuilder::default_shape_restitution)
        .def_readwrite("default_shape_density", &ModelBuilder::default_shape_density)
        .def_readwrite("default_shape_thickness", &ModelBuilder::default_shape_thickness)
        .def_property_readonly("particle_count", &ModelBuilder::particle_count)
        .def_property_readonly("body_count", &ModelBuilder::body_count)
        .def_property_readonly("tet_indices", [](const ModelBuilder& s) { return s.tet_indices; })
        .def(
            "set_shape_material",
            [](ModelBuilder& s, int shape, const std::array<float, 6>& material) {
                if (shape < 0 || size_t(shape) >= s.shape_material.size())
                    throw BuildError("set_shape_material: shape " + std::to_string(shape) + " is out of range");
                s.shape_material[size_t(shape)] = material;
                s.shape_material_share[size_t(shape)] = 0.5f;
            },
            "Gives a shape its own material (ke, kd, kf, ka, mu, restitution); particle contact then averages it with "
            "soft_contact_* (Warp's rule)")
        .def_property_readonly("body_mass",
                               [](const ModelBuilder& s) {
                                   std::vector<double> out;
                                   for (const auto& p : s.body_mass) out.push_back(p.mass);
                                   return out;
                               })
        .def_property_readonly("body_com",
                               [](const ModelBuilder& s) {
                                   std::vector<std::array<double, 3>> out;
                                   for (const auto& p : s.body_mass) out.push_back({p.com.x(), p.com.y(), p.com.z()});
                                   return out;
                               })
        .def_property_readonly("body_inertia",
                               [](const ModelBuilder& s) {
                                   std::vector<std::array<double, 9>> out;
                                   for (const auto& p : s.body_mass) {
                                       std::array<double, 9> I;
                                       for (int r = 0; r < 3; ++r)
                                           for (int c = 0; c < 3; ++c) I[size_t(3 * r + c)] = p.inertia(r, c);
                                       out.push_back(I);
                                   }
                                   return out;
                               })
        .def(
            "add_body",
            [](ModelBuilder& s, const V3& pos, const Q4& rot, const V3& com, const std::array<float, 9>& I_m, float m,
               float armature, const std::string& name) {
                Eigen::Matrix3f I;
                for (int r = 0; r < 3; ++r)
                    for (int c = 0; c < 3; ++c) I(r, c) = I_m[size_t(3 * r + c)];
                return s.add_body(v3(pos), q4(rot), v3(com), I, m, armature, name);
            },
            py::arg("pos"), py::arg("rot"), py::arg("com"), py::arg("I_m"), py::arg("m"), py::arg("armature"), py::arg("name"))
        .def(
            "set_body_velocity",
            [](ModelBuilder& s, int body, const V3& w, const V3& v) { s.set_body_velocity(body, v3(w), v3(v)); }, py::arg("body"),
            py::arg("angular"), py::arg("linear"))
        .def("set_joint_compliance", &ModelBuilder::set_joint_compliance, py::arg("joint"), py::arg("linear"), py::arg("angular"))
        .def("set_shape_collision", &ModelBuilder::set_shape_collision, py::arg("shape"), py::arg("group"), py::arg("ground"),
             py::arg("shapes"))
        .def("add_shape_collision_filter_pair", &ModelBuilder::add_shape_collision_filter_pair, py::arg("a"), py::arg("b"))
        .def("discard_shape_collision_filter_pair",
             [](ModelBuilder& s, int a, int b) {
                 s.shape_collision_filter_pairs.erase({std::min(a, b), std::max(a, b)});
             })
        .def_property_readonly("shape_collision_filter_pairs",
                               [](const ModelBuilder& s) {
                                   return std::vector<std::pair<int, int>>(s.shape_collision_filter_pairs.begin(),
                                                                           s.shape_collision_filter_pairs.end());
                               })
        .def_property_readonly("joint_count", &ModelBuilder::joint_count)
        .def_property_readonly("joint_axis_count", &ModelBuilder::joint_axis_count)
        .def_readwrite("joint_attach_ke", &ModelBuilder::joint_attach_ke)
        .def_readwrite("joint_attach_kd", &ModelBuilder::joint_attach_kd)
        .def(
            "add_builder",
            [](ModelBuilder& s, const ModelBuilder& other, const V3& pos, const Q4& rot, bool separate) {
                return s.add_builder(other, {v3(pos), q4(rot)}, separate);
            },
            py::arg("other"), py::arg("pos"), py::arg("rot"), py::arg("separate_world"))
        .def_readwrite("num_worlds", &ModelBuilder::num_worlds)
        .def_readwrite("num_envs", &ModelBuilder::num_envs)
        .def_readwrite("particle_world", &ModelBuilder::particle_world)
        .def_readwrite("shape_world", &ModelBuilder::shape_world)
        .def_readwrite("body_world", &ModelBuilder::body_world)
        .def_readwrite("joint_q", &ModelBuilder::joint_q)
        .def_readwrite("joint_qd", &ModelBuilder::joint_qd)
        .def_readwrite("joint_act", &ModelBuilder::joint_act)         // per axis slot (python/weft/sim.py writes through)
        .def_readwrite("joint_axis_mode", &ModelBuilder::joint_mode)  // Warp's name; per axis slot
        .def("add_articulation", &ModelBuilder::add_articulation)
        .def_property_readonly("articulation_count", &ModelBuilder::articulation_count)
        .def("joint_q_start", &ModelBuilder::joint_q_start, py::arg("joint"))
        .def("joint_qd_start", &ModelBuilder::joint_qd_start, py::arg("joint"))
        .def_readwrite("default_joint_limit_ke", &ModelBuilder::default_joint_limit_ke)
        .def_readwrite("default_joint_limit_kd", &ModelBuilder::default_joint_limit_kd)
        .def(
            "add_joint",
            [](ModelBuilder& s, const std::string& type, int parent, int child, const V3& xp, const Q4& qp, const V3& xc,
               const Q4& qc, const V3& axis, float target, float target_ke, float target_kd, int mode, float limit_lower,
               float limit_upper, float limit_ke, float limit_kd, bool collision_filter_parent, float armature,
               const std::string& name) {
                ModelBuilder::Xform Xp{v3(xp), q4(qp)}, Xc{v3(xc), q4(qc)};
                JointAxisDef a;
                a.axis = v3(axis);
                a.target = target;
                a.target_ke = target_ke;
                a.target_kd = target_kd;
                a.mode = mode;
                a.limit_lower = limit_lower;
                a.limit_upper = limit_upper;
                a.limit_ke = limit_ke;
                a.limit_kd = limit_kd;
                if (type == "revolute")
                    return s.add_joint_revolute(parent, child, Xp, Xc, a, collision_filter_parent, armature, name);
                if (type == "prismatic")
                    return s.add_joint_prismatic(parent, child, Xp, Xc, a, collision_filter_parent, armature, name);
                if (type == "ball") return s.add_joint_ball(parent, child, Xp, Xc, collision_filter_parent, armature, name);
                if (type == "fixed") return s.add_joint_fixed(parent, child, Xp, Xc, collision_filter_parent, armature, name);
                if (type == "free") return s.add_joint_free(child, Xp, parent, name, Xc, armature);
                if (type == "distance") return s.add_joint_distance(parent, child, Xp, Xc, a, collision_filter_parent, name);
                throw BuildError("add_joint: no joint type '" + type + "' (revolute, prismatic, ball, fixed, free, distance)");
            },
            py::arg("type"), py::arg("parent"), py::arg("child"), py::arg("parent_pos"), py::arg("parent_rot"),
            py::arg("child_pos"), py::arg("child_rot"), py::arg("axis"), py::arg("target"), py::arg("target_ke"),
            py::arg("target_kd"), py::arg("mode"), py::arg("limit_lower"), py::arg("limit_upper"), py::arg("limit_ke"),
            py::arg("limit_kd"), py::arg("collision_filter_parent"), py::arg("armature"), py::arg("name"),
            "A joint between parent (-1: the world) and child: its frame at (parent_pos, parent_rot) in the parent's "
            "frame and (child_pos, child_rot) in the child's; limit_ke/limit_kd NaN for the builder's defaults")
        .def(
            "add_joint_axes",
            [](ModelBuilder& s, const std::string& type, int parent, int child, const V3& xp, const Q4& qp, const V3& xc,
               const Q4& qc, const std::vector<std::array<float, 11>>& linear, const std::vector<std::array<float, 11>>& angular,
               bool collision_filter_parent, float armature, const std::string& name) {
                ModelBuilder::Xform Xp{v3(xp), q4(qp)}, Xc{v3(xc), q4(qc)};
                auto defs = [](const std::vector<std::array<float, 11>>& axes) {
                    std::vector<JointAxisDef> out;
                    for (const auto& v : axes) {
                        JointAxisDef a;
                        a.axis = Vec3(v[0], v[1], v[2]);
                        a.target = v[3];
                        a.target_ke = v[4];
                        a.target_kd = v[5];
                        a.mode = int(v[6]);
                        a.limit_lower = v[7];
                        a.limit_upper = v[8];
                        a.limit_ke = v[9];
                        a.limit_kd = v[10];
                        out.push_back(a);
                    }
                    return out;
                };
                std::vector<JointAxisDef> lin = defs(linear), ang = defs(angular);
                if (type == "universal" && lin.empty() && ang.size() == 2)
                    return s.add_joint_universal(parent, child, Xp, Xc, ang[0], ang[1], collision_filter_parent, armature, name);
                if (type == "compound" && lin.empty() && ang.size() == 3)
                    return s.add_joint_compound(parent, child, Xp, Xc, ang[0], ang[1], ang[2], collision_filter_parent, armature,
                                                name);
                if (type == "d6") return s.add_joint_d6(parent, child, Xp, Xc, lin, ang, collision_filter_parent, armature, name);
                throw BuildError("add_joint_axes: no joint type '" + type + "' with " + std::to_string(lin.size()) +
                                 " linear and " + std::to_string(ang.size()) +
                                 " angular axes (universal: 0 and 2, compound: 0 and 3, d6)");
            },
            py::arg("type"), py::arg("parent"), py::arg("child"), py::arg("parent_pos"), py::arg("parent_rot"),
            py::arg("child_pos"), py::arg("child_rot"), py::arg("linear_axes"), py::arg("angular_axes"),
            py::arg("collision_filter_parent"), py::arg("armature"), py::arg("name"),
            "A universal, compound or D6 joint; each axis is (x, y, z, target, target_ke, target_kd, mode, limit_lower, "
            "limit_upper, limit_ke, limit_kd), NaN limits for the defaults")
        .def(
            "add_body_shape",
            [](ModelBuilder& s, const std::string& type, int body, const V3& pos, const Q4& rot, const V3& size,
               const std::array<float, 8>& params) {
                ShapeParams p{params[0], params[1], params[2], params[3], params[4], params[5], params[6], params[7]};
                if (type == "sphere") return s.add_shape_sphere(body, v3(pos), q4(rot), size[0], p);
                if (type == "box") return s.add_shape_box(body, v3(pos), q4(rot), size[0], size[1], size[2], p);
                if (type == "capsule") return s.add_shape_capsule(body, v3(pos), q4(rot), size[0], size[1], p);
                if (type == "cylinder") return s.add_shape_cylinder(body, v3(pos), q4(rot), size[0], size[1], p);
                if (type == "cone") return s.add_shape_cone(body, v3(pos), q4(rot), size[0], size[1], p);
                throw BuildError("add_body_shape: no shape type '" + type + "' on bodies (sphere, box, capsule, cylinder, cone)");
            },
            py::arg("type"), py::arg("body"), py::arg("pos"), py::arg("rot"), py::arg("size"), py::arg("params"),
            "A shape on a body (or static with body -1): size is (radius,), (hx, hy, hz) or (radius, half_height); params "
            "are density, ke, kd, kf, ka, mu, restitution, thickness, NaN for the builder's defaults")
        .def(
            "add_body_mesh",
            [](ModelBuilder& s, int body, const V3& pos, const Q4& rot, const std::vector<V3>& vertices,
               const std::vector<int>& indices, const V3& scale, const std::array<float, 8>& params, int sdf_resolution,
               float sdf_margin) {
                ShapeParams p{params[0], params[1], params[2], params[3], params[4], params[5], params[6], params[7]};
                Mesh mesh;
                for (const auto& v : vertices) mesh.vertices.push_back(v3(v));
                mesh.indices = indices;
                return s.add_shape_mesh(body, v3(pos), q4(rot), mesh, v3(scale), p, sdf_resolution, sdf_margin);
            },
            py::arg("body"), py::arg("pos"), py::arg("rot"), py::arg("vertices"), py::arg("indices"), py::arg("scale"),
            py::arg("params"), py::arg("sdf_resolution"), py::arg("sdf_margin"),
            "A triangle mesh on a body (or static with body -1) with add_body_shape's params; its density adds the mass "
            "of the solid it bounds")
        .def(
            "set_mpm_grid",
            [](ModelBuilder& s, const V3& lo, float dx, const std::array<int, 3>& cells, const std::string& boundary,
               int boundary_cells, const std::string& floor) {
                const auto& names = mpm_boundary_names();
                int floor_kind = -1;
                if (!floor.empty()) {
                    auto f = std::find(names.begin(), names.end(), floor);
                    if (f == names.end())
                        throw BuildError("set_mpm_grid: floor must be 'none', 'sticky', 'slip' or 'separate', got '" + floor +
                                         "'");
                    floor_kind = int(f - names.begin());
                }
                auto it = std::find(names.begin(), names.end(), boundary);
                if (it == names.end())
                    throw BuildError("set_mpm_grid: boundary must be 'none', 'sticky', 'slip' or 'separate', got '" + boundary +
                                     "'");
                if (!(dx > 0)) throw BuildError("set_mpm_grid: dx must be > 0, got " + std::to_string(dx));
                for (int c : cells)
                    if (c < 4) throw BuildError("set_mpm_grid: cells must be >= 4 along every axis, got " + std::to_string(c));
                if (boundary_cells < 1 || 2 * boundary_cells + 2 > std::min({cells[0], cells[1], cells[2]}))
                    throw BuildError("set_mpm_grid: boundary_cells = " + std::to_string(boundary_cells) +
                                     " must be >= 1 and leave an interior (2 boundary_cells + 2 <= cells)");
                s.mpm_grid.lo = v3(lo);
                s.mpm_grid.dx = dx;
                s.mpm_grid.cells = cells;
                s.mpm_grid.boundary = MpmBoundary(int(it - names.begin()));
                s.mpm_grid.boundary_cells = boundary_cells;
                s.mpm_grid.floor = floor_kind;
            },
            py::arg("lo"), py::arg("dx"), py::arg("cells"), py::arg("boundary"), py::arg("boundary_cells"), py::arg("floor"),
            "The MLS-MPM grid (engine/mpm_defs.h): lower corner, cell side, cells per axis, walls")
        .def(
            "add_mpm_volume",
            [](ModelBuilder& s, const std::string& shape, const V3& lo, const V3& hi, const V3& center, float radius,
               const V3& vel, const std::string& material, float density, const std::array<float, 7>& params,
               int particles_per_cell) {
                MpmVolumeDef d;
                d.shape = shape == "sphere" ? MpmVolumeDef::Shape::Sphere : MpmVolumeDef::Shape::Box;
                d.lo = v3(lo), d.hi = v3(hi), d.center = v3(center), d.radius = radius, d.vel = v3(vel);
                const auto& names = mpm_material_names();
                auto it = std::find(names.begin(), names.end(), material);
                if (it == names.end()) throw BuildError("add_mpm_volume: no material '" + material + "'");
                d.material = MpmMaterial(int(it - names.begin()));
                d.density = density;
                d.E = params[0], d.nu = params[1], d.bulk_modulus = params[2], d.friction_angle = params[3];
                d.theta_c = params[4], d.theta_s = params[5], d.hardening = params[6];
                d.particles_per_cell = particles_per_cell;
                return s.add_mpm_volume(d);
            },
            py::arg("shape"), py::arg("lo"), py::arg("hi"), py::arg("center"), py::arg("radius"), py::arg("vel"),
            py::arg("material"), py::arg("density"), py::arg("params"), py::arg("particles_per_cell"),
            "Fills a box or sphere with MPM particles; params: E, nu, bulk_modulus, friction_angle, theta_c, theta_s, hardening")
        .def(
            "add_particle",
            [](ModelBuilder& s, const V3& pos, const V3& vel, float mass, float radius, uint32_t flags) {
                return s.add_particle(v3(pos), v3(vel), mass, radius, flags);
            },
            py::arg("pos"), py::arg("vel"), py::arg("mass"), py::arg("radius") = -1.0f, py::arg("flags") = 1u)
        .def("add_spring", &ModelBuilder::add_spring, py::arg("i"), py::arg("j"), py::arg("ke"), py::arg("kd"),
             py::arg("rest_length") = -1.0f)
        .def("add_triangle", &ModelBuilder::add_triangle, py::arg("i"), py::arg("j"), py::arg("k"), py::arg("tri_ke") = -1.0f,
             py::arg("tri_ka") = -1.0f, py::arg("tri_kd") = -1.0f, py::arg("tri_drag") = 0.0f, py::arg("tri_lift") = 0.0f)
        .def("add_edge", &ModelBuilder::add_edge, py::arg("i"), py::arg("j"), py::arg("k"), py::arg("l"), py::arg("rest") = NAN,
             py::arg("edge_ke") = -1.0f, py::arg("edge_kd") = -1.0f)
        .def("add_tetrahedron", &ModelBuilder::add_tetrahedron, py::arg("i"), py::arg("j"), py::arg("k"), py::arg("l"),
             py::arg("k_mu") = 1.0e3f, py::arg("k_lambda") = 1.0e3f, py::arg("k_damp") = 0.0f)
        .def(
            "add_cloth_grid",
            [](ModelBuilder& s, const V3& pos, const Q4& rot, const V3& vel, int dim_x, int dim_y, float cell_x, float cell_y,
               float mass, bool reverse_winding, bool fix_left, bool fix_right, bool fix_top, bool fix_bottom, float tri_ke,
               float tri_ka, float tri_kd, float tri_drag, float tri_lift, float edge_ke, float edge_kd, bool add_springs,
               float spring_ke, float spring_kd, float particle_radius) {
                ClothGridDef d;
                d.pos = v3(pos), d.rot = q4(rot), d.vel = v3(vel);
                d.dim_x = dim_x, d.dim_y = dim_y, d.cell_x = cell_x, d.cell_y = cell_y, d.mass = mass;
                d.reverse_winding = reverse_winding;
                d.fix_left = fix_left, d.fix_right = fix_right, d.fix_top = fix_top, d.fix_bottom = fix_bottom;
                d.tri_ke = tri_ke, d.tri_ka = tri_ka, d.tri_kd = tri_kd, d.tri_drag = tri_drag, d.tri_lift = tri_lift;
                d.edge_ke = edge_ke, d.edge_kd = edge_kd;
                d.add_springs = add_springs, d.spring_ke = spring_ke, d.spring_kd = spring_kd;
                d.particle_radius = particle_radius;
                s.add_cloth_grid(d);
            },
            py::arg("pos"), py::arg("rot"), py::arg("vel"), py::arg("dim_x"), py::arg("dim_y"), py::arg("cell_x"),
            py::arg("cell_y"), py::arg("mass"), py::arg("reverse_winding") = false, py::arg("fix_left") = false,
            py::arg("fix_right") = false, py::arg("fix_top") = false, py::arg("fix_bottom") = false, py::arg("tri_ke") = 100.0f,
            py::arg("tri_ka") = 100.0f, py::arg("tri_kd") = 10.0f, py::arg("tri_drag") = 0.0f, py::arg("tri_lift") = 0.0f,
            py::arg("edge_ke") = 100.0f, py::arg("edge_kd") = 0.0f, py::arg("add_springs") = false, py::arg("spring_ke") = 100.0f,
            py::arg("spring_kd") = 0.0f, py::arg("particle_radius") = -1.0f)
        .def(
            "add_soft_grid",
            [](ModelBuilder& s, const V3& pos, const Q4& rot, const V3& vel, int dim_x, int dim_y, int dim_z, float cell_x,
               float cell_y, float cell_z, float density, float k_mu, float k_lambda, float k_damp, bool fix_left, bool fix_right,
               bool fix_top, bool fix_bottom, float particle_radius) {
                SoftGridDef d;
                d.pos = v3(pos), d.rot = q4(rot), d.vel = v3(vel);
                d.dim_x = dim_x, d.dim_y = dim_y, d.dim_z = dim_z, d.cell_x = cell_x, d.cell_y = cell_y, d.cell_z = cell_z;
                d.density = density, d.k_mu = k_mu, d.k_lambda = k_lambda, d.k_damp = k_damp;
                d.fix_left = fix_left, d.fix_right = fix_right, d.fix_top = fix_top, d.fix_bottom = fix_bottom;
                d.particle_radius = particle_radius;
                s.add_soft_grid(d);
            },
            py::arg("pos"), py::arg("rot"), py::arg("vel"), py::arg("dim_x"), py::arg("dim_y"), py::arg("dim_z"),
            py::arg("cell_x"), py::arg("cell_y"), py::arg("cell_z"), py::arg("density"), py::arg("k_mu"), py::arg("k_lambda"),
            py::arg("k_damp"), py::arg("fix_left") = false, py::arg("fix_right") = false, py::arg("fix_top") = false,
            py::arg("fix_bottom") = false, py::arg("particle_radius") = -1.0f)
        .def(
            "add_shape_sphere",
            [](ModelBuilder& s, const V3& pos, const Q4& rot, float radius, float thickness) {
                return s.add_shape_sphere(v3(pos), radius, q4(rot), thickness);
            },
            py::arg("pos"), py::arg("rot"), py::arg("radius"), py::arg("thickness") = 0.0f)
        .def(
            "add_shape_box",
            [](ModelBuilder& s, const V3& pos, const Q4& rot, float hx, float hy, float hz, float thickness) {
                return s.add_shape_box(v3(pos), hx, hy, hz, q4(rot), thickness);
            },
            py::arg("pos"), py::arg("rot"), py::arg("hx"), py::arg("hy"), py::arg("hz"), py::arg("thickness") = 0.0f)
        .def(
            "add_shape_capsule",
            [](ModelBuilder& s, const V3& pos, const Q4& rot, float radius, float half_height, float thickness) {
                return s.add_shape_capsule(v3(pos), radius, half_height, q4(rot), thickness);
            },
            py::arg("pos"), py::arg("rot"), py::arg("radius"), py::arg("half_height"), py::arg("thickness") = 0.0f)
        .def(
            "add_shape_plane",
            [](ModelBuilder& s, const Q4& plane, float thickness) {
                return s.add_shape_plane(Eigen::Vector4f(plane[0], plane[1], plane[2], plane[3]), thickness);
            },
            py::arg("plane"), py::arg("thickness") = 0.0f)
        .def(
            "add_shape_mesh",
            [](ModelBuilder& s, const V3& pos, const Q4& rot, const std::vector<V3>& vertices, const std::vector<int>& indices,
               const V3& scale, float thickness, int sdf_resolution, float sdf_margin) {
                Mesh mesh;
                for (const auto& v : vertices) mesh.vertices.push_back(v3(v));
                mesh.indices = indices;
                return s.add_shape_mesh(v3(pos), mesh, q4(rot), v3(scale), thickness, sdf_resolution, sdf_margin);
            },
            py::arg("pos"), py::arg("rot"), py::arg("vertices"), py::arg("indices"), py::arg("scale") = V3{1, 1, 1},
            py::arg("thickness") = 0.0f, py::arg("sdf_resolution") = 64, py::arg("sdf_margin") = -1.0f,
            "A static triangle-mesh shape; finalize() samples its signed distance on a grid (engine/mesh_sdf.h)")
        .def(
            "set_ground_plane", [](ModelBuilder& s, const V3& normal, float offset) { s.set_ground_plane(v3(normal), offset); },
            py::arg("normal"), py::arg("offset"))
        .def(
            "finalize",
            [](const ModelBuilder& s, const std::string& device, bool requires_grad) {
                py::gil_scoped_release unlocked;
                return s.finalize(device, requires_grad);
            },
            py::arg("device") = "cpu", py::arg("requires_grad") = false);

    py::class_<Integrator>(m, "Integrator", "A registered integrator (engine/integrator.h), made by create_integrator")
        .def_property_readonly("name", [](const Integrator& it) { return it.info().name; })
        .def_property_readonly("summary", [](const Integrator& it) { return it.info().summary; })
        .def_property_readonly(
            "kernels",
            [](const Integrator& it) {
                std::vector<std::pair<std::string, std::string>> out;
                for (const KernelRef& k : it.info().kernels) out.emplace_back(k.group, k.name);
                return out;
            },
            "(module group, kernel name) of every kernel a step may launch")
        .def_property_readonly("graph_capture", [](const Integrator& it) { return it.info().can(IntegratorCaps_GraphCapture); })
        .def_property_readonly("differentiable",
                               [](const Integrator& it) { return it.info().can(IntegratorCaps_Differentiable); })
        .def_property_readonly("state_reads", [](const Integrator& it) { return it.info().state_reads; })
        .def_property_readonly("state_writes", [](const Integrator& it) { return it.info().state_writes; })
        .def(
            "simulate",
            [](Integrator& it, const Model& model, const State& a, State& b, float dt, const Control* c) {
                py::gil_scoped_release unlocked;
                it.simulate(model, a, b, dt, c);
            },
            py::arg("model"), py::arg("state_in"), py::arg("state_out"), py::arg("dt"), py::arg("control") = nullptr);
    m.def(
        "eval_fk",
        [](const Model& model, const Array& q, const Array& qd, State& state, const Array* mask) {
            eval_fk(model, q, qd, state, mask);
        },
        py::arg("model"), py::arg("joint_q"), py::arg("joint_qd"), py::arg("state"), py::arg("mask") = nullptr,
        "Bodies' poses and velocities of `state` from reduced coordinates (engine/kinematics.h)");
    m.def(
        "eval_ik", [](const Model& model, const State& state, Array& q, Array& qd) { eval_ik(model, state, q, qd); },
        py::arg("model"), py::arg("state"), py::arg("joint_q"), py::arg("joint_qd"),
        "Reduced coordinates from the bodies of `state` (engine/kinematics.h)");
    m.def("integrator_names", &integrator_names, "Every registered integrator name, sorted");
    m.def(
        "integrator_options",
        [](const std::string& name) {
            std::vector<std::pair<std::string, double>> out;
            for (const OptionSpec& o : integrator_info(name).options) out.emplace_back(o.name, o.default_value);
            return out;
        },
        py::arg("name"),
        "The options of integrator `name` with their defaults; RuntimeError with did-you-mean for an unknown name");
    m.def(
        "create_integrator",
        [](const std::string& name, const std::map<std::string, double>& options) {
            IntegratorOptions o;
            for (const auto& [k, v] : options) o.set(k, v);
            return create_integrator(name, o);
        },
        py::arg("name"), py::arg("options") = std::map<std::string, double>{},
        "A new integrator by registered name (engine/integrator_registry.h); RuntimeError with did-you-mean for an "
        "unknown name or option");

    m.def(
        "build_particle_grid",
        [](const Model& model, State& s) {
            py::gil_scoped_release unlocked;
            build_particle_grid(model, s.particle_q, s.grid_bucket_count, s.grid_bucket_particles);
            return particle_grid_dropped(model, s.grid_bucket_count);
        },
        "Builds the state's particle hash grid from its positions; returns how many particles did not fit");
}

}  // namespace weft::python
