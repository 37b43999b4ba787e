// Versions of watched allocations. See write_versions.h.
#include "runtime/write_versions.h"

#include <atomic>
#include <mutex>
#include <unordered_map>

#include "runtime/array.h"

namespace weft::runtime {

namespace {

struct Entry {
    int watchers = 0;
    WriteVersion v;
};

std::mutex mu;
std::unordered_map<const void*, Entry> entries;
std::atomic<int> watched{0};  // entries.size(), read without the lock on the write path

}  // namespace

const void* allocation_of(const Array& a) { return a.owner() ? a.owner().get() : a.data(); }

void watch_writes(const void* allocation) {
    std::lock_guard<std::mutex> lock(mu);
    Entry& e = entries[allocation];
    ++e.watchers;
    watched.store(int(entries.size()));
}

void unwatch_writes(const void* allocation) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = entries.find(allocation);
    if (it == entries.end()) return;
    if (--it->second.watchers <= 0) entries.erase(it);
    watched.store(int(entries.size()));
}

bool writes_watched(const void* allocation) {
    if (watched.load(std::memory_order_relaxed) == 0) return false;
    std::lock_guard<std::mutex> lock(mu);
    return entries.count(allocation) > 0;
}

namespace {

template <class Describe>
void bump(const Array& a, Describe&& describe) {
    if (watched.load(std::memory_order_relaxed) == 0 || !a.valid()) return;
    std::lock_guard<std::mutex> lock(mu);
    auto it = entries.find(allocation_of(a));
    if (it == entries.end()) return;
    ++it->second.v.version;
    it->second.v.last = describe();
}

}  // namespace

void note_write(const Array& a, const char* what) {
    bump(a, [&] { return std::string(what); });
}

void note_launch_write(const Array& a, const std::string& kernel) {
    bump(a, [&] { return "launch of kernel '" + kernel + "'"; });
}

WriteVersion write_version(const void* allocation) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = entries.find(allocation);
    return it == entries.end() ? WriteVersion{} : it->second.v;
}

}  // namespace weft::runtime
