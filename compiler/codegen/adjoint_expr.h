// The reverse of one expression: its forward values in temporaries, then each node's adjoint
// rule in reverse order. Internal to the adjoint code generator (adjoint_codegen.cpp).
//
//   AdjointExpr a(printer, temps);
//   Value root = a.linearize(e);       // forward: temps declared and assigned in order
//   os << a.forward();                 //   ... `T t_7{}; t_7 = wp::sin(x_1);`
//   os << "wp::adj_accum(" << root.adj << ", adj_y_2);"
//   os << a.reverse();                 //   ... `wp::adj_sin(x_1, adj_x_1, adj_t_7);`
#pragma once

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/codegen/adjoint_codegen.h"

namespace weft::compiler {

// Names of a variable's adjoint and of an array expression's gradient array.
std::string adj_var_name(const ir::Var* v);
// A struct type with an array field (directly or in a nested struct).
bool holds_arrays(Type t);

// Synthetic variables standing for temporaries, owned for the length of one function.
struct TempPool {
    std::vector<std::unique_ptr<ir::Var>> vars;
    int next_id = 1000000;
    const ir::Var* make(Type t);
};

class AdjointExpr {
public:
    struct Value {
        std::string val;               // C++ expression of the value (a temporary, a variable or a literal)
        std::string adj;               // lvalue of its adjoint, "" when it carries none
        std::string adjarr;            // arrays: their gradient array, "" when none
        const ir::Var* var = nullptr;  // the temporary or variable that holds it (null for literals)
    };

    AdjointExpr(CppExprPrinter& p, TempPool& temps) : p_(p), temps_(temps) {}

    Value linearize(const ir::ExprPtr& e);
    // The gradient array of an array-valued expression, or "" (struct fields, shared arrays).
    static std::string adjoint_array(const ir::ExprPtr& e);

    std::string forward() const { return decl_.str() + fwd_.str(); }
    std::string reverse() const;

private:
    class Rules;  // the adjoint rule of each node kind (an ExprFunctor)
    friend class Rules;

    Value leaf(const ir::ExprPtr& e);
    Value node(const ir::ExprPtr& e);
    Value select(const ir::ExprPtr& e);
    std::string adj_or_dummy(const Value& v, Type t);
    std::string rule(const ir::ExprPtr& e, const std::vector<Value>& in, const Value& out);
    std::string construct_rule(const ir::ExprPtr& e, const std::vector<Value>& in, const Value& out);

    CppExprPrinter& p_;
    TempPool& temps_;
    std::ostringstream decl_, fwd_;
    std::vector<std::string> rev_;  // one entry per node, in forward order
};

}  // namespace weft::compiler
