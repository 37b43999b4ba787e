// engine/gradient_param.h: the parameters a gradient check differentiates with respect to
// (`weft gradcheck --wrt`, docs/gradient-testing.md), named as a user knows them: a Model array or
// an initial-State array by its name, or a scene file's key by table and key.
//
//   spring_stiffness          every spring's stiffness (Model::spring_stiffness)
//   spring_stiffness[2]       the third spring's
//   particle_qd[0]            particle 0's initial velocity (three scalars)
//   particle_qd[0].y          its y component
//   cloth.tri_ke              the [[cloth]] key tri_ke: column 0 of Model::tri_materials
//   soft_body.k_lambda[4]     tetrahedron 4's k_lambda (column 1 of Model::tet_materials)
//
// A scene key covers every element built from any table of that kind (two [[cloth]] tables share
// tri_materials). Scalar launch arguments of the model (contact stiffness, gravity) are not arrays
// and get no gradient from the Tape, so they cannot be named. Mistakes are GradientParamErrors
// with a did-you-mean over every name this file accepts.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/model.h"

namespace weft::engine {

struct GradientParamError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct GradientParam {
    std::string spec;                 // as written: "particle_qd[0]"
    std::string array_name;           // the array it lives in: "particle_qd"
    runtime::Array array;             // that array (a Model array, or the initial State's)
    std::vector<int64_t> scalars;     // flat float32 scalar indices into `array`
    std::vector<std::string> labels;  // one per scalar: "particle_qd[0].y", "cloth.tri_ke[3]"
};

// Resolves `spec` on `model` and the initial state `initial` (whose particle_q and particle_qd
// the rollout starts from). Throws GradientParamError.
GradientParam resolve_gradient_param(const std::string& spec, const Model& model, const State& initial);

// Every name resolve_gradient_param accepts without an index: array names, then scene keys.
std::vector<std::string> gradient_param_names();

// The addressing itself, for other users of the same names (a scene's [worlds.vary],
// engine/scene_worlds.cpp): `spec` parsed as NAME[INDEX].COMPONENT against the table above.
// Errors are GradientParamErrors that start "CONTEXT 'SPEC': " (context "--wrt" for the gradient
// check).
struct ParamAddress {
    std::string spec;        // as written
    std::string name;        // "cloth.tri_ke", "particle_qd"
    std::string array_name;  // the Model / State array it lives in: "tri_materials"
    int64_t index = -1;      // the element (row), -1 = every element
    std::string component;   // "x", "y", "z" as written after the index or name; "" = none
    int column = -1;         // the scalar within each row a scene key picks, -1 = every scalar
};
ParamAddress parse_param_address(const std::string& spec, const std::string& context = "--wrt");
// The flat float32 scalar indices `a` picks in an array of `rows` rows of `per_row` scalars
// (`vec3`: rows of three, the only ones a component applies to), with a label for each (when
// `labels` is given). Errors: a component on a non-vec3 array, an index out of range.
std::vector<int64_t> param_scalars(const ParamAddress& a, int64_t rows, int64_t per_row, bool vec3,
                                   std::vector<std::string>* labels = nullptr, const std::string& context = "--wrt");

}  // namespace weft::engine
