// engine/obj_reader.cpp: the OBJ reader of obj_reader.h, one line at a time.
#include "engine/obj_reader.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace weft::engine {

namespace {

struct Token {
    std::string text;
    int column = 0;  // 1-based
};

std::vector<Token> split(const std::string& line) {
    std::vector<Token> out;
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
        size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r') ++i;
        if (i > start) out.push_back({line.substr(start, i - start), int(start) + 1});
    }
    return out;
}

}  // namespace

Mesh parse_obj(const std::string& text, const std::string& path) {
    Mesh mesh;
    std::istringstream in(text);
    std::string line;
    int line_no = 0;
    auto fail = [&](int column, const std::string& msg) {
        throw ObjError(path + ":" + std::to_string(line_no) + ":" + std::to_string(column) + ": " + msg);
    };
    while (std::getline(in, line)) {
        ++line_no;
        if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
        std::vector<Token> t = split(line);
        if (t.empty()) continue;
        if (t[0].text == "v") {
            if (t.size() < 4) fail(t[0].column, "a vertex needs 3 coordinates, got " + std::to_string(t.size() - 1));
            if (t.size() > 5)
                fail(t[5].column, "a vertex has at most 4 coordinates (x y z w), got " + std::to_string(t.size() - 1));
            float c[3];
            for (int k = 0; k < 3; ++k) {
                const Token& tok = t[size_t(k + 1)];
                char* end = nullptr;
                errno = 0;
                double v = std::strtod(tok.text.c_str(), &end);
                if (end != tok.text.c_str() + tok.text.size() || errno == ERANGE || !std::isfinite(v))
                    fail(tok.column, "expected a number, got '" + tok.text + "'");
                c[k] = float(v);
            }
            mesh.vertices.emplace_back(c[0], c[1], c[2]);
        } else if (t[0].text == "f") {
            if (t.size() < 4) fail(t[0].column, "a face needs at least 3 vertices, got " + std::to_string(t.size() - 1));
            std::vector<int> corners;
            const long n = long(mesh.vertices.size());
            for (size_t k = 1; k < t.size(); ++k) {
                const Token& tok = t[k];
                std::string index = tok.text.substr(0, tok.text.find('/'));
                char* end = nullptr;
                errno = 0;
                long v = std::strtol(index.c_str(), &end, 10);
                if (index.empty() || end != index.c_str() + index.size() || errno == ERANGE)
                    fail(tok.column, "expected a vertex index, got '" + tok.text + "'");
                long resolved = v > 0 ? v - 1 : n + v;  // OBJ counts from 1; -1 is the last vertex so far
                if (v == 0 || resolved < 0 || resolved >= n)
                    fail(tok.column, "face index " + std::to_string(v) + " is out of range (the file has " + std::to_string(n) +
                                         " vertices before this line)");
                corners.push_back(int(resolved));
            }
            for (size_t k = 1; k + 1 < corners.size(); ++k)
                mesh.indices.insert(mesh.indices.end(), {corners[0], corners[k], corners[k + 1]});
        }
    }
    if (mesh.indices.empty()) throw ObjError(path + ": the file has no faces ('f' lines)");
    return mesh;
}

Mesh read_obj(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) throw ObjError(path + ": cannot open the OBJ file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ObjError(path + ": cannot open the OBJ file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_obj(ss.str(), path);
}

}  // namespace weft::engine
