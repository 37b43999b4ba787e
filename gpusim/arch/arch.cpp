// gpusim/arch/arch.cpp — ArchSpec from JSON (see arch.h for the rules). The schema is the table in
// read_spec(): one line per key, so the file format and the struct cannot drift apart.
#include "gpusim/arch/arch.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "gpusim/arch/json_reader.h"
#include "gpusim/arch/resolve_arch.h"

namespace weft::gpusim {

// Defined in the generated builtin_arch_data.cpp: {name, json text} pairs, null-terminated.
struct BuiltinArchText {
    const char* name;
    const char* text;
};
extern const BuiltinArchText kBuiltinArchTexts[];

const char* pipe_class_name(PipeClass c) {
    switch (c) {
        case PipeClass::Alu: return "alu";
        case PipeClass::Fma: return "fma";
        case PipeClass::Imad: return "imad";
        case PipeClass::Fp64: return "fp64";
        case PipeClass::Sfu: return "sfu";
        case PipeClass::Conv: return "conv";
        case PipeClass::Branch: return "branch";
        case PipeClass::Shfl: return "shfl";
        case PipeClass::Shared: return "shared";
        case PipeClass::Global: return "global";
        case PipeClass::Local: return "local";
        case PipeClass::Atomic: return "atomic";
        case PipeClass::Barrier: return "barrier";
        case PipeClass::kCount: break;
    }
    return "?";
}

const char* expanded_op_name(ExpandedOp e) {
    switch (e) {
        case ExpandedOp::SqrtF32: return "sqrt_f32";
        case ExpandedOp::RcpF32: return "rcp_f32";
        case ExpandedOp::DivF32: return "div_f32";
        case ExpandedOp::SqrtF64: return "sqrt_f64";
        case ExpandedOp::RcpF64: return "rcp_f64";
        case ExpandedOp::DivF64: return "div_f64";
        case ExpandedOp::DivInt: return "div_int";
        case ExpandedOp::kCount: break;
    }
    return "?";
}

namespace {

class Reader {
public:
    Reader(const JsonValue& root, const std::string& source) : root_(root), source_(source) {
        if (root.kind != JsonValue::Kind::Object) fail(root, "", "the file must hold a JSON object");
    }

    [[noreturn]] void fail(const JsonValue& at, const std::string& key, const std::string& msg) const {
        throw ArchError(source_ + ":" + std::to_string(at.line) + ":" + std::to_string(at.col) +
                        ": error: " + (key.empty() ? "" : "'" + key + "': ") + msg);
    }

    // The value at a dotted path ("l2.size_bytes"); every object on the way must exist.
    const JsonValue& at(const std::string& path) {
        const JsonValue* v = &root_;
        size_t start = 0;
        std::string so_far;
        for (;;) {
            const size_t dot = path.find('.', start);
            const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
            so_far += (so_far.empty() ? "" : ".") + part;
            if (v->kind != JsonValue::Kind::Object) fail(*v, so_far, "expected an object");
            const JsonValue* next = v->find(part);
            if (!next) fail(*v, so_far, "missing key");
            used_.insert(so_far);
            v = next;
            if (dot == std::string::npos) return *v;
            start = dot + 1;
        }
    }

    double number(const std::string& path, double lo, double hi) {
        const JsonValue& v = at(path);
        if (v.kind != JsonValue::Kind::Number)
            fail(v, path, std::string("expected a number, found ") + JsonValue::kind_name(v.kind));
        if (!(v.number >= lo && v.number <= hi) || !std::isfinite(v.number))
            fail(v, path, "value " + fmt(v.number) + " is outside [" + fmt(lo) + ", " + fmt(hi) + "]");
        return v.number;
    }
    int integer(const std::string& path, double lo, double hi) {
        const double d = number(path, lo, hi);
        if (d != std::floor(d)) fail(at(path), path, "expected an integer");
        return static_cast<int>(d);
    }
    int64_t integer64(const std::string& path, double lo, double hi) {
        const double d = number(path, lo, hi);
        if (d != std::floor(d)) fail(at(path), path, "expected an integer");
        return static_cast<int64_t>(d);
    }
    std::string string(const std::string& path) {
        const JsonValue& v = at(path);
        if (v.kind != JsonValue::Kind::String)
            fail(v, path, std::string("expected a string, found ") + JsonValue::kind_name(v.kind));
        return v.string;
    }
    std::vector<int> int_list(const std::string& path, double lo, double hi) {
        const JsonValue& v = at(path);
        if (v.kind != JsonValue::Kind::Array || v.array.empty()) fail(v, path, "expected a non-empty array of integers");
        std::vector<int> out;
        for (const JsonValue& e : v.array) {
            if (e.kind != JsonValue::Kind::Number || e.number != std::floor(e.number) || e.number < lo || e.number > hi)
                fail(e, path, "expected integers in [" + fmt(lo) + ", " + fmt(hi) + "]");
            out.push_back(static_cast<int>(e.number));
        }
        return out;
    }

    // A non-empty array of [x, y] pairs, x increasing within [xlo, xhi], y within [ylo, yhi].
    std::vector<std::pair<double, double>> point_list(const std::string& path, double xlo, double xhi, double ylo, double yhi) {
        const JsonValue& v = at(path);
        if (v.kind != JsonValue::Kind::Array || v.array.empty()) fail(v, path, "expected a non-empty array of [x, y] pairs");
        std::vector<std::pair<double, double>> out;
        for (const JsonValue& e : v.array) {
            if (e.kind != JsonValue::Kind::Array || e.array.size() != 2 || e.array[0].kind != JsonValue::Kind::Number ||
                e.array[1].kind != JsonValue::Kind::Number)
                fail(e, path, "expected an [x, y] pair of numbers");
            const double x = e.array[0].number, y = e.array[1].number;
            if (!(x >= xlo && x <= xhi) || !(y >= ylo && y <= yhi))
                fail(e, path, "expected x in [" + fmt(xlo) + ", " + fmt(xhi) + "] and y in [" + fmt(ylo) + ", " + fmt(yhi) + "]");
            if (!out.empty() && x <= out.back().first) fail(e, path, "x must increase from one pair to the next");
            out.push_back({x, y});
        }
        return out;
    }

    // Every key of the file (objects recursively) must have been read, or start with '_'.
    void check_unknown(const JsonValue& v, const std::string& prefix) {
        for (const auto& [k, child] : v.object) {
            if (!k.empty() && k[0] == '_') continue;
            const std::string path = prefix.empty() ? k : prefix + "." + k;
            if (!used_.count(path)) fail(child, path, "unknown key (keys starting with '_' are comments)");
            if (child.kind == JsonValue::Kind::Object) check_unknown(child, path);
        }
    }
    void check_unknown() { check_unknown(root_, ""); }

private:
    static std::string fmt(double d) {
        std::ostringstream s;
        s << d;
        return s.str();
    }
    const JsonValue& root_;
    const std::string& source_;
    std::set<std::string> used_;
};

ArchSpec read_spec(Reader& r) {
    ArchSpec a;
    a.name = r.string("name");
    a.cc_major = r.integer("compute_capability.major", 3, 20);
    a.cc_minor = r.integer("compute_capability.minor", 0, 9);
    a.sm_count = r.integer("sm.count", 1, 1024);
    a.sm_clock_mhz = r.number("sm.clock_mhz", 100, 10000);
    a.schedulers_per_sm = r.integer("sm.schedulers", 1, 16);
    a.issue_per_scheduler = r.integer("sm.issue_per_scheduler", 1, 4);
    a.max_warps_per_sm = r.integer("sm.max_warps", 1, 256);
    a.max_blocks_per_sm = r.integer("sm.max_blocks", 1, 256);
    a.max_threads_per_sm = r.integer("sm.max_threads", 32, 8192);
    a.max_threads_per_block = r.integer("sm.max_threads_per_block", 32, 4096);
    a.registers_per_sm = r.integer("sm.registers", 1024, 1 << 20);
    a.max_registers_per_block = r.integer("sm.max_registers_per_block", 1024, 1 << 20);
    a.max_registers_per_thread = r.integer("sm.max_registers_per_thread", 16, 1024);
    a.register_alloc_unit = r.integer("sm.register_alloc_unit", 1, 4096);
    a.warp_alloc_granularity = r.integer("sm.warp_alloc_granularity", 1, 64);
    a.l1_shared_bytes = r.integer("shared.l1_shared_bytes", 1024, 1 << 24);
    a.shared_per_sm_max = r.integer("shared.per_sm_max", 0, 1 << 24);
    a.shared_per_block_max = r.integer("shared.per_block_max", 0, 1 << 24);
    a.shared_per_block_default = r.integer("shared.per_block_default", 0, 1 << 24);
    a.shared_reserved_per_block = r.integer("shared.reserved_per_block", 0, 1 << 20);
    a.shared_alloc_unit = r.integer("shared.alloc_unit", 1, 1 << 16);
    a.shared_carveouts_kb = r.int_list("shared.carveouts_kb", 0, 1 << 14);
    a.shared_banks = r.integer("shared.banks", 1, 64);
    a.shared_bank_bytes = r.integer("shared.bank_bytes", 1, 16);
    a.l1_line_bytes = r.integer("l1.line_bytes", 32, 1024);
    a.l1_sector_bytes = r.integer("l1.sector_bytes", 4, 1024);
    a.l1_assoc = r.integer("l1.assoc", 1, 256);
    a.l1_hit_latency = r.number("l1.hit_latency", 1, 10000);
    a.l1_wavefront_bytes = r.integer("l1.wavefront_bytes", 4, 4096);
    a.l2_bytes = r.integer64("l2.size_bytes", 1024, 1e12);
    a.l2_line_bytes = r.integer("l2.line_bytes", 32, 1024);
    a.l2_sector_bytes = r.integer("l2.sector_bytes", 4, 1024);
    a.l2_assoc = r.integer("l2.assoc", 1, 256);
    a.l2_hit_latency = r.number("l2.hit_latency", 1, 100000);
    a.l2_bandwidth_bytes_per_cycle = r.number("l2.bandwidth_bytes_per_cycle", 1, 1e7);
    a.l2_slices = r.integer("l2.slices", 1, 4096);
    a.l2_store_lines_per_cycle = r.number("l2.store_lines_per_cycle", 0.01, 1e5);
    a.l2_atomic_sectors_per_cycle = r.number("l2.atomic_sectors_per_cycle", 0.01, 1e5);
    a.l2_atomic_lane_ops_per_cycle = r.number("l2.atomic_lane_ops_per_cycle", 0.01, 1e6);
    a.l2_atomic_slice_sectors_per_cycle = r.number("l2.atomic_slice_sectors_per_cycle", 0.001, 1e4);
    a.l2_atomic_slice_lines = r.integer("l2.atomic_slice_lines", 1, 1 << 20);
    a.l2_atomic_same_address_cycles = r.number("l2.atomic_same_address_cycles", 0, 1e5);
    a.l2_atomic_same_address_cycles_int = r.number("l2.atomic_same_address_cycles_int", 0, 1e5);
    a.dram_bandwidth_gbs = r.number("dram.bandwidth_gbs", 1, 1e6);
    a.dram_latency = r.number("dram.latency", 0, 100000);
    a.dram_bytes = r.integer64("dram.size_bytes", 0, 1e15);
    a.dram_loaded_latency = r.point_list("dram.loaded_latency", 0, 1, 0, 100000);
    for (int c = 0; c < kNumPipeClasses; ++c) {
        const std::string n = pipe_class_name(static_cast<PipeClass>(c));
        a.pipes[c].latency = r.number("latency." + n, 0, 100000);
        a.pipes[c].issue_cycles = r.number("issue_cycles." + n, 0.25, 1024);
    }
    for (int e = 0; e < kNumExpandedOps; ++e)
        a.expanded_latency[e] =
            r.number(std::string("expanded_latency.") + expanded_op_name(static_cast<ExpandedOp>(e)), 0, 100000);
    a.launch_overhead_cycles = r.number("launch.overhead_cycles", 0, 1e9);
    a.launch_overhead_us = r.number("launch.overhead_us", 0, 1e6);
    a.block_launch_cycles = r.number("launch.block_launch_cycles", 0, 1e6);
    a.block_start_cycles = r.number("launch.block_start_cycles", 0, 1e6);
    a.block_retire_cycles = r.number("launch.block_retire_cycles", 0, 1e6);
    a.barrier_latency = r.number("launch.barrier_latency", 0, 1e6);
    a.pcie_gbs = r.number("interconnect.pcie_gbs", 0, 1e5);
    a.nvlink_gbs = r.number("interconnect.nvlink_gbs", 0, 1e5);
    r.check_unknown();
    // Consistency that the occupancy calculator and caches rely on.
    auto require = [&](bool ok, const std::string& key, const std::string& msg) {
        if (!ok) r.fail(r.at(key), key, msg);
    };
    require(a.l1_sector_bytes <= a.l1_line_bytes && a.l1_line_bytes % a.l1_sector_bytes == 0, "l1.sector_bytes",
            "must divide l1.line_bytes");
    require(a.l2_sector_bytes <= a.l2_line_bytes && a.l2_line_bytes % a.l2_sector_bytes == 0, "l2.sector_bytes",
            "must divide l2.line_bytes");
    require(a.l1_line_bytes / a.l1_sector_bytes <= 32 && a.l2_line_bytes / a.l2_sector_bytes <= 32, "l2.sector_bytes",
            "at most 32 sectors per line");
    require(a.shared_per_sm_max <= a.l1_shared_bytes, "shared.per_sm_max", "exceeds shared.l1_shared_bytes");
    require(a.max_warps_per_sm * 32 >= a.max_threads_per_sm, "sm.max_warps", "must hold sm.max_threads");
    require(a.registers_per_sm % a.schedulers_per_sm == 0, "sm.registers", "must split evenly across sm.schedulers");
    return a;
}

}  // namespace

ArchSpec parse_arch(std::string_view text, const std::string& source) {
    JsonValue root;
    try {
        root = parse_json(text, source);
    } catch (const JsonError& e) { throw ArchError(e.what()); }
    Reader r(root, source);
    return read_spec(r);
}

double ArchSpec::dram_extra_latency(double utilisation) const {
    const auto& p = dram_loaded_latency;
    if (p.empty()) return 0;
    if (utilisation <= p.front().first) return p.front().second;
    for (size_t i = 1; i < p.size(); ++i)
        if (utilisation <= p[i].first) {
            const double t = (utilisation - p[i - 1].first) / (p[i].first - p[i - 1].first);
            return p[i - 1].second + t * (p[i].second - p[i - 1].second);
        }
    return p.back().second;
}

ArchSpec load_arch(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw ArchError(path + ": error: cannot open architecture file");
    std::stringstream s;
    s << f.rdbuf();
    const size_t slash = path.find_last_of('/');
    return parse_arch(s.str(), slash == std::string::npos ? path : path.substr(slash + 1));
}

ArchSpec builtin_arch(std::string_view name) {
    for (const BuiltinArchText* b = kBuiltinArchTexts; b->name; ++b)
        if (name == b->name) return parse_arch(b->text, std::string(b->name) + ".json");
    throw ArchError(unknown_arch_message(std::string(name), builtin_arch_names()));
}

std::vector<std::string> builtin_arch_names() {
    std::vector<std::string> out;
    for (const BuiltinArchText* b = kBuiltinArchTexts; b->name; ++b) out.emplace_back(b->name);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace weft::gpusim
