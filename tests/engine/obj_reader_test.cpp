// The OBJ reader: vertices, faces in every index form, fan triangulation of polygons, negative
// indices, skipped statements; and every error with its file:line:col.
#include <gtest/gtest.h>

#include "engine/obj_reader.h"

namespace {

using namespace weft::engine;

std::string error_of(const std::string& text) {
    try {
        parse_obj(text, "scenes/x.obj");
    } catch (const ObjError& e) { return e.what(); }
    return "(no error)";
}

TEST(ObjReader, ReadsVerticesAndTriangulatesFaces) {
    Mesh m = parse_obj(
        "# a square pyramid\n"
        "mtllib x.mtl\n"
        "o pyramid\n"
        "v -1 0 -1\n"
        "v 1 0 -1\n"
        "v 1.0 0.0 1.0 1.0\n"  // optional w
        "v -1e0 0 1\t# comment\n"
        "v 0 1.5 0\n"
        "vn 0 1 0\n"
        "vt 0.5 0.5\n"
        "s off\n"
        "f 1 2 3 4\n"  // a quad: two triangles (fan)
        "f 1/1 5/1 2/1\n"
        "f 2//1 5//1 3//1\n"
        "f -2/1/1 -1/1/1 -5/1/1\r\n"  // relative indices: 4 5 1, and a CR
        "g rest\n"
        "l 1 2\n",
        "p.obj");
    ASSERT_EQ(m.vertices.size(), 5u);
    EXPECT_FLOAT_EQ(m.vertices[2].x(), 1.0f);
    EXPECT_FLOAT_EQ(m.vertices[3].x(), -1.0f);
    EXPECT_FLOAT_EQ(m.vertices[4].y(), 1.5f);
    std::vector<int> expected = {0, 1, 2, 0, 2, 3, 0, 4, 1, 1, 4, 2, 3, 4, 0};
    EXPECT_EQ(m.indices, expected);
}

TEST(ObjReader, ErrorsNameFileLineAndColumn) {
    EXPECT_EQ(error_of("v 0 0\n"), "scenes/x.obj:1:1: a vertex needs 3 coordinates, got 2");
    EXPECT_EQ(error_of("v 0 0 0 1 2\n"), "scenes/x.obj:1:11: a vertex has at most 4 coordinates (x y z w), got 5");
    EXPECT_EQ(error_of("v 0 0 0\nv 0 zero 0\n"), "scenes/x.obj:2:5: expected a number, got 'zero'");
    EXPECT_EQ(error_of("v 0 0 0\nv 1e999 0 0\n"), "scenes/x.obj:2:3: expected a number, got '1e999'");
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nf 1 2\n"), "scenes/x.obj:3:1: a face needs at least 3 vertices, got 2");
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nv 0 1 0\n  f 1 2 4\n"),
              "scenes/x.obj:4:9: face index 4 is out of range (the file has 3 vertices before this line)");
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n"),
              "scenes/x.obj:4:3: face index 0 is out of range (the file has 3 vertices before this line)");
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n"),
              "scenes/x.obj:4:7: face index -4 is out of range (the file has 3 vertices before this line)");
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 b/2 3\n"), "scenes/x.obj:4:5: expected a vertex index, got 'b/2'");
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 /2 3\n"), "scenes/x.obj:4:5: expected a vertex index, got '/2'");
    EXPECT_EQ(error_of("v 0 0 0\n# no faces\n"), "scenes/x.obj: the file has no faces ('f' lines)");
    EXPECT_EQ(error_of("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"), "(no error)");
    try {
        read_obj("/nonexistent/x.obj");
        ADD_FAILURE() << "no error";
    } catch (const ObjError& e) { EXPECT_STREQ(e.what(), "/nonexistent/x.obj: cannot open the OBJ file"); }
}

}  // namespace
