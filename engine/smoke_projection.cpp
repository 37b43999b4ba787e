// engine/smoke_projection.cpp: the launch sequences of smoke_projection.h. Every launch here is
// kept off the Tape (record_tape = false) and every scratch array is zeroed unrecorded: the Tape
// sees one entry per projection, whose backward is the projection of the gradients.
#include "engine/smoke_projection.h"

#include <cmath>
#include <map>
#include <mutex>

#include "engine/launch_args.h"
#include "engine/model.h"
#include "engine/solver_kernels.h"
#include "runtime/errors.h"
#include "runtime/recorder.h"
#include "tape/tape.h"

namespace weft::engine {

using namespace args;

namespace {

constexpr int kPreSweeps = 2, kPostSweeps = 2, kCoarseSweeps = 30;
constexpr double kJacobiWeight = 2.0 / 3.0;
// slots of Work::sums
enum Slot { Slot_Rz0 = 0, Slot_Rz1 = 1, Slot_PAp = 2, Slot_RR = 3, Slot_Mean = 4, Slot_Any = 5, kSlots = 8 };

const runtime::Kernel& K(const char* name) {
    static std::map<std::string, runtime::Kernel> cache;
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(name);
    if (it == cache.end()) it = cache.emplace(name, solver_kernel("smoke", name)).first;
    return it->second;
}

}  // namespace

struct SmokeProjection::Work {
    runtime::Device device;
    runtime::LaunchOptions o;
    struct Level {
        Array x, b, r, tmp;
    };
    std::vector<Level> lv;
    Array cg_x, cg_r, cg_p, cg_z, cg_ap, ones, partial, sums;
    Array gu, gv, gw;  // backward: the projected gradients
    int nchunk = 1;
    int64_t cells = 0;

    void ensure(const SmokeGrid& g) {
        if (!lv.empty() && cells == g.cells() && device == g.solid.device() && lv.size() == g.levels.size()) return;
        device = g.solid.device();
        o = runtime::LaunchOptions{};
        o.device = device;
        o.record_tape = false;
        cells = g.cells();
        auto f32 = compiler::float32_type();
        lv.clear();
        for (const SmokeLevel& l : g.levels) {
            int64_t n = int64_t(l.nx) * l.ny * l.nz;
            lv.push_back({Array::zeros(f32, {n}, device), Array::zeros(f32, {n}, device), Array::zeros(f32, {n}, device),
                          Array::zeros(f32, {n}, device)});
        }
        for (Array* a : {&cg_x, &cg_r, &cg_p, &cg_z, &cg_ap}) *a = Array::zeros(f32, {cells}, device);
        float one = 1.0f;
        ones = Array::full(f32, {cells}, &one, device);
        nchunk = int(std::min<int64_t>(1024, cells));
        partial = Array::zeros(compiler::float64_type(), {nchunk}, device);
        sums = Array::zeros(compiler::float64_type(), {kSlots}, device);
    }

    void launch(const char* k, std::vector<int64_t> dim, runtime::NamedArgs a) { runtime::launch(K(k), dim, std::move(a), o); }
    std::vector<int64_t> dims(const SmokeLevel& l) const { return {l.nx, l.ny, l.nz}; }

    // sums[slot] = a . b (on the device)
    void dot(const Array& a, const Array& b, int slot) {
        launch("dot_partial", {nchunk},
               {{"a", args::a(a)}, {"b", args::a(b)}, {"n", i(cells)}, {"nchunk", i(nchunk)}, {"partial", args::a(partial)}});
        launch("sum_partials", {1},
               {{"partial", args::a(partial)}, {"nchunk", i(nchunk)}, {"out", args::a(sums)}, {"slot", i(slot)}});
    }
    double read(int slot) {
        double host[kSlots];
        sums.copy_to_host(host, sizeof(host));
        return host[slot];
    }

    void jacobi_sweeps(const SmokeGrid& g, int l, const Array& b, int count) {
        const SmokeLevel& L = g.levels[size_t(l)];
        for (int s = 0; s < count; ++s) {
            launch("jacobi", dims(L),
                   {{"x", a(lv[size_t(l)].x)},
                    {"b", a(b)},
                    {"solid", a(L.solid)},
                    {"nx", i(L.nx)},
                    {"ny", i(L.ny)},
                    {"nz", i(L.nz)},
                    {"omega", f(kJacobiWeight)},
                    {"x_out", a(lv[size_t(l)].tmp)}});
            std::swap(lv[size_t(l)].x, lv[size_t(l)].tmp);
        }
    }

    // lv[l].x = V-cycle applied to b (zero initial guess)
    void vcycle(const SmokeGrid& g, int l, const Array& b) {
        const SmokeLevel& L = g.levels[size_t(l)];
        lv[size_t(l)].x.zero_unrecorded();
        if (size_t(l) + 1 == g.levels.size()) {
            jacobi_sweeps(g, l, b, kCoarseSweeps);
            return;
        }
        jacobi_sweeps(g, l, b, kPreSweeps);
        launch("residual", dims(L),
               {{"x", a(lv[size_t(l)].x)},
                {"b", a(b)},
                {"solid", a(L.solid)},
                {"nx", i(L.nx)},
                {"ny", i(L.ny)},
                {"nz", i(L.nz)},
                {"r", a(lv[size_t(l)].r)}});
        const SmokeLevel& C = g.levels[size_t(l) + 1];
        int coarsened = (C.nx < L.nx) + (C.ny < L.ny) + (C.nz < L.nz);
        double scale = 1.0 / double(1 << std::max(coarsened - 1, 0));
        launch("restrict_sum", dims(C),
               {{"r", a(lv[size_t(l)].r)},
                {"nx", i(L.nx)},
                {"ny", i(L.ny)},
                {"nz", i(L.nz)},
                {"csolid", a(C.solid)},
                {"cnx", i(C.nx)},
                {"cny", i(C.ny)},
                {"cnz", i(C.nz)},
                {"scale", f(scale)},
                {"b", a(lv[size_t(l) + 1].b)}});
        vcycle(g, l + 1, lv[size_t(l) + 1].b);
        launch("prolong_add", dims(L),
               {{"x", a(lv[size_t(l)].x)},
                {"xc", a(lv[size_t(l) + 1].x)},
                {"solid", a(L.solid)},
                {"nx", i(L.nx)},
                {"ny", i(L.ny)},
                {"nz", i(L.nz)},
                {"cnx", i(C.nx)},
                {"cny", i(C.ny)},
                {"x_out", a(lv[size_t(l)].tmp)}});
        std::swap(lv[size_t(l)].x, lv[size_t(l)].tmp);
        jacobi_sweeps(g, l, b, kPostSweeps);
    }

    void remove_mean(const SmokeGrid& g, const Array& x) {
        dot(x, ones, Slot_Mean);
        launch("remove_mean", {cells},
               {{"x", a(x)},
                {"solid", a(g.solid)},
                {"sums", a(sums)},
                {"slot", i(Slot_Mean)},
                {"count", f(double(g.levels[0].fluid))}});
    }

    void divergence(const SmokeGrid& g, const Array& u, const Array& v, const Array& w, const Array& b) {
        launch("divergence_rhs", dims(g.levels[0]),
               {{"u", a(u)},
                {"v", a(v)},
                {"w", a(w)},
                {"solid", a(g.solid)},
                {"nx", i(g.nx)},
                {"ny", i(g.ny)},
                {"nz", i(g.nz)},
                {"b", a(b)}});
    }

    // psi (returned array) solving L psi = b (lv[0].b)
    Array solve(const SmokeGrid& g, SmokeSolver solver, int iterations, SmokeSolveStats& st) {
        const SmokeLevel& L = g.levels[0];
        Array& b = lv[0].b;
        dot(b, b, Slot_Any);
        const double bb = read(Slot_Any);
        st.divergence_in = std::sqrt(bb) / g.h;
        if (bb == 0.0) {
            cg_x.zero_unrecorded();
            return cg_x;
        }
        remove_mean(g, b);
        if (solver != SmokeSolver_MGPCG) {
            cg_x.zero_unrecorded();
            if (solver == SmokeSolver_Jacobi) {
                lv[0].x.zero_unrecorded();
                jacobi_sweeps(g, 0, b, iterations);
                cg_x.assign_unrecorded(lv[0].x);
            } else {
                for (int s = 0; s < iterations; ++s)
                    for (int color = 0; color < 2; ++color)
                        launch("gauss_seidel", dims(L),
                               {{"x", a(cg_x)},
                                {"b", a(b)},
                                {"solid", a(L.solid)},
                                {"nx", i(L.nx)},
                                {"ny", i(L.ny)},
                                {"nz", i(L.nz)},
                                {"color", i(color)}});
            }
            st.iterations = iterations;
            launch("residual", dims(L),
                   {{"x", a(cg_x)},
                    {"b", a(b)},
                    {"solid", a(L.solid)},
                    {"nx", i(L.nx)},
                    {"ny", i(L.ny)},
                    {"nz", i(L.nz)},
                    {"r", a(cg_r)}});
            dot(cg_r, cg_r, Slot_RR);
            st.residual = std::sqrt(read(Slot_RR) / bb);
            return cg_x;
        }
        // preconditioned conjugate gradients
        cg_x.zero_unrecorded();
        cg_r.assign_unrecorded(b);
        vcycle(g, 0, cg_r);
        cg_z.assign_unrecorded(lv[0].x);
        remove_mean(g, cg_z);
        cg_p.assign_unrecorded(cg_z);
        int rz = Slot_Rz0;
        dot(cg_r, cg_z, rz);
        const double tol2 = double(g.tolerance) * double(g.tolerance) * bb;
        double rr = bb;
        int it = 0;
        while (it < iterations) {
            launch("laplacian", dims(L),
                   {{"x", a(cg_p)}, {"solid", a(L.solid)}, {"nx", i(L.nx)}, {"ny", i(L.ny)}, {"nz", i(L.nz)}, {"y", a(cg_ap)}});
            dot(cg_p, cg_ap, Slot_PAp);
            launch("cg_update", {cells},
                   {{"x", a(cg_x)},
                    {"r", a(cg_r)},
                    {"p", a(cg_p)},
                    {"ap", a(cg_ap)},
                    {"sums", a(sums)},
                    {"rz_slot", i(rz)},
                    {"pap_slot", i(Slot_PAp)}});
            ++it;
            dot(cg_r, cg_r, Slot_RR);
            rr = read(Slot_RR);
            if (!(rr > tol2)) break;  // also stops on NaN
            vcycle(g, 0, cg_r);
            cg_z.assign_unrecorded(lv[0].x);
            remove_mean(g, cg_z);
            int rz_new = rz == Slot_Rz0 ? Slot_Rz1 : Slot_Rz0;
            dot(cg_r, cg_z, rz_new);
            launch("cg_direction", {cells},
                   {{"p", a(cg_p)}, {"z", a(cg_z)}, {"sums", a(sums)}, {"rz_new", i(rz_new)}, {"rz_old", i(rz)}});
            rz = rz_new;
        }
        st.iterations = it;
        st.residual = std::sqrt(rr / bb);
        return cg_x;
    }

    // out = P(in) for the three face fields
    SmokeSolveStats apply(const SmokeGrid& g, SmokeSolver solver, int iterations, const Array& u, const Array& v, const Array& w,
                          const Array& uo, const Array& vo, const Array& wo) {
        SmokeSolveStats st;
        divergence(g, u, v, w, lv[0].b);
        Array psi = solve(g, solver, iterations, st);
        const Array* in[3] = {&u, &v, &w};
        const Array* out[3] = {&uo, &vo, &wo};
        for (int axis = 0; axis < 3; ++axis) {
            int sx = g.nx + (axis == 0), sy = g.ny + (axis == 1);
            launch("subtract_gradient", {in[axis]->size()},
                   {{"q", a(*in[axis])},
                    {"sx", i(sx)},
                    {"sy", i(sy)},
                    {"axis", i(axis)},
                    {"psi", a(psi)},
                    {"solid", a(g.solid)},
                    {"nx", i(g.nx)},
                    {"ny", i(g.ny)},
                    {"nz", i(g.nz)},
                    {"q_out", a(*out[axis])}});
        }
        divergence(g, uo, vo, wo, lv[0].r);
        dot(lv[0].r, lv[0].r, Slot_Any);
        st.divergence_out = std::sqrt(read(Slot_Any)) / g.h;
        return st;
    }
};

namespace {

void check_field(const Array& a, int64_t size, const SmokeGrid& g, const char* name) {
    if (!a.valid() || a.size() != size || compiler::type_name(a.dtype()) != "float32" || !(a.device() == g.solid.device()))
        throw runtime::RuntimeError(std::string("smoke projection: ") + name + " is " + (a.valid() ? a.describe() : "empty") +
                                    "; the grid needs array(float32, shape=(" + std::to_string(size) +
                                    ",), device=" + g.solid.device().str() + ")");
}

}  // namespace

SmokeSolveStats SmokeProjection::project(const SmokeGrid& g, const Array& u, const Array& v, const Array& w, const Array& uo,
                                         const Array& vo, const Array& wo) {
    return project(g, g.solver, g.iterations, u, v, w, uo, vo, wo);
}

SmokeSolveStats SmokeProjection::project(const SmokeGrid& g, SmokeSolver solver, int iterations, const Array& u, const Array& v,
                                         const Array& w, const Array& uo, const Array& vo, const Array& wo) {
    if (!g.valid()) throw runtime::RuntimeError("smoke projection: the model has no smoke grid");
    check_field(u, g.u_size(), g, "u");
    check_field(v, g.v_size(), g, "v");
    check_field(w, g.w_size(), g, "w");
    check_field(uo, g.u_size(), g, "u_out");
    check_field(vo, g.v_size(), g, "v_out");
    check_field(wo, g.w_size(), g, "w_out");
    if (!work_) work_ = std::make_shared<Work>();
    work_->ensure(g);
    SmokeSolveStats st = work_->apply(g, solver, iterations, u, v, w, uo, vo, wo);

    auto* tape = dynamic_cast<tape::Tape*>(runtime::active_recorder());
    if (!tape) return st;
    // The adjoint: grad(in) += P grad(out), P symmetric (smoke_projection.h).
    std::vector<tape::Access> acc = {{u, "smoke u", true, false},      {v, "smoke v", true, false},
                                     {w, "smoke w", true, false},      {uo, "projected u", false, true},
                                     {vo, "projected v", false, true}, {wo, "projected w", false, true}};
    tape->record_func(
        "smoke projection",
        [work = work_, g, solver, iterations, u, v, w, uo, vo, wo]() {
            const Array* in[3] = {&u, &v, &w};
            const Array* out[3] = {&uo, &vo, &wo};
            bool any = false;
            for (int k = 0; k < 3; ++k) any = any || (in[k]->grad() && out[k]->grad());
            if (!any) return;
            work->ensure(g);
            Array gin[3], gout[3];
            for (int k = 0; k < 3; ++k) {
                gin[k] =
                    out[k]->grad() ? *out[k]->grad() : Array::zeros(compiler::float32_type(), {out[k]->size()}, g.solid.device());
                gout[k] = Array::zeros(compiler::float32_type(), {out[k]->size()}, g.solid.device());
            }
            work->apply(g, solver, iterations, gin[0], gin[1], gin[2], gout[0], gout[1], gout[2]);
            for (int k = 0; k < 3; ++k)
                if (in[k]->grad()) tape::accumulate(*in[k]->grad(), gout[k]);
        },
        std::move(acc));
    return st;
}

double SmokeProjection::divergence_norm(const SmokeGrid& g, const Array& u, const Array& v, const Array& w) {
    if (!g.valid()) throw runtime::RuntimeError("smoke projection: the model has no smoke grid");
    if (!work_) work_ = std::make_shared<Work>();
    work_->ensure(g);
    work_->divergence(g, u, v, w, work_->lv[0].r);
    work_->dot(work_->lv[0].r, work_->lv[0].r, Slot_Any);
    return std::sqrt(work_->read(Slot_Any)) / g.h;
}

}  // namespace weft::engine
