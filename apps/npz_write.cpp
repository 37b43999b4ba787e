// apps/npz_write.cpp: writing numpy .npz archives (what numpy.savez makes: a zip of stored .npy
// members), for `weft run`'s per-frame outputs. The file is written to a unique temporary and
// renamed (apps/atomic_write.h), so a reader never sees a half-written frame.
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "apps/npz.h"

namespace weft::apps {

namespace {

uint32_t crc32(const std::string& data) {
    static uint32_t table[256];
    static bool ready = false;
    if (!ready) {
        for (uint32_t i = 0; i < 256; ++i) {
            uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = true;
    }
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char b : data) c = table[(c ^ b) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

std::string npy_bytes(const NpyArray& a) {
    std::string shape = "(";
    for (size_t i = 0; i < a.shape.size(); ++i)
        shape += std::to_string(a.shape[i]) + (a.shape.size() == 1 ? "," : (i + 1 < a.shape.size() ? ", " : ""));
    shape += ")";
    std::string header = "{'descr': '" + a.descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::string out = "\x93NUMPY";
    out += char(1);
    out += char(0);
    uint16_t len = uint16_t(header.size());
    out += char(len & 0xFF);
    out += char(len >> 8);
    out += header;
    out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
    return out;
}

void put16(std::string& s, uint16_t v) {
    s += char(v & 0xFF);
    s += char(v >> 8);
}
void put32(std::string& s, uint32_t v) {
    for (int k = 0; k < 4; ++k) s += char((v >> (8 * k)) & 0xFF);
}

}  // namespace

void write_npz(const std::string& path, const std::map<std::string, NpyArray>& arrays) {
    std::string zip, central;
    uint16_t count = 0;
    for (const auto& [name, arr] : arrays) {
        std::string member = name + ".npy";
        std::string data = npy_bytes(arr);
        uint32_t crc = crc32(data), offset = uint32_t(zip.size()), size = uint32_t(data.size());
        put32(zip, 0x04034b50);
        put16(zip, 20);
        put16(zip, 0);
        put16(zip, 0);
        put16(zip, 0);
        put16(zip, 0x21);
        put32(zip, crc);
        put32(zip, size);
        put32(zip, size);
        put16(zip, uint16_t(member.size()));
        put16(zip, 0);
        zip += member;
        zip += data;
        put32(central, 0x02014b50);
        put16(central, 20);
        put16(central, 20);
        put16(central, 0);
        put16(central, 0);
        put16(central, 0);
        put16(central, 0x21);
        put32(central, crc);
        put32(central, size);
        put32(central, size);
        put16(central, uint16_t(member.size()));
        put16(central, 0);
        put16(central, 0);
        put16(central, 0);
        put16(central, 0);
        put32(central, 0);
        put32(central, offset);
        central += member;
        ++count;
    }
    uint32_t cd_offset = uint32_t(zip.size());
    zip += central;
    put32(zip, 0x06054b50);
    put16(zip, 0);
    put16(zip, 0);
    put16(zip, count);
    put16(zip, count);
    put32(zip, uint32_t(central.size()));
    put32(zip, cd_offset);
    put16(zip, 0);
    write_file_atomically(path, zip);
}

}  // namespace weft::apps
