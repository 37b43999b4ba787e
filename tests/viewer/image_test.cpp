// tests/viewer/image_test.cpp: PNG files round-trip through read_png (and so through zlib and the
// chunk CRCs); errors name the path.
#include "viewer/image.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/errors.h"
#include "tests/viewer/viewer_test_util.h"

namespace weft::viewer {
namespace {

TEST(ImageTest, PngRoundTrips) {
    Image img;
    img.width = 7;
    img.height = 5;
    for (int i = 0; i < 7 * 5 * 4; ++i) img.rgba.push_back(uint8_t(i * 37 + 11));
    std::string path = test::artifact("roundtrip.png");
    write_png(path, img);
    Image back = read_png(path);
    EXPECT_EQ(back.width, 7);
    EXPECT_EQ(back.height, 5);
    EXPECT_EQ(back.rgba, img.rgba);
    EXPECT_EQ(frame_png_path("out", 12), "out/frame_00012.png");
}

TEST(ImageTest, ErrorsNameThePath) {
    Image img;
    img.width = img.height = 1;
    img.rgba = {1, 2, 3, 4};
    try {
        write_png("/nonexistent-dir/x.png", img);
        FAIL() << "no error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot write /nonexistent-dir/x.png"), std::string::npos) << e.what();
    }
    std::string text = test::artifact("not_a.png");
    std::ofstream(text) << "hello";
    try {
        read_png(text);
        FAIL() << "no error";
    } catch (const runtime::RuntimeError& e) {
        EXPECT_NE(std::string(e.what()).find(text + ": not a PNG file"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace weft::viewer
