// engine/loss_expr.h: loss expressions over a State, for gradient checks (`weft gradcheck --loss`,
// docs/gradient-testing.md). A loss is one number computed from the final State of a rollout:
//
//   mean(particle_q.y)                        the mean height of the particles
//   sum(particle_q.x + 0.5 * particle_q.y)    a weighted sum of coordinates
//   com(particle_q).y                         the height of the centre of mass (masses as weights)
//   final(particle_qd[3].x) - 2               one particle's x velocity, shifted
//   max(particle_q.y) + 0.1 * min(particle_q.y)
//
// Grammar (numbers are constants; reductions do not nest):
//
//   loss    := expr
//   expr    := term (('+' | '-') term)*
//   term    := unary (('*' | '/') unary)*
//   unary   := '-' unary | postfix
//   postfix := primary ('[' INT ']')? ('.' ('x' | 'y' | 'z'))?       index: array names only
//   primary := NUMBER | ARRAY | REDUCTION '(' expr ')' | '(' expr ')'
//
//   REDUCTION  sum, mean (over particles), com (mass-weighted mean; kinematic particles weigh 0),
//              min, max (of a scalar per particle), final (of single values: particle_q[3].x)
//   ARRAY      a differentiable State array: particle_q, particle_qd (vec3 per particle)
//
// Values are scalars or vec3; a vec3 loss means the sum of its components (as seeding every
// component's gradient with 1 would). A whole array (no index) may only appear inside a
// reduction other than final. Every mistake is a LossError located clang-style:
//
//   --loss:1:6: error: unknown State array 'particle_p'
//       mean(particle_p.y)
//            ^~~~~~~~~~
//   note: did you mean 'particle_q'?
//
// The loss is evaluated on the host in float64 together with its exact gradient with respect to
// the State arrays (reverse mode over the expression; min and max pass it to the particle that
// attains them, the first on a tie). Seeding those gradients on the final State and running the
// Tape backward gives the loss's gradient with respect to everything the rollout read.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model.h"

namespace weft::engine {

struct LossError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The State arrays a loss reads, on the host in float64: name -> 3 scalars per particle.
struct LossInputs {
    int particle_count = 0;
    std::map<std::string, std::vector<double>> arrays;  // "particle_q", "particle_qd": (particle_count x 3)
    std::vector<double> mass;                           // kg (particle_count), for com()
};

struct LossValue {
    double value = 0.0;
    // The same expression with every operand and operation taken in absolute value (|a| + |b| for
    // a - b, sums of |x|): the magnitude of what was added up, which sets the loss's round-off when
    // terms cancel (a loss near 0 made of large terms).
    double scale = 0.0;
    std::map<std::string, std::vector<double>> gradient;  // d loss / d array, same layout as LossInputs::arrays
};

class LossExpr {
public:
    // Throws LossError ("SOURCE:1:COL: error: ...", the text, a caret, maybe a did-you-mean).
    static LossExpr parse(const std::string& text, const std::string& source = "loss");

    // The value and its gradient. Throws LossError for an index past the particle count, or com()
    // of particles whose masses sum to zero.
    LossValue evaluate(const LossInputs& in) const;
    // The same on a State of `model` (copied to the host).
    LossValue evaluate(const Model& model, const State& state) const;

    const std::string& text() const { return text_; }
    // The State arrays the expression names ("particle_q", ...), each once.
    std::vector<std::string> arrays() const;

    struct Node {
        enum Kind { Number, Array, Reduce, Neg, Binary } kind = Number;
        double number = 0.0;
        std::string name;  // Array: the array; Reduce: the reduction
        int index = -1;    // Array: the particle, -1 for the whole array
        int comp = -1;     // 0..2 when a component was taken of this node's value, else -1
        char op = 0;       // Binary: + - * /
        std::vector<int> kids;
        int dim = 1;                // 1 or 3, after the component (if any)
        bool per_particle = false;  // holds an un-indexed array outside a reduction
        int col = 0, len = 0;       // 0-based column and length in the text
    };

private:
    std::string text_, source_;
    std::vector<Node> nodes_;
    int root_ = -1;

    friend class LossParser;
    friend class LossEvaluator;
};

// Reads the State arrays a loss can name (and the masses) to the host.
LossInputs loss_inputs(const Model& model, const State& state);

}  // namespace weft::engine
