// python/bindings/kernels.cpp: compiling kernel modules (compiler/driver.h, runtime/module.h) and
// the disk cache's counters (runtime/module_cache.h).
//
// Python hands over a list of source chunks (path, text, line_offset): one per decorated
// function, struct or constant a kernel needs, plus synthetic import lines. The front end runs in
// Module.compile, so a bad kernel raises CompileError (clang-style text) at that call.
#include <pybind11/stl.h>

#include "compiler/driver.h"
#include "python/bindings/bindings.h"
#include "runtime/module.h"
#include "runtime/module_cache.h"

namespace py = pybind11;
using weft::runtime::Kernel;
using weft::runtime::Module;

namespace weft::python {

void bind_kernels(py::module_& m) {
    py::register_exception<compiler::CompileError>(m, "CompileError", PyExc_Exception);

    py::class_<Kernel>(m, "Kernel", "A kernel of a compiled module (keeps its module alive)")
        .def_property_readonly("name", &Kernel::name)
        .def_property_readonly(
            "params",
            [](const Kernel& k) {
                py::list out;
                for (const auto& p : k.info().params) out.append(py::make_tuple(p.name, p.type, p.offset));
                return out;
            },
            "parameters: [(name, type, byte offset in the argument block)]")
        .def_property_readonly("args_size", [](const Kernel& k) { return k.info().args_size; })
        .def_property_readonly(
            "block_dim", [](const Kernel& k) { return k.info().block_dim; }, "0: the launch chooses")
        .def_property_readonly("uses_sync", [](const Kernel& k) { return k.info().uses_sync; })
        .def_property_readonly("uses_warp_sync", [](const Kernel& k) { return k.info().uses_warp_sync; })
        .def_property_readonly("shared_bytes", [](const Kernel& k) { return k.info().shared_bytes; });

    py::class_<Module, std::shared_ptr<Module>>(m, "Module", "A compiled kernel module")
        .def_static(
            "compile",
            [](const std::vector<std::tuple<std::string, std::string, int>>& sources, const std::string& module_key,
               const std::map<std::string, std::vector<const compiler::TypeNode*>>& kernel_arg_types) {
                std::vector<compiler::ModuleSource> src;
                for (const auto& [path, text, line_offset] : sources) src.push_back({path, text, line_offset});
                compiler::CompileOptions options;
                options.module_key = module_key;
                options.kernel_arg_types = kernel_arg_types;
                py::gil_scoped_release unlocked;
                return Module::compile(src, options);
            },
            py::arg("sources"), py::arg("module_key"),
            py::arg("kernel_arg_types") = std::map<std::string, std::vector<const compiler::TypeNode*>>{},
            "Runs the front end now (CompileError on bad source); device code is built on first launch. "
            "sources: [(path, text, line_offset)], the text starting at line line_offset + 1 of path. "
            "kernel_arg_types: {generic kernel name: [Type or None per parameter]}, the instance to compile.")
        .def("kernel", &Module::kernel, "RuntimeError with did-you-mean when missing")
        .def("kernel_names", &Module::kernel_names)
        .def(
            "generated_cpp", [](const Module& mod) { return mod.compiled().gen.cpp; },
            "The C++ translation unit the code generator produced");

    m.def(
        "cache_stats",
        [] {
            runtime::CacheStats s = runtime::cache_stats();
            py::dict d;
            d["hits"] = s.hits;
            d["misses"] = s.misses;
            d["damaged"] = s.damaged;
            return d;
        },
        "Disk-cache counters of this process: hits, misses, damaged");
    m.def("cache_dir", &runtime::cache_dir, "$WEFT_CACHE_DIR (default ~/.cache/weft), created on first use");
    m.def("compiler_version", &compiler::compiler_version);
}

}  // namespace weft::python
