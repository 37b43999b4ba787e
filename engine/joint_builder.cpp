// engine/joint_builder.cpp: the builder's joints (Warp's add_joint_*), their axis slots and the
// layout of their reduced coordinates.
//
// Every joint owns a run of axis slots in the per-axis arrays (joint_axis, joint_mode, joint_act,
// the drive gains and the limits), linear axes first:
//
//   joint      revolute  prismatic  ball  universal   d6 (x, y | rz)    fixed
//   slots      [a]       [a]        [-]   [a0 a1]     [x y rz]          [-]
//   axis_dim   (0, 1)    (1, 0)     (0,0) (0, 2)      (2, 1)            (0, 0)
//
// A joint without axes keeps one unused slot ([-], filled as the single-axis joints' defaults),
// so that a model whose joints have at most one axis has slot j = joint j, as before axes were
// counted (Control::joint_act indexed by joint). Warp gives such joints no slot.
//
// A joint's angular axes (two or three) are decomposed as successive rotations (kernels/joints.py),
// which needs them perpendicular; so do its linear axes, whose complement the attachment spring
// holds. They are checked here and then made exactly orthonormal (Gram-Schmidt), so that the
// kernels' basis is a rotation to float precision.
#include <cmath>

#include "engine/build_checks.h"
#include "engine/model_builder.h"

namespace weft::engine {

using build_checks::num;
using build_checks::require_finite;
using build_checks::require_nonnegative;

namespace {

// Two unit axes count as perpendicular when their cosine is below this (0.06 degrees off).
constexpr float kPerpendicularCos = 1.0e-3f;

// The name of axis k in messages: empty for the one-axis joints (their argument is `axis`).
std::string axis_label(int type, bool linear, size_t k) {
    if (type == JOINT_D6) return std::string(linear ? "linear_axes[" : "angular_axes[") + std::to_string(k) + "]";
    if (type == JOINT_UNIVERSAL || type == JOINT_COMPOUND) return "axis_" + std::to_string(k);
    return "";
}

// Normalised axes made exactly orthonormal in order (each minus its parts along the earlier
// ones), after checking that they are perpendicular to within kPerpendicularCos.
void orthonormalize(const std::string& call, std::vector<Vec3>& axes, const std::vector<std::string>& labels) {
    for (size_t i = 0; i < axes.size(); ++i)
        for (size_t k = 0; k < i; ++k) {
            const float c = axes[i].dot(axes[k]);
            if (std::abs(c) > kPerpendicularCos)
                throw BuildError(call + ": " + labels[k] + " and " + labels[i] + " must be perpendicular, got " +
                                 num(std::acos(std::clamp(double(c), -1.0, 1.0)) * 180.0 / M_PI) + " degrees apart");
        }
    for (size_t i = 0; i < axes.size(); ++i) {
        for (size_t k = 0; k < i; ++k) axes[i] -= axes[k] * axes[i].dot(axes[k]);
        axes[i].normalize();
    }
}

}  // namespace

int ModelBuilder::add_joint(const char* call, int type, int parent, int child, const Xform& parent_xform,
                            const Xform& child_xform, const std::vector<JointAxisDef>& linear,
                            const std::vector<JointAxisDef>& angular, bool filter, float armature, const std::string& name) {
    const std::string c = call;
    if (child < 0 || child >= body_count())
        throw BuildError(c + ": child body " + std::to_string(child) + " is out of range (the model has " +
                         std::to_string(body_count()) + " bodies)");
    if (parent < -1 || parent >= body_count())
        throw BuildError(c + ": parent body " + std::to_string(parent) + " is out of range (the model has " +
                         std::to_string(body_count()) + " bodies; -1 is the world)");
    if (parent == child) throw BuildError(c + ": parent and child are both body " + std::to_string(child));
    require_finite(call, "parent_xform position", parent_xform.p);
    require_finite(call, "child_xform position", child_xform.p);
    for (const Quat* q : {&parent_xform.q, &child_xform.q})
        if (!q->coeffs().allFinite() || q->norm() < 1e-6f)
            throw BuildError(c + ": a joint frame's rotation must be a finite, nonzero quaternion");
    if (linear.size() > 3 || angular.size() > 3)
        throw BuildError(c + ": " + std::to_string(linear.size() > 3 ? linear.size() : angular.size()) +
                         (linear.size() > 3 ? " linear" : " angular") + " axes given; a joint has at most 3 of each");

    // The slots: each axis checked and completed with the defaults; one unused slot for none.
    struct Slot {
        JointAxisDef def;
        bool linear = false, used = true;
        std::string label;
    };
    std::vector<Slot> slots;
    for (size_t k = 0; k < linear.size(); ++k) slots.push_back({linear[k], true, true, axis_label(type, true, k)});
    for (size_t k = 0; k < angular.size(); ++k) slots.push_back({angular[k], false, true, axis_label(type, false, k)});
    if (slots.empty()) slots.push_back({JointAxisDef{}, false, false, ""});
    for (Slot& s : slots) {
        const std::string where = s.label.empty() ? c : c + ": " + s.label;
        const char* w = where.c_str();
        JointAxisDef& a = s.def;
        require_finite(w, "axis", a.axis);
        if (s.used && !(a.axis.norm() > 1e-6f))
            throw BuildError(
                where + ": axis must be a nonzero vector" +
                (s.label.empty() ? "" : ", got (" + num(a.axis.x()) + ", " + num(a.axis.y()) + ", " + num(a.axis.z()) + ")"));
        require_finite(w, "target", a.target);
        require_nonnegative(w, "target_ke", a.target_ke);
        require_nonnegative(w, "target_kd", a.target_kd);
        const float default_limit = s.linear ? 1.0e4f : 6.283185307f;
        a.limit_lower = std::isnan(a.limit_lower) ? -default_limit : a.limit_lower;
        a.limit_upper = std::isnan(a.limit_upper) ? default_limit : a.limit_upper;
        require_finite(w, "limit_lower", a.limit_lower);
        require_finite(w, "limit_upper", a.limit_upper);
        if (a.limit_lower > a.limit_upper && !(type == JOINT_DISTANCE && a.limit_upper < 0))  // < 0: no limit
            throw BuildError(where + ": limit_lower (" + num(a.limit_lower) + ") is above limit_upper (" + num(a.limit_upper) +
                             ")");
        a.limit_ke = std::isnan(a.limit_ke) ? default_joint_limit_ke : a.limit_ke;
        a.limit_kd = std::isnan(a.limit_kd) ? default_joint_limit_kd : a.limit_kd;
        require_nonnegative(w, "limit_ke", a.limit_ke);
        require_nonnegative(w, "limit_kd", a.limit_kd);
        if (a.mode != JOINT_MODE_FORCE && a.mode != JOINT_MODE_TARGET_POSITION && a.mode != JOINT_MODE_TARGET_VELOCITY)
            throw BuildError(where + ": mode " + std::to_string(a.mode) +
                             " is not a joint mode (0 force, 1 target position, 2 target velocity)");
        if (s.used)
            a.axis.normalize();
        else {
            a.mode = JOINT_MODE_FORCE;
            a.target = 0.0f;
        }
    }
    require_nonnegative(call, "armature", armature);
    for (bool lin : {true, false}) {
        std::vector<Vec3> axes;
        std::vector<std::string> labels;
        for (const Slot& s : slots)
            if (s.used && s.linear == lin) {
                axes.push_back(s.def.axis);
                labels.push_back(s.label);
            }
        if (axes.size() < 2) continue;
        orthonormalize(c, axes, labels);
        size_t k = 0;
        for (Slot& s : slots)
            if (s.used && s.linear == lin) s.def.axis = axes[k++];
    }
    for (size_t j = 0; j < joint_child.size(); ++j)
        if (joint_child[j] == child)
            throw BuildError(c + ": " + body_name[size_t(child)] + " is already the child of joint '" + joint_name[j] +
                             "' (a body has one parent joint)");
    auto pack = [](const Xform& x) {
        Quat q = x.q.normalized();
        return std::array<float, 7>{x.p.x(), x.p.y(), x.p.z(), q.x(), q.y(), q.z(), q.w()};
    };
    joint_type.push_back(type);
    joint_parent.push_back(parent);
    joint_child.push_back(child);
    joint_X_p.push_back(pack(parent_xform));
    joint_X_c.push_back(pack(child_xform));
    joint_axis_start.push_back(joint_axis_count());
    joint_axis_dim.push_back({int(linear.size()), int(angular.size())});
    for (const Slot& s : slots) {
        joint_axis.push_back(s.def.axis);
        joint_mode.push_back(s.def.mode);
        joint_act.push_back(s.def.target);
        joint_target_ke.push_back(s.def.target_ke);
        joint_target_kd.push_back(s.def.target_kd);
        joint_limit_lower.push_back(s.def.limit_lower);
        joint_limit_upper.push_back(s.def.limit_upper);
        joint_limit_ke.push_back(s.def.limit_ke);
        joint_limit_kd.push_back(s.def.limit_kd);
    }
    joint_armature.push_back(armature);
    joint_linear_compliance.push_back(0.0f);
    joint_angular_compliance.push_back(0.0f);
    joint_collision_filter.push_back(filter && parent >= 0 ? 1 : 0);
    joint_name.push_back(name.empty() ? "joint " + std::to_string(joint_type.size() - 1) : name);
    const auto [nq, nqd] = joint_coordinate_counts(type, int(linear.size() + angular.size()));
    joint_q.resize(joint_q.size() + size_t(nq), 0.0f);
    joint_qd.resize(joint_qd.size() + size_t(nqd), 0.0f);
    if (type == JOINT_BALL || type == JOINT_FREE || type == JOINT_DISTANCE) joint_q.back() = 1.0f;  // the quaternion's w
    return joint_count() - 1;
}

std::vector<int> articulation_starts(const ModelBuilder& b) {
    std::vector<int> s;
    auto push = [&](int j) {
        if (j < b.joint_count() && (s.empty() || s.back() != j)) s.push_back(j);
    };
    push(0);
    for (int j : b.articulation_start) push(j);
    s.push_back(b.joint_count());
    if (s.size() == 1) s.insert(s.begin(), 0);  // no joints: no articulation, s = {0}
    if (s.size() == 2 && s[0] == s[1]) s.pop_back();
    return s;
}

void ModelBuilder::add_articulation() { articulation_start.push_back(joint_count()); }

int ModelBuilder::articulation_count() const {
    std::vector<int> s = articulation_starts(*this);
    return int(s.size()) - 1;
}

int ModelBuilder::joint_q_start(int j) const {
    int n = 0;
    for (int k = 0; k < j; ++k) {
        const auto& d = joint_axis_dim[size_t(k)];
        n += joint_coordinate_counts(joint_type[size_t(k)], d[0] + d[1]).first;
    }
    return n;
}

int ModelBuilder::joint_qd_start(int j) const {
    int n = 0;
    for (int k = 0; k < j; ++k) {
        const auto& d = joint_axis_dim[size_t(k)];
        n += joint_coordinate_counts(joint_type[size_t(k)], d[0] + d[1]).second;
    }
    return n;
}

int ModelBuilder::add_joint_revolute(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                                     const JointAxisDef& axis, bool collision_filter_parent, float armature,
                                     const std::string& name) {
    return add_joint("add_joint_revolute", JOINT_REVOLUTE, parent, child, parent_xform, child_xform, {}, {axis},
                     collision_filter_parent, armature, name);
}

int ModelBuilder::add_joint_prismatic(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                                      const JointAxisDef& axis, bool collision_filter_parent, float armature,
                                      const std::string& name) {
    return add_joint("add_joint_prismatic", JOINT_PRISMATIC, parent, child, parent_xform, child_xform, {axis}, {},
                     collision_filter_parent, armature, name);
}

int ModelBuilder::add_joint_ball(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                                 bool collision_filter_parent, float armature, const std::string& name) {
    return add_joint("add_joint_ball", JOINT_BALL, parent, child, parent_xform, child_xform, {}, {}, collision_filter_parent,
                     armature, name);
}

int ModelBuilder::add_joint_fixed(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                                  bool collision_filter_parent, float armature, const std::string& name) {
    return add_joint("add_joint_fixed", JOINT_FIXED, parent, child, parent_xform, child_xform, {}, {}, collision_filter_parent,
                     armature, name);
}

int ModelBuilder::add_joint_free(int child, const Xform& parent_xform, int parent, const std::string& name,
                                 const Xform& child_xform, float armature) {
    return add_joint("add_joint_free", JOINT_FREE, parent, child, parent_xform, child_xform, {}, {}, false, armature, name);
}

int ModelBuilder::add_joint_universal(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                                      const JointAxisDef& axis_0, const JointAxisDef& axis_1, bool collision_filter_parent,
                                      float armature, const std::string& name) {
    return add_joint("add_joint_universal", JOINT_UNIVERSAL, parent, child, parent_xform, child_xform, {}, {axis_0, axis_1},
                     collision_filter_parent, armature, name);
}

int ModelBuilder::add_joint_compound(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                                     const JointAxisDef& axis_0, const JointAxisDef& axis_1, const JointAxisDef& axis_2,
                                     bool collision_filter_parent, float armature, const std::string& name) {
    return add_joint("add_joint_compound", JOINT_COMPOUND, parent, child, parent_xform, child_xform, {}, {axis_0, axis_1, axis_2},
                     collision_filter_parent, armature, name);
}

int ModelBuilder::add_joint_d6(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                               const std::vector<JointAxisDef>& linear_axes, const std::vector<JointAxisDef>& angular_axes,
                               bool collision_filter_parent, float armature, const std::string& name) {
    return add_joint("add_joint_d6", JOINT_D6, parent, child, parent_xform, child_xform, linear_axes, angular_axes,
                     collision_filter_parent, armature, name);
}

int ModelBuilder::add_joint_distance(int parent, int child, const Xform& parent_xform, const Xform& child_xform,
                                     const JointAxisDef& distance, bool collision_filter_parent, const std::string& name) {
    const char* c = "add_joint_distance";
    if (distance.mode != JOINT_MODE_FORCE || distance.target != 0.0f)
        throw BuildError(std::string(c) + ": a distance joint has no drive (mode " + std::to_string(distance.mode) + ", target " +
                         num(distance.target) + "); its target_ke / target_kd make its limits soft, as in Warp");
    JointAxisDef d = distance;
    d.axis = Vec3::UnitX();                                // Warp's; the joint has no direction
    if (std::isnan(d.limit_lower)) d.limit_lower = -1.0f;  // NaN (an infinite bound in Python): none
    if (std::isnan(d.limit_upper)) d.limit_upper = -1.0f;
    return add_joint(c, JOINT_DISTANCE, parent, child, parent_xform, child_xform, {d}, {}, collision_filter_parent, 0.0f, name);
}

void ModelBuilder::set_joint_compliance(int joint, float linear, float angular) {
    const char* c = "set_joint_compliance";
    if (joint < 0 || joint >= joint_count())
        throw BuildError(std::string(c) + ": joint index " + std::to_string(joint) + " is out of range (the model has " +
                         std::to_string(joint_count()) + " joints)");
    require_nonnegative(c, "linear_compliance", linear);
    require_nonnegative(c, "angular_compliance", angular);
    joint_linear_compliance[size_t(joint)] = linear;
    joint_angular_compliance[size_t(joint)] = angular;
}

}  // namespace weft::engine
