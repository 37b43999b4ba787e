// The builtin table is the one source of truth: the language reference holds exactly the list it
// generates, and every builtin the language promises is in it.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compiler/builtins/builtin_docs.h"
#include "compiler/builtins/builtin_table.h"

namespace {

using namespace weft::compiler;

TEST(BuiltinDocs, ReferenceHoldsTheGeneratedList) {
    std::ifstream in(std::string(WEFT_SOURCE_DIR) + "/docs/kernel-language.md");
    ASSERT_TRUE(in) << "docs/kernel-language.md is missing";
    std::stringstream ss;
    ss << in.rdbuf();
    std::string doc = ss.str();
    const std::string begin = "<!-- BEGIN BUILTINS -->\n", end = "<!-- END BUILTINS -->";
    size_t b = doc.find(begin), e = doc.find(end);
    ASSERT_NE(b, std::string::npos);
    ASSERT_NE(e, std::string::npos);
    std::string section = doc.substr(b + begin.size(), e - b - begin.size());
    EXPECT_EQ(section, builtins_markdown())
        << "docs/kernel-language.md is out of date: regenerate its builtin list with `weft builtins --markdown`";
}

TEST(BuiltinDocs, TableHasTheLanguagesBuiltins) {
    const BuiltinTable& t = builtin_table();
    size_t typed = 0;
    for (const auto& o : t.overloads()) typed += !(o.flags & BuiltinFlags_Special);
    EXPECT_GE(typed, 200u);
    for (const char* name : {"abs",
                             "sign",
                             "min",
                             "max",
                             "clamp",
                             "floor",
                             "ceil",
                             "round",
                             "trunc",
                             "sqrt",
                             "cbrt",
                             "exp",
                             "log",
                             "log2",
                             "log10",
                             "pow",
                             "sin",
                             "cos",
                             "tan",
                             "asin",
                             "acos",
                             "atan",
                             "atan2",
                             "sinh",
                             "cosh",
                             "tanh",
                             "degrees",
                             "radians",
                             "isnan",
                             "isinf",
                             "isfinite",
                             "lerp",
                             "smoothstep",
                             "step",
                             "dot",
                             "cross",
                             "length",
                             "length_sq",
                             "normalize",
                             "outer",
                             "cw_mul",
                             "cw_div",
                             "transpose",
                             "inverse",
                             "determinant",
                             "trace",
                             "diag",
                             "skew",
                             "quat_identity",
                             "quat_from_axis_angle",
                             "quat_to_axis_angle",
                             "quat_rotate",
                             "quat_rotate_inv",
                             "quat_inverse",
                             "quat_to_matrix",
                             "quat_from_matrix",
                             "quat_slerp",
                             "transform_identity",
                             "transform_point",
                             "transform_vector",
                             "transform_inverse",
                             "transform_get_translation",
                             "transform_get_rotation",
                             "mul",
                             "rand_init",
                             "randi",
                             "randf",
                             "randn",
                             "tid",
                             "atomic_add",
                             "atomic_sub",
                             "atomic_min",
                             "atomic_max",
                             "atomic_cas",
                             "atomic_exch",
                             "block_dim",
                             "block_idx",
                             "thread_idx",
                             "lane_id",
                             "shared_array",
                             "sync_threads",
                             "print"})
        EXPECT_TRUE(t.has_name(name)) << name;
}

TEST(BuiltinDocs, EveryTypedOverloadHasADocAndAGroup) {
    for (const auto& o : builtin_table().overloads()) {
        EXPECT_FALSE(o.doc.empty()) << o.name;
        EXPECT_FALSE(o.group.empty()) << o.name;
        if (!(o.flags & BuiltinFlags_Special)) {
            EXPECT_NE(o.ret, nullptr) << o.name;
            for (const auto& p : o.params) EXPECT_NE(p.type, nullptr) << o.name;
        }
    }
}

}  // namespace
