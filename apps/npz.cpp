// .npz / .npy reading. See npz.h.
//
// Every offset and size read from the archive is checked against the bytes that are there before
// it is used (in 64-bit arithmetic that cannot wrap), so a damaged or hostile archive ends in one
// error naming the file and the field, never in a loop, a huge allocation or a read past the end.
#include "apps/npz.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace weft::apps {

namespace {

uint32_t u32(const std::string& b, size_t at) {
    if (at > b.size() || b.size() - at < 4) throw std::runtime_error("truncated");
    return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) |
           static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8 |
           static_cast<uint32_t>(static_cast<unsigned char>(b[at + 2])) << 16 |
           static_cast<uint32_t>(static_cast<unsigned char>(b[at + 3])) << 24;
}
uint16_t u16(const std::string& b, size_t at) {
    if (at > b.size() || b.size() - at < 2) throw std::runtime_error("truncated");
    return static_cast<uint16_t>(static_cast<unsigned char>(b[at]) | static_cast<unsigned char>(b[at + 1]) << 8);
}

// The printable form of header text for a message (control bytes as '?', at most 40 characters).
std::string shown(const std::string& s) {
    std::string out;
    for (char c : s.substr(0, 40)) out += (c >= 32 && c < 127) ? c : '?';
    return s.size() > 40 ? out + "..." : out;
}

std::string dict_value(const std::string& header, const std::string& key) {
    size_t k = header.find("'" + key + "'");
    if (k == std::string::npos) throw std::runtime_error("its header has no '" + key + "'");
    size_t colon = header.find(':', k);
    if (colon == std::string::npos) throw std::runtime_error("its header is malformed after '" + key + "'");
    size_t start = header.find_first_not_of(' ', colon + 1);
    if (start == std::string::npos) throw std::runtime_error("its header is malformed after '" + key + "'");
    if (header[start] == '\'') {
        size_t end = header.find('\'', start + 1);
        if (end == std::string::npos) throw std::runtime_error("its header's '" + key + "' has no closing quote");
        return header.substr(start + 1, end - start - 1);
    }
    if (header[start] == '(') {
        size_t end = header.find(')', start);
        if (end == std::string::npos) throw std::runtime_error("its header's '" + key + "' has no closing ')'");
        return header.substr(start, end - start + 1);
    }
    size_t end = header.find_first_of(",}", start);
    return header.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// "(3, 4)", "(5,)", "()" -> dimensions; an error naming the text for anything else (a negative or
// non-integer dimension, one past int64).
std::vector<int64_t> parse_shape(const std::string& text) {
    auto bad = [&](const std::string& why) {
        return std::runtime_error("its header's shape " + shown(text) + " is invalid: " + why);
    };
    if (text.size() < 2 || text.front() != '(' || text.back() != ')') throw bad("expected a tuple such as (3, 4)");
    std::vector<int64_t> shape;
    size_t at = 1, end = text.size() - 1;
    while (at < end) {
        while (at < end && text[at] == ' ') ++at;
        if (at == end) break;
        if (text[at] == '-') throw bad("a dimension is negative");
        if (text[at] < '0' || text[at] > '9') throw bad("'" + shown(text.substr(at, 1)) + "' is not a dimension");
        int64_t v = 0;
        while (at < end && text[at] >= '0' && text[at] <= '9') {
            if (v > (std::numeric_limits<int64_t>::max() - (text[at] - '0')) / 10) throw bad("a dimension is too large");
            v = v * 10 + (text[at] - '0');
            ++at;
        }
        shape.push_back(v);
        while (at < end && text[at] == ' ') ++at;
        if (at < end && text[at] != ',') throw bad("expected ',' between dimensions");
        if (at < end) ++at;
    }
    if (shape.size() > 32) throw bad("more than 32 dimensions");
    return shape;
}

}  // namespace

size_t NpyArray::item_size() const {
    if (descr.size() < 3 || descr.size() > 4) return 0;
    size_t v = 0;
    for (size_t i = 2; i < descr.size(); ++i) {
        if (descr[i] < '0' || descr[i] > '9') return 0;
        v = v * 10 + size_t(descr[i] - '0');
    }
    return v;
}

NpyArray parse_npy(const std::string& b, const std::string& what) {
    try {
        if (b.size() < 10 || b.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error("it is not a .npy array");
        int major = static_cast<unsigned char>(b[6]);
        size_t header_len, offset;
        if (major == 1) {
            header_len = u16(b, 8);
            offset = 10;
        } else if (major == 2 || major == 3) {
            header_len = u32(b, 8);
            offset = 12;
        } else {
            throw std::runtime_error("its format version " + std::to_string(major) + " is not 1, 2 or 3");
        }
        if (offset > b.size() || header_len > b.size() - offset) throw std::runtime_error("its header is truncated");
        std::string header = b.substr(offset, header_len);
        NpyArray a;
        a.descr = dict_value(header, "descr");
        if (dict_value(header, "fortran_order").find("True") != std::string::npos)
            throw std::runtime_error("it is in Fortran order; save a C-ordered array (numpy.ascontiguousarray)");
        a.shape = parse_shape(dict_value(header, "shape"));
        if (a.descr.size() < 3 || (a.descr[0] != '<' && a.descr[0] != '|' && a.descr[0] != '='))
            throw std::runtime_error("its dtype '" + shown(a.descr) + "' is not little-endian");
        size_t item = a.item_size();
        if (item == 0) throw std::runtime_error("its dtype '" + shown(a.descr) + "' has no element size");
        size_t data_at = offset + header_len, available = b.size() - data_at;
        // count * item must fit in what follows the header: checked by division, so it cannot wrap.
        size_t count = 1;
        for (int64_t s : a.shape) {
            if (s != 0 && count > available / item / size_t(s))
                throw std::runtime_error("its data is truncated (the shape needs more bytes than the " +
                                         std::to_string(available) + " that follow the header)");
            count *= size_t(s);
        }
        size_t bytes = count * item;
        if (bytes > available) throw std::runtime_error("its data is truncated");
        a.data.resize(bytes);
        std::memcpy(a.data.data(), b.data() + data_at, bytes);
        return a;
    } catch (const std::exception& e) { throw std::runtime_error("cannot read '" + what + "': " + e.what()); }
}

std::map<std::string, NpyArray> read_npz_bytes(const std::string& z, const std::string& path) {
    std::map<std::string, NpyArray> out;
    try {
        // Walk the local file headers from the start (numpy writes no data descriptors for stored
        // members). Each member moves `at` forward by at least its 30-byte header, so the walk ends.
        size_t at = 0;
        while (z.size() - at >= 4 && u32(z, at) == 0x04034b50) {
            if (z.size() - at < 30) throw std::runtime_error("a member header at byte " + std::to_string(at) + " is truncated");
            uint16_t method = u16(z, at + 8);
            uint16_t flags = u16(z, at + 6);
            uint64_t csize = u32(z, at + 18);
            uint16_t name_len = u16(z, at + 26), extra_len = u16(z, at + 28);
            if (z.size() - at - 30 < size_t(name_len) + extra_len)
                throw std::runtime_error("the member header at byte " + std::to_string(at) + " is truncated");
            std::string name = z.substr(at + 30, name_len);
            size_t data_at = at + 30 + name_len + extra_len;
            if (csize == 0xffffffffu) {  // zip64: sizes in the extra field
                size_t e = at + 30 + name_len;
                while (data_at - e >= 4) {
                    uint16_t id = u16(z, e), len = u16(z, e + 2);
                    if (data_at - e - 4 < len)
                        throw std::runtime_error("member '" + shown(name) + "' has a truncated extra field");
                    if (id == 1 && len >= 16) csize = u32(z, e + 12) | static_cast<uint64_t>(u32(z, e + 16)) << 32;
                    e += 4 + size_t(len);
                }
            }
            if (method != 0)
                throw std::runtime_error("member '" + shown(name) +
                                         "' is compressed; save with numpy.savez, not numpy.savez_compressed");
            if (flags & 0x8)
                throw std::runtime_error("member '" + shown(name) + "' uses a data descriptor, which is not supported");
            if (csize > z.size() - data_at)
                throw std::runtime_error("member '" + shown(name) + "' is truncated: its size " + std::to_string(csize) +
                                         " is past the end of the file (" + std::to_string(z.size() - data_at) +
                                         " bytes follow its header)");
            std::string key =
                name.size() > 4 && name.compare(name.size() - 4, 4, ".npy") == 0 ? name.substr(0, name.size() - 4) : name;
            out[key] = parse_npy(z.substr(data_at, size_t(csize)), path + ":" + name);
            at = data_at + size_t(csize);
        }
        if (out.empty()) throw std::runtime_error("it holds no arrays (is it an .npz file?)");
    } catch (const std::runtime_error& e) {
        std::string m = e.what();
        if (m.rfind("cannot read", 0) == 0) throw;
        throw std::runtime_error("cannot read '" + path + "': " + m);
    }
    return out;
}

std::map<std::string, NpyArray> read_npz(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) throw std::runtime_error("cannot read '" + path + "': it is a directory");
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        throw std::runtime_error("cannot read '" + path + "': it is not a regular file (a device, FIFO or socket)");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return read_npz_bytes(ss.str(), path);
}

}  // namespace weft::apps
