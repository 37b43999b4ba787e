// viewer/image.cpp: PNG as the specification lays it out: signature, IHDR, one IDAT holding the
// zlib stream of filter-byte-prefixed rows (filter 0), IEND; each chunk with its CRC-32.
#include "viewer/image.h"

#include <zlib.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "runtime/errors.h"

namespace weft::viewer {

namespace {

const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

void put32(std::string& out, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(char((v >> s) & 0xff));
}

uint32_t get32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

void chunk(std::string& out, const char* type, const std::string& data) {
    put32(out, uint32_t(data.size()));
    std::string body = std::string(type, 4) + data;
    out += body;
    put32(out, uint32_t(crc32(0, reinterpret_cast<const Bytef*>(body.data()), uInt(body.size()))));
}

}  // namespace

void write_png(const std::string& path, const Image& image) {
    if (image.width <= 0 || image.height <= 0 || image.rgba.size() != size_t(image.width) * size_t(image.height) * 4)
        throw runtime::RuntimeError("write_png: " + path + ": the image is " + std::to_string(image.width) + " x " +
                                    std::to_string(image.height) + " with " + std::to_string(image.rgba.size()) + " bytes");
    size_t row = size_t(image.width) * 4;
    std::string raw;
    raw.reserve((row + 1) * size_t(image.height));
    for (int y = 0; y < image.height; ++y) {
        raw.push_back('\0');
        raw.append(reinterpret_cast<const char*>(&image.rgba[row * size_t(y)]), row);
    }
    uLongf packed_size = compressBound(uLong(raw.size()));
    std::string packed(packed_size, '\0');
    compress2(reinterpret_cast<Bytef*>(packed.data()), &packed_size, reinterpret_cast<const Bytef*>(raw.data()),
              uLong(raw.size()), 6);
    packed.resize(packed_size);

    std::string out(reinterpret_cast<const char*>(kSignature), 8);
    std::string ihdr;
    put32(ihdr, uint32_t(image.width));
    put32(ihdr, uint32_t(image.height));
    ihdr += std::string("\x08\x06\x00\x00\x00", 5);  // 8 bits, RGBA, deflate, filter 0, not interlaced
    chunk(out, "IHDR", ihdr);
    chunk(out, "IDAT", packed);
    chunk(out, "IEND", "");

    std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary);
        f.write(out.data(), std::streamsize(out.size()));
        if (!f) throw runtime::RuntimeError("write_png: cannot write " + path + ": " + std::strerror(errno));
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw runtime::RuntimeError("write_png: cannot write " + path + ": " + ec.message());
}

Image read_png(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw runtime::RuntimeError("read_png: cannot open " + path);
    std::string data((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto bad = [&](const std::string& why) { return runtime::RuntimeError("read_png: " + path + ": " + why); };
    if (data.size() < 8 || std::memcmp(data.data(), kSignature, 8) != 0) throw bad("not a PNG file");
    Image image;
    std::string packed;
    const uint8_t* p = reinterpret_cast<const uint8_t*>(data.data());
    for (size_t at = 8; at + 12 <= data.size();) {
        uint32_t len = get32(p + at);
        if (at + 12 + len > data.size()) throw bad("truncated chunk");
        std::string type(data, at + 4, 4);
        const uint8_t* body = p + at + 8;
        if (type == "IHDR") {
            image.width = int(get32(body));
            image.height = int(get32(body + 4));
            if (len < 13 || body[8] != 8 || body[9] != 6 || body[12] != 0) throw bad("not an 8-bit RGBA, non-interlaced PNG");
        } else if (type == "IDAT") {
            packed.append(reinterpret_cast<const char*>(body), len);
        }
        at += 12 + len;
    }
    size_t row = size_t(image.width) * 4;
    uLongf raw_size = uLongf((row + 1) * size_t(image.height));
    std::string raw(raw_size, '\0');
    if (image.width <= 0 ||
        uncompress(reinterpret_cast<Bytef*>(raw.data()), &raw_size, reinterpret_cast<const Bytef*>(packed.data()),
                   uLong(packed.size())) != Z_OK ||
        raw_size != raw.size())
        throw bad("corrupt image data");
    image.rgba.resize(row * size_t(image.height));
    for (int y = 0; y < image.height; ++y) {
        if (raw[(row + 1) * size_t(y)] != 0) throw bad("uses a row filter write_png does not write");
        std::memcpy(&image.rgba[row * size_t(y)], &raw[(row + 1) * size_t(y) + 1], row);
    }
    return image;
}

std::string frame_png_path(const std::string& dir, int frame) {
    char name[32];
    snprintf(name, sizeof name, "frame_%05d.png", frame);
    return (std::filesystem::path(dir) / name).string();
}

}  // namespace weft::viewer
