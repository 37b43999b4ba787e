// The body broad phase (engine/broad_phase.h, kernels/broad_phase.py): its candidate lists
// against a brute-force test of every pair's bounding spheres in double precision, and steps,
// rollouts and gradients with it bit for bit those without it (the pairs it skips give exactly
// nothing), in one world of many bodies, in batched worlds with shared and large shapes, and where
// lists overflow or buckets fill (the bodies concerned walk every shape); under the semi-implicit,
// XPBD and Featherstone integrators, on the CPU, the simulator and a CUDA device.
#include <Eigen/Dense>
#include <cstring>
#include <random>
#include <set>

#include "engine/broad_phase.h"
#include "engine/featherstone.h"
#include "engine/xpbd.h"
#include "runtime/device.h"
#include "tests/engine/engine_test_util.h"

namespace {

using namespace weft;
using namespace weft::engine;
using namespace weft::engine::test;

template <class T>
std::vector<T> host(const runtime::Array& a) {
    std::vector<T> v(a.nbytes() / sizeof(T));
    a.copy_to_host(v.data(), v.size() * sizeof(T));
    return v;
}

// Each body's candidate count at the poses of `s` (-1: it walks every shape).
std::vector<int> candidate_counts(const Model& m, const State& s) {
    BodyCandidates c;
    c.build(m, s.body_q, 0.0f, false);
    return host<int>(c.count());
}

// A pile of n bodies (boxes, spheres and capsules in turn) on a jittered grid of spacing `gap`,
// above a static slab and the ground, in random orientations and with random velocities.
// With `free_joints`, each body is the child of a free joint (Featherstone's floating bodies) and
// starts at rest.
void add_pile(ModelBuilder& b, int n, float gap, unsigned seed, bool free_joints = false) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    const int side = int(std::ceil(std::cbrt(double(n))));
    for (int k = 0; k < n; ++k) {
        const Vec3 p(gap * float(k % side) + 0.02f * u(rng), 0.35f + gap * float(k / (side * side)) + 0.02f * u(rng),
                     gap * float((k / side) % side) + 0.02f * u(rng));
        const Quat q = Quat(Eigen::AngleAxisf(3.0f * u(rng), Vec3(u(rng), u(rng), u(rng) + 2.0f).normalized()));
        const int body = b.add_body(p, q);
        if (k % 3 == 0) b.add_shape_box(body, Vec3::Zero(), Quat::Identity(), 0.1f, 0.07f, 0.05f);
        if (k % 3 == 1) b.add_shape_sphere(body, Vec3::Zero(), Quat::Identity(), 0.08f);
        if (k % 3 == 2) b.add_shape_capsule(body, Vec3::Zero(), Quat::Identity(), 0.05f, 0.07f);
        if (free_joints) {
            b.add_articulation();  // one articulation per body
            b.add_joint_free(body, {p, q});
        } else
            b.body_qd.back() = {u(rng), u(rng), u(rng), 0.5f * u(rng), 0.5f * u(rng), 0.5f * u(rng)};
    }
}

// Runs `steps` steps of integrator I with and without the broad phase; expects equal bits.
template <class I = SemiImplicitIntegrator, class... Options>
void expect_same_steps(Model& m, int steps, float dt, Options... options) {
    I on(options...), off(options...);
    m.body_broad_phase = true;
    const State a = rollout(m, on, steps, dt);
    m.body_broad_phase = false;
    const State b = rollout(m, off, steps, dt);
    m.body_broad_phase = true;
    const auto qa = host<float>(a.body_q), qb = host<float>(b.body_q);
    const auto va = host<float>(a.body_qd), vb = host<float>(b.body_qd);
    EXPECT_EQ(0, std::memcmp(qa.data(), qb.data(), qa.size() * sizeof(float))) << "body_q differs";
    EXPECT_EQ(0, std::memcmp(va.data(), vb.data(), va.size() * sizeof(float))) << "body_qd differs";
}

// Body b's candidates by brute force in double precision: the walk positions (kernels/worlds.py's
// order) of the shapes of other bodies and static shapes of b's world or shared whose bounding
// spheres reach one of b's shapes' within `slack` times the sum of their reaches.
std::set<int> brute_candidates(const Model& m, const State& s, int b, double slack) {
    const auto q = host<float>(s.body_q), tf = host<float>(m.shape_transform), bound = host<float>(m.shape_bound),
               mat = host<float>(m.shape_materials);
    const auto shape_body = host<int>(m.shape_body), shape_world = host<int>(m.shape_world), body_world = host<int>(m.body_world),
               bstart = host<int>(m.body_shape_start), blist = host<int>(m.body_shape_list),
               wstart = host<int>(m.world_shape_start), wlist = host<int>(m.world_shape_list);
    auto pose = [](const float* t) {
        Eigen::Isometry3d x = Eigen::Isometry3d::Identity();
        x.translation() = Eigen::Vector3d(t[0], t[1], t[2]);
        x.linear() = Eigen::Quaterniond(t[6], t[3], t[4], t[5]).normalized().toRotationMatrix();
        return x;
    };
    auto centre = [&](int sh) {
        const Eigen::Isometry3d local = pose(&tf[size_t(7 * sh)]);
        const int ob = shape_body[size_t(sh)];
        return ob < 0 ? Eigen::Vector3d(local.translation()) : Eigen::Vector3d((pose(&q[size_t(7 * ob)]) * local).translation());
    };
    auto reach = [&](int sh) {
        return bound[size_t(sh)] < 0 ? -1.0 : double(bound[size_t(sh)]) + 0.5 * std::abs(double(mat[size_t(6 * sh + 3)]));
    };
    const int wb = body_world[size_t(b)];
    std::vector<int> walk;  // worlds.py's candidate order
    if (wb < 0)
        for (int sh = 0; sh < m.shape_count; ++sh) walk.push_back(sh);
    else
        for (int g : {wb, m.num_worlds})
            for (int k = wstart[size_t(g)]; k < wstart[size_t(g) + 1]; ++k) walk.push_back(wlist[size_t(k)]);
    std::set<int> out;
    for (size_t k = 0; k < walk.size(); ++k) {
        const int sb = walk[k];
        if (shape_body[size_t(sb)] == b) continue;
        if (wb >= 0 && shape_world[size_t(sb)] >= 0 && shape_world[size_t(sb)] != wb) continue;
        for (int i = bstart[size_t(b)]; i < bstart[size_t(b) + 1]; ++i) {
            const int sa = blist[size_t(i)];
            const double ra = reach(sa), rb = reach(sb);
            if (ra < 0 || rb < 0 || (centre(sa) - centre(sb)).norm() <= (ra + rb) * slack) out.insert(int(k));
        }
    }
    return out;
}

// Each body's list against the brute force: every pair the spheres keep is listed, and nothing
// beyond the slack; ascending. Returns how many bodies had lists (count >= 0).
int check_lists(const Model& m, const State& s) {
    BodyCandidates c;
    c.build(m, s.body_q, 0.0f, false);
    const auto count = host<int>(c.count()), list = host<int>(c.list());
    int listed = 0;
    for (int b = 0; b < m.body_count; ++b) {
        SCOPED_TRACE("body " + std::to_string(b));
        const int n = count[size_t(b)];
        if (n < 0) continue;
        ++listed;
        const int* l = &list[size_t(b) * size_t(m.body_candidate_capacity)];
        EXPECT_TRUE(std::is_sorted(l, l + n) && std::adjacent_find(l, l + n) == l + n);
        const std::set<int> got(l, l + n), tight = brute_candidates(m, s, b, 1.0), loose = brute_candidates(m, s, b, 1.01);
        for (int k : tight) EXPECT_TRUE(got.count(k)) << "walk position " << k << " missing";
        for (int k : got) EXPECT_TRUE(loose.count(k)) << "walk position " << k << " listed but out of reach";
    }
    return listed;
}

// One world of 150 bodies over a static slab: finalize turns the broad phase on (each body would
// walk 152 shapes); the lists match the brute force at the start and after the pile has fallen,
// and 1,200 steps of a colliding pile are the bits of the walk over every shape.
TEST(BroadPhase, PileOfBodiesInOneWorldStepsBitForBitAsWithout) {
    REQUIRE_CPU();
    ModelBuilder b;
    b.add_shape_box(Vec3(0.6f, -0.05f, 0.6f), 1.0f, 0.05f, 1.0f);
    b.add_shape_plane(Eigen::Vector4f(0.0f, 1.0f, 0.0f, 0.2f));
    add_pile(b, 150, 0.19f, 7);
    Model m = b.finalize("cpu");
    ASSERT_TRUE(m.body_broad_phase) << "max candidates " << m.max_shape_candidates;
    EXPECT_EQ(m.max_shape_candidates, 152);
    State s = m.state();
    EXPECT_EQ(check_lists(m, s), 150);
    SemiImplicitIntegrator it;
    const State later = rollout(m, it, 1200, 5e-4f);
    EXPECT_EQ(check_lists(m, later), 150);
    const auto count = candidate_counts(m, later);
    const int most = *std::max_element(count.begin(), count.end());
    std::printf("after 1200 steps: at most %d candidates of %d shapes per body\n", most, m.shape_count);
    EXPECT_LT(most, 20);
    expect_same_steps(m, 1200, 5e-4f);
}

// Worlds (add_builder) with shared static shapes, a large static box in each world, and a shared
// body: lists find the shared shapes through the grid's world -1 and the large ones directly; the
// shared body walks everything; the steps are the bits of the walk without the broad phase.
TEST(BroadPhase, WorldsWithSharedAndLargeShapesStepBitForBitAsWithout) {
    REQUIRE_CPU();
    ModelBuilder world;
    world.add_shape_box(Vec3(0.3f, -0.5f, 0.3f), 3.0f, 0.5f, 3.0f);  // large: beyond 4x the median reach
    add_pile(world, 14, 0.18f, 11);
    ModelBuilder b;
    for (int w = 0; w < 6; ++w) b.add_builder(world);
    b.add_shape_sphere(Vec3(0.2f, 0.05f, 0.2f), 0.1f);  // shared static shapes
    b.add_shape_box(Vec3(0.4f, 0.05f, 0.1f), 0.08f, 0.08f, 0.08f);
    const int shared = b.add_body(Vec3(0.1f, 0.6f, 0.1f));
    b.add_shape_sphere(shared, Vec3::Zero(), Quat::Identity(), 0.09f);
    Model m = b.finalize("cpu");
    EXPECT_EQ(m.num_worlds, 6);
    EXPECT_EQ(m.max_shape_candidates, m.shape_count) << "the shared body meets every world";
    ASSERT_TRUE(m.body_broad_phase);
    const State s = m.state();
    EXPECT_EQ(check_lists(m, s), m.body_count - 1) << "all but the shared body have lists";
    EXPECT_EQ(candidate_counts(m, s)[size_t(shared)], -1);
    expect_same_steps(m, 800, 5e-4f);
}

// Lists that would overflow and buckets that are full: those bodies walk every shape (count -1),
// and the steps keep their bits.
TEST(BroadPhase, OverflowingListsAndFullBucketsFallBackToTheWholeWalk) {
    REQUIRE_CPU();
    ModelBuilder b;
    add_pile(b, 80, 0.17f, 3);
    Model m = b.finalize("cpu");
    ASSERT_TRUE(m.body_broad_phase);
    for (auto [capacity, bucket] : {std::pair{2, 16}, std::pair{32, 1}}) {
        SCOPED_TRACE("list capacity " + std::to_string(capacity) + ", bucket capacity " + std::to_string(bucket));
        m.body_candidate_capacity = capacity;
        m.shape_grid_capacity = bucket;
        const State s = m.state();
        const auto count = candidate_counts(m, s);
        const auto walks = std::count(count.begin(), count.end(), -1);
        EXPECT_GT(walks, 0);
        EXPECT_EQ(check_lists(m, s), m.body_count - int(walks));
        expect_same_steps(m, 400, 5e-4f);
    }
}

// XPBD's contact slots walk the same lists (built at the step's start within the contact margin):
// a pile on the ground in one world and in worlds keeps the bits of the walk over every shape.
TEST(BroadPhase, XpbdContactSlotsStepBitForBitAsWithout) {
    REQUIRE_CPU();
    ModelBuilder one;
    add_pile(one, 90, 0.19f, 13);
    Model m = one.finalize("cpu");
    ASSERT_TRUE(m.body_broad_phase);
    expect_same_steps<XPBDIntegrator>(m, 300, 1e-3f);
    ModelBuilder world, worlds;
    add_pile(world, 12, 0.18f, 17);
    for (int w = 0; w < 4; ++w) worlds.add_builder(world);
    Model mw = worlds.finalize("cpu");
    EXPECT_FALSE(mw.body_broad_phase) << "12 shapes a world: below broad_phase_min_candidates";
    mw.body_broad_phase = true;
    EXPECT_EQ(check_lists(mw, mw.state()), mw.body_count);
    expect_same_steps<XPBDIntegrator>(mw, 300, 1e-3f);
}

// Featherstone's contact wrenches come from the same kernel (eval_body_forces), once per
// evaluation: free-floating bodies in a pile, stepped by Euler and by RK4 (four lists a step).
TEST(BroadPhase, FeatherstoneEvaluationsStepBitForBitAsWithout) {
    REQUIRE_CPU();
    ModelBuilder b;
    add_pile(b, 80, 0.19f, 19, true);
    Model m = b.finalize("cpu");
    ASSERT_TRUE(m.body_broad_phase);
    EXPECT_EQ(check_lists(m, m.state()), 80);
    expect_same_steps<FeatherstoneIntegrator>(m, 400, 5e-4f, false, 0.0f);
    expect_same_steps<FeatherstoneIntegrator>(m, 100, 5e-4f, true, 0.0f);
}

// The same kernels on a GPU's code path: a pile with the broad phase forced on keeps the bits of
// the walk over every shape under both maximal-coordinate integrators.
void expect_same_bits_on(const std::string& device, int steps) {
    ModelBuilder b;
    add_pile(b, 40, 0.19f, 23);
    Model m = b.finalize(device);
    m.body_broad_phase = true;
    EXPECT_EQ(check_lists(m, m.state()), 40);
    expect_same_steps(m, steps, 5e-4f);
    expect_same_steps<XPBDIntegrator>(m, steps, 1e-3f);
}

TEST(BroadPhase, SimulatorStepsBitForBitAsWithout) {
    if (!runtime::device_available(runtime::parse_device("sim:h200"))) GTEST_SKIP() << "no NVRTC";
    expect_same_bits_on("sim:h200", 4);
}

TEST(BroadPhase, CudaStepsBitForBitAsWithout) {
    if (!runtime::device_available(runtime::parse_device("cuda:0"))) GTEST_SKIP() << "no CUDA device";
    expect_same_bits_on("cuda:0", 400);
}

// Capacities below 1 are refused by name when a step builds the lists, before anything is launched.
TEST(BroadPhase, CapacitiesBelowOneAreRefused) {
    REQUIRE_CPU();
    ModelBuilder b;
    add_pile(b, 70, 0.19f, 29);
    Model m = b.finalize("cpu");
    ASSERT_TRUE(m.body_broad_phase);
    SemiImplicitIntegrator it;
    State s0 = m.state(), s1 = m.state();
    m.body_candidate_capacity = 0;
    EXPECT_EQ(message_of([&] { it.simulate(m, s0, s1, 1e-3f); }),
              "simulate: the body broad phase needs body_candidate_capacity >= 1 and shape_grid_capacity >= 1; got 0 and 16 "
              "(turn it off with body_broad_phase = false instead)");
    m.body_candidate_capacity = 32;
    m.shape_grid_capacity = -2;
    EXPECT_NE(message_of([&] { it.simulate(m, s0, s1, 1e-3f); }).find("got 32 and -2"), std::string::npos);
    m.shape_grid_capacity = 16;
    EXPECT_EQ(message_of([&] { it.simulate(m, s0, s1, 1e-3f); }), "(no error)");
}

// Under XPBD a body that walks every shape takes its candidates k, k + C, ... in slot 1 + k (C the
// lists' capacity): the same contacts summed in another association, so the step is the same up
// to round-off (not bit for bit), and the other bodies keep their bits.
TEST(BroadPhase, XpbdBodiesThatWalkEveryShapeShareTheirSlots) {
    REQUIRE_CPU();
    ModelBuilder b;
    add_pile(b, 90, 0.19f, 13);
    Model m = b.finalize("cpu");
    m.body_candidate_capacity = 3;
    const auto count = candidate_counts(m, m.state());
    const auto walks = std::count(count.begin(), count.end(), -1);
    EXPECT_GT(walks, 5);
    EXPECT_LT(walks, 80);
    const int steps = 40;
    XPBDIntegrator on, off;
    const State a = rollout(m, on, steps, 1e-3f);
    m.body_broad_phase = false;
    const State r = rollout(m, off, steps, 1e-3f);
    const auto qa = host<float>(a.body_q), qr = host<float>(r.body_q);
    double worst = 0;
    for (size_t i = 0; i < qa.size(); ++i) worst = std::max(worst, double(std::abs(qa[i] - qr[i])));
    std::printf("%lld of %d bodies walk every shape; largest pose difference after %d steps: %.3g\n", (long long)walks,
                m.body_count, steps, worst);
    EXPECT_LT(worst, 1e-4);
}

// The Tape's gradient of the bodies' mean x after a rollout with respect to the initial `field`
// (body_qd, or joint_qd under Featherstone), with and without the broad phase: equal bits, or with
// `rel` > 0 equal within rel times the largest component (XPBD's backward pass adds into other
// bodies' adjoints with atomics, so its gradient's last bits vary from run to run on any setting).
template <class I, class... Options>
void expect_same_gradient(Model& m, runtime::Array State::*field, double rel, int steps, float dt, Options... options) {
    SCOPED_TRACE(I(options...).name());
    auto loss_module = runtime::Module::compile({{"loss.py", kBodyLoss}});
    const runtime::Kernel loss = loss_module->kernel("body_x_loss");
    std::vector<float> grads[2];
    for (int on = 0; on < 2; ++on) {
        m.body_broad_phase = on != 0;
        I it(options...);
        const State s0 =
            rollout_gradient(m, it, steps, dt, [&](const State& s, const runtime::Array& l) { launch_body_loss(loss, m, s, l); });
        grads[on] = host<float>(*(s0.*field).grad());
    }
    double largest = 0, worst = 0;
    for (size_t i = 0; i < grads[0].size(); ++i) {
        largest = std::max(largest, double(std::abs(grads[0][i])));
        worst = std::max(worst, double(std::abs(grads[0][i] - grads[1][i])));
    }
    std::printf("%s: largest gradient component %.4g, largest difference %.3g\n", I(options...).name().c_str(), largest, worst);
    EXPECT_GT(largest, 0.0);
    if (rel == 0)
        EXPECT_EQ(0, std::memcmp(grads[0].data(), grads[1].data(), grads[0].size() * sizeof(float)));
    else
        EXPECT_LE(worst, rel * largest);
}

// Each recorded step (and each of RK4's evaluations) keeps its own lists, so the tape sees no
// array overwritten and the backward pass walks the lists of its own step.
TEST(BroadPhase, RecordedRolloutsGiveTheGradientOfTheWholeWalk) {
    REQUIRE_CPU();
    ModelBuilder b;
    add_pile(b, 24, 0.17f, 5);
    Model m = b.finalize("cpu", true);
    expect_same_gradient<SemiImplicitIntegrator>(m, &State::body_qd, 0.0, 60, 1e-3f);
    expect_same_gradient<XPBDIntegrator>(m, &State::body_qd, 1e-4, 30, 1e-3f);
    ModelBuilder f;
    add_pile(f, 24, 0.17f, 5, true);
    Model mf = f.finalize("cpu", true);
    expect_same_gradient<FeatherstoneIntegrator>(mf, &State::joint_qd, 0.0, 30, 1e-3f, true, 0.0f);
}

// A body's backward thread keeps what its loops overwrite on a per-thread tape (32 KiB for the
// rigid kernels, engine/solver_kernels.cpp): walking all 100 shapes of a pile overflows it, walking
// a body's list does not.
TEST(BroadPhase, PilesTooLargeForTheWholeWalksAdjointTapeAreDifferentiable) {
    REQUIRE_CPU();
    ModelBuilder b;
    add_pile(b, 100, 0.17f, 31);
    Model m = b.finalize("cpu", true);
    ASSERT_TRUE(m.body_broad_phase);
    auto loss_module = runtime::Module::compile({{"loss.py", kBodyLoss}});
    const runtime::Kernel loss = loss_module->kernel("body_x_loss");
    auto gradient = [&] {
        SemiImplicitIntegrator it;
        const State s0 =
            rollout_gradient(m, it, 20, 1e-3f, [&](const State& s, const runtime::Array& l) { launch_body_loss(loss, m, s, l); });
        return host<float>(*s0.body_qd.grad());
    };
    const std::vector<float> g = gradient();
    double largest = 0;
    for (float x : g) largest = std::max(largest, double(std::abs(x)));
    EXPECT_GT(largest, 0.0);
    EXPECT_TRUE(std::isfinite(largest));
    m.body_broad_phase = false;
    EXPECT_NE(message_of([&] { gradient(); }).find("per-thread tape"), std::string::npos);
}

}  // namespace
