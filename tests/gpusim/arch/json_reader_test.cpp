// tests/gpusim/arch/json_reader_test.cpp — the strict JSON reader of the architecture files:
// values, escapes, and errors with line and column.
#include <gtest/gtest.h>

#include "gpusim/arch/json_reader.h"

namespace weft::gpusim {
namespace {

std::string json_error(const std::string& text) {
    try {
        parse_json(text, "t.json");
    } catch (const JsonError& e) { return e.what(); }
    return "";
}

TEST(JsonReader, ParsesValuesAndEscapes) {
    const JsonValue v = parse_json(R"({"a": [1, -2.5e3, true, null], "s": "x\"\u00e9\ud83d\ude00"})", "t");
    ASSERT_EQ(v.kind, JsonValue::Kind::Object);
    EXPECT_EQ(v.find("a")->array[1].number, -2500);
    EXPECT_EQ(v.find("s")->string, "x\"\xc3\xa9\xf0\x9f\x98\x80");
}

TEST(JsonReader, ErrorsCarryLineAndColumn) {
    EXPECT_EQ(json_error("{\n  \"a\": tru\n}"), "t.json:2:8: error: unexpected character 't'");
    EXPECT_EQ(json_error("{\"a\": 1, \"a\": 2}"), "t.json:1:10: error: duplicate key 'a'");
    EXPECT_EQ(json_error("[1, 2"), "t.json:1:6: error: expected ']'");
    EXPECT_EQ(json_error("\"abc"), "t.json:1:5: error: unterminated string");
    EXPECT_EQ(json_error("01"), "t.json:1:2: error: unexpected text after the JSON value");
    EXPECT_NE(json_error(std::string(100, '[') + std::string(100, ']')).find("nesting deeper than 64"), std::string::npos);
    EXPECT_NE(json_error("\"\\ud800\"").find("unpaired surrogate"), std::string::npos);
}

}  // namespace
}  // namespace weft::gpusim
