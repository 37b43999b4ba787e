// engine/loss_expr.cpp: the loss expression's parser (recursive descent, one function per grammar
// rule of loss_expr.h, checking types as it builds) and its evaluator (value forward, gradient by
// a reverse sweep over the same tree, per particle).
#include "engine/loss_expr.h"

#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include "support/closest_name.h"

namespace weft::engine {

namespace {

const std::vector<std::string> kReductions = {"sum", "mean", "com", "min", "max", "final"};
const std::vector<std::string> kArrays = {"particle_q", "particle_qd"};

std::string located(const std::string& source, const std::string& text, int col, int len, const std::string& msg,
                    const std::string& near = "") {
    std::ostringstream os;
    os << source << ":1:" << col + 1 << ": error: " << msg << "\n    " << text << "\n    " << std::string(size_t(col), ' ') << '^'
       << std::string(size_t(std::max(len, 1) - 1), '~') << "\n";
    if (!near.empty()) os << "note: did you mean '" << near << "'?\n";
    return os.str();
}

}  // namespace

class LossParser {
public:
    LossParser(const std::string& text, const std::string& source, LossExpr& e) : t_(text), src_(source), e_(e) {}

    int parse() {
        skip();
        if (pos_ >= t_.size()) fail(int(pos_), 1, "empty loss expression: expected something like mean(particle_q.y)");
        int root = expr();
        skip();
        if (pos_ < t_.size()) fail(int(pos_), 1, "unexpected '" + std::string(1, t_[pos_]) + "' after the expression");
        const auto& n = e_.nodes_[size_t(root)];
        if (n.per_particle) {
            const auto& a = first_whole_array(root);
            fail(a.col, a.len, "'" + a.name + "' is a whole array here: reduce it to one number, like mean(" + a.name + ".y)");
        }
        return root;
    }

private:
    [[noreturn]] void fail(int col, int len, const std::string& msg, const std::string& near = "") const {
        throw LossError(located(src_, t_, col, len, msg, near));
    }
    void skip() {
        while (pos_ < t_.size() && std::isspace((unsigned char)t_[pos_])) ++pos_;
    }
    bool eat(char c) {
        skip();
        if (pos_ < t_.size() && t_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    void expect(char c, const std::string& what) {
        if (eat(c)) return;
        fail(int(pos_), 1,
             "expected '" + std::string(1, c) + "' " + what + ", got " +
                 (pos_ < t_.size() ? "'" + std::string(1, t_[pos_]) + "'" : std::string("the end")));
    }
    int add(LossExpr::Node n) {
        e_.nodes_.push_back(std::move(n));
        return int(e_.nodes_.size() - 1);
    }
    LossExpr::Node& node(int i) { return e_.nodes_[size_t(i)]; }
    const LossExpr::Node& first_whole_array(int i) const {
        const auto& n = e_.nodes_[size_t(i)];
        if (n.kind == LossExpr::Node::Array && n.index < 0) return n;
        for (int k : n.kids)
            if (e_.nodes_[size_t(k)].per_particle) return first_whole_array(k);
        return n;
    }

    int expr() {
        int l = term();
        for (;;) {
            skip();
            if (pos_ >= t_.size() || (t_[pos_] != '+' && t_[pos_] != '-')) return l;
            char op = t_[pos_++];
            int r = term();
            l = binary(op, l, r);
        }
    }
    int term() {
        int l = unary();
        for (;;) {
            skip();
            if (pos_ >= t_.size() || (t_[pos_] != '*' && t_[pos_] != '/')) return l;
            char op = t_[pos_++];
            int r = unary();
            l = binary(op, l, r);
        }
    }
    int binary(char op, int l, int r) {
        const auto a = node(l), b = node(r);
        int col = a.col, len = b.col + b.len - a.col;
        const char* word = op == '+' ? "add" : op == '-' ? "subtract" : op == '*' ? "multiply" : "divide";
        auto kind = [](int d) { return d == 3 ? std::string("a vec3") : std::string("a scalar"); };
        if ((op == '+' || op == '-') && a.dim != b.dim)
            fail(col, len,
                 std::string("cannot ") + word + " " + kind(a.dim) + " and " + kind(b.dim) + "; take a component (.x, .y, .z)");
        if (op == '*' && a.dim == 3 && b.dim == 3)
            fail(col, len, "cannot multiply two vec3 values; take components (.x, .y, .z)");
        if (op == '/' && b.dim == 3) fail(b.col, b.len, "cannot divide by a vec3; take a component (.x, .y, .z)");
        LossExpr::Node n;
        n.kind = LossExpr::Node::Binary;
        n.op = op;
        n.kids = {l, r};
        n.dim = std::max(a.dim, b.dim);
        n.per_particle = a.per_particle || b.per_particle;
        n.col = col;
        n.len = len;
        return add(n);
    }
    int unary() {
        skip();
        size_t start = pos_;
        if (eat('-')) {
            int k = unary();
            LossExpr::Node n;
            n.kind = LossExpr::Node::Neg;
            n.kids = {k};
            n.dim = node(k).dim;
            n.per_particle = node(k).per_particle;
            n.col = int(start);
            n.len = node(k).col + node(k).len - int(start);
            return add(n);
        }
        return postfix();
    }
    int postfix() {
        int i = primary();
        skip();
        if (pos_ < t_.size() && t_[pos_] == '[') {
            size_t open = pos_++;
            auto& n = node(i);
            if (n.kind != LossExpr::Node::Array || n.index >= 0 || n.comp >= 0)
                fail(int(open), 1, "only an array name can be indexed, like particle_q[3]");
            skip();
            size_t s = pos_;
            while (pos_ < t_.size() && std::isdigit((unsigned char)t_[pos_])) ++pos_;
            if (s == pos_) fail(int(pos_), 1, "expected a particle index (an integer >= 0) inside '[ ]'");
            if (pos_ - s > 9) fail(int(s), int(pos_ - s), "particle index " + t_.substr(s, pos_ - s) + " is too large");
            n.index = std::stoi(t_.substr(s, pos_ - s));
            n.per_particle = false;
            expect(']', "after the index");
            n.len = int(pos_) - n.col;
        }
        skip();
        if (pos_ < t_.size() && t_[pos_] == '.') {
            size_t dot = pos_++;
            size_t s = pos_;
            while (pos_ < t_.size() && (std::isalnum((unsigned char)t_[pos_]) || t_[pos_] == '_')) ++pos_;
            std::string c = t_.substr(s, pos_ - s);
            auto& n = node(i);
            if (c.empty()) fail(int(dot), 1, "expected a component (x, y or z) after '.'");
            if (n.dim != 3) fail(int(dot), int(pos_ - dot), "'." + c + "' of a scalar: only vec3 values have components");
            if (c != "x" && c != "y" && c != "z") fail(int(s), int(c.size()), "unknown component '" + c + "': use .x, .y or .z");
            n.comp = c[0] - 'x';
            n.dim = 1;
            n.len = int(pos_) - n.col;
        }
        return i;
    }
    int primary() {
        skip();
        if (pos_ >= t_.size()) fail(int(pos_), 1, "expected a number, an array or a reduction, got the end");
        size_t s = pos_;
        char c = t_[pos_];
        if (c == '(') {
            ++pos_;
            int i = expr();
            expect(')', "to close the '(' at column " + std::to_string(s + 1));
            node(i).col = int(s);
            node(i).len = int(pos_ - s);
            return i;
        }
        if (std::isdigit((unsigned char)c) || c == '.') {
            char* end = nullptr;
            double v = std::strtod(t_.c_str() + s, &end);
            size_t used = size_t(end - (t_.c_str() + s));
            if (used == 0) fail(int(s), 1, "expected a number");
            pos_ = s + used;
            LossExpr::Node n;
            n.kind = LossExpr::Node::Number;
            n.number = v;
            n.col = int(s);
            n.len = int(used);
            return add(n);
        }
        if (!(std::isalpha((unsigned char)c) || c == '_'))
            fail(int(s), 1, "expected a number, an array or a reduction, got '" + std::string(1, c) + "'");
        while (pos_ < t_.size() && (std::isalnum((unsigned char)t_[pos_]) || t_[pos_] == '_')) ++pos_;
        std::string name = t_.substr(s, pos_ - s);
        skip();
        bool call = pos_ < t_.size() && t_[pos_] == '(';
        LossExpr::Node n;
        n.col = int(s);
        n.len = int(name.size());
        n.name = name;
        if (call) {
            if (std::find(kReductions.begin(), kReductions.end(), name) == kReductions.end())
                fail(int(s), int(name.size()), "unknown reduction '" + name + "' (sum, mean, com, min, max, final)",
                     support::closest_name(name, kReductions));
            if (in_reduction_) fail(int(s), int(name.size()), "reductions do not nest: '" + name + "' inside a reduction");
            ++pos_;
            in_reduction_ = true;
            int arg = expr();
            in_reduction_ = false;
            expect(')', "to close " + name + "(");
            const auto a = node(arg);
            if (name == "final" && a.per_particle) {
                const auto& w = first_whole_array(arg);
                fail(w.col, w.len,
                     "final() takes single values like " + w.name + "[0].x; '" + w.name +
                         "' is a whole array: reduce it with sum, mean, com, min or max");
            }
            if (name != "final" && !a.per_particle)
                fail(a.col, a.len,
                     name + "() reduces over particles but its argument holds no whole array; use final(...) for single values");
            if ((name == "min" || name == "max") && a.dim != 1)
                fail(a.col, a.len, name + "() needs a scalar per particle; take a component, like " + name + "(particle_q.y)");
            n.kind = LossExpr::Node::Reduce;
            n.kids = {arg};
            n.dim = a.dim;
            n.len = int(pos_ - s);
            return add(n);
        }
        if (std::find(kReductions.begin(), kReductions.end(), name) != kReductions.end())
            fail(int(s), int(name.size()), "'" + name + "' is a reduction: write " + name + "(...)");
        if (name == "particle_f")
            fail(int(s), int(name.size()),
                 "'particle_f' is a step's force output and has no gradient; use particle_q or particle_qd");
        if (std::find(kArrays.begin(), kArrays.end(), name) == kArrays.end())
            fail(int(s), int(name.size()), "unknown State array '" + name + "' (particle_q, particle_qd)",
                 support::closest_name(name, kArrays));
        n.kind = LossExpr::Node::Array;
        n.dim = 3;
        n.per_particle = true;
        return add(n);
    }

    const std::string& t_;
    const std::string& src_;
    LossExpr& e_;
    size_t pos_ = 0;
    bool in_reduction_ = false;
};

LossExpr LossExpr::parse(const std::string& text, const std::string& source) {
    LossExpr e;
    e.text_ = text;
    e.source_ = source;
    LossParser p(e.text_, e.source_, e);
    e.root_ = p.parse();
    return e;
}

std::vector<std::string> LossExpr::arrays() const {
    std::set<std::string> names;
    for (const auto& n : nodes_)
        if (n.kind == Node::Array) names.insert(n.name);
    return {names.begin(), names.end()};
}

namespace {

struct V {
    double v[3] = {0, 0, 0};
    int dim = 1;
};

}  // namespace

class LossEvaluator {
public:
    LossEvaluator(const LossExpr& e, const LossInputs& in, bool magnitudes = false) : e_(e), in_(in), abs_(magnitudes) {
        for (const auto& [name, a] : in.arrays) grad_[name].assign(a.size(), 0.0);
    }

    // The value of node i for particle p (p < 0 outside a reduction), after its component.
    V eval(int i, int p) {
        const auto& n = e_.nodes_[size_t(i)];
        V r = raw(n, p);
        if (n.comp >= 0) {
            r.v[0] = r.v[size_t(n.comp)];
            r.v[1] = r.v[2] = 0;
            r.dim = 1;
        }
        return r;
    }
    // Adds adj (the gradient of the loss with respect to node i's value) into the inputs' gradients.
    void back(int i, int p, V adj) {
        const auto& n = e_.nodes_[size_t(i)];
        if (n.comp >= 0) {
            V full;
            full.dim = 3;
            full.v[size_t(n.comp)] = adj.v[0];
            adj = full;
        }
        switch (n.kind) {
            case LossExpr::Node::Number: return;
            case LossExpr::Node::Array: {
                int q = n.index >= 0 ? n.index : p;
                check_index(n);
                auto& g = grad_[n.name];
                for (int c = 0; c < 3; ++c) g[size_t(3 * q + c)] += adj.v[c];
                return;
            }
            case LossExpr::Node::Neg: {
                for (double& x : adj.v) x = -x;
                back(n.kids[0], p, adj);
                return;
            }
            case LossExpr::Node::Binary: {
                int a = n.kids[0], b = n.kids[1];
                V va = eval(a, p), vb = eval(b, p);
                if (n.op == '+' || n.op == '-') {
                    back(a, p, adj);
                    if (n.op == '-')
                        for (double& x : adj.v) x = -x;
                    back(b, p, adj);
                } else if (n.op == '*') {
                    back(a, p, times_adj(adj, vb, va.dim));  // d(a b)/da = b
                    back(b, p, times_adj(adj, va, vb.dim));
                } else {
                    // d(a / b)/da = 1 / b;  d(a / b)/db = -a / b^2 (b is a scalar)
                    V da = adj;
                    for (double& x : da.v) x /= vb.v[0];
                    back(a, p, da);
                    V db;
                    for (int c = 0; c < 3; ++c) db.v[0] -= adj.v[c] * va.v[c] / (vb.v[0] * vb.v[0]);
                    back(b, p, db);
                }
                return;
            }
            case LossExpr::Node::Reduce: {
                int arg = n.kids[0];
                const int np = in_.particle_count;
                if (n.name == "final") {
                    back(arg, -1, adj);
                } else if (n.name == "sum" || n.name == "mean") {
                    double s = n.name == "mean" ? 1.0 / np : 1.0;
                    for (int q = 0; q < np; ++q) back(arg, q, scaled(adj, s));
                } else if (n.name == "com") {
                    double total = total_mass(n);
                    for (int q = 0; q < np; ++q) back(arg, q, scaled(adj, in_.mass[size_t(q)] / total));
                } else {
                    back(arg, extreme(n), adj);
                }
                return;
            }
        }
    }
    std::map<std::string, std::vector<double>> take_gradient() { return std::move(grad_); }

private:
    V raw(const LossExpr::Node& n, int p) {
        V r;
        switch (n.kind) {
            case LossExpr::Node::Number: r.v[0] = abs_ ? std::abs(n.number) : n.number; return r;
            case LossExpr::Node::Array: {
                int q = n.index >= 0 ? n.index : p;
                check_index(n);
                const auto& a = in_.arrays.at(n.name);
                r.dim = 3;
                for (int c = 0; c < 3; ++c) r.v[c] = abs_ ? std::abs(a[size_t(3 * q + c)]) : a[size_t(3 * q + c)];
                return r;
            }
            case LossExpr::Node::Neg: {
                r = eval(n.kids[0], p);
                if (!abs_)
                    for (double& x : r.v) x = -x;
                return r;
            }
            case LossExpr::Node::Binary: {
                V a = eval(n.kids[0], p), b = eval(n.kids[1], p);
                r.dim = std::max(a.dim, b.dim);
                for (int c = 0; c < 3; ++c) {
                    double x = a.dim == 3 ? a.v[c] : a.v[0], y = b.dim == 3 ? b.v[c] : b.v[0];
                    char op = abs_ && n.op == '-' ? '+' : n.op;
                    r.v[c] = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : x / y;
                }
                if (r.dim == 1) r.v[1] = r.v[2] = 0;
                return r;
            }
            case LossExpr::Node::Reduce: {
                int arg = n.kids[0];
                const int np = in_.particle_count;
                if (n.name == "final") return eval(arg, -1);
                if (n.name == "min" || n.name == "max") return eval(arg, extreme(n));
                double total = n.name == "com" ? total_mass(n) : 0.0;
                r.dim = e_.nodes_[size_t(arg)].dim;
                for (int q = 0; q < np; ++q) {
                    V x = eval(arg, q);
                    double w = n.name == "com" ? in_.mass[size_t(q)] / total : n.name == "mean" ? 1.0 / np : 1.0;
                    for (int c = 0; c < 3; ++c) r.v[c] += w * x.v[c];
                }
                return r;
            }
        }
        return r;
    }
    int extreme(const LossExpr::Node& n) {
        if (in_.particle_count == 0) fail(n, n.name + "() of no particles");
        int best = 0;
        double bv = eval(n.kids[0], 0).v[0];
        for (int q = 1; q < in_.particle_count; ++q) {
            double v = eval(n.kids[0], q).v[0];
            if (n.name == "min" ? v < bv : v > bv) best = q, bv = v;
        }
        return best;
    }
    double total_mass(const LossExpr::Node& n) {
        double t = 0;
        for (double m : in_.mass) t += m;
        if (!(t > 0)) fail(n, "com() weighs particles by mass, and the masses of this model sum to 0");
        return t;
    }
    void check_index(const LossExpr::Node& n) {
        if (n.index >= in_.particle_count)
            fail(n, "particle index " + std::to_string(n.index) + " is out of range (the model has " +
                        std::to_string(in_.particle_count) + " particles)");
    }
    [[noreturn]] void fail(const LossExpr::Node& n, const std::string& msg) const {
        throw LossError(located(e_.source_, e_.text_, n.col, n.len, msg));
    }
    // The gradient with respect to one factor of a product, from the other factor's value.
    static V times_adj(const V& adj, const V& other, int self_dim) {
        V r;
        r.dim = self_dim;
        if (self_dim == 3) {
            for (int c = 0; c < 3; ++c) r.v[c] = adj.v[c] * (other.dim == 3 ? other.v[c] : other.v[0]);
        } else if (other.dim == 3) {
            for (int c = 0; c < 3; ++c) r.v[0] += adj.v[c] * other.v[c];  // d(s v)/ds . adj = v . adj
        } else {
            r.v[0] = adj.v[0] * other.v[0];
        }
        return r;
    }
    static V scaled(V a, double s) {
        for (double& x : a.v) x *= s;
        return a;
    }

    const LossExpr& e_;
    const LossInputs& in_;
    bool abs_;  // magnitudes: |x| for every input and constant, + for -
    std::map<std::string, std::vector<double>> grad_;
};

LossValue LossExpr::evaluate(const LossInputs& in) const {
    LossEvaluator ev(*this, in);
    V v = ev.eval(root_, -1);
    LossValue out;
    V seed;
    seed.dim = v.dim;
    if (v.dim == 3) {
        out.value = v.v[0] + v.v[1] + v.v[2];
        seed.v[0] = seed.v[1] = seed.v[2] = 1.0;
    } else {
        out.value = v.v[0];
        seed.v[0] = 1.0;
    }
    ev.back(root_, -1, seed);
    out.gradient = ev.take_gradient();
    LossEvaluator mag(*this, in, true);
    V m = mag.eval(root_, -1);
    out.scale = m.v[0] + m.v[1] + m.v[2];
    return out;
}

LossInputs loss_inputs(const Model& model, const State& state) {
    LossInputs in;
    in.particle_count = model.particle_count;
    auto read = [&](const runtime::Array& a) {
        std::vector<float> h(size_t(model.particle_count) * 3);
        if (!h.empty()) a.copy_to_host(h.data(), h.size() * sizeof(float));
        return std::vector<double>(h.begin(), h.end());
    };
    in.arrays["particle_q"] = read(state.particle_q);
    in.arrays["particle_qd"] = read(state.particle_qd);
    std::vector<float> m(size_t(model.particle_count));
    if (!m.empty()) model.particle_mass.copy_to_host(m.data(), m.size() * sizeof(float));
    in.mass.assign(m.begin(), m.end());
    return in;
}

LossValue LossExpr::evaluate(const Model& model, const State& state) const { return evaluate(loss_inputs(model, state)); }

}  // namespace weft::engine
