// support/hash: the content hash behind the disk cache's keys and its damage check. The expected
// digests pin the exact bits: a change here would silently invalidate every user's cache.
#include "support/hash.h"

#include <gtest/gtest.h>

namespace weft::support {
namespace {

TEST(Hash, DigestsAreStable) {
    EXPECT_EQ(hash_hex(""), "7bd3144f29c0cc9e2b36485f0fafe229");
    EXPECT_EQ(hash_hex("weft"), "1ae39eaf9daa8d2b5a3f8a442e4b4b3e");
    EXPECT_EQ(Hasher().add(uint64_t(42)).hex(), "a6245a5dcf2787580a08cdb288a441ec");
}

TEST(Hash, StringsAreLengthPrefixed) {
    EXPECT_EQ(Hasher().add("ab").add("c").hex(), "0495f5d642268de78fca2a3a51639944");
    EXPECT_EQ(Hasher().add("a").add("bc").hex(), "028d4aba4bf993b3f11ed1717ce160ad");
}

TEST(Hash, HashHexIsOneAdd) {
    EXPECT_EQ(hash_hex("module source"), Hasher().add("module source").hex());
    EXPECT_EQ(hash_hex("x").size(), 32u);
}

}  // namespace
}  // namespace weft::support
