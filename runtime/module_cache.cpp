// The disk cache. See module_cache.h.
#include "runtime/module_cache.h"

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "support/hash.h"

namespace weft::runtime {

namespace {
std::atomic<long> g_hits{0}, g_misses{0}, g_damaged{0};
const char kMagic[] = "WEFTCACHE1\n";
}  // namespace

std::string cache_dir() {
    std::string dir;
    if (const char* e = std::getenv("WEFT_CACHE_DIR"); e && *e)
        dir = e;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        dir = std::string(x) + "/weft";
    else if (const char* h = std::getenv("HOME"); h && *h)
        dir = std::string(h) + "/.cache/weft";
    else
        dir = "/tmp/weft-cache";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    return dir;
}

std::optional<std::string> cache_load(const std::string& key, const std::string& kind) {
    std::string path = cache_dir() + "/" + key + "." + kind;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        ++g_misses;
        return std::nullopt;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string data = ss.str();
    size_t header = sizeof(kMagic) - 1 + 32 + 1;
    bool ok = data.size() >= header && data.compare(0, sizeof(kMagic) - 1, kMagic) == 0 && data[header - 1] == '\n';
    std::string payload;
    if (ok) {
        payload = data.substr(header);
        ok = support::hash_hex(payload) == data.substr(sizeof(kMagic) - 1, 32);
    }
    if (!ok) {
        ++g_damaged;
        ++g_misses;
        std::error_code ec;
        std::filesystem::remove(path, ec);
        return std::nullopt;
    }
    ++g_hits;
    return payload;
}

void cache_store(const std::string& key, const std::string& kind, const std::string& payload) {
    std::string dir = cache_dir();
    std::string path = dir + "/" + key + "." + kind;
    std::string tmp = path + ".tmp" + std::to_string(::getpid()) + "_" + std::to_string(reinterpret_cast<uintptr_t>(&payload));
    {
        std::ofstream out(tmp, std::ios::binary);
        if (!out) return;  // an unwritable cache only costs recompilation
        out << kMagic << support::hash_hex(payload) << "\n" << payload;
        if (!out) {
            std::error_code ec;
            std::filesystem::remove(tmp, ec);
            return;
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) std::filesystem::remove(tmp, ec);
}

CacheStats cache_stats() { return {g_hits.load(), g_misses.load(), g_damaged.load()}; }

}  // namespace weft::runtime
