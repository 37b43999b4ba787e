// tests/engine/collision_filter_test.cpp: Warp's shape collision filtering (ModelBuilder::
// set_shape_collision, shape_collision_filter_pairs; kernels/rigid_common.py's shapes_collide) under both
// maximal-coordinate integrators: a ball dropped on a ball meets it or passes through it by the
// groups, switches and filtered pairs of their shapes; a shape without ground collision falls
// through the ground; add_builder carries the filters into each copy; the import's
// enable_self_collisions; and the builder's errors.
#include <gtest/gtest.h>

#include <memory>

#include "engine/integrator_registry.h"
#include "engine/scene.h"
#include "tests/engine/engine_test_util.h"

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

namespace {

// A ball held still at y = 0.5 (kinematic: zero density) and a ball dropped onto it from y = 0.9;
// `setup` filters their shapes (0: the held ball, 1: the dropped one). Returns the dropped ball's
// height after 0.5 s.
double dropped_height(const std::string& integrator, const std::function<void(ModelBuilder&)>& setup) {
    ModelBuilder b;
    b.ground = false;
    ShapeParams held;
    held.density = 0.0f;
    b.add_shape_sphere(b.add_body(Vec3(0, 0.5f, 0)), Vec3::Zero(), Quat::Identity(), 0.1f, held);
    b.add_shape_sphere(b.add_body(Vec3(0, 0.9f, 0)), Vec3::Zero(), Quat::Identity(), 0.1f);
    setup(b);
    Model m = b.finalize("cpu");
    auto it = create_integrator(
        integrator, integrator == "semi_implicit" ? IntegratorOptions{{"angular_damping", 0.0}} : IntegratorOptions{});
    return bodies_of(rollout(m, *it, 1000, 5.0e-4f))[1].p.y();
}

}  // namespace

TEST(CollisionFilter, GroupsSwitchesAndPairsDecideWhichShapesMeet) {
    REQUIRE_CPU();
    for (const char* integrator : {"semi_implicit", "xpbd"}) {
        SCOPED_TRACE(integrator);
        auto meets = [&](const std::function<void(ModelBuilder&)>& setup) { return dropped_height(integrator, setup) > 0.6; };
        EXPECT_TRUE(meets([](ModelBuilder&) {}));                                              // defaults: group -1
        EXPECT_TRUE(meets([](ModelBuilder& b) { b.set_shape_collision(1, 3, true, true); }));  // -1 meets every group
        EXPECT_TRUE(meets([](ModelBuilder& b) {
            b.set_shape_collision(0, 2, true, true);
            b.set_shape_collision(1, 2, true, true);
        }));  // the same group
        EXPECT_FALSE(meets([](ModelBuilder& b) {
            b.set_shape_collision(0, 1, true, true);
            b.set_shape_collision(1, 2, true, true);
        }));                                                                                      // two groups
        EXPECT_FALSE(meets([](ModelBuilder& b) { b.set_shape_collision(0, -1, true, false); }));  // no shape collision
        EXPECT_FALSE(meets([](ModelBuilder& b) { b.add_shape_collision_filter_pair(1, 0); }));    // a filtered pair
    }
}

TEST(CollisionFilter, AShapeWithoutGroundCollisionFallsThroughTheGround) {
    REQUIRE_CPU();
    for (const char* integrator : {"semi_implicit", "xpbd"}) {
        for (bool ground : {true, false}) {
            ModelBuilder b;
            b.add_shape_box(b.add_body(Vec3(0, 0.2f, 0)), Vec3::Zero(), Quat::Identity(), 0.1f, 0.1f, 0.1f);
            b.set_shape_collision(0, -1, ground, true);
            Model m = b.finalize("cpu");
            auto it = create_integrator(integrator);
            const double y = bodies_of(rollout(m, *it, 1000, 5.0e-4f))[0].p.y();
            if (ground)
                EXPECT_NEAR(y, 0.1, 2e-3) << integrator;
            else
                EXPECT_LT(y, -0.5) << integrator;
        }
    }
}

TEST(CollisionFilter, AddBuilderCarriesTheFiltersIntoEachCopy) {
    ModelBuilder one;
    one.add_shape_sphere(one.add_body(), Vec3::Zero(), Quat::Identity(), 0.1f);
    one.add_shape_sphere(one.add_body(), Vec3::Zero(), Quat::Identity(), 0.1f);
    one.set_shape_collision(1, 4, false, true);
    one.add_shape_collision_filter_pair(0, 1);
    ModelBuilder b;
    b.add_shape_sphere(b.add_body(), Vec3::Zero(), Quat::Identity(), 0.1f);  // shape 0: defaults
    b.add_builder(one);
    b.add_builder(one);
    EXPECT_EQ(b.shape_collision_filter_pairs, (std::set<std::pair<int, int>>{{1, 2}, {3, 4}}));
    EXPECT_EQ(b.shape_collision_group, (std::vector<int>{-1, -1, 4, -1, 4}));
    EXPECT_EQ(b.shape_collision_flags, (std::vector<int>{3, 3, 2, 3, 2}));
    REQUIRE_CPU();  // the model's arrays
    Model m = b.finalize("cpu");
    std::vector<int> start(6), list(4);
    m.shape_filter_start.copy_to_host(start.data(), start.size() * sizeof(int));
    m.shape_filter_list.copy_to_host(list.data(), list.size() * sizeof(int));
    EXPECT_EQ(start, (std::vector<int>{0, 0, 1, 2, 3, 4}));
    EXPECT_EQ(list, (std::vector<int>{2, 1, 4, 3}));
}

TEST(CollisionFilter, BuilderErrorsNameTheShape) {
    ModelBuilder b;
    b.add_shape_sphere(b.add_body(), Vec3::Zero(), Quat::Identity(), 0.1f);
    EXPECT_EQ(message_of([&] { b.set_shape_collision(1, 0, true, true); }),
              "set_shape_collision: shape index 1 is out of range (the model has 1 shapes)");
    EXPECT_EQ(message_of([&] { b.set_shape_collision(0, -2, true, true); }),
              "set_shape_collision: collision_group must be >= -1, got -2");
    EXPECT_EQ(message_of([&] { b.add_shape_collision_filter_pair(0, 0); }),
              "add_shape_collision_filter_pair: a shape cannot be filtered against itself (0)");
    EXPECT_EQ(message_of([&] { b.add_shape_collision_filter_pair(0, 3); }),
              "add_shape_collision_filter_pair: shape index 3 is out of range (the model has 1 shapes)");
    REQUIRE_CPU();                                  // finalize
    b.shape_collision_filter_pairs.insert({0, 5});  // written directly, past the shapes
    EXPECT_EQ(message_of([&] { b.finalize("cpu"); }),
              "finalize: shape_collision_filter_pairs holds (0, 5), not a pair of two of the model's 1 shapes");
}
