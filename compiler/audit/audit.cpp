// The audit pipeline of one kernel (see audit.h): build the launch model, simulate the blocks the
// block-level checks look at, run every analysis, then sort, deduplicate and apply suppressions.
#include "compiler/audit/audit.h"

#include <algorithm>

namespace weft::compiler::audit {

LaunchModel launch_model(const ir::Function& k, const AuditOptions& options) {
    LaunchModel m;
    m.dims = options.dims;
    m.shapes = options.shapes;
    m.args = options.args;
    m.block_dim = options.block_dim > 0 ? options.block_dim : (k.block_dim > 0 ? k.block_dim : 256);
    m.block_dim = std::clamp(m.block_dim, 1, kMaxBlockDim);
    return m;
}

const CompiledShared* machine_code(const ir::Function& k, const AuditOptions& options) {
    auto it = options.machine_code.find(k.name);
    return it != options.machine_code.end() && it->second.available ? &it->second : nullptr;
}

bool shared_element(const AccessEvent& ev, int t, int64_t* element, uint32_t* sym, const std::vector<int>* shape_override) {
    const std::vector<int>& shape = shape_override ? *shape_override : ev.array->shared_shape;
    int64_t flat = 0;
    uint32_t s = 0;
    for (size_t k = 0; k < ev.indices.size(); ++k) {
        const LaneVal& v = ev.indices[k];
        if (!v.known[static_cast<size_t>(t)]) return false;
        if (v.sym != 0) {
            if (s != 0 && s != v.sym) return false;
            s = v.sym;
        }
        int64_t extent = k < shape.size() ? shape[k] : 1;
        flat = flat * extent + v.off[static_cast<size_t>(t)];
    }
    *element = flat;
    *sym = s;
    return true;
}

void add_call_notes(Finding& f, const std::vector<SourceLoc>& call_sites) {
    for (auto it = call_sites.rbegin(); it != call_sites.rend(); ++it)
        f.notes.push_back({capture_loc(*it), "in the func called at line " + std::to_string(it->display_line())});
}

std::vector<Finding> audit_kernel(const ir::Module& m, const ir::Function& k, const AuditOptions& options, std::string* dot) {
    LaunchModel launch = launch_model(k, options);
    std::vector<Trace> traces;
    traces.push_back(simulate_block(k, launch, 0));
    int64_t blocks = launch.block_count();
    if (blocks > 1) traces.push_back(simulate_block(k, launch, blocks - 1));
    if (dot) *dot = sync_graph_dot(k, traces.front());

    std::vector<Finding> all;
    auto add = [&](std::vector<Finding> fs) {
        for (auto& f : fs) {
            f.kernel = k.name;
            all.push_back(std::move(f));
        }
    };
    add(audit_bounds(k, launch));
    add(audit_divergence(k, traces));
    add(audit_barriers(k, traces));
    add(audit_warp_sync(k, traces));
    add(audit_races(k, traces));
    add(audit_bank_conflicts(k, traces, machine_code(k, options), options.no_machine_code));
    add(audit_coalescing(k, launch, traces));
    add(audit_constants(m, k, options.max_constant_bytes));
    if (!options.keep_suppressed)
        all.erase(std::remove_if(all.begin(), all.end(), [](const Finding& f) { return is_suppressed(f); }), all.end());
    sort_and_dedupe(all);
    return all;
}

}  // namespace weft::compiler::audit
