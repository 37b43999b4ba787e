// .npz / .npy reading. See npz.h.
#include "apps/npz.h"

#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace weft::apps {

namespace {

uint32_t u32(const std::string& b, size_t at) {
    if (at + 4 > b.size()) throw std::runtime_error("truncated");
    return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) |
           static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8 |
           static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16 |
           static_cast<uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24;
}
uint16_t u16(const std::string& b, size_t at) {
    if (at + 2 > b.size()) throw std::runtime_error("truncated");
    return static_cast<uint16_t>(static_cast<unsigned char>(b[at]) | static_cast<unsigned char>(b[at + 1]) << 8);
}

std::string dict_value(const std::string& header, const std::string& key) {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) throw std::runtime_error("its header has no '" + key + "'");
    size_t colon = header.find(':', k);
    size_t start = header.find_first_not_of(' ', colon + 1);
    if (start == std::string::npos) throw std::runtime_error("its header is malformed");
    if (header[start] == '\'') {
        size_t end = header.find('\'', start + 1);
        return header.substr(start + 1, end - start - 1);
    }
    if (header[start] == '(') {
        size_t end = header.find(')', start);
        return header.substr(start, end - start + 1);
    }
    size_t end = header.find_first_of(",}", start);
    return header.substr(start, end - start);
}

}  // namespace

size_t NpyArray::item_size() const {
    if (descr.size() < 3) return 0;
    return static_cast<size_t>(std::stoi(descr.substr(2)));
}

NpyArray parse_npy(const std::string& b, const std::string& what) {
    try {
        if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error("it is not a .npy array");
        int major = static_cast<unsigned char>(b[6]);
        size_t header_len, offset;
        if (major == 1) {
            header_len = u16(b, 8);
            offset = 10;
        } else {
            header_len = u32(b, 8);
            offset = 12;
        }
        if (offset + header_len > b.size()) throw std::runtime_error("its header is truncated");
        std::string header = b.substr(offset, header_len);
        NpyArray a;
        a.descr = dict_value(header, "descr");
        if (dict_value(header, "fortran_order").find("True") != std::string::npos)
            throw std::runtime_error("it is in Fortran order; save a C-ordered array (numpy.ascontiguousarray)");
        std::string shape = dict_value(header, "shape");
        std::string num;
        for (char c : shape) {
            if (c >= '0' && c <= '9')
                num += c;
            else if (!num.empty()) {
                a.shape.push_back(std::stoll(num));
                num.clear();
            }
        }
        if (a.descr.size() < 3 || (a.descr[0] != '<' && a.descr[0] != '|' && a.descr[0] != '='))
            throw std::runtime_error("its dtype '" + a.descr + "' is not little-endian");
        size_t count = 1;
        for (int64_t s : a.shape) count *= static_cast<size_t>(s);
        size_t bytes = count * a.item_size();
        size_t data_at = offset + header_len;
        if (data_at + bytes > b.size()) throw std::runtime_error("its data is truncated");
        a.data.resize(bytes);
        std::memcpy(a.data.data(), b.data() + data_at, bytes);
        return a;
    } catch (const std::exception& e) { throw std::runtime_error("cannot read '" + what + "': " + e.what()); }
}

std::map<std::string, NpyArray> read_npz(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string z = ss.str();
    std::map<std::string, NpyArray> out;
    try {
        // Walk the local file headers from the start (numpy writes no data descriptors for stored members).
        size_t at = 0;
        while (at + 4 <= z.size() && u32(z, at) == 0x04034b50) {
            uint16_t method = u16(z, at + 8);
            uint16_t flags = u16(z, at + 6);
            uint64_t csize = u32(z, at + 18);
            uint16_t name_len = u16(z, at + 26), extra_len = u16(z, at + 28);
            std::string name = z.substr(at + 30, name_len);
            size_t data_at = at + 30 + name_len + extra_len;
            if (csize == 0xffffffffu) {  // zip64: sizes in the extra field
                size_t e = at + 30 + name_len;
                while (e + 4 <= data_at) {
                    uint16_t id = u16(z, e), len = u16(z, e + 2);
                    if (id == 1) csize = u32(z, e + 12) | static_cast<uint64_t>(u32(z, e + 16)) << 32;
                    e += 4 + len;
                }
            }
            if (method != 0)
                throw std::runtime_error("member '" + name +
                                         "' is compressed; save with numpy.savez, not numpy.savez_compressed");
            if (flags & 0x8) throw std::runtime_error("member '" + name + "' uses a data descriptor, which is not supported");
            if (data_at + csize > z.size()) throw std::runtime_error("member '" + name + "' is truncated");
            std::string key =
                name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0 ? name.substr(0, name.size() - 4) : name;
            out[key] = parse_npy(z.substr(data_at, csize), path + ":" + name);
            at = data_at + csize;
        }
        if (out.empty()) throw std::runtime_error("it holds no arrays (is it an .npz file?)");
    } catch (const std::runtime_error& e) {
        std::string m = e.what();
        if (m.rfind("cannot read", 0) == 0) throw;
        throw std::runtime_error("cannot read '" + path + "': " + m);
    }
    return out;
}

}  // namespace weft::apps
