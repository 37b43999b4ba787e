// The disk cache. See module_cache.h.
#include "runtime/module_cache.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "support/hash.h"

namespace weft::runtime {

namespace {
std::atomic<long> g_hits{0}, g_misses{0}, g_damaged{0};
const char kMagic[] = "WEFTCACHE1\n";
}  // namespace

namespace {

// Why `dir` must not hold the cache ("" if it may): the cache loads and runs machine code from
// it, and its hash only detects damage, so a folder another user can write into is a way to run
// their code in this process.
std::string unsafe_reason(const std::string& dir, bool is_default_tmp) {
    struct stat st {};
    if ((is_default_tmp ? ::lstat(dir.c_str(), &st) : ::stat(dir.c_str(), &st)) != 0) return "cannot be created";
    if (!S_ISDIR(st.st_mode)) return is_default_tmp && S_ISLNK(st.st_mode) ? "is a symbolic link" : "is not a folder";
    if (st.st_uid != ::geteuid())
        return "belongs to another user (uid " + std::to_string(st.st_uid) + "; this process runs as uid " +
               std::to_string(::geteuid()) + ")";
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        return std::string("can be written by other users (mode ") + mode + ")";
    }
    return "";
}

}  // namespace

std::string cache_dir() {
    std::string dir;
    bool is_default_tmp = false;
    if (const char* e = std::getenv("WEFT_CACHE_DIR"); e && *e)
        dir = e;
    else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        dir = std::string(x) + "/weft";
    else if (const char* h = std::getenv("HOME"); h && *h)
        dir = std::string(h) + "/.cache/weft";
    else {
        dir = "/tmp/weft-cache-" + std::to_string(::geteuid());  // per user; checked below like any other
        is_default_tmp = true;
    }
    std::error_code ec;
    std::filesystem::path p(dir);
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
    ::mkdir(dir.c_str(), 0700);  // only the user: an existing folder keeps its mode and is checked
    std::string why = unsafe_reason(dir, is_default_tmp);
    if (why.empty()) return dir;
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
        std::fprintf(stderr,
                     "weft: warning: the module cache folder '%s' %s; the disk cache is off in this process (modules are "
                     "compiled, not saved or loaded). Set WEFT_CACHE_DIR to a folder that only you can write.\n",
                     dir.c_str(), why.c_str());
    return "";
}

std::optional<std::string> cache_load(const std::string& key, const std::string& kind) {
    std::string dir = cache_dir();
    if (dir.empty()) {
        ++g_misses;
        return std::nullopt;
    }
    std::string path = dir + "/" + key + "." + kind;
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
    if (dir.empty()) return;  // the cache is off (a folder others can write)
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
