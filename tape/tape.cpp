// The Tape. See tape.h.
#include "tape/tape.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>

#include "compiler/diagnostics.h"
#include "runtime/capture_check.h"
#include "runtime/errors.h"
#include "runtime/write_versions.h"

namespace weft::tape {

using runtime::Array;
using runtime::RuntimeError;

namespace {

// The byte range an array's elements span, and the allocation it belongs to. Two arrays alias
// when they share an allocation and their ranges overlap (views of one buffer do).
struct Span {
    const void* owner;
    uintptr_t lo, hi;
};

Span span_of(const Array& a) {
    uintptr_t lo = reinterpret_cast<uintptr_t>(a.data()), hi = lo;
    if (a.size() > 0) {
        int64_t neg = 0, pos = 0;
        for (int k = 0; k < a.ndim(); ++k) {
            int64_t ext = (a.shape(k) - 1) * a.strides()[static_cast<size_t>(k)];
            (ext < 0 ? neg : pos) += ext;
        }
        lo = static_cast<uintptr_t>(static_cast<int64_t>(lo) + neg);
        hi = static_cast<uintptr_t>(static_cast<int64_t>(hi) + pos) + a.element_size();
    }
    return {a.owner() ? a.owner().get() : a.data(), lo, hi};
}

bool overlap(const Span& a, const Span& b) { return a.owner == b.owner && a.lo < b.hi && b.lo < a.hi; }

bool has_float_gradient(const Array& a) {
    return a.valid() && !compiler::is_struct(a.dtype()) && compiler::is_float_kind(a.dtype()->scalar);
}

std::string where_of(const runtime::Kernel& k) {
    const compiler::SourceLoc& loc = k.info().loc;
    if (!loc.valid()) return "";
    return " (" + loc.file->path + ":" + std::to_string(loc.display_line()) + ")";
}

// A flat view of an array's scalars: `n` components of its scalar type. Gradient arrays are
// contiguous (they are created so); user arrays given as seeds are copied to a contiguous one first.
Array flat_scalars(const Array& a) {
    int64_t n = a.size() * compiler::component_count(a.dtype());
    compiler::Type s = compiler::scalar_type(a.dtype()->scalar);
    return Array::wrap(a.data(), s, {n}, {static_cast<int64_t>(compiler::type_size(s))}, a.device(), a.owner());
}

// The element-wise sum kernels, one module for all scalar types, compiled on first use.
runtime::Kernel accumulate_kernel(compiler::ScalarKind s) {
    static std::mutex mu;
    static std::shared_ptr<runtime::Module> module;
    std::lock_guard<std::mutex> lock(mu);
    if (!module) {
        const char* text =
            "import weft as wp\n"
            "\n"
            "@wp.kernel(enable_backward=False)\n"
            "def accumulate_float16(dst: wp.array(dtype=wp.float16), src: wp.array(dtype=wp.float16)):\n"
            "    i = wp.tid()\n"
            "    dst[i] = dst[i] + src[i]\n"
            "\n"
            "@wp.kernel(enable_backward=False)\n"
            "def accumulate_float32(dst: wp.array(dtype=wp.float32), src: wp.array(dtype=wp.float32)):\n"
            "    i = wp.tid()\n"
            "    dst[i] = dst[i] + src[i]\n"
            "\n"
            "@wp.kernel(enable_backward=False)\n"
            "def accumulate_float64(dst: wp.array(dtype=wp.float64), src: wp.array(dtype=wp.float64)):\n"
            "    i = wp.tid()\n"
            "    dst[i] = dst[i] + src[i]\n";
        module = runtime::Module::compile({{"<weft tape: gradient sums>", text}});
    }
    return module->kernel("accumulate_" + std::string(compiler::scalar_name(s)));
}

}  // namespace

void accumulate(Array& grad, const Array& other) {
    if (!has_float_gradient(grad) || grad.dtype() != other.dtype() || grad.shape() != other.shape())
        throw RuntimeError("cannot add " + other.describe() + " into the gradient " + grad.describe() +
                           ": gradients are float arrays of one dtype and shape");
    if (!grad.is_contiguous()) throw RuntimeError("gradient " + grad.describe() + " is not contiguous");
    Array src = other;
    if (!src.is_contiguous() || src.device() != grad.device()) {
        src = Array::empty(other.dtype(), other.shape(), grad.device());
        src.assign_unrecorded(other);
    }
    Array d = flat_scalars(grad), s = flat_scalars(src);
    runtime::LaunchOptions o;
    o.device = grad.device();
    o.record_tape = false;
    runtime::launch(accumulate_kernel(grad.dtype()->scalar), {d.size()}, {runtime::LaunchArg::of(d), runtime::LaunchArg::of(s)},
                    o);
}

std::string Record::describe() const {
    switch (kind) {
        case Launch: return "launch of kernel '" + kernel.name() + "'" + where_of(kernel);
        case Copy: return "copy into " + dst.describe();
        case Overwrite: return operation + " of " + dst.describe();
        case Func: return "recorded function '" + name + "'";
    }
    return "?";
}

void Tape::on_launch(const runtime::Kernel& k, const std::vector<int64_t>& dim, const std::vector<runtime::LaunchArg>& args,
                     const runtime::LaunchOptions& options) {
    Record r;
    r.kind = Record::Launch;
    r.kernel = k;
    r.dim = dim;
    r.args = args;
    r.options = options;
    r.accesses = launch_accesses(k, args);
    push(std::move(r));
}

void Tape::on_copy(const Array& dst, const Array& src) {
    Record r;
    r.kind = Record::Copy;
    r.dst = dst;
    r.src = src;
    r.accesses.push_back({src, "source", true, false});
    r.accesses.push_back({dst, "destination", false, true});
    push(std::move(r));
}

void Tape::on_overwrite(const Array& dst, const char* operation) {
    Record r;
    r.kind = Record::Overwrite;
    r.dst = dst;
    r.operation = operation;
    r.accesses.push_back({dst, "array", false, true});
    push(std::move(r));
}

void Tape::record_func(const std::string& name, std::function<void()> backward, std::vector<Access> accesses) {
    Record r;
    r.kind = Record::Func;
    r.name = name;
    r.backward = std::move(backward);
    r.accesses = std::move(accesses);
    push(std::move(r));
}

Tape::~Tape() {
    for (const auto& [allocation, v] : expected_) runtime::unwatch_writes(allocation);
}

void Tape::push(Record r) {
    // Per allocation: did this record write it (then a version change since the last record is
    // this record's own doing, or merged into it), or only read it (then it is an outside write)?
    std::unordered_map<const void*, std::pair<bool, const Access*>> touched;
    for (const Access& a : r.accesses) {
        if (!a.array.valid()) continue;
        auto& t = touched[runtime::allocation_of(a.array)];
        t.first |= a.written;
        if (!t.second) t.second = &a;
    }
    for (const auto& [allocation, t] : touched) {
        auto it = expected_.find(allocation);
        runtime::WriteVersion v = runtime::write_version(allocation);
        if (it == expected_.end()) {
            runtime::watch_writes(allocation);
            expected_[allocation] = runtime::write_version(allocation).version;
            continue;
        }
        if (v.version != it->second && !t.first) foreign_.push_back({allocation, records_.size(), v.last, t.second->array, 0});
        it->second = v.version;
    }
    records_.push_back(std::move(r));
}

std::vector<Tape::OutsideWrite> Tape::outside_writes() const {
    std::vector<OutsideWrite> out = foreign_;
    for (const auto& [allocation, version] : expected_) {
        runtime::WriteVersion v = runtime::write_version(allocation);
        if (v.version == version) continue;
        Array array;      // the first access of it, for the message
        size_t last = 0;  // the last record that touched it: the write came after
        for (size_t j = 0; j < records_.size(); ++j)
            for (const Access& a : records_[j].accesses)
                if (a.array.valid() && runtime::allocation_of(a.array) == allocation) {
                    if (!array.valid()) array = a.array;
                    last = j;
                }
        out.push_back({allocation, records_.size(), v.last, array, last});
    }
    return out;
}

std::string Tape::check_outside_writes() const {
    for (const OutsideWrite& w : outside_writes())
        for (size_t j = 0; j < w.before_record && j < records_.size(); ++j)
            for (const Access& a : records_[j].accesses) {
                if (!a.read || !a.array.valid() || runtime::allocation_of(a.array) != w.allocation) continue;
                std::string when =
                    w.before_record < records_.size()
                        ? "before record " + std::to_string(w.before_record) + " (" + records_[w.before_record].describe() + ")"
                        : "after record " + std::to_string(w.last_use) + ", its last use on the tape";
                return "the tape cannot be differentiated: " + a.array.describe() + " was read by " + records_[j].describe() +
                       " (" + a.label + ", record " + std::to_string(j) + ") and then overwritten outside the tape by " +
                       (w.what.empty() ? std::string("a write") : w.what) + ", " + when +
                       "; the backward pass of the first would see the new values. Record that write on the tape, or "
                       "write to a new array instead";
            }
    return "";
}

void Tape::refresh_versions() {
    for (auto& [allocation, version] : expected_) version = runtime::write_version(allocation).version;
}

std::vector<Tape::Conflict> Tape::conflicts(bool first_only) const {
    struct Read {
        Span span;
        size_t record;
        const Access* access;
    };
    std::vector<Conflict> out;
    std::unordered_map<const void*, std::vector<Read>> reads;  // by allocation
    for (size_t j = 0; j < records_.size(); ++j) {
        const Record& w = records_[j];
        for (const Access& a : w.accesses) {
            if (!a.written) continue;
            Span s = span_of(a.array);
            auto it = reads.find(s.owner);
            if (it == reads.end()) continue;
            for (const Read& r : it->second) {
                if (r.record == j || !overlap(r.span, s)) continue;
                out.push_back({r.record, r.access, j, &a});
                if (first_only) return out;
            }
        }
        for (const Access& a : w.accesses)
            if (a.read) {
                Span s = span_of(a.array);
                reads[s.owner].push_back({s, j, &a});
            }
    }
    return out;
}

std::string Tape::check_overwrites() const {
    std::vector<Conflict> c = conflicts(true);
    if (c.empty()) return check_outside_writes();
    const Record& rd = records_[c[0].reader];
    const Record& w = records_[c[0].writer];
    return "the tape cannot be differentiated: " + c[0].write->array.describe() + " was read by " + rd.describe() + " (" +
           c[0].read->label + ", record " + std::to_string(c[0].reader) + ") and then overwritten by " + w.describe() + " (" +
           c[0].write->label + ", record " + std::to_string(c[0].writer) +
           "); the backward pass of the first would see the new values. Write the later result to a "
           "new array (for example one state per step) instead of reusing this one";
}

void Tape::backward(const Array& loss) {
    if (!loss.valid()) throw RuntimeError("tape.backward: the loss is an empty array handle");
    backward(loss, {});
}

void Tape::backward(const std::vector<std::pair<Array, Array>>& grads) { backward(Array(), grads); }

void Tape::backward(const Array& loss, const std::vector<std::pair<Array, Array>>& grads) {
    // `loss` invalid: no loss (only seeds).
    if (loss.valid()) {
        if (loss.size() != 1 || !compiler::is_float(loss.dtype()))
            throw RuntimeError("tape.backward: the loss must be one float element; got " + loss.describe() +
                               " (seed other outputs with backward(grads={array: gradient}))");
        if (!loss.grad())
            throw RuntimeError("tape.backward: the loss " + loss.describe() +
                               " has no gradient; create it with requires_grad=True");
        bool recorded = false;
        Span ls = span_of(loss);
        for (const Record& r : records_)
            for (const Access& a : r.accesses) recorded |= a.written && a.array.valid() && overlap(span_of(a.array), ls);
        if (!recorded)
            throw RuntimeError("tape.backward: the loss " + loss.describe() + " was not written by any record of this tape (" +
                               std::to_string(records_.size()) +
                               " records): its gradient would reach nothing and every gradient would stay zero. Compute the "
                               "loss while the tape records (inside `with wp.Tape()`)");
    }
    for (const auto& [a, g] : grads) {
        if (!a.valid() || !g.valid()) throw RuntimeError("tape.backward: grads holds an empty array handle");
        if (!a.grad())
            throw RuntimeError("tape.backward: " + a.describe() + " has no gradient to seed; create it with requires_grad=True");
        if (g.dtype() != a.dtype() || g.shape() != a.shape())
            throw RuntimeError("tape.backward: the seed " + g.describe() + " does not match " + a.describe() +
                               " (same dtype and shape expected)");
    }
    std::string problem = check_overwrites();
    if (!problem.empty()) throw RuntimeError(problem);
    for (const auto& [a, g] : grads) a.grad()->assign_unrecorded(g);
    if (loss.valid()) {
        std::byte one[8];
        if (loss.dtype()->scalar == compiler::ScalarKind::Float64) {
            double v = 1.0;
            std::memcpy(one, &v, 8);
        } else if (loss.dtype()->scalar == compiler::ScalarKind::Float32) {
            float v = 1.0f;
            std::memcpy(one, &v, 4);
        } else {
            uint16_t v = 0x3c00;  // 1.0 in IEEE half precision
            std::memcpy(one, &v, 2);
        }
        loss.grad()->fill_unrecorded(one);
    }
    run_backward();
}

namespace {

// The status words of a backward pass's launches (LaunchOptions::adjoint_status): chunks of
// device memory handed out 4 words at a time, read back and checked once at the end of the pass.
// A pass recorded into a graph (runtime/capture_check.h) cannot read them back: its chunks are
// memory outside the graph, zeroed by a memset the graph replays, and the pass leaves a deferred
// check with the capture that reads them after each replay, at the next synchronising point.
class StatusPool {
public:
    runtime::Array take(const runtime::Kernel& k, const runtime::Device& d) {
        const std::string key = d.str();
        auto it = current_.find(key);
        if (it == current_.end() || used_[it->second] + 4 > chunks_[it->second].size()) {
            chunks_.push_back(runtime::capturing(d) ? runtime::zeros_outside_capture(compiler::int32_type(), {kChunkWords}, d)
                                                    : runtime::Array::zeros(compiler::int32_type(), {kChunkWords}, d));
            used_.push_back(0);
            current_[key] = chunks_.size() - 1;
            it = current_.find(key);
        }
        const size_t c = it->second;
        runtime::Array& chunk = chunks_[c];
        auto* words = static_cast<int32_t*>(chunk.data()) + used_[c];
        taken_.push_back({k, c, used_[c]});
        used_[c] += 4;
        return runtime::Array::wrap(words, compiler::int32_type(), {4}, {4}, d, chunk.owner());
    }
    // True when a chunk's device is recording a graph (or under a capture check): its words are
    // written when the graph is replayed, so there is nothing to read yet (a read would end the
    // capture).
    bool capturing() const {
        for (const runtime::Array& c : chunks_)
            if (runtime::capturing(c.device())) return true;
        return false;
    }
    // The error of the first launch (in the order they were handed out) that overflowed, or "".
    std::string problem() const {
        std::vector<std::vector<int32_t>> host(chunks_.size());
        for (size_t c = 0; c < chunks_.size(); ++c) {
            host[c].resize(static_cast<size_t>(chunks_[c].size()));
            chunks_[c].copy_to_host(host[c].data(), host[c].size() * sizeof(int32_t));
        }
        for (const Taken& t : taken_) {
            std::string problem = runtime::adjoint_overflow_message(t.kernel, host[t.chunk].data() + t.offset);
            if (!problem.empty()) return problem;
        }
        return "";
    }
    void check() const {
        std::string p = problem();
        if (!p.empty()) throw RuntimeError(p);
    }
    // Leaves the check of `pool` (this pool, captured) with the capture of each device it used.
    static void defer(const std::shared_ptr<StatusPool>& pool) {
        std::vector<runtime::Device> devices;
        for (const runtime::Array& c : pool->chunks_)
            if (std::find(devices.begin(), devices.end(), c.device()) == devices.end()) devices.push_back(c.device());
        for (const runtime::Device& d : devices)
            runtime::defer_check(d, [pool]() {
                std::string p = pool->problem();
                return p.empty() ? p : p + " (found after a replay of a captured backward pass)";
            });
    }
    // Makes a pool the one deferred_adjoint_status draws from on this thread, for a scope.
    struct Active {
        explicit Active(StatusPool* p) : previous(current()) { current() = p; }
        ~Active() { current() = previous; }
        StatusPool* previous;
    };
    static StatusPool*& current() {
        thread_local StatusPool* pool = nullptr;
        return pool;
    }

private:
    static constexpr int64_t kChunkWords = 4096;
    struct Taken {
        runtime::Kernel kernel;
        size_t chunk;
        int64_t offset;
    };
    std::vector<runtime::Array> chunks_;
    std::vector<int64_t> used_;
    std::map<std::string, size_t> current_;  // device -> chunk being filled
    std::vector<Taken> taken_;
};

}  // namespace

runtime::Array deferred_adjoint_status(const runtime::Kernel& k, const runtime::Device& device) {
    StatusPool* pool = StatusPool::current();
    return pool ? pool->take(k, device) : runtime::Array();
}

std::vector<Access> launch_accesses(const runtime::Kernel& k, const std::vector<runtime::LaunchArg>& args) {
    std::vector<Access> out;
    const auto& params = k.info().params;
    for (size_t i = 0; i < args.size() && i < params.size(); ++i) {
        // Arrays held in a struct argument's fields: read (what the kernel does with them is not
        // tracked per field; counting them as written would refuse every rollout that passes
        // the same struct twice).
        for (const auto& [offset, held] : args[i].held)
            out.push_back({held, "an array field of argument '" + params[i].name + "'", true, false});
        if (args[i].kind != runtime::LaunchArg::ArrayArg) continue;
        if (!params[i].read && !params[i].written) continue;
        out.push_back({args[i].array, "argument '" + params[i].name + "'", params[i].read, params[i].written});
    }
    return out;
}

void Tape::run_backward() {
    // A copy or overwrite ends the life of the value an EARLIER record wrote into the same memory:
    // that record's adjoint must not see the gradient of the new value, so it is zeroed when the
    // reverse pass passes the overwrite. When nothing earlier wrote there (the usual case: an
    // initial state set from the host), the gradient stays for the user to read, as in Warp.
    std::vector<bool> ends_value(records_.size(), false);
    {
        std::unordered_map<const void*, std::vector<Span>> written;
        for (size_t j = 0; j < records_.size(); ++j) {
            const Record& r = records_[j];
            if (r.kind == Record::Copy || r.kind == Record::Overwrite) {
                Span s = span_of(r.dst);
                for (const Span& w : written[s.owner]) ends_value[j] = ends_value[j] || overlap(w, s);
            }
            for (const Access& a : r.accesses)
                if (a.written) {
                    Span s = span_of(a.array);
                    written[s.owner].push_back(s);
                }
        }
    }
    runtime::ScopedRecorder suspend(nullptr);  // nothing the backward pass does is recorded
    // Each backward launch reports a per-thread-tape overflow into its own 4 words of a status
    // pool read back once after the pass (not after every launch: a rollout's backward is
    // hundreds of small launches, and a read-back each is a synchronisation each). The launches
    // of record_func callbacks draw from the same pool (deferred_adjoint_status).
    auto pool = std::make_shared<StatusPool>();  // shared: a captured pass's deferred check keeps it
    StatusPool::Active active(pool.get());
    for (size_t n = records_.size(); n-- > 0;) {
        Record& r = records_[n];
        switch (r.kind) {
            case Record::Launch: {
                if (!r.kernel.info().has_backward) {
                    // A kernel without an adjoint is fine when no gradient flows through it.
                    bool any = false;
                    for (const Access& a : r.accesses) any |= a.written && a.array.grad() != nullptr;
                    if (!any) break;
                }
                runtime::LaunchOptions o = r.options;
                o.adjoint = true;
                o.record_tape = false;
                o.adjoint_status = pool->take(r.kernel, o.device);
                runtime::launch(r.kernel, r.dim, r.args, o);
                break;
            }
            case Record::Copy:
                if (r.dst.grad()) {
                    if (r.src.grad() && has_float_gradient(r.src)) accumulate(*r.src.grad(), *r.dst.grad());
                    if (ends_value[n]) r.dst.grad()->zero_unrecorded();
                }
                break;
            case Record::Overwrite:
                if (r.dst.grad() && ends_value[n]) r.dst.grad()->zero_unrecorded();
                break;
            case Record::Func:
                if (r.backward) r.backward();
                break;
        }
    }
    // A backward pass captured into a graph cannot read its status words back now: the graph
    // keeps a deferred check that reads them after each replay (docs/autodiff.md, "Capturing a
    // backward pass").
    if (pool->capturing())
        StatusPool::defer(pool);
    else
        pool->check();
    refresh_versions();  // what the pass itself wrote (checkpoints recompute their segments) is not an outside write
}

std::vector<std::pair<Array, Array>> Tape::gradients() const {
    std::vector<std::pair<Array, Array>> out;
    std::vector<Span> seen;
    for (const Record& r : records_)
        for (const Access& a : r.accesses) {
            if (!a.array.grad()) continue;
            Span s = span_of(a.array);
            bool dup = false;
            for (const Span& t : seen) dup |= t.owner == s.owner && t.lo == s.lo && t.hi == s.hi;
            if (dup) continue;
            seen.push_back(s);
            out.emplace_back(a.array, *a.array.grad());
        }
    return out;
}

void Tape::zero() {
    for (auto& [a, g] : gradients()) g.zero_unrecorded();
}

void Tape::reset() {
    zero();
    records_.clear();
    for (const auto& [allocation, v] : expected_) runtime::unwatch_writes(allocation);
    expected_.clear();
    foreign_.clear();
}

std::string Tape::dot() const {
    // Array nodes are keyed by span; each is labelled by its first use.
    std::vector<std::pair<Span, std::string>> arrays;
    auto node_of = [&](const Access& a) {
        Span s = span_of(a.array);
        for (size_t i = 0; i < arrays.size(); ++i)
            if (arrays[i].first.owner == s.owner && arrays[i].first.lo == s.lo && arrays[i].first.hi == s.hi) return i;
        arrays.emplace_back(s, a.label + "\\n" + a.array.describe());
        return arrays.size() - 1;
    };
    auto quote = [](std::string s) {
        std::string o;
        for (char c : s) {
            if (c == '"')
                o += "\\\"";
            else
                o += c;
        }
        return o;
    };
    std::ostringstream edges;
    std::ostringstream nodes;
    std::string problem = check_overwrites();
    for (size_t j = 0; j < records_.size(); ++j) {
        const Record& r = records_[j];
        std::string shape = r.kind == Record::Launch ? "box" : r.kind == Record::Func ? "component" : "cds";
        std::string label = std::to_string(j) + ": " + r.describe();
        if (r.kind == Record::Launch) {
            label += "\\ndim=(";
            for (size_t k = 0; k < r.dim.size(); ++k) label += (k ? "," : "") + std::to_string(r.dim[k]);
            label += ")";
        }
        nodes << "  r" << j << " [shape=" << shape << ", label=\"" << quote(label) << "\"];\n";
        for (const Access& a : r.accesses) {
            size_t n = node_of(a);
            if (a.read) edges << "  a" << n << " -> r" << j << ";\n";
            if (a.written) edges << "  r" << j << " -> a" << n << ";\n";
        }
    }
    // Conflicting overwrites: a red dashed edge from the reading record to the overwriting one.
    for (const Conflict& c : conflicts(false))
        edges << "  r" << c.reader << " -> r" << c.writer << " [color=red, style=dashed, label=\"overwrites "
              << quote(c.read->label) << "\"];\n";
    std::ostringstream os;
    os << "digraph tape {\n  rankdir=LR;\n  node [fontname=\"monospace\", fontsize=10];\n";
    if (!problem.empty()) os << "  label=\"" << quote(problem) << "\";\n  fontcolor=red;\n";
    os << nodes.str();
    for (size_t i = 0; i < arrays.size(); ++i)
        os << "  a" << i << " [shape=ellipse, label=\"" << quote(arrays[i].second) << "\"];\n";
    os << edges.str() << "}\n";
    return os.str();
}

void Tape::visualize(const std::string& path) const {
    std::string text = dot();
    std::ofstream f(path, std::ios::binary);
    if (!f) throw RuntimeError("tape.visualize: cannot write '" + path + "'");
    f << text;
    if (!f) throw RuntimeError("tape.visualize: writing '" + path + "' failed");
}

}  // namespace weft::tape
