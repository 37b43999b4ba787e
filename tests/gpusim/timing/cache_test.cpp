// tests/gpusim/timing/cache_test.cpp — the sectored cache's tag store: which line a miss evicts
// under LRU, FIFO and the built-in path.
#include <gtest/gtest.h>

#include "gpusim/timing/cache.h"

namespace weft::gpusim {
namespace {

TEST(SectoredCache, PoliciesChooseTheVictim) {
    // One set of two ways (256 bytes, 128-byte lines): A, B, A, C, then A again.
    const uint64_t A = 0, B = 1 << 20, C = 2 << 20;
    LruCachePolicy lru_p;
    FifoCachePolicy fifo_p;
    SectoredCache lru(256, 128, 32, 2, &lru_p), fifo(256, 128, 32, 2, &fifo_p), builtin(256, 128, 32, 2);
    for (SectoredCache* k : {&lru, &fifo, &builtin}) {
        EXPECT_FALSE(k->access(A, false));
        EXPECT_FALSE(k->access(B, false));
        EXPECT_TRUE(k->access(A, false));
        EXPECT_FALSE(k->access(C, false));
    }
    EXPECT_TRUE(lru.access(A, false));      // LRU threw out B
    EXPECT_TRUE(builtin.access(A, false));  // the built-in path is LRU
    EXPECT_FALSE(fifo.access(A, false));    // FIFO threw out A, the first filled
    EXPECT_TRUE(fifo.probe(C));
}

}  // namespace
}  // namespace weft::gpusim
