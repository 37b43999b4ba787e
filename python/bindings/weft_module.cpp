// python/bindings/weft_module.cpp: the extension module weft._weft. It only assembles the
// per-area binding files; the Python API users see is the pure-Python package around it.
#include "python/bindings/bindings.h"

PYBIND11_MODULE(_weft, m) {
    m.doc() = "Weft's C++ compiler and runtime (internal; use the `weft` package)";
    weft::python::bind_types(m);
    weft::python::bind_arrays(m);
    weft::python::bind_kernels(m);
    weft::python::bind_launch(m);
    weft::python::bind_runtime(m);
    weft::python::bind_tape(m);
    weft::python::bind_streams(m);
    weft::python::bind_dlpack(m);
    weft::python::bind_engine(m);
    weft::python::bind_smoke(m);
    weft::python::bind_import(m);
    weft::python::bind_audit(m);
#ifdef WEFT_HAVE_VIEWER
    weft::python::bind_viewer(m);
#endif
}
