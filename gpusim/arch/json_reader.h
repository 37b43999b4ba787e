// gpusim/arch/json_reader.h — a small, strict JSON reader for the architecture files.
//
// Debian's package list we build against has no JSON library, and the architecture files need
// only objects, arrays, numbers, strings, booleans and null. The reader is fuzz-safe: nesting
// is limited (kMaxDepth), every error is a JsonError carrying the line and column, numbers go
// through strtod on a bounded copy, strings accept the standard escapes (\uXXXX becomes UTF-8;
// surrogate pairs are combined). Objects keep their keys in file order; duplicate keys are an
// error, since a silently ignored second value is a calibration bug waiting to happen.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weft::gpusim {

class JsonError : public std::runtime_error {
public:
    JsonError(const std::string& source, int line, int col, const std::string& message)
        : std::runtime_error(source + ":" + std::to_string(line) + ":" + std::to_string(col) + ": error: " + message),
          line_(line),
          col_(col) {}
    int line() const { return line_; }
    int col() const { return col_; }

private:
    int line_;
    int col_;
};

// An object's member. A struct of its own, not std::pair<std::string, JsonValue>: Clang 14 with
// libstdc++ 12 rejects that pair of a still incomplete JsonValue inside JsonValue (the fuzz build,
// scripts/fuzz-ptx, is Clang).
struct JsonMember;

struct JsonValue {
    enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<JsonValue> array;
    std::vector<JsonMember> object;  // in file order
    int line = 0, col = 0;           // where the value starts

    // The member named `key`, or nullptr (objects only).
    const JsonValue* find(std::string_view key) const;
    static const char* kind_name(Kind k);
};

struct JsonMember {
    std::string first;  // the key
    JsonValue second;
};

inline constexpr int kJsonMaxDepth = 64;

// Parses one JSON document (trailing whitespace allowed, nothing else). `source` names the
// text in messages.
JsonValue parse_json(std::string_view text, const std::string& source);

}  // namespace weft::gpusim
