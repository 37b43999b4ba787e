// lower_jumps: break / continue / return -> flags. See lower_jumps.h.
//
// Each loop that contains a jump gets its own `brk`/`cont` flags; the function gets one `ret`
// flag. A statement that may set a flag seen by its block is followed by `if not (flags): rest`.
// A `for` whose body may leave the loop early (break, return) becomes
//   it = start; stop' = stop; step' = step; brk = false
//   while not brk and not ret and (it < stop' if step' > 0 else it > stop'):
//       i = it; it = it + step'; cont = false; <body>
// (the counter advances before the body, so a `continue` still advances it).
#include "compiler/passes/lower_jumps.h"

#include <algorithm>

#include "compiler/ir/ir_visitor.h"

namespace weft::compiler::passes {
namespace {

using ir::Block;
using ir::ExprPtr;
using ir::StmtKind;
using ir::StmtPtr;

struct LoopFlags {
    const ir::Var* brk = nullptr;
    const ir::Var* cont = nullptr;
};

// Which jumps a statement may perform that leave it: return (anywhere), break/continue (outside
// nested loops).
struct Jumps {
    bool ret = false, brk = false, cont = false;
    bool any() const { return ret || brk || cont; }
};

class JumpFinder : public ir::IRVisitor {
public:
    Jumps leaving;     // the jumps that leave the visited statements
    bool any = false;  // whether there is any jump at all, nested loops included

    void visit_expr(const ExprPtr&) override {}  // jumps are statements

protected:
    void visit_Return(const ir::Stmt&) override { leaving.ret = any = true; }
    void visit_Break(const ir::Stmt&) override {
        if (!loop_depth_) leaving.brk = true;
        any = true;
    }
    void visit_Continue(const ir::Stmt&) override {
        if (!loop_depth_) leaving.cont = true;
        any = true;
    }
    void visit_For(const ir::Stmt& s) override {
        ++loop_depth_;
        IRVisitor::visit_For(s);
        --loop_depth_;
    }
    void visit_While(const ir::Stmt& s) override {
        ++loop_depth_;
        IRVisitor::visit_While(s);
        --loop_depth_;
    }

private:
    int loop_depth_ = 0;
};

Jumps jumps_of(const ir::Stmt& s) {
    JumpFinder f;
    f.visit(s);
    return f.leaving;
}

Jumps jumps_of(const Block& b) {
    JumpFinder f;
    f.visit_block(b);
    return f.leaving;
}

bool has_jump(const Block& b) {
    JumpFinder f;
    f.visit_block(b);
    return f.any;
}

class Lowering : public ir::IRMutator {
public:
    explicit Lowering(const ir::Function& f) : f_(f) {
        for (const auto& v : f.vars) next_id_ = std::max(next_id_, v->id + 1);
    }

    JumpFreeBody run() {
        Jumps j = jumps_of(f_.body);
        if (j.ret) {
            ret_ = new_var("ret_", bool_type());
            if (f_.ret && f_.ret != void_type()) out_.ret_value = new_var("ret_value_", f_.ret);
        } else if (f_.ret && f_.ret != void_type()) {
            out_.ret_value = nullptr;  // a func without return cannot pass sema
        }
        out_.changed = has_jump(f_.body);
        out_.body = mutate_block(f_.body);
        return std::move(out_);
    }

private:
    const ir::Var* new_var(const std::string& name, Type t) {
        auto v = std::make_unique<ir::Var>();
        v->name = name;
        v->type = t;
        v->kind = ir::VarKind::Local;
        v->loc = f_.loc;
        v->id = next_id_++;
        out_.vars.push_back(std::move(v));
        return out_.vars.back().get();
    }

    static StmtPtr assign(const ir::Var* v, ExprPtr value, SourceLoc loc) {
        auto s = std::make_shared<ir::Stmt>(StmtKind::Assign, loc);
        s->var = v;
        s->value = std::move(value);
        return s;
    }

    static ExprPtr not_(ExprPtr e) {
        SourceLoc loc = e->loc;
        return ir::make_unary(ir::UnaryOp::Not, std::move(e), bool_type(), loc);
    }
    static ExprPtr and_(ExprPtr a, ExprPtr b) {
        if (!a) return b;
        if (!b) return a;
        SourceLoc loc = a->loc;
        return ir::make_logical(ir::LogicalOp::And, std::move(a), std::move(b), loc);
    }

    // not ret and not brk and not cont, for the flags `j` may have set.
    ExprPtr guard(const Jumps& j, const LoopFlags& loop, SourceLoc loc) {
        ExprPtr g;
        if (j.ret) g = and_(g, not_(ir::make_var(ret_, loc)));
        if (j.brk && loop.brk) g = and_(g, not_(ir::make_var(loop.brk, loc)));
        if (j.cont && loop.cont) g = and_(g, not_(ir::make_var(loop.cont, loc)));
        return g;
    }

    // A statement that may jump guards the rest of its block: `if not (flags): rest`.
    Block mutate_block(const Block& b) override {
        Block out;
        for (size_t i = 0; i < b.size(); ++i) {
            const StmtPtr& s = b[i];
            Block lowered = mutate(s);
            out.insert(out.end(), lowered.begin(), lowered.end());
            Jumps j = jumps_of(*s);
            if (s->kind == StmtKind::For || s->kind == StmtKind::While) j = {j.ret, false, false};
            if (!j.any() || i + 1 == b.size()) continue;
            Block rest(b.begin() + static_cast<std::ptrdiff_t>(i) + 1, b.end());
            auto g = std::make_shared<ir::Stmt>(StmtKind::If, rest.front()->loc);
            g->value = guard(j, loop_, rest.front()->loc);
            g->body = mutate_block(rest);
            out.push_back(g);
            break;
        }
        return out;
    }

    Block visit_Return(const StmtPtr& s) override {
        Block out;
        if (s->value && out_.ret_value) out.push_back(assign(out_.ret_value, s->value, s->loc));
        out.push_back(assign(ret_, ir::make_bool(true, s->loc), s->loc));
        return out;
    }
    Block visit_Break(const StmtPtr& s) override { return {assign(loop_.brk, ir::make_bool(true, s->loc), s->loc)}; }
    Block visit_Continue(const StmtPtr& s) override { return {assign(loop_.cont, ir::make_bool(true, s->loc), s->loc)}; }
    // An `if` keeps its shape (the default rebuilds it around its lowered branches).
    Block visit_For(const StmtPtr& s) override { return lower_for(s); }
    Block visit_While(const StmtPtr& s) override { return lower_while(s); }

    // The body of a loop, lowered with the loop's own flags.
    Block loop_body(const Block& body, const LoopFlags& flags) {
        LoopFlags outer = loop_;
        loop_ = flags;
        Block b = mutate_block(body);
        loop_ = outer;
        return b;
    }

    LoopFlags flags_for(const Block& body, Jumps& j) {
        j = jumps_of(body);
        LoopFlags f;
        if (j.brk || j.ret) f.brk = new_var("brk_", bool_type());
        if (j.cont) f.cont = new_var("cont_", bool_type());
        return f;
    }

    Block lower_for(const StmtPtr& s) {
        Block out;
        Jumps j;
        LoopFlags flags = flags_for(s->body, j);
        SourceLoc loc = s->loc;
        if (!j.brk && !j.ret) {
            auto n = std::make_shared<ir::Stmt>(*s);
            n->body.clear();
            if (flags.cont) n->body.push_back(assign(flags.cont, ir::make_bool(false, loc), loc));
            Block b = loop_body(s->body, flags);
            n->body.insert(n->body.end(), b.begin(), b.end());
            out.push_back(n);
            return out;
        }
        Type t = s->var->type;
        const ir::Var* it = new_var("it_", t);
        const ir::Var* stop = new_var("stop_", t);
        const ir::Var* step = new_var("step_", t);
        out.push_back(assign(stop, s->stop, loc));
        out.push_back(assign(step, s->step, loc));
        out.push_back(assign(it, s->start, loc));
        out.push_back(assign(flags.brk, ir::make_bool(false, loc), loc));
        ExprPtr up = ir::make_compare(ir::CompareOp::Lt, ir::make_var(it, loc), ir::make_var(stop, loc), loc);
        ExprPtr down = ir::make_compare(ir::CompareOp::Gt, ir::make_var(it, loc), ir::make_var(stop, loc), loc);
        ExprPtr in_range;
        if (ir::is_const(s->step))
            in_range = s->step->int_value > 0 ? up : down;
        else
            in_range = ir::make_select(ir::make_compare(ir::CompareOp::Gt, ir::make_var(step, loc), ir::make_int(0, t, loc), loc),
                                       up, down, loc);
        auto w = std::make_shared<ir::Stmt>(StmtKind::While, loc);
        ExprPtr cond = not_(ir::make_var(flags.brk, loc));
        if (ret_) cond = and_(cond, not_(ir::make_var(ret_, loc)));
        w->value = and_(cond, in_range);
        w->body.push_back(assign(s->var, ir::make_var(it, loc), loc));
        w->body.push_back(
            assign(it, ir::make_binary(ir::BinaryOp::Add, ir::make_var(it, loc), ir::make_var(step, loc), t, loc), loc));
        if (flags.cont) w->body.push_back(assign(flags.cont, ir::make_bool(false, loc), loc));
        Block b = loop_body(s->body, flags);
        w->body.insert(w->body.end(), b.begin(), b.end());
        out.push_back(w);
        return out;
    }

    Block lower_while(const StmtPtr& s) {
        Block out;
        Jumps j;
        LoopFlags flags = flags_for(s->body, j);
        SourceLoc loc = s->loc;
        auto w = std::make_shared<ir::Stmt>(*s);
        if (flags.brk) {
            out.push_back(assign(flags.brk, ir::make_bool(false, loc), loc));
            ExprPtr cond = not_(ir::make_var(flags.brk, loc));
            if (ret_ && j.ret) cond = and_(cond, not_(ir::make_var(ret_, loc)));
            w->value = and_(cond, s->value);
        }
        w->body.clear();
        if (flags.cont) w->body.push_back(assign(flags.cont, ir::make_bool(false, loc), loc));
        Block b = loop_body(s->body, flags);
        w->body.insert(w->body.end(), b.begin(), b.end());
        out.push_back(w);
        return out;
    }

    const ir::Function& f_;
    JumpFreeBody out_;
    const ir::Var* ret_ = nullptr;
    LoopFlags loop_;  // flags of the innermost loop being lowered
    int next_id_ = 0;
};

}  // namespace

JumpFreeBody lower_jumps(const ir::Function& f) { return Lowering(f).run(); }

}  // namespace weft::compiler::passes
