// gpusim/arch/json_reader.cpp — recursive-descent JSON parser (see json_reader.h).
#include "gpusim/arch/json_reader.h"

#include <cstdlib>

namespace weft::gpusim {

const JsonValue* JsonValue::find(std::string_view key) const {
    for (const auto& [k, v] : object)
        if (k == key) return &v;
    return nullptr;
}

const char* JsonValue::kind_name(Kind k) {
    switch (k) {
        case Kind::Null: return "null";
        case Kind::Bool: return "a boolean";
        case Kind::Number: return "a number";
        case Kind::String: return "a string";
        case Kind::Array: return "an array";
        case Kind::Object: return "an object";
    }
    return "?";
}

namespace {

class Parser {
public:
    Parser(std::string_view text, const std::string& source) : t_(text), source_(source) {}

    JsonValue document() {
        JsonValue v = value(0);
        space();
        if (pos_ < t_.size()) fail("unexpected text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& msg) const { throw JsonError(source_, line_, col_, msg); }
    char peek() const { return pos_ < t_.size() ? t_[pos_] : '\0'; }
    void advance() {
        if (t_[pos_] == '\n') {
            ++line_;
            col_ = 1;
        } else {
            ++col_;
        }
        ++pos_;
    }
    void space() {
        while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r')) advance();
    }
    void expect(char c) {
        if (peek() != c || pos_ >= t_.size()) fail(std::string("expected '") + c + "'");
        advance();
    }
    bool word(std::string_view w) {
        if (t_.substr(pos_, w.size()) != w) return false;
        for (size_t i = 0; i < w.size(); ++i) advance();
        return true;
    }

    JsonValue value(int depth) {
        if (depth > kJsonMaxDepth) fail("nesting deeper than " + std::to_string(kJsonMaxDepth));
        space();
        JsonValue v;
        v.line = line_;
        v.col = col_;
        if (pos_ >= t_.size()) fail("unexpected end of input, expected a value");
        const char c = peek();
        if (c == '{') {
            v.kind = JsonValue::Kind::Object;
            advance();
            space();
            if (peek() == '}') {
                advance();
                return v;
            }
            for (;;) {
                space();
                if (peek() != '"') fail("expected a string key");
                const int kl = line_, kc = col_;
                std::string key = string();
                for (const auto& kv : v.object)
                    if (kv.first == key) throw JsonError(source_, kl, kc, "duplicate key '" + key + "'");
                space();
                expect(':');
                v.object.push_back({std::move(key), value(depth + 1)});
                space();
                if (peek() == ',') {
                    advance();
                    continue;
                }
                expect('}');
                return v;
            }
        }
        if (c == '[') {
            v.kind = JsonValue::Kind::Array;
            advance();
            space();
            if (peek() == ']') {
                advance();
                return v;
            }
            for (;;) {
                v.array.push_back(value(depth + 1));
                space();
                if (peek() == ',') {
                    advance();
                    continue;
                }
                expect(']');
                return v;
            }
        }
        if (c == '"') {
            v.kind = JsonValue::Kind::String;
            v.string = string();
            return v;
        }
        if (word("true")) {
            v.kind = JsonValue::Kind::Bool;
            v.boolean = true;
            return v;
        }
        if (word("false")) {
            v.kind = JsonValue::Kind::Bool;
            return v;
        }
        if (word("null")) return v;
        if (c == '-' || (c >= '0' && c <= '9')) {
            v.kind = JsonValue::Kind::Number;
            v.number = number();
            return v;
        }
        fail(std::string("unexpected character '") + c + "'");
    }

    double number() {
        const size_t start = pos_;
        if (peek() == '-') advance();
        if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit");
        if (peek() == '0')
            advance();
        else
            while (peek() >= '0' && peek() <= '9') advance();
        if (peek() == '.') {
            advance();
            if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit after '.'");
            while (peek() >= '0' && peek() <= '9') advance();
        }
        if (peek() == 'e' || peek() == 'E') {
            advance();
            if (peek() == '+' || peek() == '-') advance();
            if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit in the exponent");
            while (peek() >= '0' && peek() <= '9') advance();
        }
        if (pos_ - start > 64) fail("number longer than 64 characters");
        const std::string copy(t_.substr(start, pos_ - start));
        return std::strtod(copy.c_str(), nullptr);
    }

    static void put_utf8(std::string& s, uint32_t cp) {
        if (cp < 0x80) {
            s += static_cast<char>(cp);
        } else if (cp < 0x800) {
            s += static_cast<char>(0xc0 | (cp >> 6));
            s += static_cast<char>(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            s += static_cast<char>(0xe0 | (cp >> 12));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            s += static_cast<char>(0x80 | (cp & 0x3f));
        } else {
            s += static_cast<char>(0xf0 | (cp >> 18));
            s += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
            s += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            s += static_cast<char>(0x80 | (cp & 0x3f));
        }
    }

    uint32_t hex4() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = peek();
            int d;
            if (h >= '0' && h <= '9')
                d = h - '0';
            else if (h >= 'a' && h <= 'f')
                d = h - 'a' + 10;
            else if (h >= 'A' && h <= 'F')
                d = h - 'A' + 10;
            else
                fail("expected 4 hex digits after \\u");
            v = v * 16 + static_cast<uint32_t>(d);
            advance();
        }
        return v;
    }

    std::string string() {
        expect('"');
        std::string s;
        for (;;) {
            if (pos_ >= t_.size()) fail("unterminated string");
            const char c = peek();
            if (c == '"') {
                advance();
                return s;
            }
            if (static_cast<unsigned char>(c) < 0x20) fail("control character in string");
            if (c != '\\') {
                s += c;
                advance();
                continue;
            }
            advance();
            if (pos_ >= t_.size()) fail("unterminated string");
            const char e = peek();
            advance();
            switch (e) {
                case '"': s += '"'; break;
                case '\\': s += '\\'; break;
                case '/': s += '/'; break;
                case 'b': s += '\b'; break;
                case 'f': s += '\f'; break;
                case 'n': s += '\n'; break;
                case 'r': s += '\r'; break;
                case 't': s += '\t'; break;
                case 'u': {
                    uint32_t cp = hex4();
                    if (cp >= 0xd800 && cp < 0xdc00) {
                        if (!word("\\u")) fail("unpaired surrogate in \\u escape");
                        const uint32_t lo = hex4();
                        if (lo < 0xdc00 || lo >= 0xe000) fail("unpaired surrogate in \\u escape");
                        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    } else if (cp >= 0xdc00 && cp < 0xe000) {
                        fail("unpaired surrogate in \\u escape");
                    }
                    put_utf8(s, cp);
                    break;
                }
                default: fail(std::string("unknown escape '\\") + e + "'");
            }
        }
    }

    std::string_view t_;
    const std::string& source_;
    size_t pos_ = 0;
    int line_ = 1;
    int col_ = 1;
};

}  // namespace

JsonValue parse_json(std::string_view text, const std::string& source) { return Parser(text, source).document(); }

}  // namespace weft::gpusim
