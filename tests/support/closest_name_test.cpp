// support/closest_name: the did-you-mean rule shared by the compiler, the runtime, the scene
// loader and the command line.
#include "support/closest_name.h"

#include <gtest/gtest.h>

namespace weft::support {
namespace {

TEST(ClosestName, SuggestsTheNearName) {
    EXPECT_EQ(closest_name("veloctiy", {"position", "velocity", "mass"}), "velocity");
    EXPECT_EQ(closest_name("compil", {"compile", "launch", "sim", "builtins", "audit", "run"}), "compile");
}

TEST(ClosestName, CountsAnAdjacentTranspositionAsOneEdit) {
    // "ms" -> "sm" is one transposition; the limit for a 2-letter name is one edit.
    EXPECT_EQ(closest_name("ms", {"sm"}), "sm");
}

TEST(ClosestName, SuggestsNothingWhenNothingIsClose) {
    EXPECT_EQ(closest_name("mass", {"velocity", "position"}), "");
    EXPECT_EQ(closest_name("x", {}), "");
}

TEST(ClosestName, AllowsOneEditPerThreeCharactersAndAtLeastOne) {
    EXPECT_EQ(closest_name("abcdef", {"abcdxy"}), "abcdxy");  // 6 characters: 2 edits allowed
    EXPECT_EQ(closest_name("abcdef", {"abcxyz"}), "");        // 3 edits
    EXPECT_EQ(closest_name("ve", {"vel"}), "vel");            // 2 characters: still 1 edit
    EXPECT_EQ(closest_name("ve", {"velo"}), "");
}

TEST(ClosestName, SkipsTheNameItselfAndPrefersTheFirstOfEqualDistance) {
    EXPECT_EQ(closest_name("run", {"run"}), "");
    EXPECT_EQ(closest_name("cat", {"bat", "hat"}), "bat");
}

}  // namespace
}  // namespace weft::support
