// Module-level semantic analysis: the global names (imports, constants, structs, funcs and
// kernels), struct layouts, constant evaluation, and the order in which functions are lowered
// (callees before callers, found on demand, so that a func's inferred return type is known
// where it is called).
#include <algorithm>
#include <functional>
#include <string_view>

#include "compiler/sema/adjoint_accumulators.h"
#include "compiler/sema/sema_context.h"
#include "support/closest_name.h"

namespace weft::compiler {
namespace sema_detail {

bool is_weft_module_name(const std::string& m) { return m == "weft" || m == "warp"; }

Sema::Sema(const ast::Module& m, DiagnosticEngine& d, const SemaOptions& o) : ast_(m), diags_(d), opts_(o) {
    out_ = std::make_unique<ir::Module>();
    out_->name = o.module_key;
}

void Sema::error(DiagId id, SourceLoc loc, std::vector<std::string> args) { diags_.report(id, loc, std::move(args)); }
void Sema::note(DiagId id, SourceLoc loc, std::vector<std::string> args) { diags_.note(id, loc, std::move(args)); }
void Sema::suggest(const std::string& name, const std::vector<std::string>& candidates) {
    std::string near = support::closest_name(name, candidates);
    if (!near.empty()) note(DiagId::note_did_you_mean, {}, {near});
}

const Global* Sema::find_global(const std::string& name) const {
    auto it = globals_.find(name);
    return it == globals_.end() ? nullptr : &it->second;
}

namespace {

// The module a source file is: "kernels/geometry.py" -> "geometry", "pkg/__init__.py" -> "pkg".
std::string module_of_path(std::string_view path) {
    size_t slash = path.find_last_of("/\\");
    std::string_view dir = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
    std::string_view file = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (file.size() > 3 && file.substr(file.size() - 3) == ".py") file.remove_suffix(3);
    if (file == "__init__") return module_of_path(dir);
    return std::string(file);
}

// "tests.python.helpers_mod" -> "helpers_mod": Python's module name, matched against file names.
std::string last_component(const std::string& module) {
    size_t dot = module.rfind('.');
    return dot == std::string::npos ? module : module.substr(dot + 1);
}

// Chunks that Python synthesises ("<weft imports>", "<weft constants>") hold the imports and the
// constants of every module a kernel uses.
bool is_synthetic(const SourceFile* f) { return f && !f->path.empty() && f->path[0] == '<'; }

}  // namespace

const Global* Sema::module_member(const std::string& alias, const Global& module, const ast::Expr& attr) {
    // The sources of one compile share one namespace, so `geo.f` is the global `f`: looked up
    // among globals only, so that a local `f` of the caller cannot stand in for it. Where the
    // module's own file is among the sources (kernels/geometry.py for `import geometry as geo`),
    // `f` must also be defined in that file: the caller's own `f` is not `geo.f` either. Where it
    // is not (a module whose file the caller did not hand over), any global `f` is taken.
    std::string name = last_component(module.module);
    bool file_known =
        std::any_of(ast_.files.begin(), ast_.files.end(), [&](const auto& f) { return module_of_path(f->path) == name; });
    auto in_module = [&](const Global& g) {
        if (g.kind == Global::WeftModule || g.kind == Global::OtherModule) return false;
        if (!file_known || !g.loc.file || is_synthetic(g.loc.file)) return true;
        return module_of_path(g.loc.file->path) == name;
    };
    const Global* g = find_global(attr.id);
    if (g && in_module(*g)) return g;
    std::string what = "'" + module.module + "'" + (alias != module.module ? " (imported as '" + alias + "')" : "");
    error(DiagId::err_no_module_attribute, attr.loc, {what, attr.id});
    if (g && g->kind != Global::WeftModule && g->kind != Global::OtherModule)
        note(DiagId::note_defined_outside_module, g->loc, {attr.id, module.module});
    std::vector<std::string> members;
    for (const auto& [k, v] : globals_)
        if (in_module(v)) members.push_back(k);
    suggest(attr.id, members);
    return nullptr;
}

std::vector<std::string> Sema::global_names() const {
    std::vector<std::string> v;
    for (const auto& [k, g] : globals_) v.push_back(k);
    return v;
}

void Sema::collect_globals() {
    auto define = [&](const std::string& name, Global g) {
        auto it = globals_.find(name);
        if (it != globals_.end()) {
            error(DiagId::err_duplicate_definition, g.loc, {name});
            note(DiagId::note_previous_definition, it->second.loc, {name});
            return;
        }
        globals_.emplace(name, std::move(g));
    };
    for (const auto& imp : ast_.imports) {
        globals_[imp.alias] = Global{is_weft_module_name(imp.module) ? Global::WeftModule : Global::OtherModule,
                                     imp.loc,
                                     nullptr,
                                     nullptr,
                                     nullptr,
                                     imp.module};  // re-importing is fine in Python
    }
    for (const auto& s : ast_.structs) define(s.name, Global{Global::Struct, s.loc, nullptr, nullptr, nullptr, {}});
    for (const auto& c : ast_.constants) define(c.name, Global{Global::Constant, c.loc, nullptr, nullptr, nullptr, {}});
    for (const auto& a : ast_.type_aliases) {
        // `V = wp.vec3`: a name of a type. Other `V = wp.something` lines are host code.
        if (!is_static_type_expr(*a.value)) continue;
        if (Type t = resolve_type(*a.value)) define(a.name, Global{Global::TypeAlias, a.loc, nullptr, t, nullptr, {}});
    }
    for (const auto& f : ast_.functions) {
        if (f.kind == ast::DefKind::FuncGrad) {
            // Warp's `wp.adjoint[x] += ...` form becomes Weft's returned adjoints (adjoint_accumulators.h).
            func_grads_[f.grad_of] = sema::rewrite_adjoint_accumulators(f, rewritten_grads_, [this](const std::string& n) {
                auto it = globals_.find(n);
                return it != globals_.end() && it->second.kind == Global::WeftModule;
            });
            continue;
        }
        // Another definition of a func in the same file is an overload (sema_generics.cpp); in
        // another module's file it is a redefinition (the modules of a compile share one namespace).
        auto it = globals_.find(f.name);
        auto same_file = [](const SourceLoc& a, const SourceLoc& b) { return a.file && b.file && a.file->path == b.file->path; };
        if (f.kind == ast::DefKind::Func && it != globals_.end() && it->second.kind == Global::Func &&
            same_file(it->second.loc, f.loc)) {
            it->second.overloads.push_back(&f);
            continue;
        }
        define(f.name, Global{f.kind == ast::DefKind::Kernel ? Global::Kernel : Global::Func, f.loc, nullptr, nullptr, &f, {}});
        if (auto d = globals_.find(f.name); d != globals_.end() && d->second.def == &f) d->second.overloads = {&f};
    }
}

void Sema::define_structs() {
    // Structs may use each other; resolve in an order where fields' struct types exist first.
    std::vector<const ast::StructDef*> pending;
    for (const auto& s : ast_.structs) pending.push_back(&s);
    std::set<std::string> done;
    for (size_t round = 0; round <= ast_.structs.size() && !pending.empty(); ++round) {
        std::vector<const ast::StructDef*> next;
        for (const ast::StructDef* s : pending) {
            bool ready = true;
            for (const auto& f : s->fields) {
                if (f.annotation && f.annotation->kind == ast::ExprKind::Name) {
                    const Global* g = find_global(f.annotation->id);
                    if (g && g->kind == Global::Struct && !g->type && !done.count(f.annotation->id)) ready = false;
                }
            }
            if (!ready && round < ast_.structs.size()) {
                next.push_back(s);
                continue;
            }
            std::vector<StructField> fields;
            bool ok = true;
            for (const auto& f : s->fields) {
                Type t = f.annotation ? resolve_type(*f.annotation) : nullptr;
                if (!t) {
                    ok = false;
                    continue;
                }
                fields.push_back({f.name, t});
            }
            Type st = struct_type(opts_.module_key, s->name, fields);
            globals_[s->name].type = ok ? st : nullptr;
            done.insert(s->name);
            if (ok) out_->structs.push_back(st);
        }
        pending = std::move(next);
    }
}

void Sema::define_constants() {
    // Constants are lowered with no function scope: only literals, other constants, builtins
    // and constructors are visible. The result must fold to a constant.
    for (const auto& c : ast_.constants) {
        ExprPtr v = lower_expr(*c.value);
        if (!v) continue;
        bool is_constant = v->kind == ir::ExprKind::Const;
        if (v->kind == ir::ExprKind::Construct)
            is_constant = std::all_of(v->args.begin(), v->args.end(), [](const ExprPtr& a) { return ir::is_const(a); });
        if (!is_constant) {
            error(DiagId::err_bad_constant, c.loc, {c.name});
            continue;
        }
        globals_[c.name].value = v;
        out_->constants.push_back({c.name, c.loc, v});
    }
}

ir::Function* Sema::lower_function(const ast::FunctionDef& def, const std::vector<Type>& bound) {
    auto key = std::make_pair(&def, bound);
    auto it = lowered_.find(key);
    if (it != lowered_.end()) return it->second;
    if (in_progress_.count(&def)) {
        error(DiagId::err_recursion, def.loc, {def.name});
        return nullptr;
    }
    in_progress_.insert(&def);

    auto fn = std::make_unique<ir::Function>();
    fn->kind = def.kind == ast::DefKind::Kernel ? ir::FunctionKind::Kernel : ir::FunctionKind::Func;
    fn->name = def.name;
    fn->loc = def.loc;
    fn->docstring = def.docstring;
    if (def.kind == ast::DefKind::Func) {
        const Global* g = find_global(def.name);
        if (!bound.empty() || (g && g->overloads.size() > 1)) fn->cpp_suffix = "_" + std::to_string(++instances_);
    }
    FuncScope scope;
    scope.fn = fn.get();
    scope.def = &def;
    FuncScope* saved = scope_;
    scope_ = &scope;

    const char* what = def.kind == ast::DefKind::Kernel ? "kernel" : "function";
    bool seen_default = false;
    for (const auto& p : def.params) {
        // Defaults (Warp's funcs take them; a launch passes every kernel argument): each call that
        // leaves the parameter out lowers the default expression (Sema::lower_call).
        if (p.default_value && def.kind == ast::DefKind::Kernel)
            error(DiagId::err_kernel_default, p.default_value->loc, {p.name});
        else if (!p.default_value && seen_default)
            error(DiagId::err_default_order, p.loc, {p.name});
        seen_default |= p.default_value != nullptr;
        if (!p.annotation) {
            error(DiagId::err_missing_annotation, p.loc, {p.name, what, def.name});
            scope.locals[p.name] = nullptr;  // declared, but unusable: later uses stay silent
            continue;
        }
        Type t = nullptr;
        size_t index = static_cast<size_t>(&p - def.params.data());
        if (is_generic_annotation(*p.annotation)) {
            t = index < bound.size() ? bound[index] : nullptr;
            if (!t) {
                error(DiagId::err_generic_unbound, p.loc, {p.name, what, def.name});
            } else if (!matches_annotation(*p.annotation, t)) {
                error(DiagId::err_generic_mismatch, p.loc, {p.name, what, def.name, type_name(t)});
                t = nullptr;
            }
        } else {
            t = resolve_type(*p.annotation);
            if (t && index < bound.size() && bound[index] && bound[index] != t && def.kind == ast::DefKind::Kernel)
                error(DiagId::err_generic_mismatch, p.loc, {p.name, what, def.name, type_name(bound[index])});
        }
        if (!t) {
            scope.locals[p.name] = nullptr;
            continue;
        }
        ir::Var* v = fn->new_var(p.name, t, ir::VarKind::Param, p.loc);
        fn->params.push_back(v);
        scope.locals[p.name] = v;
        scope.first_assign[v] = p.loc;
    }
    for (const auto& kw : def.decorator_args) {
        if (kw.name == "block_dim") {
            bool ok = true;
            int64_t n = const_int(*kw.value, "block_dim", &ok);
            if (ok && (n < 1 || n > 1024)) {
                error(DiagId::err_constant_eval, kw.value->loc, {"block_dim must be between 1 and 1024"});
            } else if (ok) {
                fn->block_dim = static_cast<int>(n);
            }
        } else if (kw.name == "enable_backward") {
            fn->enable_backward = !(kw.value->kind == ast::ExprKind::Bool && !kw.value->bool_value);
        } else if (kw.name != "module" && kw.name != "launch_bounds") {
            error(DiagId::err_keyword_arg, kw.loc, {kw.name, "@wp.kernel"});
        }
    }
    if (def.returns) {
        if (def.returns->kind == ast::ExprKind::None) {
            scope.ret = void_type();
        } else if (def.returns->kind == ast::ExprKind::Tuple) {
            std::vector<Type> items;
            for (const auto& a : def.returns->args)
                if (Type t = resolve_type(*a)) items.push_back(t);
            scope.ret = tuple_type(items);
        } else if (is_generic_annotation(*def.returns)) {
            // `-> wp.Scalar`, `-> Any`: inferred from the body, as for an unannotated return
        } else if (Type t = resolve_type(*def.returns)) {
            scope.ret = t;
        }
        scope.ret_declared = scope.ret.has_value();
    }
    if (def.kind == ast::DefKind::Kernel) {
        if (scope.ret && *scope.ret != void_type()) error(DiagId::err_return_in_kernel, def.returns->loc);
        scope.ret = void_type();
        scope.ret_declared = true;
    }

    int errors_before = diags_.error_count();
    lower_body(def.body, fn->body);
    fn->ret = scope.ret.value_or(void_type());

    // A value-returning func must return on every path (checked only when the body is clean:
    // a statement dropped after an error would make this a false alarm).
    if (fn->ret != void_type() && diags_.error_count() == errors_before) {
        std::function<bool(const ir::Block&)> returns = [&](const ir::Block& b) {
            for (const auto& s : b) {
                if (s->kind == ir::StmtKind::Return) return true;
                if (s->kind == ir::StmtKind::If && returns(s->body) && returns(s->orelse)) return true;
                if (s->kind == ir::StmtKind::While && s->value->kind == ir::ExprKind::Const && s->value->int_value)
                    return true;  // `while True:` leaves only by return
            }
            return false;
        };
        if (!returns(fn->body)) error(DiagId::err_missing_return, def.loc, {def.name, type_name(fn->ret)});
    }

    scope_ = saved;
    in_progress_.erase(&def);
    ir::Function* raw = fn.get();
    out_->functions.push_back(std::move(fn));
    lowered_[key] = raw;

    if (auto g = func_grads_.find(def.name); g != func_grads_.end() && raw->kind == ir::FunctionKind::Func) {
        // The custom adjoint is an ordinary func whose parameters are the func's inputs followed
        // by the adjoint of its output; it is lowered here so that the adjoint pass can call it.
        ir::Function* grad = lower_function(*g->second);
        raw->custom_grad = grad;
    }
    return raw;
}

void Sema::report_duplicate_overloads() {
    // Two concrete definitions of one func with the same parameter types: the second could never
    // be called. (Python's @wp.func replaces such a definition before the compiler sees it.)
    for (const auto& [name, g] : globals_) {
        if (g.kind != Global::Func || g.overloads.size() < 2) continue;
        std::vector<std::pair<std::vector<Type>, const ast::FunctionDef*>> seen;
        for (const ast::FunctionDef* def : g.overloads) {
            auto it = lowered_.find(std::make_pair(def, std::vector<Type>{}));
            if (it == lowered_.end() || !it->second) continue;
            std::vector<Type> sig;
            for (const ir::Var* p : it->second->params) sig.push_back(p->type);
            auto prev = std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == sig; });
            if (prev != seen.end()) {
                error(DiagId::err_duplicate_definition, def->loc, {name});
                note(DiagId::note_previous_definition, prev->second->loc, {name});
            }
            seen.push_back({sig, def});
        }
    }
}

std::unique_ptr<ir::Module> Sema::run() {
    collect_globals();
    define_structs();
    define_constants();
    for (const auto& f : ast_.functions) {
        if (diags_.stopped()) break;
        if (f.kind == ast::DefKind::FuncGrad) {
            const Global* g = find_global(f.grad_of);
            if (!g || g->kind != Global::Func) {
                error(DiagId::err_undeclared_name, f.loc, {f.grad_of});
                continue;
            }
            continue;  // lowered with its func
        }
        // generic funcs are lowered per call (their instances), concrete ones now
        if (f.kind == ast::DefKind::Func && !is_generic_def(f)) lower_function(f);
    }
    report_duplicate_overloads();
    for (const auto& f : ast_.functions) {
        if (f.kind != ast::DefKind::Kernel || diags_.stopped()) continue;
        auto types = opts_.kernel_arg_types.find(f.name);
        if (types != opts_.kernel_arg_types.end()) {
            if (types->second.size() != f.params.size())
                error(DiagId::err_arg_count, f.loc,
                      {f.name, std::to_string(f.params.size()), std::to_string(types->second.size())});
            else
                lower_function(f, types->second);
        } else if (!is_generic_def(f)) {
            lower_function(f);  // a generic kernel no one instantiates is a template: no code
        }
    }

    // Propagate "uses a barrier" from funcs to the kernels calling them.
    std::function<bool(const ir::Block&)> syncs = [&](const ir::Block& b) -> bool {
        std::function<bool(const ExprPtr&)> in_expr = [&](const ExprPtr& e) -> bool {
            if (!e) return false;
            if (e->kind == ir::ExprKind::CallFunc && (e->func->uses_sync || syncs(e->func->body))) return true;
            for (const auto& a : e->args)
                if (in_expr(a)) return true;
            return false;
        };
        for (const auto& s : b) {
            if (s->kind == ir::StmtKind::Sync) return true;
            if (in_expr(s->value) || in_expr(s->start) || in_expr(s->stop) || syncs(s->body) || syncs(s->orelse)) return true;
        }
        return false;
    };
    for (auto& f : out_->functions) f->uses_sync = syncs(f->body);
    // The same for warp collectives (builtins flagged Warp): funcs come before their callers.
    for (auto& f : out_->functions)
        f->uses_warp_sync = ir::any_expr(f->body, [](const ir::Expr& e) {
            if (e.kind == ir::ExprKind::CallFunc) return e.func->uses_warp_sync;
            return e.kind == ir::ExprKind::Call && e.builtin && (e.builtin->flags & BuiltinFlags_Warp) != 0;
        });

    if (!diags_.has_errors()) {
        for (const auto& f : out_->functions) {
            std::string problem = ir::verify(*f);
            WEFT_INTERNAL_ASSERT(problem.empty(), "IR verifier after sema: " + problem);
        }
    }
    return std::move(out_);
}

}  // namespace sema_detail

std::unique_ptr<ir::Module> analyze(const ast::Module& module, DiagnosticEngine& diags, const SemaOptions& options) {
    return sema_detail::Sema(module, diags, options).run();
}

}  // namespace weft::compiler
