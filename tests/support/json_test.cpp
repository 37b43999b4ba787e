// support/json: the one JSON string escaper (audit JSON and SARIF, gpusim reports, the command
// line's tables).
#include "support/json.h"

#include <gtest/gtest.h>

#include <sstream>

namespace weft::support {
namespace {

TEST(Json, EscapesQuotesBackslashesAndControlCharacters) {
    EXPECT_EQ(json_escape("plain text"), "plain text");
    EXPECT_EQ(json_escape("say \"hi\""), "say \\\"hi\\\"");
    EXPECT_EQ(json_escape("C:\\path"), "C:\\\\path");
    EXPECT_EQ(json_escape("a\nb\tc\rd"), "a\\nb\\tc\\rd");
    EXPECT_EQ(json_escape(std::string("\x01\x1f", 2)), "\\u0001\\u001f");
    EXPECT_EQ(json_escape(std::string("nul\0", 4)), "nul\\u0000");
}

TEST(Json, PassesUtf8Through) {
    EXPECT_EQ(json_escape("512\xc2\xb2 cloth"), "512\xc2\xb2 cloth");
    EXPECT_EQ(json_escape("\x7f"), "\x7f");
}

TEST(Json, WritesAQuotedString) {
    std::ostringstream out;
    write_json_string(out, "ld.global \"x\"\n");
    EXPECT_EQ(out.str(), "\"ld.global \\\"x\\\"\\n\"");
}

}  // namespace
}  // namespace weft::support
