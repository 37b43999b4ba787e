// python/bindings/bindings.h: the entry points of the binding files, one per area, called in
// order from weft_module.cpp. Each file binds one header group of the C++ API and nothing more;
// behaviour that only Python needs (dtype objects, dependency scanning) lives in python/weft/.
#pragma once

#include <pybind11/pybind11.h>

namespace weft::python {

void bind_types(pybind11::module_& m);    // compiler/types.h
void bind_arrays(pybind11::module_& m);   // runtime/array.h
void bind_kernels(pybind11::module_& m);  // compiler/driver.h, runtime/module.h (Module, Kernel), module_cache.h
void bind_launch(pybind11::module_& m);   // runtime/module.h (LaunchArg, launch)
void bind_runtime(pybind11::module_& m);  // runtime/device.h, config.h, cpu/thread_pool.h
void bind_tape(pybind11::module_& m);     // tape/tape.h, checkpoint.h, autograd.h
void bind_streams(pybind11::module_& m);  // runtime/cuda/stream.h, pinned.h
void bind_dlpack(pybind11::module_& m);   // runtime/dlpack.h
void bind_engine(pybind11::module_& m);   // engine/model.h, model_builder.h, the integrators
void bind_smoke(pybind11::module_& m);    // engine/smoke_grid.h, smoke.h (on bind_engine's classes)
void bind_import(pybind11::module_& m);   // engine/urdf_import.h, mjcf_import.h
void bind_audit(pybind11::module_& m);    // compiler/audit/audit.h
void bind_viewer(pybind11::module_& m);   // viewer/script_renderer.h (builds with the viewer only)

}  // namespace weft::python
