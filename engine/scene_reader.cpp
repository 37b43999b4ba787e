// engine/scene_reader.cpp: the mesh reader shared by the scene's [[shape]] tables and the
// families' blocks (engine/scene_reader.h).
#include "engine/scene_reader.h"

#if WEFT_SCENE_FILES
#include <filesystem>

#include "engine/obj_reader.h"

namespace weft::engine {

Mesh read_mesh(TableReader& r) {
    const toml::node* obj = r.get("obj");
    const toml::node* verts = r.get("vertices");
    if (obj && verts) r.fail(obj->source(), "give either 'obj' or 'vertices' and 'indices', not both");
    if (!obj && !verts) {
        if (const toml::node* idx = r.get("indices")) r.fail(idx->source(), "'indices' needs 'vertices'");
        r.fail(r.table().source(), "a mesh shape needs 'obj' or 'vertices' and 'indices' in " + r.where());
    }
    if (obj) {
        if (const toml::node* idx = r.get("indices")) r.fail(idx->source(), "'indices' belongs with 'vertices', not with 'obj'");
        auto file = obj->value_exact<std::string>();
        if (!file) r.fail(obj->source(), "'obj' must be a string, got " + std::string(toml_type_word(*obj)));
        std::filesystem::path path(*file);
        if (path.is_relative()) path = std::filesystem::path(r.file()).parent_path() / path;
        std::error_code ec;
        if (file->empty() || !std::filesystem::is_regular_file(path, ec))
            r.fail(obj->source(), "cannot open the OBJ file '" + *file + "' (looked for " + path.string() + ")");
        try {
            return read_obj(path.string());
        } catch (const ObjError& e) {
            const auto& b = obj->source().begin;
            throw SceneError(std::string(e.what()) + " (the 'obj' of the " + r.where() + " at " + r.file() + ":" +
                             std::to_string(b.line) + ":" + std::to_string(b.column) + ")");
        }
    }
    Mesh mesh;
    const toml::array* va = verts->as_array();
    if (!va)
        r.fail(verts->source(), "'vertices' must be an array of [x, y, z] arrays, got " + std::string(toml_type_word(*verts)));
    for (size_t k = 0; k < va->size(); ++k) {
        const toml::node& e = *va->get(k);
        std::string name = "'vertices'[" + std::to_string(k) + "]";
        const toml::array* v = e.as_array();
        if (!v || v->size() != 3) r.fail(e.source(), name + " must be an array of 3 numbers");
        float c[3];
        for (size_t i = 0; i < 3; ++i) {
            const toml::node& x = *v->get(i);
            auto d = x.value_exact<double>();
            auto n = x.value_exact<int64_t>();
            if (!d && !n) r.fail(x.source(), name + " must hold numbers, got " + std::string(toml_type_word(x)));
            c[i] = float(r.check_float("vertices[" + std::to_string(k) + "]", x, d ? *d : double(*n)));
        }
        mesh.vertices.emplace_back(c[0], c[1], c[2]);
    }
    const toml::node& idx = r.require("indices");
    const toml::array* ia = idx.as_array();
    if (!ia) r.fail(idx.source(), "'indices' must be an array of integers, got " + std::string(toml_type_word(idx)));
    if (ia->empty() || ia->size() % 3 != 0)
        r.fail(idx.source(), "'indices' must hold 3 per triangle, got " + std::to_string(ia->size()));
    for (size_t k = 0; k < ia->size(); ++k) {
        const toml::node& e = *ia->get(k);
        auto v = e.value_exact<int64_t>();
        if (!v) r.fail(e.source(), "'indices'[" + std::to_string(k) + "] must be an integer, got " + toml_type_word(e));
        if (*v < 0 || *v >= int64_t(mesh.vertices.size()))
            r.fail(e.source(), "'indices'[" + std::to_string(k) + "] = " + std::to_string(*v) +
                                   " is out of range (the mesh has " + std::to_string(mesh.vertices.size()) + " vertices)");
        mesh.indices.push_back(int(*v));
    }
    return mesh;
}

}  // namespace weft::engine
#endif
