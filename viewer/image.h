// viewer/image.h: an RGBA8 image (row 0 at the top) and its PNG file, written with zlib.
//
// The renderer reads its framebuffer back into an Image (flipping GL's bottom-up rows), the
// screenshot tests inspect its pixels, and `weft view --png` / `weft run --render` write it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::viewer {

struct Image {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> rgba;  // width x height x 4, row 0 at the top

    const uint8_t* pixel(int x, int y) const { return &rgba[(size_t(y) * size_t(width) + size_t(x)) * 4]; }
};

// Writes `image` as an 8-bit RGBA PNG, atomically (a temporary name, then a rename). Throws
// runtime::RuntimeError naming the path when it cannot be written.
void write_png(const std::string& path, const Image& image);

// Reads a PNG that write_png wrote (8-bit RGBA, not interlaced). Throws runtime::RuntimeError
// naming the path for anything else.
Image read_png(const std::string& path);

// "DIR/frame_00012.png"
std::string frame_png_path(const std::string& dir, int frame);

}  // namespace weft::viewer
