// `weft gradcheck SCENE.toml --loss EXPR --wrt PARAM[,PARAM...]`: gradient regression testing of a
// scene (docs/gradient-testing.md). The rollout runs under the Tape (checkpointed when long), the
// loss's gradient with respect to each parameter is compared with central finite differences of
// the forward rollout (tape/gradient_check.h), and optionally with a golden .npz.
//
//   weft gradcheck scenes/spring_chain.toml --loss "mean(particle_q.y)" --wrt spring.ke,particle_qd[3]
//       [--steps N] [--device cpu|cuda|sim:ARCH] [--golden FILE.npz [--update]] [--fd-eps E] [--rtol R]
//       [--atol A] [--golden-rtol R] [--samples N] [--report text|json]
//
// Before any number is trusted it looks for the usual causes of a bad gradient: an explicit step
// past its stability limit (engine/stability.h), non-finite values forward (step and kernel) or
// backward (step), finite differences that change with eps (tried at eps and eps/2).
// Exit codes: 0 pass, 1 a gradient disagrees, moved from its golden, or is bad for a reason
// found, 2 usage (options, scene file, loss expression, parameter names, missing golden).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>

#include "apps/cli.h"
#include "apps/npz.h"
#include "engine/gradient_param.h"
#include "engine/integrator_registry.h"
#include "engine/rollout_gradient.h"
#include "engine/scene.h"
#include "engine/stability.h"
#include "runtime/errors.h"
#include "support/json.h"
#include "tape/gradient_check.h"

namespace weft::apps {

namespace {

const char* kUsage =
    "usage: weft gradcheck SCENE.toml --loss EXPR --wrt PARAM[,PARAM...] [--steps N] [--device cpu|cuda|sim:ARCH]\n"
    "                      [--golden FILE.npz [--update]] [--fd-eps E] [--rtol R] [--atol A] [--golden-rtol R]\n"
    "                      [--samples N] [--report text|json]\n"
    "Differentiates a loss of the scene's final state (for example 'mean(particle_q.y)') with respect to\n"
    "Model or initial-State parameters (array names or scene keys: spring_stiffness, particle_qd[0], cloth.tri_ke)\n"
    "through the Tape and compares with central finite differences and, with --golden, stored gradients.\n"
    "--steps defaults to one frame (the scene's substeps). Exit codes: 0 pass, 1 mismatch, 2 usage.\n"
    "docs/gradient-testing.md describes the loss expressions, parameters, goldens and reports.\n";

double number_option(const Args& a, const std::string& name, double dflt, bool positive) {
    auto v = a.get(name);
    if (!v) return dflt;
    try {
        size_t used = 0;
        double d = std::stod(*v, &used);
        if (used != v->size() || !std::isfinite(d) || (positive ? !(d > 0) : d < 0)) throw std::invalid_argument("");
        return d;
    } catch (const std::exception&) {
        throw UsageError("--" + name + " expects a " + (positive ? "positive" : "non-negative") + " number, got '" + *v + "'");
    }
}
int int_option(const Args& a, const std::string& name, int dflt, int lo, int hi) {
    auto v = a.get(name);
    if (!v) return dflt;
    try {
        size_t used = 0;
        long long d = std::stoll(*v, &used);
        if (used != v->size() || d < lo || d > hi) throw std::invalid_argument("");
        return int(d);
    } catch (const std::exception&) {
        throw UsageError("--" + name + " expects an integer from " + std::to_string(lo) + " to " + std::to_string(hi) +
                         ", got '" + *v + "'");
    }
}

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        size_t c = s.find(',', start);
        std::string part = s.substr(start, c == std::string::npos ? std::string::npos : c - start);
        if (part.empty()) throw UsageError("--wrt has an empty parameter name in '" + s + "'");
        out.push_back(part);
        if (c == std::string::npos) return out;
        start = c + 1;
    }
}

NpyArray npy_f64(const std::vector<double>& v, bool scalar) {
    NpyArray a;
    a.descr = "<f8";
    if (!scalar) a.shape = {int64_t(v.size())};
    a.data.resize(v.size() * sizeof(double));
    std::memcpy(a.data.data(), v.data(), a.data.size());
    return a;
}
std::vector<double> f64_values(const NpyArray& a, const std::string& file, const std::string& name) {
    if (a.descr != "<f8" || a.shape.size() > 1)
        throw std::runtime_error(file + ": member '" + name +
                                 "' must be a float64 scalar or vector (a golden gradient file), got " + a.descr);
    std::vector<double> v(a.data.size() / sizeof(double));
    std::memcpy(v.data(), a.data.data(), v.size() * sizeof(double));
    return v;
}

tape::GradientValues read_golden(const std::string& path) {
    tape::GradientValues g;
    g.has_loss = false;
    for (const auto& [name, arr] : read_npz(path)) {
        std::vector<double> v = f64_values(arr, path, name);
        if (name == "loss") {
            if (v.size() != 1) throw std::runtime_error(path + ": member 'loss' must hold one value");
            g.loss = v[0];
            g.has_loss = true;
        } else {
            g.gradients[name].values = v;
        }
    }
    return g;
}

void write_golden(const std::string& path, const tape::GradientValues& g) {
    std::map<std::string, NpyArray> arrays;
    arrays["loss"] = npy_f64({g.loss}, true);
    for (const auto& [name, gr] : g.gradients) arrays[name] = npy_f64(gr.values, false);
    write_npz(path, arrays);  // PATH.tmp, then renamed
}

std::string num(double v) {
    char b[32];
    snprintf(b, sizeof b, "%.6g", v);
    return b;
}

void json_number(std::ostream& os, double v) {
    if (std::isfinite(v)) {
        char b[32];
        snprintf(b, sizeof b, "%.17g", v);
        os << b;
    } else {
        os << "null";
    }
}

struct Report {
    std::string scene, loss_text, device;
    int steps = 0;
    double dt = 0;
    bool checkpointed = false;
    int segment = 0;
    std::vector<std::string> causes;  // bad-gradient causes found
    bool ran = false;                 // the rollout and its gradient ran
    bool checked = false;
    tape::GradientCheckResult check;
    std::string golden_file;
    bool golden_compared = false, golden_updated = false;
    tape::GoldenComparison golden;
    std::string golden_changes;
    bool passed = false;
};

void write_json(const Report& r) {
    std::ostringstream os;
    auto str = [&](const std::string& s) { support::write_json_string(os, s); };
    os << "{\"scene\": ";
    str(r.scene);
    os << ", \"loss_expr\": ";
    str(r.loss_text);
    os << ", \"loss\": ";
    if (r.ran)
        json_number(os, r.check.loss);
    else
        os << "null";
    os << ", \"steps\": " << r.steps << ", \"dt\": ";
    json_number(os, r.dt);
    os << ", \"device\": ";
    str(r.device);
    os << ", \"checkpointed\": " << (r.checkpointed ? "true" : "false") << ", \"passed\": " << (r.passed ? "true" : "false")
       << ", \"causes\": [";
    for (size_t i = 0; i < r.causes.size(); ++i) {
        if (i) os << ", ";
        str(r.causes[i]);
    }
    os << "], \"params\": [";
    for (size_t i = 0; i < r.check.params.size(); ++i) {
        const auto& p = r.check.params[i];
        os << (i ? ", " : "") << "{\"name\": ";
        str(p.name);
        os << ", \"entries_total\": " << p.total << ", \"passed\": " << (p.passed ? "true" : "false") << ", \"max_rel_error\": ";
        json_number(os, p.max_rel_error);
        os << ", \"entries\": [";
        for (size_t k = 0; k < p.entries.size(); ++k) {
            const auto& e = p.entries[k];
            os << (k ? ", " : "") << "{\"label\": ";
            str(e.label);
            for (auto [key, v] : {std::pair{"value", e.value},
                                  {"eps", e.eps},
                                  {"adjoint", e.adjoint},
                                  {"fd", e.fd},
                                  {"fd_half_eps", e.fd_half},
                                  {"atol", e.atol},
                                  {"rel_error", e.rel_error}}) {
                os << ", \"" << key << "\": ";
                json_number(os, v);
            }
            os << ", \"passed\": " << (e.passed ? "true" : "false") << ", \"fd_smooth\": " << (e.smooth ? "true" : "false")
               << "}";
        }
        os << "]}";
    }
    os << "]";
    if (!r.golden_file.empty()) {
        os << ", \"golden\": {\"file\": ";
        str(r.golden_file);
        os << ", \"compared\": " << (r.golden_compared ? "true" : "false")
           << ", \"passed\": " << (r.golden.passed ? "true" : "false")
           << ", \"updated\": " << (r.golden_updated ? "true" : "false") << ", \"problems\": [";
        for (size_t i = 0; i < r.golden.problems.size(); ++i) {
            if (i) os << ", ";
            str(r.golden.problems[i]);
        }
        os << "], \"moved\": [";
        for (size_t i = 0; i < r.golden.moved.size(); ++i) {
            const auto& m = r.golden.moved[i];
            os << (i ? ", " : "") << "{\"param\": ";
            str(m.param);
            os << ", \"label\": ";
            str(m.label);
            os << ", \"golden\": ";
            json_number(os, m.golden);
            os << ", \"now\": ";
            json_number(os, m.now);
            os << "}";
        }
        os << "], \"changes\": ";
        str(r.golden_changes);
        os << "}";
    }
    os << "}\n";
    fputs(os.str().c_str(), stdout);
}

}  // namespace

int cmd_gradcheck(const std::vector<std::string>& argv) {
    for (const auto& a : argv)
        if (a == "--help" || a == "-h") {
            fputs(kUsage, stdout);
            return 0;
        }
    Args args(argv, {"loss", "wrt", "steps", "device", "golden", "fd-eps", "rtol", "atol", "golden-rtol", "samples", "report"},
              {"update"});
    if (args.positional().size() != 1)
        throw UsageError("expected one scene file, got " + std::to_string(args.positional().size()));
    auto loss_text = args.get("loss");
    if (!loss_text) throw UsageError("--loss is required, for example --loss 'mean(particle_q.y)'");
    auto wrt = args.get("wrt");
    if (!wrt) throw UsageError("--wrt is required, for example --wrt spring_stiffness,particle_qd[0]");
    const std::string report = args.get_or("report", "text");
    if (report != "text" && report != "json") throw UsageError("--report must be 'text' or 'json', got '" + report + "'");
    const bool json = report == "json";
    tape::GradientCheckOptions opt;
    opt.eps = number_option(args, "fd-eps", opt.eps, true);
    opt.rtol = number_option(args, "rtol", opt.rtol, true);
    opt.atol = number_option(args, "atol", opt.atol, false);
    opt.max_entries = int_option(args, "samples", opt.max_entries, 1, 1000000);
    const double golden_rtol = number_option(args, "golden-rtol", 1e-4, true);
    const auto golden_path = args.get("golden");
    const bool update = args.flag("update");
    if (update && !golden_path) throw UsageError("--update needs --golden FILE.npz (the file to write)");
    std::vector<std::string> specs = split_commas(*wrt);

    engine::Scene scene;
    try {
        scene = engine::load_scene(args.positional()[0]);
    } catch (const engine::SceneError& e) {
        fprintf(stderr, "%s\n", e.what());
        return 2;
    }
    if (auto d = args.get("device")) scene.device = *d;
    try {
        runtime::parse_device(scene.device);
    } catch (const runtime::RuntimeError& e) { throw UsageError(e.what()); }
    const int steps = int_option(args, "steps", scene.substeps, 1, 10000000);
    engine::LossExpr loss;
    try {
        loss = engine::LossExpr::parse(*loss_text, "--loss");
    } catch (const engine::LossError& e) {
        fprintf(stderr, "%s", e.what());
        return 2;
    }
    tape::GradientValues golden;
    bool have_golden = false;
    if (golden_path && std::filesystem::exists(*golden_path)) {
        try {
            golden = read_golden(*golden_path);
        } catch (const std::runtime_error& e) {
            throw UsageError(std::string(e.what()) + " (a golden file is written by --update)");
        }
        have_golden = true;
    } else if (golden_path && !update) {
        throw UsageError("golden file '" + *golden_path + "' does not exist; run once with --update to create it");
    }

    std::unique_ptr<engine::Integrator> integrator = engine::create_integrator(scene.solver, scene.solver_options);
    if (!integrator->info().can(engine::IntegratorCaps_Differentiable))
        throw UsageError("solver '" + scene.solver + "' is not differentiable (it has no adjoint under the Tape)");
    engine::Model model = scene.builder.finalize(scene.device, true);
    engine::State initial = model.state();
    std::vector<engine::GradientParam> params;
    for (const std::string& s : specs) {
        try {
            params.push_back(engine::resolve_gradient_param(s, model, initial));
        } catch (const engine::GradientParamError& e) { throw UsageError(e.what()); }
    }
    engine::Rollout roll;
    roll.model = &model;
    roll.integrator = integrator.get();
    roll.dt = scene.dt();
    roll.steps = steps;

    Report rep;
    rep.scene = args.positional()[0];
    rep.loss_text = *loss_text;
    rep.device = model.device.str();
    rep.steps = steps;
    rep.dt = roll.dt;
    rep.golden_file = golden_path.value_or("");
    try {
        // 1. the explicit scheme's stability limit
        if (integrator->info().can(engine::IntegratorCaps_Explicit))
            for (const auto& v : engine::explicit_stability_violations(model, roll.dt))
                rep.causes.push_back("the explicit step is past its stability limit: " + v.message() +
                                     "; raise substeps or lower the stiffness (docs/scene-format.md)");
        // 2. the rollout and its gradient
        if (rep.causes.empty()) {
            engine::RolloutGradient rg = engine::rollout_gradient(roll, initial, loss);
            rep.checkpointed = rg.checkpointed;
            rep.segment = rg.segment;
            rep.check.loss = rg.loss;
            opt.loss_scale = rg.loss_scale;
            rep.ran = true;
            if (!std::isfinite(rg.loss)) {
                std::string where = engine::diagnose_forward(roll, initial);
                rep.causes.push_back(where.empty() ? "the loss is not finite (" + std::to_string(rg.loss) +
                                                         ") although the rollout is: the loss expression divides by zero?"
                                                   : "non-finite values in the forward rollout: " + where);
            }
        }
        std::vector<tape::CheckedParam> checked;
        if (rep.causes.empty()) {
            bool finite = true;
            for (const auto& p : params) {
                std::vector<double> all = tape::read_scalars(*p.array.grad());
                tape::CheckedParam c;
                c.name = p.spec;
                c.array = p.array;
                c.scalars = p.scalars;
                c.labels = p.labels;
                for (int64_t s : p.scalars) {
                    c.adjoint.push_back(all[size_t(s)]);
                    finite &= std::isfinite(all[size_t(s)]);
                }
                checked.push_back(std::move(c));
            }
            if (!finite) {
                std::string where = engine::diagnose_backward(roll, initial, loss);
                rep.causes.push_back("non-finite gradients in the backward pass: " +
                                     (where.empty() ? std::string("(not reproduced step by step)") : where));
            }
        }
        // 3. adjoint against finite differences
        if (rep.causes.empty()) {
            auto forward = [&] { return engine::rollout_loss(roll, initial, loss); };
            rep.check = tape::check_gradients(forward, rep.check.loss, checked, opt);
            rep.checked = true;
            for (const auto& p : rep.check.params) {
                const tape::EntryCheck* first = nullptr;
                int rough = 0;
                for (const auto& e : p.entries)
                    if (!e.passed && !e.smooth) {
                        if (!first) first = &e;
                        ++rough;
                    }
                if (first)
                    rep.causes.push_back("finite differences of " + p.name + " are not smooth at eps (" + std::to_string(rough) +
                                         " of " + std::to_string(p.entries.size()) + " entries; " + first->label + ": fd " +
                                         num(first->fd) + " at eps " + num(first->eps) + ", " + num(first->fd_half) +
                                         " at eps/2): the adjoint is not judged; try another --fd-eps");
            }
        }
        // 4. goldens
        tape::GradientValues now;
        now.loss = rep.check.loss;
        for (const auto& c : checked) now.gradients[c.name] = {c.adjoint, c.labels};
        if (rep.checked && golden_path) {
            if (have_golden) {
                rep.golden = tape::compare_golden(now, golden, golden_rtol);
                rep.golden_compared = true;
            }
            if (update) {
                if (!rep.check.passed) {
                    rep.golden_changes = "not updated: the adjoint disagrees with finite differences";
                } else {
                    tape::GradientValues merged = have_golden ? golden : tape::GradientValues{};
                    merged.loss = now.loss;
                    merged.has_loss = true;
                    for (const auto& [k, v] : now.gradients) merged.gradients[k] = v;
                    rep.golden_changes = tape::describe_golden_update(have_golden ? &golden : nullptr, now, golden_rtol);
                    write_golden(*golden_path, merged);
                    rep.golden_updated = true;
                    rep.golden = {};  // the file now holds this run
                }
            }
        }
        rep.passed = rep.causes.empty() && rep.checked && rep.check.passed && rep.golden.passed;
    } catch (const engine::LossError& e) {
        fprintf(stderr, "%s", e.what());
        return 2;
    }

    if (json) {
        write_json(rep);
    } else {
        std::string value = rep.ran ? "= " + num(rep.check.loss) : std::string("(not run)");
        printf("gradcheck %s: loss %s %s, %d steps of %.4g s on %s (%s)\n", rep.scene.c_str(), rep.loss_text.c_str(),
               value.c_str(), steps, double(roll.dt), rep.device.c_str(),
               rep.checkpointed ? ("checkpointed, segments of " + std::to_string(rep.segment) + " steps").c_str() : "one tape");
        if (rep.checked) fputs(tape::format_gradient_check(rep.check).c_str(), stdout);
        for (const auto& c : rep.causes) printf("error: %s\n", c.c_str());
        if (rep.golden_compared && !rep.golden.passed) fputs(rep.golden.table.c_str(), stdout);
        if (rep.golden_compared && rep.golden.passed && !rep.golden_updated)
            printf("golden %s: loss and gradients match (rtol %g)\n", rep.golden_file.c_str(), golden_rtol);
        if (rep.golden_updated)
            printf("golden %s: %s\n%s", rep.golden_file.c_str(), have_golden ? "updated" : "created", rep.golden_changes.c_str());
        else if (update && rep.checked)
            printf("golden %s: %s\n", rep.golden_file.c_str(), rep.golden_changes.c_str());
        printf("%s\n", rep.passed ? "PASS" : "FAIL");
    }
    return rep.passed ? 0 : 1;
}

}  // namespace weft::apps
