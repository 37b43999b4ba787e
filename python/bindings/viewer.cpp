// python/bindings/viewer.cpp: viewer/script_renderer.h, the renderer behind wp.sim.render
// (python/weft/sim_render.py gives it Warp's names and keywords).
#include <pybind11/stl.h>

#include "engine/model.h"
#include "python/bindings/bindings.h"
#include "viewer/image.h"
#include "viewer/script_renderer.h"
#include "viewer/video_writer.h"
#include "viewer/window.h"

namespace py = pybind11;

namespace weft::python {

void bind_viewer(py::module_& m) {
    using viewer::ScriptRenderer;
    py::class_<ScriptRenderer>(m, "ScriptRenderer",
                               "A window, or PNG frames in png_dir and/or a video through ffmpeg (viewer/script_renderer.h)")
        .def(py::init<const std::string&, int, int, const std::string&, const std::string&, double>(), py::arg("title"),
             py::arg("width"), py::arg("height"), py::arg("png_dir"), py::arg("video_path") = "", py::arg("fps") = 60.0)
        .def("begin_frame", &ScriptRenderer::begin_frame)
        .def("render", &ScriptRenderer::render)
        .def("end_frame", &ScriptRenderer::end_frame, py::call_guard<py::gil_scoped_release>())
        .def("is_running", &ScriptRenderer::is_running)
        .def("finish", &ScriptRenderer::finish, py::call_guard<py::gil_scoped_release>(),
             "Completes the video (ffmpeg's exit status checked); its path joins `written`")
        .def("close", &ScriptRenderer::close, py::call_guard<py::gil_scoped_release>())
        .def_property_readonly("time", &ScriptRenderer::time)
        .def_property_readonly("frames", &ScriptRenderer::frames)
        .def_property_readonly("written", &ScriptRenderer::written)
        .def_readwrite("show_particles", &ScriptRenderer::show_particles)
        .def_readwrite("show_springs", &ScriptRenderer::show_springs)
        .def_readwrite("show_joints", &ScriptRenderer::show_joints)
        .def_readwrite("show_surfaces", &ScriptRenderer::show_surfaces)
        .def_property(
            "color_by", [](const ScriptRenderer& r) { return r.colors.quantity; },
            [](ScriptRenderer& r, const std::string& q) { r.colors.quantity = q; })
        .def_property(
            "draw_grid", [](const ScriptRenderer& r) { return r.options.grid; },
            [](ScriptRenderer& r, bool on) { r.options.grid = on; });
    m.def("find_ffmpeg", &viewer::find_ffmpeg, "The ffmpeg PATH finds, or '' (viewer/video_writer.h)");
    m.def("is_video_path", &viewer::is_video_path, "Whether the path's extension is .mp4, .mov, .mkv or .webm");
    m.def(
        "display_available",
        [] {
            std::string why;
            bool ok = viewer::display_available(&why);
            return py::make_tuple(ok, why);
        },
        "(True, '') when windows can be opened, else (False, why)");
    m.def(
        "read_png",
        [](const std::string& path) {
            viewer::Image img = viewer::read_png(path);
            return py::make_tuple(img.width, img.height,
                                  py::bytes(reinterpret_cast<const char*>(img.rgba.data()), img.rgba.size()));
        },
        "(width, height, RGBA bytes, row 0 at the top) of a PNG the viewer wrote");
}

}  // namespace weft::python
