// engine/integrator.h: the step contract every solver family of the engine implements.
//
// [SECTION] IntegratorInfo  what the engine knows of a family without running it
// [SECTION] Integrator      simulate(model, state_in, state_out, dt, control), as Warp's integrators
//
//   std::unique_ptr<Integrator> it = create_integrator("xpbd", options);   // engine/integrator_registry.h
//   it->simulate(model, s0, s1, dt, nullptr);                               // s0 is not modified
//   it->info().kernels;                                                     // for cold start and audits
//   it->renderables(model);                                                 // for the viewer
//
//            scene file / weft run / Python / benchmarks
//                              |  by name
//                              v
//          integrator registry (engine/integrators.def: one line each)
//                              |
//           +------------------+------------------+
//           v                                     v
//   SemiImplicitIntegrator                  XPBDIntegrator           ... (rigid bodies, voxels)
//   engine/semi_implicit.cpp                engine/xpbd.cpp
//           |  NamedArgs launches                 |
//           v                                     v
//   kernels/particles.py, contact.py, ...   kernels/xpbd.py, ...
//
// A step reads state_in and writes state_out; it never writes state_in (a recorded rollout keeps
// one State per step, and a caller may read or reuse state_in afterwards). What an integrator
// needs between steps that is not part of the physics state (force slots, predicted positions)
// is its own scratch. The info is static: the same for every model and every options value;
// what depends on the model (which arrays exist, how many triangles) comes from renderables().
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/integrator_options.h"
#include "engine/model.h"
#include "engine/renderable.h"

namespace weft::engine {

// [SECTION] IntegratorInfo

// A kernel of kernels/*.py: its module group (engine/solver_kernels.h) and name.
struct KernelRef {
    std::string group;  // "contact", "xpbd", ...
    std::string name;   // "eval_particle_terms"
    bool operator==(const KernelRef& o) const { return group == o.group && name == o.name; }
};

// What a step can be turned into (ImGui-style flags).
enum IntegratorCaps : uint32_t {
    IntegratorCaps_None = 0,
    // For a model without requires_grad, a step queues only launches (and memsets) on arrays that
    // outlive it, the same every step: a frame of substeps can be captured once and replayed as
    // one graph (runtime::Replay, FrameStepper), fusing its launches into one driver call.
    IntegratorCaps_GraphCapture = 1u << 0,
    // Under a Tape, a step is recorded and Tape::backward runs its adjoint (gradients of
    // state_in, the model's differentiable arrays and the control from those of state_out).
    IntegratorCaps_Differentiable = 1u << 1,
    // Forces are integrated explicitly: a stiffness or damping past the explicit stability limit
    // (engine/stability.h) diverges; the scene loader warns and `weft gradcheck` names it.
    IntegratorCaps_Explicit = 1u << 2,
};

struct IntegratorInfo {
    std::string name;                       // registry key and scene `solver = "..."`: "semi_implicit"
    std::string summary;                    // one line, for `weft run --help`-style listings and docs
    std::vector<KernelRef> kernels;         // every kernel a step may launch (a superset for any one model)
    uint32_t caps = IntegratorCaps_None;    // IntegratorCaps
    std::vector<std::string> state_reads;   // State arrays read from state_in ("particle_q", ...)
    std::vector<std::string> state_writes;  // State arrays written in state_out; the others keep their contents
    std::vector<OptionSpec> options;        // the options it accepts (engine/integrator_options.h)

    bool can(IntegratorCaps c) const { return (caps & c) == c; }
};

// [SECTION] Integrator

class Integrator {
public:
    virtual ~Integrator() = default;

    virtual const IntegratorInfo& info() const = 0;

    // Advances state_in by dt (seconds) into state_out; state_in is only read. `control` may be
    // null (no external input). Throws runtime::RuntimeError for states of another model or dt <= 0.
    virtual void simulate(const Model& model, const State& state_in, State& state_out, float dt,
                          const Control* control = nullptr) = 0;

    // What a viewer draws of a state of `model` stepped by this integrator.
    virtual std::vector<Renderable> renderables(const Model& model) const = 0;

    const std::string& name() const { return info().name; }
};

// Throws runtime::RuntimeError unless the two states have `model`'s particle count, dt > 0, and
// every State (and Control) array a step uses has the shape, element type and device the model
// gives it, naming the array and both shapes (the checks every particle integrator starts with).
void check_step(const Model& model, const State& state_in, const State& state_out, float dt, const Control* control = nullptr);

// Named arrays an integrator uses inside a step. Without model.requires_grad each name keeps its
// array from step to step (made again when the size, element type or device changes; allocated
// outside any graph capture, runtime/capture_check.h, so a captured step reuses it); with it every
// call gives a fresh zeroed array with a gradient, which the Tape keeps for the step's replay.
class ScratchArrays {
public:
    runtime::Array get(const Model& model, const std::string& name, const compiler::Type& type, int64_t size);
    // The same with a shape (every extent at least 1).
    runtime::Array get(const Model& model, const std::string& name, const compiler::Type& type, std::vector<int64_t> shape);

private:
    std::map<std::string, runtime::Array> arrays_;
};

// Cold start: compiles every kernel `info` lists and makes it ready on `device` (through the disk
// cache), so that no step compiles, whatever parts a model has (a viewer switching models, a
// benchmark that times its first step). Without it a step compiles only the modules it launches.
// With `backward`, also their backward code, which cuda and sim otherwise compile at the first
// backward launch (runtime/module.h): a Tape's backward pass then compiles nothing either, and can
// be captured into a graph. Throws what solver_kernel() throws.
void load_kernels(const IntegratorInfo& info, const runtime::Device& device, bool backward = false);

}  // namespace weft::engine
