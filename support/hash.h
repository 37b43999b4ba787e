// support/hash.h: a 128-bit content hash (two independent 64-bit FNV-1a-style lanes with a
// final avalanche) for cache keys and for detecting damaged cache entries. Not cryptographic:
// the cache trusts its own directory, it only has to notice accidents. The disk cache's entries
// and keys depend on these exact bits: changing the hash invalidates every cache.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace weft::support {

class Hasher {
public:
    Hasher& add(std::string_view s);  // length-prefixed: "ab"+"c" differs from "a"+"bc"
    Hasher& add(uint64_t v);          // the 8 bytes of v, little end first
    std::string hex() const;          // 32 hex digits

private:
    uint64_t a_ = 0xcbf29ce484222325ull;
    uint64_t b_ = 0x84222325cbf29ce4ull;
};

std::string hash_hex(std::string_view s);  // Hasher().add(s).hex()

}  // namespace weft::support
