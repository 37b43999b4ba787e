// tests/engine/mjcf_mujoco_test.cpp: Weft's MJCF import against MuJoCo 2.2.2's compiler (Debian
// libmujoco-dev), the independent reference: the same files loaded by mj_loadXML must give the
// same body masses, inertias (principal moments and frames, compared as world-frame tensors),
// centres of mass, body frames, joint anchors, axes and limits. Built only where CMake finds
// MuJoCo; otherwise this file compiles to one skipped test that says so.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <string>

#include "engine/mjcf_import.h"

#if WEFT_HAS_MUJOCO
#include <mujoco/mujoco.h>
#endif

using namespace weft::engine;

namespace {

const std::string kData = std::string(WEFT_SOURCE_DIR) + "/tests/engine/data/";

#if WEFT_HAS_MUJOCO
Eigen::Quaterniond rot_of(const std::array<float, 7>& q) { return Eigen::Quaterniond(q[6], q[3], q[4], q[5]); }
Eigen::Vector3d pos_of(const std::array<float, 7>& q) { return Eigen::Vector3d(q[0], q[1], q[2]); }

void compare_with_mujoco(const std::string& file) {
    char err[1000] = "";
    mjModel* m = mj_loadXML(file.c_str(), nullptr, err, sizeof err);
    ASSERT_NE(m, nullptr) << err;
    mjData* d = mj_makeData(m);
    mj_forward(m, d);  // qpos0: every joint at 0, as Weft places the bodies

    ModelBuilder b;
    ImportOptions o;
    o.up_axis = "Y";                        // keep MuJoCo's frame (no turn onto +y)
    o.ignore_inertial_definitions = false;  // MuJoCo uses <inertial> where given
    ImportResult r = parse_mjcf(file, b, o);
    ASSERT_EQ(r.body_end - r.body_start, m->nbody - 1);  // MuJoCo's body 0 is the world
    ASSERT_EQ(r.joint_end - r.joint_start, m->njnt);

    for (int i = 1; i < m->nbody; ++i) {
        SCOPED_TRACE("body " + std::string(mj_id2name(m, mjOBJ_BODY, i)));
        const int w = r.body_index.at(mj_id2name(m, mjOBJ_BODY, i));
        const MassProperties& mp = b.body_mass[size_t(w)];
        EXPECT_NEAR(mp.mass, m->body_mass[i], 1e-6 * m->body_mass[i]);
        // Body frame.
        const Eigen::Vector3d xpos(d->xpos[3 * i], d->xpos[3 * i + 1], d->xpos[3 * i + 2]);
        const Eigen::Quaterniond xquat(d->xquat[4 * i], d->xquat[4 * i + 1], d->xquat[4 * i + 2], d->xquat[4 * i + 3]);
        EXPECT_LT((pos_of(b.body_q[size_t(w)]) - xpos).norm(), 1e-6);
        EXPECT_LT(rot_of(b.body_q[size_t(w)]).angularDistance(xquat), 2e-6);
        // Centre of mass and inertia in the world: MuJoCo's principal frame (ximat) and moments.
        const Eigen::Matrix3d R = rot_of(b.body_q[size_t(w)]).cast<double>().toRotationMatrix();
        const Eigen::Vector3d com = pos_of(b.body_q[size_t(w)]) + R * mp.com;
        const Eigen::Vector3d xipos(d->xipos[3 * i], d->xipos[3 * i + 1], d->xipos[3 * i + 2]);
        EXPECT_LT((com - xipos).norm(), 1e-6);
        Eigen::Matrix3d Ri;
        for (int k = 0; k < 9; ++k) Ri(k / 3, k % 3) = d->ximat[9 * i + k];
        const Eigen::Vector3d moments(m->body_inertia[3 * i], m->body_inertia[3 * i + 1], m->body_inertia[3 * i + 2]);
        const Eigen::Matrix3d I_mj = Ri * moments.asDiagonal() * Ri.transpose();
        const Eigen::Matrix3d I_weft = R * mp.inertia * R.transpose();
        EXPECT_LT((I_weft - I_mj).norm(), 2e-5 * I_mj.norm()) << "Weft\n" << I_weft << "\nMuJoCo\n" << I_mj;
    }

    for (int j = 0; j < m->njnt; ++j) {
        const std::string name = mj_id2name(m, mjOBJ_JOINT, j);
        SCOPED_TRACE("joint " + name);
        const size_t k = size_t(r.joint_index.at(name));
        const int parent = b.joint_parent[k];
        const Eigen::Quaterniond qp = parent < 0 ? Eigen::Quaterniond::Identity() : rot_of(b.body_q[size_t(parent)]);
        const Eigen::Vector3d pp = parent < 0 ? Eigen::Vector3d::Zero() : pos_of(b.body_q[size_t(parent)]);
        const Eigen::Vector3d anchor = pp + qp * pos_of(b.joint_X_p[k]);
        const Eigen::Quaterniond frame = qp * rot_of(b.joint_X_p[k]);
        EXPECT_LT((anchor - Eigen::Vector3d(d->xanchor[3 * j], d->xanchor[3 * j + 1], d->xanchor[3 * j + 2])).norm(), 1e-6);
        if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE) {
            const Eigen::Vector3d axis = frame * b.joint_axis[k].cast<double>();
            EXPECT_LT((axis - Eigen::Vector3d(d->xaxis[3 * j], d->xaxis[3 * j + 1], d->xaxis[3 * j + 2])).norm(), 1e-6);
            EXPECT_EQ(b.joint_type[k], m->jnt_type[j] == mjJNT_HINGE ? JOINT_REVOLUTE : JOINT_PRISMATIC);
            if (m->jnt_limited[j]) {
                EXPECT_NEAR(b.joint_limit_lower[k], m->jnt_range[2 * j], 1e-6);
                EXPECT_NEAR(b.joint_limit_upper[k], m->jnt_range[2 * j + 1], 1e-6);
            } else {
                EXPECT_FLOAT_EQ(b.joint_limit_lower[k], o.joint_limit_lower);
            }
            EXPECT_NEAR(b.joint_target_kd[k], m->dof_damping[m->jnt_dofadr[j]], 1e-7);
        } else if (m->jnt_type[j] == mjJNT_BALL) {
            EXPECT_EQ(b.joint_type[k], JOINT_BALL);
        }
    }
    EXPECT_LT((b.gravity.cast<double>() - Eigen::Vector3d(m->opt.gravity[0], m->opt.gravity[1], m->opt.gravity[2])).norm(), 1e-6);
    mj_deleteData(d);
    mj_deleteModel(m);
}
#endif

}  // namespace

TEST(MjcfMujoco, TreeMatchesMujocosCompiler) {
#if WEFT_HAS_MUJOCO
    compare_with_mujoco(kData + "mujoco_compare.xml");
#else
    GTEST_SKIP() << "MuJoCo (libmujoco-dev) was not found when this test was built: no reference to compare with";
#endif
}

TEST(MjcfMujoco, PendulumMatchesMujocosCompiler) {
#if WEFT_HAS_MUJOCO
    compare_with_mujoco(kData + "pendulum2.xml");
#else
    GTEST_SKIP() << "MuJoCo (libmujoco-dev) was not found when this test was built: no reference to compare with";
#endif
}
