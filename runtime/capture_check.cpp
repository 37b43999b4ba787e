// runtime/capture_check.cpp: see capture_check.h.
#include "runtime/capture_check.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include "runtime/array.h"
#include "runtime/errors.h"
#include "runtime/memory_stats.h"

namespace weft::runtime {

namespace {

// One capture or CaptureCheck of this thread: its device and the deferred checks it registered.
struct Frame {
    Device device;
    bool checker = false;  // a CaptureCheck (else a CUDA capture)
    std::vector<std::shared_ptr<DeferredCheck>> checks;
};
thread_local std::vector<Frame> tls_frames;

// Allocations made while a CaptureCheck was active: pointer -> what (for end()'s message), with
// the device of the check. Guarded: an array may be freed on another thread.
struct CheckedAllocations {
    std::mutex mu;
    std::map<void*, std::pair<std::string, std::string>> live;  // p -> (device, description)
};
CheckedAllocations& checked_allocations() {
    static CheckedAllocations* c = new CheckedAllocations();  // never destroyed: arrays die at exit
    return *c;
}

// Deferred checks whose replay ran, per device, until the next synchronising point. Held strongly:
// a CaptureCheck's checks outlive the check itself (its work ran already), and a check owns what it
// reads (the status memory), so it may run after its graph is gone.
struct Pending {
    std::mutex mu;
    std::map<std::string, std::vector<std::shared_ptr<DeferredCheck>>> by_device;
    std::atomic<int> count{0};
};
Pending& pending() {
    static Pending* p = new Pending();
    return *p;
}

thread_local bool tls_running_checks = false;

}  // namespace

// ---- capturing ------------------------------------------------------------------------------

bool capture_checked(const Device& d) {
    for (const Frame& f : tls_frames)
        if (f.checker && f.device == d) return true;
    return false;
}

bool capturing(const Device& d) {
    if (tls_frames.empty()) return false;  // the common case: one thread-local load
    if (capture_checked(d)) return true;
    return d.kind == DeviceKind::Cuda && backend(d).capturing();
}

void refuse_in_capture(const Device& d, const std::string& what, const std::string& why) {
    if (!capturing(d)) return;
    throw RuntimeError(what + " during a graph capture on " + d.str() + ": " + why +
                       " (docs/autodiff.md, \"Capturing a backward pass\")");
}

// ---- CaptureCheck ---------------------------------------------------------------------------

CaptureCheck::CaptureCheck(const Device& device) : device_(device) { tls_frames.push_back({device, true, {}}); }

CaptureCheck::~CaptureCheck() {
    if (ended_) return;
    try {
        end();
    } catch (...) {}
}

void CaptureCheck::end() {
    if (ended_) return;
    ended_ = true;
    std::vector<std::shared_ptr<DeferredCheck>> checks;
    for (size_t i = tls_frames.size(); i-- > 0;)
        if (tls_frames[i].checker && tls_frames[i].device == device_) {
            checks = std::move(tls_frames[i].checks);
            tls_frames.erase(tls_frames.begin() + static_cast<long>(i));
            break;
        }
    // The work ran as it was recorded: its status words hold this run's results.
    CaptureKeep{device_, checks}.mark_pending();
    if (capture_checked(device_)) return;  // an outer check of the same device reports allocations
    std::string alive;
    {
        CheckedAllocations& c = checked_allocations();
        std::lock_guard<std::mutex> lock(c.mu);
        for (auto it = c.live.begin(); it != c.live.end();) {
            if (it->second.first != device_.str()) {
                ++it;
                continue;
            }
            if (alive.empty()) alive = it->second.second;
            it = c.live.erase(it);
        }
    }
    if (!alive.empty())
        throw RuntimeError("capture check on " + device_.str() + ": " + alive +
                           " was allocated during the capture and is still alive at its end; a CUDA graph would hold it "
                           "as a graph allocation, and the graph could not be replayed again while it lives. Allocate it "
                           "before capturing");
}

void note_capture_allocation(const Device& d, void* p, const std::string& what) {
    if (tls_frames.empty() || !capture_checked(d)) return;
    CheckedAllocations& c = checked_allocations();
    std::lock_guard<std::mutex> lock(c.mu);
    c.live[p] = {d.str(), what};
}

void note_capture_free(void* p) {
    CheckedAllocations& c = checked_allocations();
    std::lock_guard<std::mutex> lock(c.mu);
    if (!c.live.empty()) c.live.erase(p);
}

// ---- deferred checks ------------------------------------------------------------------------

void CaptureKeep::mark_pending() const {
    if (checks.empty()) return;
    Pending& p = pending();
    std::lock_guard<std::mutex> lock(p.mu);
    auto& list = p.by_device[device.str()];
    for (const auto& c : checks) list.push_back(c);
    p.count.fetch_add(static_cast<int>(checks.size()), std::memory_order_release);
}

bool defer_check(const Device& d, std::function<std::string()> check) {
    for (size_t i = tls_frames.size(); i-- > 0;)
        if (tls_frames[i].device == d) {
            tls_frames[i].checks.push_back(std::make_shared<DeferredCheck>(DeferredCheck{std::move(check)}));
            return true;
        }
    return false;
}

void open_capture_frame(const Device& d) { tls_frames.push_back({d, false, {}}); }

CaptureKeep close_capture_frame(const Device& d) {
    CaptureKeep keep{d, {}};
    for (size_t i = tls_frames.size(); i-- > 0;)
        if (!tls_frames[i].checker && tls_frames[i].device == d) {
            keep.checks = std::move(tls_frames[i].checks);
            tls_frames.erase(tls_frames.begin() + static_cast<long>(i));
            break;
        }
    return keep;
}

void run_deferred_checks(const Device& d) {
    Pending& p = pending();
    if (p.count.load(std::memory_order_acquire) == 0 || tls_running_checks || capturing(d)) return;
    std::vector<std::shared_ptr<DeferredCheck>> due;
    {
        std::lock_guard<std::mutex> lock(p.mu);
        auto it = p.by_device.find(d.str());
        if (it == p.by_device.end()) return;
        due = std::move(it->second);
        p.by_device.erase(it);
        p.count.fetch_sub(static_cast<int>(due.size()), std::memory_order_release);
    }
    tls_running_checks = true;  // the checks read status words back: no recursion into them
    std::string problem;
    try {
        for (const auto& c : due)
            if (problem.empty()) problem = c->check();
    } catch (...) {
        tls_running_checks = false;
        throw;
    }
    tls_running_checks = false;
    if (!problem.empty()) throw RuntimeError(problem);
}

// ---- uncaptured memory ----------------------------------------------------------------------

Array zeros_outside_capture(compiler::Type dtype, const std::vector<int64_t>& shape, const Device& device) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    const size_t bytes = std::max<size_t>(static_cast<size_t>(n) * compiler::type_size(dtype), 1);
    DeviceBackend& be = backend(device);
    void* p = be.allocate_outside_capture(bytes);
    note_allocated(bytes);
    std::shared_ptr<void> owner(p, [&be, bytes](void* q) {
        be.free_outside_capture(q);
        note_freed(bytes);
    });
    std::vector<int64_t> strides(shape.size());
    int64_t stride = static_cast<int64_t>(compiler::type_size(dtype));
    for (size_t k = shape.size(); k-- > 0;) {
        strides[k] = stride;
        stride *= shape[k];
    }
    Array a = Array::wrap(p, dtype, shape, strides, device, std::move(owner));
    a.zero_unrecorded();  // on the stream: a capture records it, so each replay starts from zero
    return a;
}

}  // namespace weft::runtime
