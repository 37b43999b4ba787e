// runtime/kernel_timing.cpp: see kernel_timing.h. One process-wide log guarded by a mutex;
// entries are dropped when the last scope ends (so a long run without a profiler keeps nothing).
#include "runtime/kernel_timing.h"

#include <atomic>
#include <deque>
#include <mutex>

namespace weft::runtime {

namespace {

struct Entry {
    KernelTime time;
    std::function<double(bool)> resolve;  // null once the time is known
};

struct Log {
    std::mutex mu;
    std::deque<Entry> entries;  // sequence order
    uint64_t sequence = 0;
    int scopes = 0;
};

Log& log() {
    static Log l;
    return l;
}

std::atomic<int> active_scopes{0};

void append(KernelTime t, std::function<double(bool)> resolve) {
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mu);
    if (l.scopes == 0) {  // the scope ended while the launch ran: nobody wants it
        if (resolve) resolve(false);
        return;
    }
    t.sequence = ++l.sequence;
    l.entries.push_back({std::move(t), std::move(resolve)});
}

}  // namespace

bool kernel_timing_active() { return active_scopes.load(std::memory_order_relaxed) > 0; }

void record_kernel_time(KernelTime t) { append(std::move(t), nullptr); }

void record_pending_kernel_time(KernelTime t, std::function<double(bool)> resolve) { append(std::move(t), std::move(resolve)); }

KernelTiming::KernelTiming() {
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mu);
    ++l.scopes;
    active_scopes.fetch_add(1);
    start_ = l.sequence;
}

KernelTiming::~KernelTiming() {
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mu);
    active_scopes.fetch_sub(1);
    if (--l.scopes > 0) return;
    for (Entry& e : l.entries)
        if (e.resolve) {
            try {
                e.resolve(false);
            } catch (...) {}  // releasing events of a failed device: nothing more to do
        }
    l.entries.clear();
}

std::vector<KernelTime> KernelTiming::results() const {
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mu);
    std::vector<KernelTime> out;
    for (Entry& e : l.entries) {
        if (e.time.sequence <= start_) continue;
        if (e.resolve) {
            auto resolve = std::move(e.resolve);
            e.resolve = nullptr;
            e.time.time_us = resolve(true);
        }
        out.push_back(e.time);
    }
    return out;
}

}  // namespace weft::runtime
