// engine/broad_phase.cpp: see broad_phase.h.
#include "engine/broad_phase.h"

#include "engine/launch_args.h"
#include "engine/solver_kernels.h"
#include "runtime/capture_check.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"

namespace weft::engine {

namespace {

// An int32 array of `size` elements: new (outside any graph capture) when `fresh` or when `a` does
// not fit, else `a` itself.
Array int_array(Array& a, int64_t size, const Model& m, bool fresh) {
    size = std::max<int64_t>(size, 1);
    if (fresh) return runtime::zeros_outside_capture(compiler::int32_type(), {size}, m.device);
    if (!a.valid() || a.size() != size || !(a.device() == m.device))
        a = runtime::zeros_outside_capture(compiler::int32_type(), {size}, m.device);
    return a;
}

}  // namespace

void BodyCandidates::build(const Model& m, const Array& body_q, float margin, bool fresh) {
    if (!m.body_broad_phase || m.body_count == 0 || m.shape_grid_buckets == 0) {
        bucket_count_ = bucket_shapes_ = count_ = list_ = Array();
        return;
    }
    if (m.body_candidate_capacity < 1 || m.shape_grid_capacity < 1)
        throw runtime::RuntimeError(
            "simulate: the body broad phase needs body_candidate_capacity >= 1 and shape_grid_capacity >= 1; got " +
            std::to_string(m.body_candidate_capacity) + " and " + std::to_string(m.shape_grid_capacity) +
            " (turn it off with body_broad_phase = false instead)");
    using namespace args;
    // The grid is scratch of this build alone: its launches are not recorded (a Tape needs only the
    // lists, which the contact kernels read), so it is reused from call to call even under a Tape.
    runtime::ScopedRecorder quiet(nullptr);
    const int64_t nb = m.shape_grid_buckets, cap = m.shape_grid_capacity, k = m.body_candidate_capacity;
    bucket_count_ = int_array(bucket_count_, nb, m, false);
    bucket_shapes_ = int_array(bucket_shapes_, nb * cap, m, false);
    count_ = int_array(count_, m.body_count, m, fresh);
    list_ = int_array(list_, int64_t(m.body_count) * k, m, fresh);
    runtime::LaunchOptions o;
    o.device = m.device;
    static const runtime::Kernel grid = solver_kernel("broad_phase", "build_shape_grid");
    static const runtime::Kernel find = solver_kernel("broad_phase", "find_body_candidates");
    // Cells hold any two gridded shapes that may touch within one cell of each other (the rounding
    // of the centres is the kernel's slack).
    const double cell = (double(m.shape_grid_cell) + double(margin)) * 1.01;
    bucket_count_.zero();
    runtime::launch(grid, {m.shape_count},
                    {{"body_q", a(body_q)},
                     {"shape_body", a(m.shape_body)},
                     {"shape_transform", a(m.shape_transform)},
                     {"shape_large", a(m.shape_large)},
                     {"shape_world", a(m.shape_world)},
                     {"inv_cell_size", f(1.0 / cell)},
                     {"nbucket", i(int(nb))},
                     {"capacity", i(int(cap))},
                     {"bucket_count", a(bucket_count_)},
                     {"bucket_shapes", a(bucket_shapes_)}},
                    o);
    runtime::launch(find, {m.body_count},
                    {{"body_q", a(body_q)},
                     {"body_world", a(m.body_world)},
                     {"body_shape_start", a(m.body_shape_start)},
                     {"body_shape_list", a(m.body_shape_list)},
                     {"shape_body", a(m.shape_body)},
                     {"shape_transform", a(m.shape_transform)},
                     {"shape_bound", a(m.shape_bound)},
                     {"shape_materials", a(m.shape_materials)},
                     {"shape_large", a(m.shape_large)},
                     {"shape_world", a(m.shape_world)},
                     {"shape_world_pos", a(m.shape_world_pos)},
                     {"world_shape_start", a(m.world_shape_start)},
                     {"world_large_start", a(m.world_large_start)},
                     {"world_large_list", a(m.world_large_list)},
                     {"num_worlds", i(m.num_worlds)},
                     {"margin", f(margin)},
                     {"inv_cell_size", f(1.0 / cell)},
                     {"nbucket", i(int(nb))},
                     {"bucket_capacity", i(int(cap))},
                     {"bucket_count", a(bucket_count_)},
                     {"bucket_shapes", a(bucket_shapes_)},
                     {"capacity", i(int(k))},
                     {"candidate_count", a(count_)},
                     {"candidate_list", a(list_)}},
                    o);
}

void BodyCandidates::add_args(runtime::NamedArgs& named, const Model& m) const {
    using namespace args;
    const bool on = count_.valid();
    named.add("broad_phase", i(on ? 1 : 0))
        .add("body_candidate_count", a(on ? count_ : m.body_world))
        .add("body_candidate_list", a(on ? list_ : m.body_world))
        .add("candidate_capacity", i(on ? m.body_candidate_capacity : 0));
}

std::vector<Array> BodyCandidates::written() const {
    if (!count_.valid()) return {};
    return {count_, list_};
}

}  // namespace weft::engine
