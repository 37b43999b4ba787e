// Scene files: every shipped scene loads and builds; every loader error names file:line:col with
// its message; a mutation fuzzer checks that no malformed file crashes the loader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

#include "engine/scene.h"

namespace {

using namespace weft::engine;

std::string error_of(const std::string& text) {
    try {
        parse_scene(text, "scenes/x.toml");
    } catch (const SceneError& e) { return e.what(); }
    return "(no error)";
}

const char* kMinimal = "[simulation]\nframes = 2\n\n[[particle]]\npos = [0, 1, 0]\nmass = 1.0\n";

TEST(Scene, ShippedScenesLoad) {
    std::map<std::string, int> particles = {{"bounce", 1},
                                            {"spring_chain", 8},
                                            {"cloth_drape", 33 * 33},
                                            {"cloth_benchmark", 64 * 64},
                                            {"soft_body_drop", 7 * 4 * 4},
                                            {"granular_pile", 4096},
                                            {"cloth_on_mesh", 41 * 41},
                                            {"box_stack", 0},
                                            {"box_stack_xpbd", 0},
                                            {"joint_chain", 0},
                                            {"cloth_on_moving_box", 25 * 25}};
    for (const auto& [name, count] : particles) {
        Scene s = load_scene(std::string(WEFT_SOURCE_DIR) + "/scenes/" + name + ".toml");
        EXPECT_EQ(s.builder.particle_count(), count) << name;
        EXPECT_GT(s.frames, 0) << name;
    }
    Scene c = load_scene(std::string(WEFT_SOURCE_DIR) + "/scenes/cloth_benchmark.toml");
    EXPECT_EQ(c.substeps, 16);
    EXPECT_FLOAT_EQ(c.dt(), 1.0f / 960.0f);
    // 64 x 64: structural 2*63*64, bending 2*62*64, shear 2*63*63
    EXPECT_EQ(c.builder.spring_rest_length.size(), size_t(2 * 63 * 64 + 2 * 62 * 64 + 2 * 63 * 63));
}

TEST(Scene, JointBlocks) {
    Scene s = load_scene(std::string(WEFT_SOURCE_DIR) + "/scenes/joint_chain.toml");
    ASSERT_EQ(s.builder.joint_count(), 5);
    EXPECT_EQ(s.builder.joint_name[0], "shoulder");
    EXPECT_EQ(s.builder.joint_parent[0], -1);
    EXPECT_EQ(s.builder.joint_child[1], 1);
    EXPECT_EQ(s.builder.joint_child[4], 5);
    EXPECT_EQ(s.builder.joint_type[3], JOINT_BALL);
    EXPECT_EQ(s.builder.joint_mode[4], JOINT_MODE_TARGET_VELOCITY);
    EXPECT_FLOAT_EQ(s.builder.joint_act[4], 4.0f);
    EXPECT_FLOAT_EQ(s.builder.joint_limit_upper[1], 1.5f);
    EXPECT_FLOAT_EQ(s.builder.joint_X_p[1][0], 0.15f);
    EXPECT_FLOAT_EQ(s.builder.joint_attach_ke, 2.0e4f);
    const char* bodies = "[simulation]\n[[body]]\nname = \"arm\"\npos = [0, 0, 0]\nmass = 1.0\ninertia = [1, 1, 1]\n";
    EXPECT_EQ(error_of(std::string(bodies) + "[[joint]]\ntype = \"revolut\"\nparent = \"world\"\nchild = \"arm\"\n"),
              "scenes/x.toml:8:8: 'type' must be one of 'revolute', 'prismatic', 'ball', 'fixed', 'free', 'universal', "
              "'compound', 'd6', 'distance', got 'revolut' (did "
              "you mean 'revolute'?)");
    EXPECT_EQ(error_of(std::string(bodies) + "[[joint]]\ntype = \"ball\"\nparent = \"world\"\nchild = \"armm\"\n"),
              "scenes/x.toml:10:9: no body named 'armm' (bodies are named by their [[body]] 'name'); did you mean 'arm'?");
    EXPECT_EQ(error_of(std::string(bodies) + "[[joint]]\ntype = \"ball\"\nchild = \"arm\"\n"),
              "scenes/x.toml:7:1: missing key 'parent' in [[joint]] (a body's name)");
    EXPECT_EQ(
        error_of(std::string(bodies) + "[[joint]]\ntype = \"revolute\"\nparent = \"world\"\nchild = \"arm\"\naxis = [0, 0, 0]\n"),
        "scenes/x.toml:7:1: [[joint]]: add_joint_revolute: axis must be a nonzero vector");
    EXPECT_EQ(
        error_of(std::string(bodies) + "[[joint]]\ntype = \"revolute\"\nparent = \"world\"\nchild = \"arm\"\nlimit_lowr = 1\n"),
        "scenes/x.toml:11:1: unknown key 'limit_lowr' (did you mean 'limit_lower'?)");
}

// A distance joint's bounds and any joint's XPBD compliances; the keys a distance joint does not
// have, and a negative compliance, located.
TEST(Scene, DistanceJointAndCompliances) {
    const std::string bodies =
        "[simulation]\n"
        "[[body]]\nname = \"a\"\npos = [0, 0, 0]\nmass = 1.0\ninertia = [1, 1, 1]\n"
        "[[body]]\nname = \"b\"\npos = [0, 0, 0]\nmass = 1.0\ninertia = [1, 1, 1]\n";
    Scene s = parse_scene(bodies +
                              "[[joint]]\ntype = \"ball\"\nparent = \"world\"\nchild = \"a\"\nlinear_compliance = 1e-4\n"
                              "angular_compliance = 2e-3\n"
                              "[[joint]]\ntype = \"distance\"\nparent = \"a\"\nchild = \"b\"\nmax_distance = 0.5\n"
                              "linear_compliance = 1e-5\n",
                          "scenes/x.toml");
    const ModelBuilder& b = s.builder;
    ASSERT_EQ(b.joint_count(), 2);
    EXPECT_FLOAT_EQ(b.joint_linear_compliance[0], 1.0e-4f);
    EXPECT_FLOAT_EQ(b.joint_angular_compliance[0], 2.0e-3f);
    EXPECT_EQ(b.joint_type[1], JOINT_DISTANCE);
    EXPECT_FLOAT_EQ(b.joint_limit_lower[size_t(b.joint_axis_start[1])], -1.0f);
    EXPECT_FLOAT_EQ(b.joint_limit_upper[size_t(b.joint_axis_start[1])], 0.5f);
    EXPECT_FLOAT_EQ(b.joint_linear_compliance[1], 1.0e-5f);
    EXPECT_EQ(error_of(bodies + "[[joint]]\ntype = \"distance\"\nparent = \"world\"\nchild = \"a\"\naxis = [1, 0, 0]\n"),
              "scenes/x.toml:16:1: unknown key 'axis'");
    EXPECT_EQ(error_of(bodies + "[[joint]]\ntype = \"ball\"\nparent = \"world\"\nchild = \"a\"\nlinear_compliance = -1\n"),
              "scenes/x.toml:16:21: 'linear_compliance' must be >= 0, got -1");
}

// A [[body.shape]] of type "mesh" (vertices and indices here; obj as [[shape]]'s): the body gets
// the solid's mass, and a mesh that bounds no solid is an error located at its vertices.
TEST(Scene, MeshShapeOnABody) {
    const std::string head = "[simulation]\n[[body]]\npos = [0, 1, 0]\n[[body.shape]]\ntype = \"mesh\"\ndensity = 100\n";
    // a tetrahedron with corners at the origin and on the axes: volume 1/6
    const std::string tet = "vertices = [[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]\n";
    Scene s = parse_scene(head + tet + "indices = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]\nscale = [2, 2, 2]\n", "scenes/x.toml");
    const ModelBuilder& b = s.builder;
    ASSERT_EQ(b.shape_geo_type.size(), 1u);
    EXPECT_EQ(b.shape_geo_type[0], GEO_MESH);
    EXPECT_EQ(b.shape_body[0], 0);
    EXPECT_NEAR(b.body_mass[0].mass, 100.0 * 8.0 / 6.0, 1e-9);
    EXPECT_TRUE(b.body_mass[0].com.isApprox(Eigen::Vector3d(0.5, 0.5, 0.5), 1e-12));
    EXPECT_EQ(error_of(head + tet + "indices = [0, 2, 1, 0, 1, 3, 0, 3, 2]\n"),
              "scenes/x.toml:7:12: add_shape_mesh: the mesh is not closed: edge (1, 3) has a triangle on one side only, so "
              "the mesh has no volume (pass density=0 and give the body its mass with add_body)");
    EXPECT_EQ(error_of(head + tet + "indices = [0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3]\nscale = [1, 0, 1]\n"),
              "scenes/x.toml:9:9: 'scale' must all be > 0");
}

// Universal, compound and D6 joints: their axes as [[joint.angular_axis]] / [[joint.linear_axis]]
// tables, each with its own drive and limits; wrong counts, zero axes and unknown keys located.
TEST(Scene, JointAxisBlocks) {
    const std::string bodies =
        "[simulation]\n"
        "[[body]]\nname = \"a\"\npos = [0, 0, 0]\nmass = 1.0\ninertia = [1, 1, 1]\n"
        "[[body]]\nname = \"b\"\npos = [0, 0, 0]\nmass = 1.0\ninertia = [1, 1, 1]\n"
        "[[body]]\nname = \"c\"\npos = [0, 0, 0]\nmass = 1.0\ninertia = [1, 1, 1]\n";
    Scene s = parse_scene(bodies +
                              "[[joint]]\ntype = \"universal\"\nparent = \"world\"\nchild = \"a\"\n"
                              "[[joint.angular_axis]]\naxis = [1, 0, 0]\nlimit_lower = -0.5\nlimit_upper = 0.5\n"
                              "[[joint.angular_axis]]\naxis = [0, 0, 2]\nmode = \"target_position\"\ntarget = 0.3\n"
                              "target_ke = 40\n"
                              "[[joint]]\ntype = \"compound\"\nparent = \"a\"\nchild = \"b\"\n"
                              "[[joint.angular_axis]]\naxis = [0, 0, 1]\n[[joint.angular_axis]]\naxis = [1, 0, 0]\n"
                              "[[joint.angular_axis]]\naxis = [0, 1, 0]\n"
                              "[[joint]]\ntype = \"d6\"\nparent = \"b\"\nchild = \"c\"\n"
                              "[[joint.linear_axis]]\naxis = [0, 1, 0]\nlimit_lower = -0.1\nlimit_upper = 0.2\n"
                              "[[joint.angular_axis]]\naxis = [0, 0, 1]\nmode = \"target_velocity\"\ntarget = 2\n"
                              "target_ke = 5\n",
                          "scenes/x.toml");
    const ModelBuilder& b = s.builder;
    ASSERT_EQ(b.joint_count(), 3);
    EXPECT_EQ(b.joint_type[0], JOINT_UNIVERSAL);
    EXPECT_EQ(b.joint_type[1], JOINT_COMPOUND);
    EXPECT_EQ(b.joint_type[2], JOINT_D6);
    EXPECT_EQ(b.joint_axis_start, (std::vector<int>{0, 2, 5}));
    EXPECT_EQ(b.joint_axis_dim[2], (std::array<int, 2>{1, 1}));
    EXPECT_FLOAT_EQ(b.joint_limit_upper[0], 0.5f);
    EXPECT_FLOAT_EQ(b.joint_axis[1].z(), 1.0f);  // normalised
    EXPECT_EQ(b.joint_mode[1], JOINT_MODE_TARGET_POSITION);
    EXPECT_FLOAT_EQ(b.joint_act[1], 0.3f);
    EXPECT_FLOAT_EQ(b.joint_target_ke[1], 40.0f);
    EXPECT_FLOAT_EQ(b.joint_limit_lower[5], -0.1f);
    EXPECT_EQ(b.joint_mode[6], JOINT_MODE_TARGET_VELOCITY);
    EXPECT_FLOAT_EQ(b.joint_act[6], 2.0f);
    const std::string head = bodies + "[[joint]]\ntype = \"universal\"\nparent = \"world\"\nchild = \"a\"\n";
    // line 17 is the [[joint]] table, 18-20 its keys, 21 the first axis table
    EXPECT_EQ(error_of(head + "[[joint.angular_axis]]\naxis = [1, 0, 0]\n"),
              "scenes/x.toml:21:1: a universal joint has 2 [[joint.angular_axis]] tables, got 1");
    EXPECT_EQ(error_of(head + "[[joint.angular_axis]]\naxis = [1, 0, 0]\n[[joint.angular_axis]]\naxis = [0, 1, 0]\n"
                              "[[joint.linear_axis]]\naxis = [0, 1, 0]\n"),
              "scenes/x.toml:25:1: a universal joint has no [[joint.linear_axis]] tables, got 1");
    EXPECT_EQ(error_of(head + "[[joint.angular_axis]]\naxis = [1, 0, 0]\n[[joint.angular_axis]]\naxis = [0, 0, 0]\n"),
              "scenes/x.toml:24:8: 'axis' must be a nonzero vector, got [0, 0, 0]");
    EXPECT_EQ(error_of(head + "[[joint.angular_axis]]\naxis = [1, 0, 0]\nlimit_uper = 1\n[[joint.angular_axis]]\n"
                              "axis = [0, 1, 0]\n"),
              "scenes/x.toml:23:1: unknown key 'limit_uper' (did you mean 'limit_upper'?)");
    EXPECT_EQ(error_of(head + "[[joint.angular_axis]]\nmode = \"force\"\n[[joint.angular_axis]]\naxis = [0, 1, 0]\n"),
              "scenes/x.toml:21:1: missing key 'axis' in [[angular_axis]]");
    EXPECT_EQ(error_of(head + "[[joint.angular_axis]]\naxis = [1, 0, 0]\n[[joint.angular_axis]]\naxis = [1, 1, 0]\n"),
              "scenes/x.toml:17:1: [[joint]]: add_joint_universal: axis_0 and axis_1 must be perpendicular, got 45 degrees "
              "apart");
    EXPECT_EQ(error_of(bodies + "[[joint]]\ntype = \"d6\"\nparent = \"world\"\nchild = \"a\"\n" +
                       "[[joint.linear_axis]]\naxis = [1, 0, 0]\n"
                       "[[joint.linear_axis]]\naxis = [0, 1, 0]\n[[joint.linear_axis]]\naxis = [0, 0, 1]\n"
                       "[[joint.linear_axis]]\naxis = [1, 0, 0]\n"),
              "scenes/x.toml:21:1: a d6 joint has at most 3 [[joint.linear_axis]] tables, got 4");
    // The single-axis keys belong to revolute and prismatic joints.
    EXPECT_EQ(error_of(head + "axis = [1, 0, 0]\n[[joint.angular_axis]]\naxis = [1, 0, 0]\n[[joint.angular_axis]]\n"
                              "axis = [0, 1, 0]\n"),
              "scenes/x.toml:21:1: unknown key 'axis'");
}

TEST(Scene, RigidBodyBlocks) {
    Scene s = load_scene(std::string(WEFT_SOURCE_DIR) + "/scenes/box_stack.toml");
    ASSERT_EQ(s.builder.body_count(), 7);
    EXPECT_EQ(s.builder.body_name[5], "ball");
    EXPECT_NEAR(s.builder.body_mass[0].mass, 8.0, 1e-5);  // 0.2 m cube at 1000 kg/m^3
    EXPECT_FLOAT_EQ(s.builder.body_qd[5][3], 2.5f);
    EXPECT_FLOAT_EQ(s.builder.ground_mu, 0.6f);
    const char* body = "[simulation]\n[[body]]\npos = [0, 1, 0]\n";
    EXPECT_EQ(error_of(std::string(body) + "[[body.shape]]\ntype = \"box\"\nhalf_extent = [1, 1, 1]\n"),
              "scenes/x.toml:4:1: missing key 'half_extents' in [[shape]]");
    EXPECT_EQ(error_of(std::string(body) + "[[body.shape]]\ntype = \"box\"\nhalf_extents = [1, 1, 1]\ndensty = 5\n"),
              "scenes/x.toml:7:1: unknown key 'densty' (did you mean 'density'?)");
    EXPECT_EQ(error_of(std::string(body) + "[[body.shape]]\ntype = \"cylindr\"\nradius = 1\n"),
              "scenes/x.toml:5:8: 'type' must be one of 'sphere', 'box', 'capsule', 'cylinder', 'cone', 'mesh', got "
              "'cylindr' (did you mean 'cylinder'?)");
    EXPECT_EQ(error_of(std::string(body) + "[[body.shape]]\ntype = \"cone\"\nradius = 1\n"),
              "scenes/x.toml:4:1: missing key 'half_height' in [[shape]]");
    EXPECT_EQ(error_of(std::string(body) + "mass = 0\n"), "scenes/x.toml:2:1: a [[body]] needs a [[body.shape]] or a mass");
    EXPECT_EQ(error_of(std::string(body) + "[[body.shape]]\ntype = \"sphere\"\nradius = 0.1\ndensity = -1\n"),
              "scenes/x.toml:7:11: 'density' must be >= 0, got -1");
    EXPECT_EQ(
        error_of(
            "[simulation]\n[ground_material]\nmu = 0.5\nke = -1\n[[body]]\npos = [0, 1, 0]\nmass = 1\ninertia = [1, 1, 1]\n"),
        "scenes/x.toml:4:6: 'ke' must be >= 0, got -1");
}

TEST(Scene, MinimalSceneAndDefaults) {
    Scene s = parse_scene(kMinimal, "scenes/x.toml");
    EXPECT_EQ(s.frames, 2);
    EXPECT_EQ(s.substeps, 8);
    EXPECT_EQ(s.solver, "semi_implicit");
    EXPECT_EQ(s.name, "x");
    EXPECT_FLOAT_EQ(s.builder.particle_radius[0], 0.1f);
}

TEST(Scene, SolverOptionsAreTheSolversOwn) {
    const std::string tail = "[[particle]]\npos = [0, 1, 0]\nmass = 1\n";
    Scene x = parse_scene("[simulation]\nsolver = \"xpbd\"\niterations = 4\n" + tail, "scenes/x.toml");
    EXPECT_EQ(x.solver, "xpbd");
    EXPECT_EQ(x.solver_options.integer("iterations"), 4);
    EXPECT_FLOAT_EQ(float(x.solver_options.number("relaxation")), 0.9f);  // the declared default
    // semi_implicit's one option, angular_damping, at its declared default (Warp's 0.05)
    EXPECT_FLOAT_EQ(float(parse_scene(kMinimal, "scenes/x.toml").solver_options.number("angular_damping")), 0.05f);
    EXPECT_FLOAT_EQ(float(parse_scene("[simulation]\nangular_damping = 0.5\n" + tail, "scenes/x.toml")
                              .solver_options.number("angular_damping")),
                    0.5f);
    EXPECT_EQ(error_of("[simulation]\nsolver = \"xpbd\"\niteratons = 4\n" + tail),
              "scenes/x.toml:3:1: unknown key 'iteratons' (did you mean 'iterations'?)");
    EXPECT_EQ(error_of("[simulation]\nsolver = \"xpbd\"\niterations = 0\n" + tail),
              "scenes/x.toml:3:14: 'iterations' must be >= 1, got 0");
    EXPECT_EQ(error_of("[simulation]\nsolver = \"xpbd\"\nrelaxation = 0\n" + tail),
              "scenes/x.toml:3:14: 'relaxation' must be > 0, got 0");
    EXPECT_EQ(error_of("[simulation]\niterations = 3\n" + tail),
              "scenes/x.toml:2:1: 'iterations' is an option of solver 'xpbd', not of 'semi_implicit'");
}

TEST(Scene, ErrorsNameFileLineAndColumn) {
    std::string base = kMinimal;
    EXPECT_EQ(error_of(base + "radus = 0.2\n"), "scenes/x.toml:7:1: unknown key 'radus' (did you mean 'radius'?)");
    EXPECT_EQ(error_of("[simulation]\nframes = 2\nsubstep = 4\n[[particle]]\npos = [0, 1, 0]\nmass = 1.0\n"),
              "scenes/x.toml:3:1: unknown key 'substep' (did you mean 'substeps'?)");
    EXPECT_EQ(error_of("[simulation]\n[[particle]]\npos = [0, 1, 0]\nmass = \"heavy\"\n"),
              "scenes/x.toml:4:8: 'mass' must be a number, got a string");
    EXPECT_EQ(error_of("[simulation]\n[[particle]]\npos = [0, 1, 0]\n"), "scenes/x.toml:2:1: missing key 'mass' in [[particle]]");
    EXPECT_EQ(error_of("[simulation]\n[[particle]]\npos = [0, 1, 0]\nmass = -1\n"),
              "scenes/x.toml:4:8: 'mass' must be >= 0, got -1");
    EXPECT_EQ(error_of("[simulation]\nsubsteps = 0\n[[particle]]\npos = [0, 1, 0]\nmass = 1\n"),
              "scenes/x.toml:2:12: 'substeps' must be >= 1, got 0");
    EXPECT_EQ(error_of("[simulation]\nsolver = \"xpdb\"\n[[particle]]\npos = [0, 1, 0]\nmass = 1\n"),
              "scenes/x.toml:2:10: 'solver' must be one of 'featherstone', 'mpm', 'semi_implicit', 'smoke', 'xpbd', got 'xpdb' "
              "(did you mean "
              "'xpbd'?)");
    EXPECT_EQ(error_of("[simulation]\n[[particle]]\npos = [0, 1]\nmass = 1\n"),
              "scenes/x.toml:3:7: 'pos' must have 3 elements, got 2");
    EXPECT_EQ(error_of(base + "[[spring]]\ni = 0\nj = 3\nke = 10\n"),
              "scenes/x.toml:9:5: 'j' = 3 is out of range (the scene has 1 particles before this spring)");
    EXPECT_EQ(error_of("[[particle]]\npos = [0, 1, 0]\nmass = 1\n"), "scenes/x.toml:1:1: missing table [simulation]");
    EXPECT_EQ(error_of("[simulation]\nframes = = 3\n"),
              "scenes/x.toml:2:10: Error while parsing value: could not determine value type");
    EXPECT_EQ(error_of(base + "[[shape]]\ntype = \"cylindre\"\npos = [0, 0, 0]\n"),
              "scenes/x.toml:8:8: 'type' must be one of 'sphere', 'box', 'capsule', 'cylinder', 'cone', 'plane', 'mesh', got "
              "'cylindre' (did you mean 'cylinder'?)");
    EXPECT_EQ(error_of(base + "[[shape]]\ntype = \"cone\"\npos = [0, 0, 0]\nradius = 0.2\n"),
              "scenes/x.toml:7:1: missing key 'half_height' in [[shape]]");
    EXPECT_EQ(error_of(base + "[[cloth]]\ndim = [4, 0]\n"), "scenes/x.toml:8:7: 'dim' must hold integers from 1 to 4096, got 0");
    EXPECT_EQ(error_of(base + "[output]\nformats = [\"vtk\"]\n"),
              "scenes/x.toml:8:12: 'formats' entries must be \"npz\", \"ply\" or \"vdb\"");
    EXPECT_EQ(error_of(base + "[output]\nformats = [\"npz\", \"vdb\"]\n"),
              "scenes/x.toml:8:19: \"vdb\" writes the smoke grid (OpenVDB), and this scene has no [smoke] table");
    EXPECT_EQ(error_of(base + "[model]\nground = 1\n"), "scenes/x.toml:8:10: 'ground' must be true or false, got an integer");
    EXPECT_EQ(error_of("[simulation]\n"), "scenes/x.toml: the scene has no particles or bodies");
    EXPECT_EQ(error_of("[simulation]\n[[particle]]\npos = [0, 1, 0]\nmass = 1\n[[particle]]\npos = [0, 1, 0]\nmass = 1\n"
                       "[[spring]]\ni = 0\nj = 1\nke = 1\n[[cloth]]\ndim = [1, 1]\ncell = [0.1, 0.1]\nrot_axis = [0, 0, 0]\n"),
              "scenes/x.toml:15:12: 'rot_axis' must not be zero");
}

// The engine computes in float32: a number it cannot hold is an error at its file:line (1e40 once
// became inf and NaN frames; a mass of 1e-50 became 0, a fixed particle).
TEST(Scene, NumbersOutsideFloat32AreErrors) {
    const std::string head = "[simulation]\n[[particle]]\npos = [0, 1, 0]\n";
    EXPECT_EQ(error_of(head + "mass = 1e40\n"),
              "scenes/x.toml:4:8: 'mass' = 1e+40 is outside the float32 range the engine computes in (|x| <= 3.40282e+38)");
    EXPECT_EQ(error_of(head + "mass = 1e-50\n"),
              "scenes/x.toml:4:8: 'mass' = 1e-50 is too small for float32 (nonzero values need |x| >= 1.17549e-38); it would "
              "become 0 (write 0 if that is meant)");
    EXPECT_EQ(error_of(head + "mass = nan\n"), "scenes/x.toml:4:8: 'mass' must be a number, got nan");
    EXPECT_EQ(error_of(head + "mass = 1\nvel = [0, inf, 0]\n"), "scenes/x.toml:5:11: 'vel' must be finite, got inf");
    EXPECT_EQ(error_of(std::string(kMinimal) + "[[particle]]\npos = [1, 1, 0]\nmass = 1\n[[spring]]\ni = 0\nj = 1\n"
                                               "ke = 1e40\n"),
              "scenes/x.toml:13:6: 'ke' = 1e+40 is outside the float32 range the engine computes in (|x| <= 3.40282e+38)");
    EXPECT_EQ(error_of(std::string(kMinimal) + "[[shape]]\ntype = \"mesh\"\nvertices = [[0, 0, 0], [1e39, 0, 0], [0, 0, 1]]\n"
                                               "indices = [0, 1, 2]\n"),
              "scenes/x.toml:9:25: 'vertices[1]' = 1e+39 is outside the float32 range the engine computes in (|x| <= "
              "3.40282e+38)");
}

// Explicit stability (docs/scene-format.md, "Stability"): sqrt(k/m) dt and k dt / m for each
// stiffness and damping, m the lightest moving particle it acts on; a warning at file:line from 2 on.
TEST(Scene, StabilityEstimatesAndWarnings) {
    const std::string scene =
        "[simulation]\nfps = 10\nsubsteps = 1\n[[particle]]\npos = [0, 1, 0]\nmass = 2\n[[particle]]\npos = [1, 1, 0]\n"
        "mass = 0.5\n[[spring]]\ni = 0\nj = 1\nke = 1e30\nkd = 1\n";
    Scene s = parse_scene(scene, "scenes/x.toml");
    ASSERT_EQ(s.stability.size(), 4u);  // [[spring]] ke, kd and the ground's [contact] ke, kd (defaults)
    const StabilityEstimate& top = s.stability.front();
    EXPECT_EQ(top.key, "[[spring]] 'ke'");
    EXPECT_EQ(top.where, "scenes/x.toml:13:6");
    EXPECT_EQ(top.module, "springs");
    EXPECT_DOUBLE_EQ(top.mass, 0.5);
    EXPECT_NEAR(top.value / (std::sqrt(1e30 / 0.5) * 0.1), 1.0, 1e-6);
    for (const StabilityEstimate& e : s.stability)
        if (e.key == "[[spring]] 'kd'") EXPECT_NEAR(e.value, 1.0 * 0.1 / 0.5, 1e-12);
    std::vector<std::string> w = s.warnings();
    ASSERT_EQ(w.size(), 3u);  // and the ground contact's default ke (4.47) and kd (10 0.1 / 0.5 = 2)
    EXPECT_EQ(w[1],
              "scenes/x.toml: warning: [contact] 'ke' = 1000 (the default) exceeds the explicit scheme's stability limit: "
              "sqrt(k/m) dt = 4.47214 with m = 0.5 kg and dt = 0.1 s (must stay well below 2); raise substeps to 5 or lower it");
    EXPECT_EQ(w[0],
              "scenes/x.toml:13:6: warning: [[spring]] 'ke' = 1e+30 exceeds the explicit scheme's stability limit: sqrt(k/m) "
              "dt = 1.41421e+14 with m = 0.5 kg and dt = 0.1 s (must stay well below 2); lower it (or raise the mass)");
    // the [contact] default ke = 1e3 on 0.5 kg at dt 0.1: sqrt(2000) 0.1 = 4.47, from the table's defaults
    Scene c =
        parse_scene("[simulation]\nfps = 10\nsubsteps = 1\n[contact]\nmu = 0.1\n[[particle]]\npos = [0, 1, 0]\nmass = 0.5\n",
                    "scenes/x.toml");
    ASSERT_EQ(c.warnings().size(), 2u);  // ke, and kd = 10 0.1 / 0.5 = 2
    EXPECT_EQ(c.warnings()[0],
              "scenes/x.toml:4:1: warning: [contact] 'ke' = 1000 (the default) exceeds the explicit scheme's stability limit: "
              "sqrt(k/m) dt = 4.47214 with m = 0.5 kg and dt = 0.1 s (must stay well below 2); raise substeps to 5 or lower it");
    // XPBD's constraints are implicit: no estimate
    EXPECT_TRUE(parse_scene("[simulation]\nsolver = \"xpbd\"\n" + scene.substr(13), "scenes/x.toml").stability.empty());
    // every shipped scene is within the limit
    for (const auto& e : std::filesystem::directory_iterator(std::string(WEFT_SOURCE_DIR) + "/scenes"))
        if (e.path().extension() == ".toml") EXPECT_TRUE(load_scene(e.path().string()).warnings().empty()) << e.path();
}

TEST(Scene, HostileFilesGetLocatedMessages) {
    // a directory given as the scene
    std::string dir = std::string(WEFT_SOURCE_DIR) + "/scenes";
    try {
        load_scene(dir);
        ADD_FAILURE() << "no error";
    } catch (const SceneError& e) {
        EXPECT_EQ(std::string(e.what()), dir + ": is a directory; give a scene file (.toml), e.g. " + dir + "/scene.toml");
    }
    // a device that never ends (reading it once hung)
    try {
        load_scene("/dev/zero");
        ADD_FAILURE() << "no error";
    } catch (const SceneError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "/dev/zero: is not a regular file (a device, FIFO or socket); give a scene file (.toml)");
    }
    // a scene too large for memory, refused from its counts before anything is allocated
    std::string big = error_of("[simulation]\n[[soft_body]]\ndim = [1024, 1024, 1024]\n");
    EXPECT_EQ(big.rfind("scenes/x.toml:3:7: 'dim' makes the scene too large for memory: about 1.54e+03 GiB for 1.077e+09 "
                        "particles, 5.369e+09 tetrahedra, and this machine has ",
                        0),
              0u)
        << big;
    // degenerate tetrahedra: the [[soft_body]]'s 'cell', not internal particle indices
    EXPECT_EQ(error_of("[simulation]\n[[soft_body]]\ndim = [2, 2, 2]\ncell = [1e-6, 1e-6, 1e-6]\n"),
              "scenes/x.toml:4:8: add_soft_grid: cells of 1e-06 x 1e-06 x 1e-06 m are too small: their tetrahedra have a "
              "volume of 1.66667e-19 m^3, below the 1e-15 m^3 taken as degenerate");
    // other builder errors name their [[table]]
    EXPECT_EQ(error_of("[simulation]\n[[cloth]]\ndim = [1, 1]\ncell = [1e-30, 1e-30]\n"),
              "scenes/x.toml:2:1: [[cloth]]: add_triangle: triangle (0, 1, 2) is degenerate (zero area)");
}

TEST(Scene, MeshShapes) {
    std::string base = kMinimal;  // 6 lines; the shape starts on line 7
    Scene s = parse_scene(base +
                              "[[shape]]\ntype = \"mesh\"\npos = [1, 0, 0]\nscale = [2, 2, 2]\nsdf_resolution = 16\n"
                              "vertices = [[0, 0, 0], [1, 0, 0], [0, 0, 1]]\nindices = [0, 2, 1]\n",
                          "scenes/x.toml");
    ASSERT_EQ(s.builder.shape_geo_type.size(), 1u);
    EXPECT_EQ(s.builder.shape_geo_type[0], GEO_MESH);
    EXPECT_EQ(s.builder.shape_geo_src[0].indices, (std::vector<int>{0, 2, 1}));
    EXPECT_FLOAT_EQ(s.builder.shape_geo_src[0].vertices[1].x(), 1.0f);
    EXPECT_FLOAT_EQ(s.builder.shape_geo_scale[0].y(), 2.0f);
    EXPECT_EQ(s.builder.shape_sdf_resolution[0], 16);
    EXPECT_FLOAT_EQ(s.builder.shape_sdf_margin[0], -1.0f);
    EXPECT_FLOAT_EQ(s.builder.shape_transform[0][0], 1.0f);

    // an OBJ file next to the scene file
    auto dir = std::filesystem::temp_directory_path() / ("weft_scene_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "tri.obj") << "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nf 1 4 3 2\n";
    std::ofstream(dir / "bad.obj") << "v 0 0 0\nv 1 0 0\nf 1 2 3\n";
    std::string scene = (dir / "s.toml").string();
    Scene o = parse_scene(base + "[[shape]]\ntype = \"mesh\"\nobj = \"tri.obj\"\nsdf_margin = 0.2\n", scene);
    EXPECT_EQ(o.builder.shape_geo_src[0].indices, (std::vector<int>{0, 3, 2, 0, 2, 1}));
    EXPECT_FLOAT_EQ(o.builder.shape_sdf_margin[0], 0.2f);
    auto scene_error = [&](const std::string& text) {
        try {
            parse_scene(text, scene);
        } catch (const SceneError& e) { return std::string(e.what()); }
        return std::string("(no error)");
    };
    EXPECT_EQ(scene_error(base + "[[shape]]\ntype = \"mesh\"\nobj = \"bad.obj\"\n"),
              (dir / "bad.obj").string() +
                  ":3:7: face index 3 is out of range (the file has 2 vertices before this line) "
                  "(the 'obj' of the [[shape]] at " +
                  scene + ":9:7)");
    EXPECT_EQ(scene_error(base + "[[shape]]\ntype = \"mesh\"\nobj = \"none.obj\"\n"),
              scene + ":9:7: cannot open the OBJ file 'none.obj' (looked for " + (dir / "none.obj").string() + ")");
    EXPECT_EQ(scene_error(base + "[[shape]]\ntype = \"mesh\"\nobj = \"\"\n"),
              scene + ":9:7: cannot open the OBJ file '' (looked for " + (dir / "").string() + ")");
    std::filesystem::remove_all(dir);

    const std::string mesh = base + "[[shape]]\ntype = \"mesh\"\n";  // the next key is on line 9
    const std::string tri = "vertices = [[0, 0, 0], [1, 0, 0], [0, 0, 1]]\n";
    EXPECT_EQ(error_of(mesh), "scenes/x.toml:7:1: a mesh shape needs 'obj' or 'vertices' and 'indices' in [[shape]]");
    EXPECT_EQ(error_of(mesh + "obj = \"a.obj\"\n" + tri),
              "scenes/x.toml:9:7: give either 'obj' or 'vertices' and 'indices', not both");
    EXPECT_EQ(error_of(mesh + "indices = [0, 1, 2]\n"), "scenes/x.toml:9:11: 'indices' needs 'vertices'");
    EXPECT_EQ(error_of(mesh + "obj = \"a.obj\"\nindices = [0, 1, 2]\n"),
              "scenes/x.toml:10:11: 'indices' belongs with 'vertices', not with 'obj'");
    EXPECT_EQ(error_of(mesh + "obj = 3\n"), "scenes/x.toml:9:7: 'obj' must be a string, got an integer");
    EXPECT_EQ(error_of(mesh + "vertices = 1.5\nindices = [0, 1, 2]\n"),
              "scenes/x.toml:9:12: 'vertices' must be an array of [x, y, z] arrays, got a number");
    EXPECT_EQ(error_of(mesh + "vertices = [[0, 0, 0], [1, 0]]\nindices = [0, 1, 2]\n"),
              "scenes/x.toml:9:24: 'vertices'[1] must be an array of 3 numbers");
    EXPECT_EQ(error_of(mesh + "vertices = [[0, 0, 0], [1, \"x\", 0]]\nindices = [0, 1, 2]\n"),
              "scenes/x.toml:9:28: 'vertices'[1] must hold numbers, got a string");
    EXPECT_EQ(error_of(mesh + tri), "scenes/x.toml:7:1: missing key 'indices' in [[shape]]");
    EXPECT_EQ(error_of(mesh + tri + "indices = \"0 1 2\"\n"),
              "scenes/x.toml:10:11: 'indices' must be an array of integers, got a string");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 1]\n"), "scenes/x.toml:10:11: 'indices' must hold 3 per triangle, got 2");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 1.0, 2]\n"),
              "scenes/x.toml:10:15: 'indices'[1] must be an integer, got a number");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 1, 3]\n"),
              "scenes/x.toml:10:18: 'indices'[2] = 3 is out of range (the mesh has 3 vertices)");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 1, -1]\n"),
              "scenes/x.toml:10:18: 'indices'[2] = -1 is out of range (the mesh has 3 vertices)");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 1, 1]\n"),
              "scenes/x.toml:9:12: add_shape_mesh: every triangle of the mesh has zero area");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 2, 1]\nscale = [1, 0, 1]\n"), "scenes/x.toml:11:9: 'scale' must all be > 0");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 2, 1]\nsdf_resolution = 1024\n"),
              "scenes/x.toml:11:18: 'sdf_resolution' must be <= 512, got 1024");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 2, 1]\nsdf_margin = -0.1\n"),
              "scenes/x.toml:11:14: 'sdf_margin' must be >= 0, got -0.1");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 2, 1]\nsdf_resolutoin = 32\n"),
              "scenes/x.toml:11:1: unknown key 'sdf_resolutoin' (did you mean 'sdf_resolution'?)");
    EXPECT_EQ(error_of(mesh + tri + "indices = [0, 2, 1]\n"), "(no error)");
}

TEST(Scene, StaticCylinderAndConeShapes) {
    Scene s = parse_scene(std::string(kMinimal) +
                              "[[shape]]\ntype = \"cylinder\"\npos = [1, 0, 0]\nradius = 0.3\nhalf_height = 0.2\n"
                              "[[shape]]\ntype = \"cone\"\npos = [2, 0, 0]\nradius = 0.25\nhalf_height = 0.4\nthickness = 0.01\n"
                              "rot_axis = [1, 0, 0]\nrot_angle = 3.141592653589793\n",
                          "scenes/x.toml");
    ASSERT_EQ(s.builder.shape_geo_type.size(), 2u);
    EXPECT_EQ(s.builder.shape_geo_type[0], GEO_CYLINDER);
    EXPECT_EQ(s.builder.shape_geo_type[1], GEO_CONE);
    EXPECT_EQ(s.builder.shape_body[0], -1);
    EXPECT_FLOAT_EQ(s.builder.shape_geo_scale[0].x(), 0.3f);
    EXPECT_FLOAT_EQ(s.builder.shape_geo_scale[0].y(), 0.2f);
    EXPECT_FLOAT_EQ(s.builder.shape_geo_scale[1].x(), 0.25f);
    EXPECT_FLOAT_EQ(s.builder.shape_geo_scale[1].y(), 0.4f);
    EXPECT_FLOAT_EQ(s.builder.shape_geo_thickness[1], 0.01f);
    EXPECT_FLOAT_EQ(s.builder.shape_transform[1][0], 2.0f);
    EXPECT_EQ(
        error_of(std::string(kMinimal) + "[[shape]]\ntype = \"cylinder\"\npos = [0, 0, 0]\nradius = 0.3\nhalf_height = 0\n"),
        "scenes/x.toml:11:15: 'half_height' must be > 0, got 0");
}

TEST(Scene, MutatedFilesNeverCrashTheLoader) {
    // Deletions, duplications and replacements of random spans of every shipped scene: the
    // loader either accepts the result or throws SceneError; nothing else escapes.
    std::mt19937 rng(1234);
    const char* alphabet = "[]=\"'.,-+#\n 0123456789aeiklmnoprstxyz_{}";
    int accepted = 0, rejected = 0;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(WEFT_SOURCE_DIR) + "/scenes")) {
        if (entry.path().extension() != ".toml" || entry.path().stem() == "granular_pile") continue;
        std::ifstream in(entry.path());
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string text = ss.str();
        for (int k = 0; k < 150; ++k) {
            std::string t = text;
            int edits = 1 + int(rng() % 3);
            for (int e = 0; e < edits && !t.empty(); ++e) {
                size_t pos = rng() % t.size(), len = 1 + rng() % 8;
                switch (rng() % 3) {
                    case 0: t.erase(pos, len); break;
                    case 1: t.insert(pos, t.substr(pos, len)); break;
                    default: t[pos] = alphabet[rng() % strlen(alphabet)]; break;
                }
            }
            try {
                parse_scene(t, "fuzz.toml");
                ++accepted;
            } catch (const SceneError& e) {
                EXPECT_EQ(std::string(e.what()).rfind("fuzz.toml:", 0), 0u) << e.what();
                ++rejected;
            } catch (const std::exception& e) { ADD_FAILURE() << "non-scene error: " << e.what() << "\n--- input ---\n" << t; }
        }
    }
    EXPECT_GT(rejected, 100);
    EXPECT_GT(accepted, 10);
}

}  // namespace
