// python/bindings/audit.cpp: the static kernel audit (compiler/audit/audit.h) for wp.audit. The
// findings cross as dicts; their clang-style text is included so Python prints what `weft audit`
// prints. The resources check (ptxas) is the command line's (apps/cmd_audit.cpp).
#include <pybind11/stl.h>

#include "compiler/audit/audit.h"
#include "python/bindings/bindings.h"
#include "runtime/errors.h"
#include "runtime/module.h"

namespace py = pybind11;

namespace weft::python {

void bind_audit(py::module_& m) {
    m.def(
        "audit",
        [](const runtime::Kernel& k, const std::vector<int64_t>& dims, const std::map<std::string, std::vector<int64_t>>& shapes,
           const std::map<std::string, int64_t>& args, int block_dim, int64_t max_constant_bytes) {
            const compiler::CompiledModule& cm = k.module()->compiled();
            if (!cm.ir) throw runtime::RuntimeError("audit: the module of kernel '" + k.name() + "' has no IR");
            const compiler::ir::Function* f = cm.ir->find(k.name());
            if (!f) throw runtime::RuntimeError("audit: kernel '" + k.name() + "' not found in its module's IR");
            compiler::audit::AuditOptions o;
            o.dims = dims;
            o.shapes = shapes;
            o.args = args;
            o.block_dim = block_dim;
            o.max_constant_bytes = max_constant_bytes;
            std::vector<compiler::audit::Finding> fs;
            {
                py::gil_scoped_release unlocked;
                fs = compiler::audit::audit_kernel(*cm.ir, *f, o);
            }
            py::list out;
            for (const auto& x : fs) {
                py::dict d;
                d["check"] = compiler::audit::check_id(x.check);
                d["severity"] = compiler::audit::severity_name(x.severity);
                d["kernel"] = x.kernel;
                d["path"] = x.loc.path;
                d["line"] = x.loc.line;
                d["col"] = x.loc.col;
                d["message"] = x.message;
                py::list notes;
                for (const auto& n : x.notes) notes.append(n.message);
                d["notes"] = notes;
                d["text"] = compiler::audit::format_text(x);
                out.append(d);
            }
            return out;
        },
        py::arg("kernel"), py::arg("dims"), py::arg("shapes"), py::arg("args"), py::arg("block_dim") = 0,
        py::arg("max_constant_bytes") = 64,
        "Findings of the static audit of a kernel: [{check, severity, kernel, path, line, col, message, notes, text}]");
}

}  // namespace weft::python
