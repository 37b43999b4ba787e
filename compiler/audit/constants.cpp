// Oversize constants: a `wp.constant` too big for where the generated code puts it.
//
// The code generator writes a constant's value at every use (a vector or matrix constructor of
// literals), so the value lives in registers of each thread that uses it, like a local variable
// of that type. Two rules follow, both warnings (check id `oversize-constant`):
//
//   size     a constant of more than `max_constant_bytes` (default 64 bytes: a mat44 of float,
//            16 registers) used by the kernel, directly or in a func it calls: that many bytes of
//            registers per thread at each use, and spills once the kernel holds a few of them.
//   indexed  a constant of more than 16 bytes indexed with an index that is not a literal
//            (`TABLE[i]`): registers cannot be addressed, so the PTX indexes a per-thread
//            local copy of the value. ptxas keeps that copy in registers when it can turn the
//            indexing into selects (a mat33 indexed by i % 3, a mat44 by i % 4: no stack frame),
//            and otherwise gives every thread a stack frame in local memory (a mat44d indexed
//            the same way: 128 bytes; a spatial_matrix walked in a loop: 4 KiB). Which one
//            happens is ptxas's heuristic, so this is a note when the constant is within the
//            size limit and part of the size warning when it is not; the resources check
//            reports the stack frame ptxas chose.
//
// Uses are found by identity: every use of a constant in the IR is the constant's own node
// (ir::Module::constants), so an equal literal written in the kernel is not a use. Each
// constant is reported once per kernel for its size (at its first use) and once per indexing
// site. The finding sits on the using line, with a note at the definition.
#include <functional>
#include <map>
#include <set>

#include "compiler/audit/audit.h"

namespace weft::compiler::audit {

namespace {

using ir::Expr;
using ir::ExprKind;

constexpr size_t kIndexedLimit = 16;  // bytes: up to a vec4 of float stays in registers when indexed

class ConstantUses {
public:
    ConstantUses(const ir::Module& m, int64_t limit) : limit_(limit) {
        for (const auto& c : m.constants)
            if (c.value) constants_[c.value.get()] = &c;
    }

    std::vector<Finding> run(const ir::Function& k) {
        function(k);
        return std::move(out_);
    }

private:
    int64_t limit_;
    std::map<const Expr*, const ir::Constant*> constants_;
    std::set<const ir::Constant*> size_reported_;
    std::set<const ir::Function*> visited_;
    std::vector<SourceLoc> calls_;
    std::vector<Finding> out_;

    void function(const ir::Function& f) {
        if (!visited_.insert(&f).second) return;
        block(f.body);
    }

    void block(const ir::Block& b) {
        for (const auto& s : b) {
            for (const ir::ExprPtr* p : {&s->value, &s->start, &s->stop, &s->step, &s->array})
                if (*p) expr(**p, s->loc);
            for (const auto& i : s->indices) expr(*i, s->loc);
            for (const auto& step : s->path)
                for (const auto& i : step.indices) expr(*i, s->loc);
            block(s->body);
            block(s->orelse);
        }
    }

    // `use` is the location of the nearest enclosing expression written in the function.
    void expr(const Expr& e, SourceLoc use) {
        auto it = constants_.find(&e);
        if (it != constants_.end()) {
            size_check(*it->second, use);
            return;
        }
        if (e.loc.valid()) use = e.loc;
        if (e.kind == ExprKind::Extract && !e.args.empty()) {
            auto c = constants_.find(e.args[0].get());
            bool literal = true;
            for (size_t k = 1; k < e.args.size(); ++k) literal = literal && ir::is_const(e.args[k]);
            if (c != constants_.end() && !literal && type_size(c->first->type) > kIndexedLimit) indexed(*c->second, e);
        }
        if (e.kind == ExprKind::CallFunc && e.func) {
            calls_.push_back(e.loc);
            function(*e.func);
            calls_.pop_back();
        }
        for (const auto& a : e.args)
            if (a) expr(*a, use);
    }

    Finding make(const ir::Constant& c, const SourceLoc& at, std::string message) {
        Finding f;
        f.check = Check::OversizeConstant;
        f.severity = FindingSeverity::Warning;
        f.loc = capture_loc(at);
        f.message = std::move(message);
        f.notes.push_back({capture_loc(c.loc), "'" + c.name + "' is defined here"});
        return f;
    }

    void size_check(const ir::Constant& c, const SourceLoc& use) {
        int64_t bytes = static_cast<int64_t>(type_size(c.value->type));
        if (bytes <= limit_ || size_reported_.count(&c)) return;
        size_reported_.insert(&c);
        Finding f = make(c, use,
                         "constant '" + c.name + "' (" + type_name(c.value->type) + ") is " + std::to_string(bytes) +
                             " bytes, over the limit of " + std::to_string(limit_) + ": its value occupies " +
                             std::to_string((bytes + 3) / 4) + " registers of every thread at each use");
        f.notes.push_back(
            {{}, "keep large tables in a wp.array passed to the kernel, or raise the limit with --max-constant-bytes"});
        add_call_notes(f, calls_);
        out_.push_back(std::move(f));
    }

    void indexed(const ir::Constant& c, const Expr& e) {
        int64_t bytes = static_cast<int64_t>(type_size(c.value->type));
        Finding f = make(c, e.loc,
                         "constant '" + c.name + "' (" + std::to_string(bytes) +
                             " bytes) indexed with a value that is not a literal: each thread indexes a local copy, "
                             "in registers if ptxas can resolve the index into selects, else in local memory");
        if (bytes <= limit_) f.severity = FindingSeverity::Note;
        f.notes.push_back(
            {{}, "the resources check shows the stack frame ptxas gave the kernel; a lookup table belongs in a wp.array"});
        add_call_notes(f, calls_);
        out_.push_back(std::move(f));
    }
};

}  // namespace

std::vector<Finding> audit_constants(const ir::Module& m, const ir::Function& k, int64_t max_constant_bytes) {
    return ConstantUses(m, max_constant_bytes).run(k);
}

}  // namespace weft::compiler::audit
