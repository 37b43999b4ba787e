// tests/engine/mjcf_import_test.cpp: engine/mjcf_import.h against values computed by hand (Eigen)
// for tests/engine/data/pendulum2.xml and small inline models, and every error and warning message
// of the MJCF importer.
#include "engine/mjcf_import.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <fstream>

#include "engine/xml_reader.h"

using namespace weft::engine;

namespace {

const std::string kData = std::string(WEFT_SOURCE_DIR) + "/tests/engine/data/";

Eigen::Vector3d pos_of(const std::array<float, 7>& q) { return Eigen::Vector3d(q[0], q[1], q[2]); }
Eigen::Quaterniond rot_of(const std::array<float, 7>& q) { return Eigen::Quaterniond(q[6], q[3], q[4], q[5]); }

// A capsule of radius r and half length h (axis along `axis` of the body frame), density rho.
struct Capsule {
    double m, axial, transverse;
    Capsule(double r, double h, double rho) {
        const double mc = rho * M_PI * r * r * 2 * h, ms = rho * 4.0 / 3.0 * M_PI * r * r * r;
        m = mc + ms;
        axial = mc * r * r / 2 + ms * 2.0 / 5.0 * r * r;
        transverse = mc * (r * r / 4 + h * h / 3) + ms * (2.0 / 5.0 * r * r + h * h + 3.0 / 4.0 * h * r);
    }
};

std::string error_of(const std::string& text, const ImportOptions& o = {}) {
    ModelBuilder b;
    try {
        parse_mjcf_string(text, "model.xml", b, o);
    } catch (const ImportError& e) { return e.what(); }
    return "";
}

std::vector<std::string> sorted_warnings(const std::string& text, const ImportOptions& o = {}) {
    ModelBuilder b;
    auto w = parse_mjcf_string(text, "model.xml", b, o).warnings;
    std::sort(w.begin(), w.end());
    return w;
}

}  // namespace

TEST(MjcfImport, PendulumBodiesMassesAndFrames) {
    ModelBuilder b;
    ImportResult r = parse_mjcf(kData + "pendulum2.xml", b);
    ASSERT_EQ(r.body_end - r.body_start, 2);
    const auto X0 = Eigen::Quaterniond(Eigen::AngleAxisd(-M_PI / 2, Eigen::Vector3d::UnitX()));  // up_axis Z: +z -> +y
    const auto Ry = Eigen::Quaterniond(Eigen::AngleAxisd(0.3, Eigen::Vector3d::UnitY()));
    EXPECT_LT((pos_of(b.body_q[0]) - Eigen::Vector3d(0, 2, 0)).norm(), 1e-6);
    EXPECT_LT(rot_of(b.body_q[0]).angularDistance(X0), 1e-6);
    EXPECT_LT((pos_of(b.body_q[1]) - Eigen::Vector3d(0, 1.5, 0)).norm(), 1e-6);
    EXPECT_LT(rot_of(b.body_q[1]).angularDistance(X0 * Ry), 1e-6);

    // link1: a capsule from (0,0,0) to (0,0,-0.5), r 0.05, density 1000 (the default class).
    Capsule c1(0.05, 0.25, 1000);
    EXPECT_NEAR(b.body_mass[0].mass, c1.m, 1e-6 * (c1.m));
    EXPECT_LT((b.body_mass[0].com - Eigen::Vector3d(0, 0, -0.25)).norm(), 1e-7);
    EXPECT_LT(
        (b.body_mass[0].inertia - Eigen::Vector3d(c1.transverse, c1.transverse, c1.axial).asDiagonal().toDenseMatrix()).norm(),
        1e-6 * c1.transverse);
    // link2: class 'heavy' (density 2000), its own size 0.04, from (0,0,0) to (0.4,0,0).
    Capsule c2(0.04, 0.2, 2000);
    EXPECT_NEAR(b.body_mass[1].mass, c2.m, 1e-6 * (c2.m));
    EXPECT_LT((b.body_mass[1].com - Eigen::Vector3d(0.2, 0, 0)).norm(), 1e-7);
    EXPECT_LT(
        (b.body_mass[1].inertia - Eigen::Vector3d(c2.axial, c2.transverse, c2.transverse).asDiagonal().toDenseMatrix()).norm(),
        1e-6 * c2.transverse);

    // Joints: hinges about the body's y, placed at the body origins.
    const size_t j1 = size_t(r.joint_index.at("j1")), j2 = size_t(r.joint_index.at("j2"));
    EXPECT_EQ(b.joint_type[j1], JOINT_REVOLUTE);
    EXPECT_EQ(b.joint_parent[j1], -1);
    EXPECT_EQ(b.joint_parent[j2], 0);
    EXPECT_EQ(b.joint_child[j2], 1);
    EXPECT_LT((pos_of(b.joint_X_p[j1]) - Eigen::Vector3d(0, 2, 0)).norm(), 1e-6);
    EXPECT_LT(rot_of(b.joint_X_p[j1]).angularDistance(X0), 1e-6);
    EXPECT_LT((pos_of(b.joint_X_p[j2]) - Eigen::Vector3d(0, 0, -0.5)).norm(), 1e-6);
    EXPECT_LT(rot_of(b.joint_X_p[j2]).angularDistance(Ry), 1e-6);
    EXPECT_LT(pos_of(b.joint_X_c[j2]).norm(), 1e-7);
    EXPECT_LT((b.joint_axis[j2] - Vec3(0, 1, 0)).norm(), 1e-6);
    EXPECT_FLOAT_EQ(b.joint_limit_lower[j1], -1e6f);  // no range: not limited
    EXPECT_FLOAT_EQ(b.joint_limit_lower[j2], -1.0f);  // range in radians (compiler angle="radian")
    EXPECT_FLOAT_EQ(b.joint_limit_upper[j2], 1.0f);

    // Actuators: a motor makes j1 a FORCE joint; a position servo drives j2 with kp = 30.
    ASSERT_EQ(r.actuators.size(), 2u);
    EXPECT_EQ(r.actuators[0].type, "motor");
    EXPECT_EQ(r.actuators[0].joint, int(j1));
    EXPECT_TRUE(r.actuators[0].ctrllimited);
    EXPECT_FLOAT_EQ(r.actuators[0].ctrl_upper, 2.0f);
    EXPECT_EQ(b.joint_mode[j1], JOINT_MODE_FORCE);
    EXPECT_EQ(b.joint_mode[j2], JOINT_MODE_TARGET_POSITION);
    EXPECT_FLOAT_EQ(b.joint_target_ke[j2], 30.0f);
    EXPECT_FLOAT_EQ(b.joint_target_kd[j2], 0.0f);  // the default class's damping="0" over the option's 10

    // <option>: gravity turned into the builder's frame; the timestep reported.
    EXPECT_TRUE(r.gravity_set);
    EXPECT_LT((b.gravity - Vec3(0, -9.81f, 0)).norm(), 1e-5);
    EXPECT_FLOAT_EQ(r.timestep, 0.001f);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], kData +
                                 "pendulum2.xml:24: warning: actuator 'm1': ctrlrange is kept in the import result's actuators "
                                 "but not enforced: clamp the controls you write");
}

TEST(MjcfImport, OrientationsAndDegrees) {
    ImportOptions o;
    o.up_axis = "Y";  // no turn: the file's frame is the builder's
    ModelBuilder b;
    parse_mjcf_string(R"(<mujoco>
  <compiler eulerseq="zyx"/>
  <worldbody>
    <body name="q" pos="1 0 0" quat="0 1 0 0"><geom size="0.1"/></body>
    <body name="aa" axisangle="0 0 1 90"><geom size="0.1"/></body>
    <body name="eu" euler="30 20 10"><geom size="0.1"/></body>
    <body name="xy" xyaxes="0 1 0 -1 0 0"><geom size="0.1"/></body>
    <body name="za" zaxis="1 0 0"><geom size="0.1"/></body>
  </worldbody>
</mujoco>)",
                      "model.xml", b, o);
    using Eigen::AngleAxisd;
    using Eigen::Quaterniond;
    using Eigen::Vector3d;
    const double d = M_PI / 180;
    EXPECT_LT(rot_of(b.body_q[0]).angularDistance(Quaterniond(AngleAxisd(M_PI, Vector3d::UnitX()))), 1e-6);
    EXPECT_LT((pos_of(b.body_q[0]) - Vector3d(1, 0, 0)).norm(), 1e-7);
    EXPECT_LT(rot_of(b.body_q[1]).angularDistance(Quaterniond(AngleAxisd(90 * d, Vector3d::UnitZ()))), 1e-6);
    // Lowercase zyx: rotating axes, R = Rz(30) Ry(20) Rx(10).
    Quaterniond eu = Quaterniond(AngleAxisd(30 * d, Vector3d::UnitZ()) * AngleAxisd(20 * d, Vector3d::UnitY()) *
                                 AngleAxisd(10 * d, Vector3d::UnitX()));
    EXPECT_LT(rot_of(b.body_q[2]).angularDistance(eu), 1e-6);
    EXPECT_LT(rot_of(b.body_q[3]).angularDistance(Quaterniond(AngleAxisd(90 * d, Vector3d::UnitZ()))), 1e-6);
    EXPECT_LT((rot_of(b.body_q[4]) * Vector3d::UnitZ() - Vector3d::UnitX()).norm(), 1e-6);

    // Uppercase: fixed axes, R = Rx(10) Ry(20) Rz(30) for "ZYX" applied z first.
    ModelBuilder b2;
    parse_mjcf_string(R"(<mujoco><compiler eulerseq="ZYX"/><worldbody>
    <body euler="30 20 10"><geom size="0.1"/></body></worldbody></mujoco>)",
                      "model.xml", b2, o);
    Quaterniond fixed = Quaterniond(AngleAxisd(10 * d, Vector3d::UnitX()) * AngleAxisd(20 * d, Vector3d::UnitY()) *
                                    AngleAxisd(30 * d, Vector3d::UnitZ()));
    EXPECT_LT(rot_of(b2.body_q[0]).angularDistance(fixed), 1e-6);
}

TEST(MjcfImport, DefaultClassesNestAndChildclass) {
    ImportOptions o;
    o.up_axis = "Y";
    ModelBuilder b;
    ImportResult r = parse_mjcf_string(R"(<mujoco>
  <default>
    <joint damping="1"/>
    <default class="a">
      <joint damping="3" axis="1 0 0"/>
      <default class="b"><joint stiffness="5"/><geom type="box" size="0.1 0.2 0.3"/></default>
    </default>
  </default>
  <worldbody>
    <body name="p" childclass="b">
      <joint name="jb" range="-90 90"/>
      <geom/>
      <body name="c" pos="0 1 0">
        <joint name="ja" class="a" type="slide" range="-0.5 0.5"/>
        <geom type="sphere" size="0.1" mass="3"/>
      </body>
    </body>
    <body name="plain"><joint name="jm"/><geom size="0.1"/></body>
  </worldbody>
</mujoco>)",
                                       "model.xml", b, o);
    const size_t jb = size_t(r.joint_index.at("jb")), ja = size_t(r.joint_index.at("ja")), jm = size_t(r.joint_index.at("jm"));
    EXPECT_FLOAT_EQ(b.joint_target_kd[jb], 3.0f);  // inherited from class a
    EXPECT_FLOAT_EQ(b.joint_target_ke[jb], 5.0f);
    EXPECT_LT((b.joint_axis[jb] - Vec3(1, 0, 0)).norm(), 1e-6);
    EXPECT_NEAR(b.joint_limit_upper[jb], M_PI / 2, 1e-6);  // degrees by default
    EXPECT_EQ(b.joint_type[ja], JOINT_PRISMATIC);
    EXPECT_FLOAT_EQ(b.joint_target_kd[ja], 3.0f);
    EXPECT_FLOAT_EQ(b.joint_target_ke[ja], 100.0f);  // class a sets no stiffness: the option's
    EXPECT_FLOAT_EQ(b.joint_limit_upper[ja], 0.5f);  // a slide's range is in metres
    EXPECT_FLOAT_EQ(b.joint_target_kd[jm], 1.0f);    // the main class
    EXPECT_LT((b.joint_axis[jm] - Vec3(0, 0, 1)).norm(), 1e-6);
    EXPECT_NEAR(b.body_mass[0].mass, 0.2 * 0.4 * 0.6 * 1000, 1e-6 * (0.2 * 0.4 * 0.6 * 1000));  // the childclass's box
    EXPECT_NEAR(b.body_mass[1].mass, 3.0, 1e-6 * (3.0));                                        // geom mass= sets the density
}

TEST(MjcfImport, InertialAndFreeJoints) {
    ImportOptions o;
    o.up_axis = "Y";
    o.ignore_inertial_definitions = false;
    o.floating = true;
    ModelBuilder b;
    ImportResult r = parse_mjcf_string(R"(<mujoco><worldbody>
    <body name="box" pos="0 1 0"><freejoint name="root"/>
      <inertial pos="0.1 0 0" quat="0.7071067811865476 0 0 0.7071067811865476" mass="2" diaginertia="1 2 3"/>
      <geom type="box" size="0.1 0.1 0.1"/></body></worldbody></mujoco>)",
                                       "model.xml", b, o);
    EXPECT_EQ(b.joint_type[size_t(r.joint_index.at("root"))], JOINT_FREE);
    EXPECT_NEAR(b.body_mass[0].mass, 2.0, 1e-12);
    EXPECT_LT((b.body_mass[0].com - Eigen::Vector3d(0.1, 0, 0)).norm(), 1e-7);
    // diag(1, 2, 3) turned 90 deg about z: diag(2, 1, 3).
    EXPECT_LT((b.body_mass[0].inertia - Eigen::Vector3d(2, 1, 3).asDiagonal().toDenseMatrix()).norm(), 1e-9);

    ImportOptions fixed;
    fixed.up_axis = "Y";
    ModelBuilder b2;
    ImportResult r2 = parse_mjcf_string(R"(<mujoco><worldbody>
    <body name="box" pos="0 1 0"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body></worldbody></mujoco>)",
                                        "model.xml", b2, fixed);
    EXPECT_EQ(b2.joint_type[0], JOINT_FIXED);
    EXPECT_EQ(b2.joint_name[0], "fixed_base");
    ASSERT_EQ(r2.warnings.size(), 1u);
    EXPECT_EQ(r2.warnings[0],
              "model.xml:2: warning: joint 'box_joint': the free joint becomes a fixed joint to the world "
              "(floating=false, Warp's rule; pass floating=true for a free body)");
}

TEST(MjcfImport, ActuatorModes) {
    ImportOptions o;
    o.stiffness = 0;
    o.damping = 0;
    ModelBuilder b;
    ImportResult r = parse_mjcf_string(R"(<mujoco><worldbody>
    <body name="a"><joint name="ja"/><geom size="0.1"/>
      <body name="b"><joint name="jb" damping="2"/><geom size="0.1"/></body></body></worldbody>
  <actuator><velocity joint="ja" kv="7"/><motor joint="jb" gear="3"/></actuator></mujoco>)",
                                       "model.xml", b, o);
    EXPECT_EQ(b.joint_mode[0], JOINT_MODE_TARGET_VELOCITY);
    EXPECT_FLOAT_EQ(b.joint_target_ke[0], 7.0f);
    EXPECT_EQ(b.joint_mode[1], JOINT_MODE_FORCE);
    EXPECT_FLOAT_EQ(r.actuators[1].gear, 3.0f);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0],
              "model.xml:4: warning: actuator 'motor 1': gear 3: the joint force is joint_act; multiply controls by "
              "the gear");
}

// Several joints in one body (Warp's mapping): two hinges a universal joint, three a compound
// one, a slide and a hinge a D6 joint (slides first); named by their names joined with '_', each
// <joint> name kept in joint_index and its axis slot in joint_axis_index, where actuators act.
TEST(MjcfImport, BodiesWithSeveralJoints) {
    ImportOptions o;
    o.stiffness = 0;
    o.damping = 0;
    ModelBuilder b;
    ImportResult r = parse_mjcf_string(R"(<mujoco><compiler angle="radian"/><worldbody>
    <body name="a"><joint name="ax" axis="1 0 0" range="-0.5 0.5" limited="true"/><joint name="ay" axis="0 1 0"/>
      <geom size="0.1"/>
      <body name="b" pos="0 0 -1"><joint name="bx" axis="1 0 0"/><joint name="by" axis="0 1 0"/>
        <joint name="bz" axis="0 0 1"/><geom size="0.1"/>
        <body name="c" pos="0 0 -1"><joint name="cz" axis="0 0 1"/><joint name="cs" type="slide" axis="1 0 0"/>
          <geom size="0.1"/></body></body></body></worldbody>
  <actuator><position joint="by" kp="9"/><motor joint="cz"/></actuator></mujoco>)",
                                       "model.xml", b, o);
    ASSERT_EQ(b.joint_count(), 3);
    EXPECT_EQ(b.joint_type, (std::vector<int>{JOINT_UNIVERSAL, JOINT_COMPOUND, JOINT_D6}));
    EXPECT_EQ(b.joint_name[0], "ax_ay");
    EXPECT_EQ(b.joint_name[2], "cz_cs");
    EXPECT_EQ(b.joint_axis_dim[2], (std::array<int, 2>{1, 1}));
    EXPECT_EQ(r.joint_index.at("by"), 1);
    EXPECT_EQ(r.joint_index.at("ax_ay"), 0);
    EXPECT_EQ(r.joint_axis_index.at("ax"), 0);
    EXPECT_EQ(r.joint_axis_index.at("by"), 3);
    EXPECT_EQ(r.joint_axis_index.at("cs"), 5);  // the slide comes first in the D6 joint
    EXPECT_EQ(r.joint_axis_index.at("cz"), 6);
    EXPECT_FLOAT_EQ(b.joint_limit_lower[0], -0.5f);
    EXPECT_FLOAT_EQ(b.joint_limit_lower[1], -1e6f);
    EXPECT_LT((b.joint_axis[5] - Vec3(1, 0, 0)).norm(), 1e-6);
    EXPECT_EQ(b.joint_mode[3], JOINT_MODE_TARGET_POSITION);
    EXPECT_FLOAT_EQ(b.joint_target_ke[3], 9.0f);
    EXPECT_EQ(b.joint_mode[2], JOINT_MODE_FORCE);
    ASSERT_EQ(r.actuators.size(), 2u);
    EXPECT_EQ(r.actuators[0].joint, 1);
    EXPECT_EQ(r.actuators[0].axis, 3);
    EXPECT_EQ(r.actuators[1].axis, 6);
    EXPECT_EQ(b.joint_q.size(), size_t(2 + 3 + 2));
}

TEST(MjcfImport, StaticGeomsOfTheWorld) {
    ModelBuilder b;
    ImportResult r = parse_mjcf_string(R"(<mujoco><worldbody>
    <geom name="floor" type="plane" pos="0 0 -1" size="5 5 0.1"/>
    <geom type="box" pos="1 0 0" size="0.5 0.5 0.5"/></worldbody></mujoco>)",
                                       "model.xml", b);
    EXPECT_EQ(r.body_end - r.body_start, 0);
    ASSERT_EQ(b.shape_geo_type.size(), 2u);
    EXPECT_EQ(b.shape_geo_type[0], GEO_PLANE);
    EXPECT_EQ(b.shape_body[1], -1);
    // The plane z = -1 of the file is y = -1 in the builder (up_axis Z).
    const auto& t = b.shape_transform[1];
    EXPECT_LT((Eigen::Vector3d(t[0], t[1], t[2]) - Eigen::Vector3d(1, 0, 0)).norm(), 1e-6);
}

// A mesh geom on a body (tests/../scenes/pyramid.obj: a square pyramid, volume 0.2 m^3) adds the
// solid's mass from the geom's density, or the geom's mass; an open mesh adds none, with a warning.
TEST(MjcfImport, MeshGeomsOnBodiesAddTheirSolidsMass) {
    const std::string pyramid = std::string(WEFT_SOURCE_DIR) + "/scenes/pyramid.obj";
    const std::string open = ::testing::TempDir() + "open_quad.obj";
    {
        std::ofstream f(open);
        f << "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 2 3 4\n";
    }
    auto model = [&](const std::string& geom_attrs) {
        return "<mujoco><asset><mesh name=\"pyr\" file=\"" + pyramid + "\"/><mesh name=\"quad\" file=\"" + open +
               "\"/></asset><worldbody><body name=\"b\"><geom type=\"mesh\" " + geom_attrs + "/></body></worldbody></mujoco>";
    };
    {
        ModelBuilder b;
        ImportResult r = parse_mjcf_string(model("mesh=\"pyr\" density=\"500\""), "model.xml", b);
        EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
        ASSERT_EQ(b.shape_geo_type.size(), 1u);
        EXPECT_EQ(b.shape_geo_type[0], GEO_MESH);
        EXPECT_EQ(b.shape_body[0], 0);
        EXPECT_NEAR(b.body_mass[0].mass, 100.0, 1e-4);
    }
    {
        ModelBuilder b;
        parse_mjcf_string(model("mesh=\"pyr\" mass=\"3\""), "model.xml", b);
        EXPECT_NEAR(b.body_mass[0].mass, 3.0, 1e-5);
    }
    {
        ModelBuilder b;
        ImportResult r = parse_mjcf_string(model("mesh=\"quad\" mass=\"3\""), "model.xml", b);
        ASSERT_EQ(r.warnings.size(), 1u);
        EXPECT_EQ(r.warnings[0], "model.xml:1: warning: geom 'mesh' of body 'b': mesh '" + open +
                                     "' adds no mass to its body: the mesh is not closed: edge (0, 1) has a triangle on one "
                                     "side only, so the mesh has no volume");
        EXPECT_EQ(b.shape_geo_type.size(), 1u);
        EXPECT_EQ(b.body_mass[0].mass, ImportOptions{}.static_link_mass);  // ensure_nonstatic_links' mass alone
    }
}

TEST(MjcfImport, Errors) {
    EXPECT_EQ(error_of(R"(<mujoco><worldbody>
  <body name="b"><joint name="knee" type="hing"/><geom size="0.1"/></body>
</worldbody></mujoco>)"),
              "model.xml:2: joint 'knee': unknown type 'hing' (did you mean 'hinge'?)");
    EXPECT_EQ(error_of(R"(<mujoco><default><default class="heavy"/></default><worldbody>
  <body name="b"><geom class="hevy" size="0.1"/></body>
</worldbody></mujoco>)"),
              "model.xml:2: <geom>: unknown class 'hevy' (did you mean 'heavy'?)");
    EXPECT_EQ(error_of(R"(<mujoco><worldbody>
  <body name="b"><joint name="j1"/><joint name="j2" type="ball"/><geom size="0.1"/></body>
</worldbody></mujoco>)"),
              "model.xml:2: joint 'j2': body 'b' has 2 joints and this one is a ball joint: several joints in one body must be "
              "hinge and slide joints");
    // Two hinges about the same axis (both MuJoCo's default z) cannot be a universal joint.
    EXPECT_EQ(error_of(R"(<mujoco><worldbody>
  <body name="b"><joint name="j1"/><joint name="j2"/><geom size="0.1"/></body>
</worldbody></mujoco>)"),
              "model.xml:2: joint 'j1_j2': add_joint_universal: axis_0 and axis_1 must be perpendicular, got 0 degrees apart");
    EXPECT_EQ(error_of(R"(<mujoco><worldbody>
  <body name="a"><geom size="0.1"/><body name="b"><freejoint name="f"/><geom size="0.1"/></body></body>
</worldbody></mujoco>)"),
              "model.xml:2: joint 'f': a free joint must be in a top-level body (MuJoCo's rule), and body 'b' is inside another");
    EXPECT_EQ(error_of(R"(<mujoco><worldbody>
  <body name="a"><joint name="elbow"/><geom size="0.1"/></body></worldbody>
  <actuator><motor name="m" joint="elbw"/></actuator></mujoco>)"),
              "model.xml:3: actuator 'm': no joint named 'elbw' (did you mean 'elbow'?)");
    EXPECT_EQ(error_of("<mujoco>\n<worldbody>\n</mujoco>"),
              "model.xml:2: malformed XML: Error=XML_ERROR_MISMATCHED_ELEMENT ErrorID=14 (0xe) Line number=2: XMLElement "
              "name=worldbody");
    EXPECT_EQ(error_of("<mujoco/>"), "model.xml:1: <mujoco> has no <worldbody>");
    EXPECT_EQ(error_of("<robot/>"), "model.xml:1: the root element is <robot>, an MJCF file has <mujoco>");
    EXPECT_EQ(error_of(R"(<mujoco><worldbody><body><geom type="box" size="0.1"/></body></worldbody></mujoco>)"),
              "model.xml:1: geom 'box' of body 'body 0': box needs 'size' with its 3 half sizes");
    EXPECT_EQ(error_of(R"(<mujoco><worldbody><body quat="1 0 0 0" euler="0 0 0"><geom size="0.1"/></body></worldbody></mujoco>)"),
              "model.xml:1: body 'body 0': more than one of quat, axisangle, euler, xyaxes, zaxis");
    EXPECT_EQ(error_of(R"(<mujoco><worldbody><body><geom type="mesh" mesh="torso"/></body></worldbody>
<asset><mesh name="torsoo" file="t.obj"/></asset></mujoco>)"),
              "model.xml:1: geom 'mesh' of body 'body 0': no mesh asset named 'torso' (did you mean 'torsoo'?)");
    EXPECT_EQ(error_of(R"(<mujoco><compiler angle="degrees"/><worldbody/></mujoco>)"),
              "model.xml:1: <compiler>: unknown angle 'degrees' (did you mean 'degree'?)");
    EXPECT_EQ(error_of(R"(<mujoco><worldbody><body childclass="nope"><geom size="0.1"/></body></worldbody></mujoco>)"),
              "model.xml:1: body 'body 0': unknown childclass 'nope'");
    ImportOptions up;
    up.up_axis = "W";
    EXPECT_EQ(error_of("<mujoco><worldbody/></mujoco>", up), "parse_mjcf: up_axis must be 'X', 'Y' or 'Z', got 'W'");
}

TEST(MjcfImport, Warnings) {
    auto w = sorted_warnings(R"(<mujoco>
  <size njmax="100"/>
  <option integrator="RK4"/>
  <worldbody>
    <body name="a">
      <joint name="j" frictionloss="0.1"/>
      <geom size="0.1" condim="4"/>
      <geom size="0.1" condim="1"/>
      <geom type="ellipsoid" size="0.1 0.2 0.3"/>
      <geom type="cylinder" size="0.1 0.3"/>
      <geom size="0.1" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <sensor><jointpos joint="j"/></sensor>
  <actuator><general joint="j"/></actuator>
</mujoco>)");
    std::vector<std::string> want = {
        "model.xml:2: warning: unsupported element <size> in <mujoco> ignored",
        "model.xml:3: warning: unsupported attribute 'integrator' of <option> ignored",
        "model.xml:6: warning: joint 'j': frictionloss is not simulated (the joint's zero is its pose in the file)",
        "model.xml:7: warning: unsupported attribute 'condim' of <geom> ignored (and 1 more like it)",
        "model.xml:9: warning: geom 'ellipsoid' of body 'a': geom type 'ellipsoid' is not supported; the geom is skipped",
        "model.xml:11: warning: geom 'sphere' of body 'a': contype=0 conaffinity=0: the geom still collides (the builder has no "
        "collision masks yet)",
        "model.xml:14: warning: unsupported element <sensor> in <mujoco> ignored",
        "model.xml:15: warning: actuator <general> is not supported (motor, position and velocity are); ignored",
    };
    std::sort(want.begin(), want.end());
    EXPECT_EQ(w, want);
}

// Warp's MJCF default: the import's shapes never collide with each other (enable_self_collisions
// off); on, nothing is filtered.
TEST(MjcfImport, SelfCollisionsAreOffByDefault) {
    ModelBuilder b;
    ImportResult r = parse_mjcf(kData + "pendulum2.xml", b);
    const int n = r.shape_end - r.shape_start;
    ASSERT_GE(n, 2);
    EXPECT_EQ(b.shape_collision_filter_pairs.size(), size_t(n * (n - 1) / 2));
    ImportOptions o;
    o.enable_self_collisions = 1;
    ModelBuilder c;
    parse_mjcf(kData + "pendulum2.xml", c, o);
    EXPECT_TRUE(c.shape_collision_filter_pairs.empty());
}
