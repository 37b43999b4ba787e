// runtime/module_cache.h: the disk cache of compiled modules (CPU objects, PTX, CUBIN).
//
// Entries live in $WEFT_CACHE_DIR (default ~/.cache/weft), one file per key:
//     <key>.<kind>      "WEFTCACHE1\n" + hash of the payload (32 hex) + "\n" + payload
// The key hashes everything that affects the binary (generated source, builtins headers,
// compiler version, options, target), so a second process compiling the same module finds the
// entry and compiles nothing. A damaged entry (truncated, edited, wrong header) fails the payload
// check, is deleted and reported as a miss, so it is rebuilt, never loaded. Writes go to a
// temporary file that is renamed into place, so readers never see a half-written entry.
#pragma once

#include <optional>
#include <string>

namespace weft::runtime {

// The folder, created on first use (mode 0700): $WEFT_CACHE_DIR, else $XDG_CACHE_HOME/weft, else
// ~/.cache/weft, else (no HOME) /tmp/weft-cache-<uid>. "" when the cache is off because the folder
// is not the user's own: it belongs to another user, others can write to it (group or world
// writable), or (the /tmp default) it is a symbolic link. Entries are machine code this process
// runs, and their hash only detects damage; so such a folder is refused, with one warning on
// stderr per process, and modules are compiled instead.
std::string cache_dir();

struct CacheStats {
    long hits = 0;
    long misses = 0;
    long damaged = 0;  // entries found damaged and discarded
};

std::optional<std::string> cache_load(const std::string& key, const std::string& kind);
void cache_store(const std::string& key, const std::string& kind, const std::string& payload);
CacheStats cache_stats();  // of this process

}  // namespace weft::runtime
