// tests/engine/urdf_import_test.cpp: engine/urdf_import.h against values computed by hand (Eigen)
// for tests/engine/data/two_link.urdf, and every error and warning message of the URDF importer.
#include "engine/urdf_import.h"

#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>

#include "engine/xml_reader.h"

using namespace weft::engine;

namespace {

const std::string kData = std::string(WEFT_SOURCE_DIR) + "/tests/engine/data/";

Eigen::Vector3d pos_of(const ModelBuilder& b, int i) {
    const auto& q = b.body_q[size_t(i)];
    return Eigen::Vector3d(q[0], q[1], q[2]);
}
Eigen::Quaterniond rot_of(const std::array<float, 7>& q) { return Eigen::Quaterniond(q[6], q[3], q[4], q[5]); }

// The message of the ImportError that parsing `text` throws ("" if none).
std::string error_of(const std::string& text, const ImportOptions& o = {}) {
    ModelBuilder b;
    try {
        parse_urdf_string(text, "robot.urdf", b, o);
    } catch (const ImportError& e) { return e.what(); }
    return "";
}

std::vector<std::string> warnings_of(const std::string& text) {
    ModelBuilder b;
    return parse_urdf_string(text, "robot.urdf", b).warnings;
}

const char* kOneLink = R"(<robot name="r">
  <link name="a"><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
</robot>)";

}  // namespace

TEST(UrdfImport, TwoLinkBodiesMassesAndFrames) {
    ModelBuilder b;
    ImportResult r = parse_urdf(kData + "two_link.urdf", b);
    ASSERT_EQ(r.body_end - r.body_start, 3);
    EXPECT_EQ(r.body_index.at("base"), 0);
    EXPECT_EQ(r.body_index.at("arm"), 1);
    EXPECT_EQ(r.body_index.at("slider"), 2);
    EXPECT_EQ(b.body_name[1], "arm");

    // Poses with every joint at 0: arm = shoulder origin, slider = arm * (0, 0, 0.5).
    const Eigen::Quaterniond rx(Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitX()));
    EXPECT_LT((pos_of(b, 0)).norm(), 1e-7);
    EXPECT_LT((pos_of(b, 1) - Eigen::Vector3d(0.1, 0, 0.3)).norm(), 1e-6);
    EXPECT_LT(rot_of(b.body_q[1]).angularDistance(rx), 1e-6);
    EXPECT_LT((pos_of(b, 2) - Eigen::Vector3d(0.1, -0.5, 0.3)).norm(), 1e-6);

    // Masses from the collision shapes at density 1000 (Warp's default ignores <inertial>).
    EXPECT_NEAR(b.body_mass[0].mass, 0.2 * 0.4 * 0.6 * 1000, 1e-6 * (0.2 * 0.4 * 0.6 * 1000));
    const double m0 = 48.0;
    EXPECT_NEAR(b.body_mass[0].inertia(0, 0), m0 / 12 * (0.4 * 0.4 + 0.6 * 0.6), 1e-6 * (m0 / 12 * (0.4 * 0.4 + 0.6 * 0.6)));
    EXPECT_NEAR(b.body_mass[0].inertia(1, 1), m0 / 12 * (0.2 * 0.2 + 0.6 * 0.6), 1e-6 * (m0 / 12 * (0.2 * 0.2 + 0.6 * 0.6)));
    EXPECT_NEAR(b.body_mass[0].inertia(2, 2), m0 / 12 * (0.2 * 0.2 + 0.4 * 0.4), 1e-6 * (m0 / 12 * (0.2 * 0.2 + 0.4 * 0.4)));
    EXPECT_NEAR(b.body_mass[1].mass, 0.1 * 0.1 * 0.5 * 1000, 1e-6 * (0.1 * 0.1 * 0.5 * 1000));
    EXPECT_LT((b.body_mass[1].com - Eigen::Vector3d(0, 0, 0.25)).norm(), 1e-9);
    EXPECT_NEAR(b.body_mass[2].mass, 4.0 / 3.0 * M_PI * 0.05 * 0.05 * 0.05 * 1000, 1e-6);

    // Joints: the base's fixed joint, then from the root outwards (shoulder before slide).
    ASSERT_EQ(r.joint_end - r.joint_start, 3);
    EXPECT_EQ(b.joint_type[0], JOINT_FIXED);
    EXPECT_EQ(b.joint_name[0], "fixed_base");
    const int sh = r.joint_index.at("shoulder"), sl = r.joint_index.at("slide");
    EXPECT_EQ(sh, 1);
    EXPECT_EQ(sl, 2);
    EXPECT_EQ(b.joint_type[size_t(sh)], JOINT_REVOLUTE);
    EXPECT_EQ(b.joint_parent[size_t(sh)], 0);
    EXPECT_EQ(b.joint_child[size_t(sh)], 1);
    const auto& xp = b.joint_X_p[size_t(sh)];
    EXPECT_LT((Eigen::Vector3d(xp[0], xp[1], xp[2]) - Eigen::Vector3d(0.1, 0, 0.3)).norm(), 1e-6);
    EXPECT_LT(rot_of(xp).angularDistance(rx), 1e-6);
    EXPECT_LT((b.joint_axis[size_t(sh)] - Vec3(0, 1, 0)).norm(), 1e-6);
    EXPECT_FLOAT_EQ(b.joint_limit_lower[size_t(sh)], -1.0f);
    EXPECT_FLOAT_EQ(b.joint_limit_upper[size_t(sh)], 1.5f);
    EXPECT_FLOAT_EQ(b.joint_target_kd[size_t(sh)], 0.5f);    // <dynamics damping>
    EXPECT_FLOAT_EQ(b.joint_target_ke[size_t(sh)], 100.0f);  // stiffness (Warp's default)
    EXPECT_EQ(b.joint_mode[size_t(sh)], JOINT_MODE_TARGET_POSITION);
    EXPECT_FLOAT_EQ(b.joint_limit_ke[size_t(sh)], 100.0f);
    EXPECT_FLOAT_EQ(b.joint_limit_kd[size_t(sh)], 10.0f);
    EXPECT_EQ(b.joint_type[size_t(sl)], JOINT_PRISMATIC);
    EXPECT_LT((b.joint_axis[size_t(sl)] - Vec3(0, 0, 1)).norm(), 1e-6);  // normalised
    EXPECT_FLOAT_EQ(b.joint_limit_upper[size_t(sl)], 0.2f);
    EXPECT_FLOAT_EQ(r.joint_effort_limit[size_t(sl)], 10.0f);
    EXPECT_FLOAT_EQ(r.joint_velocity_limit[size_t(sh)], 2.0f);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_EQ(r.warnings[0], kData +
                                 "two_link.urdf:4: warning: <limit effort> and <limit velocity> of 2 joints are kept in the "
                                 "import result (joint_effort_limit, joint_velocity_limit) but not enforced by the solvers");
}

TEST(UrdfImport, InertialRotatedIntoTheLinkFrame) {
    ModelBuilder b;
    ImportOptions o;
    o.ignore_inertial_definitions = false;
    parse_urdf(kData + "two_link.urdf", b, o);
    // I' = R I R^T with R = Rz(90 deg): xx and yy swap, xy changes sign.
    Eigen::Matrix3d want;
    want << 0.2, -0.01, 0, -0.01, 0.1, 0, 0, 0, 0.3;
    EXPECT_NEAR(b.body_mass[1].mass, 2.0, 1e-12);
    EXPECT_LT((b.body_mass[1].inertia - want).norm(), 1e-9);
    EXPECT_LT((b.body_mass[1].com - Eigen::Vector3d(0, 0, 0.25)).norm(), 1e-12);
    EXPECT_NEAR(b.body_mass[0].mass, 48.0, 1e-6 * (48.0));  // no <inertial>: the shapes' mass
}

TEST(UrdfImport, RootOptionsScaleAndXform) {
    ImportOptions o;
    o.scale = 2.0f;
    o.xform.p = Vec3(1, 2, 3);
    o.floating = true;
    ModelBuilder b;
    ImportResult r = parse_urdf(kData + "two_link.urdf", b, o);
    EXPECT_EQ(b.joint_type[0], JOINT_FREE);
    EXPECT_EQ(b.joint_name[0], "floating_base");
    EXPECT_LT((pos_of(b, 0) - Eigen::Vector3d(1, 2, 3)).norm(), 1e-6);
    EXPECT_LT((pos_of(b, 2) - Eigen::Vector3d(1 + 0.2, 2 - 1.0, 3 + 0.6)).norm(), 1e-5);  // lengths doubled
    EXPECT_NEAR(b.body_mass[0].mass, 48.0 * 8, 1e-6 * (48.0 * 8));
    EXPECT_FLOAT_EQ(b.joint_limit_upper[size_t(r.joint_index.at("slide"))], 0.4f);     // prismatic limits scale
    EXPECT_FLOAT_EQ(b.joint_limit_upper[size_t(r.joint_index.at("shoulder"))], 1.5f);  // angles do not

    ImportOptions rz;
    rz.base_joint = "rz";
    ModelBuilder b2;
    parse_urdf(kData + "two_link.urdf", b2, rz);
    EXPECT_EQ(b2.joint_type[0], JOINT_REVOLUTE);
    EXPECT_EQ(b2.joint_name[0], "base_joint");
    EXPECT_LT((b2.joint_axis[0] - Vec3(0, 0, 1)).norm(), 1e-6);
    // Several axes: a D6 joint (Warp's base_joint string), its linear axes first.
    ImportOptions d6;
    d6.base_joint = "ry, px,lz";
    ModelBuilder b3;
    parse_urdf(kData + "two_link.urdf", b3, d6);
    EXPECT_EQ(b3.joint_type[0], JOINT_D6);
    EXPECT_EQ(b3.joint_axis_dim[0], (std::array<int, 2>{2, 1}));
    EXPECT_LT((b3.joint_axis[1] - Vec3(0, 0, 1)).norm(), 1e-6);
    EXPECT_LT((b3.joint_axis[2] - Vec3(0, 1, 0)).norm(), 1e-6);
    EXPECT_EQ(b3.joint_q_start(1), 3);
}

TEST(UrdfImport, ContinuousJointsHaveNoLimits) {
    ModelBuilder b;
    ImportResult r = parse_urdf_string(R"(<robot name="r">
  <link name="a"/><link name="b"><collision><geometry><sphere radius="0.1"/></geometry></collision></link>
  <joint name="wheel" type="continuous"><parent link="a"/><child link="b"/><axis xyz="1 0 0"/></joint>
</robot>)",
                                       "robot.urdf", b);
    const size_t j = size_t(r.joint_index.at("wheel"));
    EXPECT_FLOAT_EQ(b.joint_limit_lower[j], -1e6f);
    EXPECT_FLOAT_EQ(b.joint_limit_upper[j], 1e6f);
    // Link 'a' has no mass: Warp's static_link_mass with a 0.5 m cube's inertia.
    EXPECT_NEAR(b.body_mass[0].mass, 0.01, 1e-9);  // float static_link_mass
    EXPECT_NEAR(b.body_mass[0].inertia(0, 0), 0.01 * 0.25 / 6.0, 1e-10);
}

TEST(UrdfImport, Errors) {
    EXPECT_EQ(error_of(R"(<robot name="r">
  <link name="thigh"/>
  <link name="shin"/>
  <joint name="knee" type="revolut"><parent link="thigh"/><child link="shin"/></joint>
</robot>)"),
              "robot.urdf:4: joint 'knee': unknown type 'revolut' (did you mean 'revolute'?)");
    EXPECT_EQ(error_of(R"(<robot name="r">
  <link name="thigh"/>
  <link name="shin"/>
  <joint name="knee" type="revolute"><parent link="thigh"/><child link="shinn"/></joint>
</robot>)"),
              "robot.urdf:4: joint 'knee' <child>: no link named 'shinn' (did you mean 'shin'?)");
    EXPECT_EQ(
        error_of("<robot name=\"r\">\n<link name=\"a\">\n</robot>"),
        "robot.urdf:2: malformed XML: Error=XML_ERROR_MISMATCHED_ELEMENT ErrorID=14 (0xe) Line number=2: XMLElement name=link");
    EXPECT_EQ(error_of("<robt/>"), "robot.urdf:1: the root element is <robt>, a URDF file has <robot>");
    EXPECT_EQ(error_of("<robot>\n<link/>\n</robot>"), "robot.urdf:2: <link>: missing attribute 'name'");
    EXPECT_EQ(error_of("<robot><link name=\"a\"/><link name=\"b\"/></robot>"),
              "robot.urdf:1: link 'b' has no parent joint, and neither has 'a': a URDF has one root link");
    EXPECT_EQ(error_of(R"(<robot><link name="a"/><link name="b"/>
<joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>
<joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint></robot>)"),
              "robot.urdf:1: the joints form a cycle: every link has a parent joint");
    EXPECT_EQ(error_of(R"(<robot><link name="a"/><link name="b"/><link name="c"/>
<joint name="j1" type="fixed"><parent link="a"/><child link="c"/></joint>
<joint name="j2" type="fixed"><parent link="b"/><child link="c"/></joint></robot>)"),
              "robot.urdf:3: joint 'j2': link 'c' already has a parent joint 'j1' (a URDF is a tree)");
    EXPECT_EQ(error_of(R"(<robot><link name="a"/><link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 0"/></joint></robot>)"),
              "robot.urdf:2: joint 'j' <axis>: attribute 'xyz' must be a nonzero vector");
    EXPECT_EQ(error_of(R"(<robot><link name="a"/><link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><origin xyz="0 0 x"/></joint></robot>)"),
              "robot.urdf:2: <origin>: attribute 'xyz' must be numbers separated by spaces, got '0 0 x'");
    EXPECT_EQ(error_of(R"(<robot><link name="a"/><link name="b"/>
<joint name="j" type="revolute"><parent link="a"/><child link="b"/><limit lower="1" upper="0"/></joint></robot>)"),
              "robot.urdf:2: joint 'j' <limit>: lower (1) is above upper (0)");
    EXPECT_EQ(error_of(R"(<robot><link name="a"/><link name="b"/>
<joint name="j" type="planar"><parent link="a"/><child link="b"/></joint></robot>)"),
              "robot.urdf:2: joint 'j': type 'planar' is not supported (the builder has no D6 joint yet)");
    EXPECT_EQ(error_of(R"(<robot><link name="a">
<collision><geometry><sphere radius="-1"/></geometry></collision></link></robot>)"),
              "robot.urdf:2: link 'a' <sphere>: the sphere's radius must be > 0, got -1");
    EXPECT_EQ(error_of(R"(<robot><link name="a"><inertial><mass value="1"/>
<inertia ixx="1" iyy="-1" izz="1"/></inertial></link></robot>)",
                       [] {
                           ImportOptions o;
                           o.ignore_inertial_definitions = false;
                           return o;
                       }()),
              "robot.urdf:2: link 'a' <inertial> <inertia>: the inertia is not positive semi-definite (smallest eigenvalue -1)");
    ImportOptions bad;
    bad.scale = 0;
    EXPECT_EQ(error_of(kOneLink, bad), "parse_urdf: scale must be > 0, got 0");
    ImportOptions bj;
    bj.base_joint = "px,pq";
    EXPECT_EQ(error_of(kOneLink, bj),
              "parse_urdf: base_joint 'px,pq': 'pq' is not an axis: 'px', 'py', 'pz' (prismatic) or 'rx', 'ry', 'rz' "
              "(revolute), separated by commas");
    bj.base_joint = "px, lx";
    EXPECT_EQ(error_of(kOneLink, bj), "parse_urdf: base_joint 'px, lx' names axis 'px' twice");
    ModelBuilder b;
    try {
        parse_urdf("/nonexistent/robot.urdf", b);
        FAIL();
    } catch (const ImportError& e) { EXPECT_STREQ(e.what(), "/nonexistent/robot.urdf: cannot open the file"); }
}

TEST(UrdfImport, Warnings) {
    auto w = warnings_of(R"(<robot name="r">
  <link name="a" colour="red">
    <collision><geometry><cylinder radius="0.1" length="0.6"/></geometry></collision>
    <collision><geometry><mesh filename="m.obj"/></geometry></collision>
    <collision><geometry><cone radius="1"/></geometry></collision>
  </link>
  <link name="b"/>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/>
    <dynamics friction="0.3"/><mimic joint="x"/></joint>
  <transmission name="t"/>
</robot>)");
    std::vector<std::string> want = {
        "robot.urdf:4: warning: link 'a' <mesh>: mesh file 'm.obj' does not exist; the mesh is skipped",
        "robot.urdf:5: warning: link 'a' <cone>: unsupported geometry <cone> ignored",
        "robot.urdf:2: warning: unsupported attribute 'colour' of <link> ignored",
        "robot.urdf:9: warning: joint 'j' <dynamics>: friction is not simulated (no joint friction in the solvers)",
        "robot.urdf:9: warning: unsupported element <mimic> in <joint> ignored",
        "robot.urdf:10: warning: unsupported element <transmission> in <robot> ignored",
    };
    std::sort(w.begin(), w.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(w, want);
}

TEST(UrdfImport, CylinderKeepsItsMassAndInertia) {
    ModelBuilder b;
    parse_urdf_string(R"(<robot><link name="a"><collision><origin rpy="0 1.5707963267948966 0"/>
<geometry><cylinder radius="0.1" length="0.6"/></geometry></collision></link></robot>)",
                      "robot.urdf", b);
    // A cylinder along z turned by 90 deg about y lies along x: Ixx = m r^2 / 2, Iyy = Izz = m (3 r^2 + L^2) / 12.
    const double m = M_PI * 0.01 * 0.6 * 1000;
    EXPECT_NEAR(b.body_mass[0].mass, m, 1e-6 * (m));
    EXPECT_NEAR(b.body_mass[0].inertia(0, 0), m * 0.01 / 2, 1e-6 * (m * 0.01 / 2));
    EXPECT_NEAR(b.body_mass[0].inertia(1, 1), m * (3 * 0.01 + 0.36) / 12, 1e-6 * (m * (3 * 0.01 + 0.36) / 12));
    EXPECT_NEAR(b.body_mass[0].inertia(2, 2), m * (3 * 0.01 + 0.36) / 12, 1e-6 * (m * (3 * 0.01 + 0.36) / 12));
    ASSERT_EQ(b.shape_geo_type.size(), 1u);
    EXPECT_EQ(b.shape_geo_type[0], GEO_CYLINDER);
    EXPECT_FLOAT_EQ(b.shape_geo_scale[0].x(), 0.1f);  // radius
    EXPECT_FLOAT_EQ(b.shape_geo_scale[0].y(), 0.3f);  // half length
}

// enable_self_collisions: on (URDF's default) the import filters nothing; off, every pair of its
// shapes (Warp's rule), offset by the shapes the builder had; MJCF's default is off.
TEST(UrdfImport, SelfCollisionsOffFilterEveryPairOfTheImportsShapes) {
    ModelBuilder b;
    b.add_shape_sphere(b.add_body(), Vec3::Zero(), Quat::Identity(), 0.1f);  // shape 0, not the import's
    ImportResult r = parse_urdf(kData + "two_link.urdf", b);
    EXPECT_TRUE(b.shape_collision_filter_pairs.empty());
    ImportOptions o;
    o.enable_self_collisions = 0;
    ModelBuilder c;
    c.add_shape_sphere(c.add_body(), Vec3::Zero(), Quat::Identity(), 0.1f);
    ImportResult rc = parse_urdf(kData + "two_link.urdf", c, o);
    const int n = rc.shape_end - rc.shape_start;
    ASSERT_EQ(rc.shape_start, 1);
    ASSERT_GE(n, 3);
    EXPECT_EQ(c.shape_collision_filter_pairs.size(), size_t(n * (n - 1) / 2));
    EXPECT_EQ(c.shape_collision_filter_pairs.count({1, 2}), 1u);
    EXPECT_EQ(c.shape_collision_filter_pairs.count({0, 1}), 0u);
    (void)r;
}
