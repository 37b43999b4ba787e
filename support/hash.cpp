// 128-bit content hash. See hash.h.
#include "support/hash.h"

#include <cstdio>

namespace weft::support {

namespace {
uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}
}  // namespace

Hasher& Hasher::add(std::string_view s) {
    add(static_cast<uint64_t>(s.size()));  // length-prefixed: "ab"+"c" differs from "a"+"bc"
    for (unsigned char c : s) {
        a_ = (a_ ^ c) * 0x100000001b3ull;
        b_ = (b_ ^ c) * 0x00000100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
    return *this;
}

Hasher& Hasher::add(uint64_t v) {
    for (int i = 0; i < 8; ++i) {
        unsigned char c = static_cast<unsigned char>(v >> (8 * i));
        a_ = (a_ ^ c) * 0x100000001b3ull;
        b_ = (b_ ^ c) * 0x00000100000001b3ull + 0x9e3779b97f4a7c15ull;
    }
    return *this;
}

std::string Hasher::hex() const {
    char buf[40];
    snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(mix(a_)),
             static_cast<unsigned long long>(mix(b_ ^ a_)));
    return buf;
}

std::string hash_hex(std::string_view s) { return Hasher().add(s).hex(); }

}  // namespace weft::support
