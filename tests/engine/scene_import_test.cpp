// tests/engine/scene_import_test.cpp: the [[urdf]] / [[mjcf]] entries of scene files
// (engine/scene_import.cpp): what they build, their located errors and their warnings.
#include <gtest/gtest.h>

#include "engine/scene.h"

using namespace weft::engine;

namespace {

const std::string kDir = std::string(WEFT_SOURCE_DIR) + "/tests/engine/data/";

std::string scene_error(const std::string& text) {
    try {
        parse_scene("[simulation]\nsolver = \"semi_implicit\"\n" + text, kDir + "s.toml");
    } catch (const SceneError& e) { return e.what(); }
    return "";
}

}  // namespace

TEST(SceneImport, MjcfEntryBuildsTheModel) {
    Scene s = parse_scene(
        "[simulation]\nsolver = \"semi_implicit\"\n[[mjcf]]\nfile = \"pendulum2.xml\"\nstiffness = 0.0\n"
        "pos = [0.0, 1.0, 0.0]\n",
        kDir + "s.toml");
    EXPECT_EQ(s.builder.body_count(), 2);
    EXPECT_EQ(s.builder.joint_count(), 2);
    EXPECT_FLOAT_EQ(s.builder.body_q[0][1], 3.0f);  // z = 2 in the file, turned onto y, plus pos
    // The file's ctrlrange warning and its timestep (0.001 s) against the scene's 1 / (60 * 8).
    auto w = s.warnings();
    ASSERT_EQ(w.size(), 2u);
    EXPECT_NE(w[0].find("pendulum2.xml:24: warning: actuator 'm1': ctrlrange"), std::string::npos);
    EXPECT_EQ(w[1], kDir +
                        "s.toml:4:8: warning: the MJCF's <option timestep=\"0.001\"> is not used: the scene's step is "
                        "1 / (fps substeps) = 0.00208333 s");
}

TEST(SceneImport, UrdfEntry) {
    Scene s = parse_scene("[simulation]\nsolver = \"semi_implicit\"\n[[urdf]]\nfile = \"two_link.urdf\"\nfloating = true\n",
                          kDir + "s.toml");
    EXPECT_EQ(s.builder.body_count(), 3);
    EXPECT_EQ(s.builder.joint_type[0], JOINT_FREE);
}

TEST(SceneImport, Errors) {
    EXPECT_EQ(scene_error("[[mjcf]]\nfile = \"pendulum2.xml\"\nstifness = 0.0\n"),
              kDir + "s.toml:5:1: unknown key 'stifness' (did you mean 'stiffness'?)");
    EXPECT_EQ(scene_error("[[urdf]]\nscale = 1.0\n"), kDir + "s.toml:3:1: missing key 'file' in [[urdf]]");
    EXPECT_EQ(scene_error("[[urdf]]\nfile = \"nope.urdf\"\n"), kDir + "s.toml:4:8: " + kDir + "nope.urdf: cannot open the file");
    EXPECT_EQ(scene_error("[[mjcf]]\nfile = \"two_link.urdf\"\n"),
              kDir + "s.toml:4:8: " + kDir + "two_link.urdf:4: the root element is <robot>, an MJCF file has <mujoco>");
}
