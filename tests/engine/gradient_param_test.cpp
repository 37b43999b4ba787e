// engine/gradient_param.h: --wrt names resolve to the right array, scalars and labels; every
// mistake is an error naming it, with a did-you-mean.
#include <gtest/gtest.h>

#include "engine/gradient_param.h"
#include "engine/model_builder.h"

namespace {

using namespace weft::engine;

Model model() {
    ModelBuilder b;
    b.ground = false;
    b.add_particle(Vec3(0, 1, 0), Vec3::Zero(), 0.0f);
    b.add_particle(Vec3(0.3f, 1, 0), Vec3(0, 0.5f, 0), 0.1f);
    b.add_particle(Vec3(0.3f, 1.3f, 0), Vec3::Zero(), 0.1f);
    b.add_spring(0, 1, 200.0f, 1.0f);
    b.add_spring(1, 2, 100.0f, 0.5f);
    b.add_triangle(0, 1, 2, 10.0f, 20.0f, 0.5f);
    return b.finalize("cpu", true);
}

std::string error_of(const std::string& spec) {
    Model m = model();
    State s = m.state();
    try {
        resolve_gradient_param(spec, m, s);
    } catch (const GradientParamError& e) { return e.what(); }
    return "(no error)";
}

TEST(GradientParam, ArrayNamesAndSceneKeys) {
    Model m = model();
    State s = m.state();
    GradientParam p = resolve_gradient_param("spring_stiffness", m, s);
    EXPECT_EQ(p.array.data(), m.spring_stiffness.data());
    EXPECT_EQ(p.scalars, (std::vector<int64_t>{0, 1}));
    EXPECT_EQ(p.labels, (std::vector<std::string>{"spring_stiffness[0]", "spring_stiffness[1]"}));
    EXPECT_EQ(resolve_gradient_param("spring.ke[1]", m, s).labels, (std::vector<std::string>{"spring.ke[1]"}));
    EXPECT_EQ(resolve_gradient_param("spring.ke[1]", m, s).array.data(), m.spring_stiffness.data());

    p = resolve_gradient_param("particle_qd[1]", m, s);
    EXPECT_EQ(p.array.data(), s.particle_qd.data()) << "the initial State's, not the Model's";
    EXPECT_EQ(p.scalars, (std::vector<int64_t>{3, 4, 5}));
    EXPECT_EQ(p.labels, (std::vector<std::string>{"particle_qd[1].x", "particle_qd[1].y", "particle_qd[1].z"}));
    p = resolve_gradient_param("particle_qd[2].y", m, s);
    EXPECT_EQ(p.scalars, (std::vector<int64_t>{7}));
    EXPECT_EQ(p.labels, (std::vector<std::string>{"particle_qd[2].y"}));
    EXPECT_EQ(resolve_gradient_param("particle.vel.z", m, s).scalars, (std::vector<int64_t>{2, 5, 8}));

    // a column of tri_materials (k_mu, k_lambda, k_damp, drag, lift per triangle)
    p = resolve_gradient_param("cloth.tri_ka", m, s);
    EXPECT_EQ(p.array.data(), m.tri_materials.data());
    EXPECT_EQ(p.scalars, (std::vector<int64_t>{1}));
    EXPECT_EQ(p.labels, (std::vector<std::string>{"cloth.tri_ka[0]"}));
    p = resolve_gradient_param("tri_materials", m, s);
    EXPECT_EQ(p.scalars.size(), 5u);
    EXPECT_EQ(p.labels[4], "tri_materials[0, 4]");
    EXPECT_EQ(gradient_param_names().front(), "particle_q");
}

TEST(GradientParam, Errors) {
    const std::string tail =
        "; parameters are Model arrays, initial-State arrays (particle_q, particle_qd) or scene keys such as spring.ke and "
        "cloth.tri_ke";
    EXPECT_EQ(error_of("spring_stifness"),
              "--wrt 'spring_stifness': unknown parameter 'spring_stifness' (did you mean 'spring_stiffness'?)" + tail);
    EXPECT_EQ(error_of("cloth.tri_kee"),
              "--wrt 'cloth.tri_kee': unknown parameter 'cloth' (did you mean 'cloth.tri_ke'?)" + tail);
    EXPECT_EQ(error_of("gravity"), "--wrt 'gravity': unknown parameter 'gravity'" + tail);
    EXPECT_EQ(error_of("spring_stiffness[2]"),
              "--wrt 'spring_stiffness[2]': index 2 is out of range ('spring_stiffness' has 2 entries)");
    EXPECT_EQ(error_of("spring_stiffness[x]"), "--wrt 'spring_stiffness[x]': the index must be an integer >= 0, got 'x'");
    EXPECT_EQ(error_of("spring_stiffness[1"), "--wrt 'spring_stiffness[1': expected ']' after the index");
    EXPECT_EQ(error_of("particle_qd[0]y"),
              "--wrt 'particle_qd[0]y': unexpected 'y' after the index (a component is .x, .y or .z)");
    EXPECT_EQ(error_of("particle_qd[0].w"), "--wrt 'particle_qd[0].w': unknown component 'w': use .x, .y or .z");
    EXPECT_EQ(
        error_of("spring_stiffness[0].x"),
        "--wrt 'spring_stiffness[0].x': '.x' applies to vec3 arrays (particle_q, particle_qd); 'spring_stiffness' is not one");
    EXPECT_EQ(error_of("tet_materials"),
              "--wrt 'tet_materials': 'tet_materials' is empty in this scene (nothing of that kind was built)");
}

}  // namespace
