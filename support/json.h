// support/json.h: JSON string writing, the one escaper behind every JSON and SARIF output of Weft
// (the audit's findings, gpusim's reports and traces, the command line's resource tables). Each
// writer lays out its own objects with ostreams; what they share, and what is easy to get wrong,
// is a string's escaping, which lives here.
//
//   json_escape("say \"hi\"\n")          ->  say \"hi\"\n            (the contents, no quotes)
//   write_json_string(out, "a\tb")       writes  "a\tb"              (quoted)
//
// Escaped: '"', '\\', newline, tab, carriage return as two-character escapes; other control
// characters below 0x20 as \u00XX. Everything else, UTF-8 included, passes through unchanged.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace weft::support {

std::string json_escape(std::string_view s);                    // a JSON string's contents
void write_json_string(std::ostream& out, std::string_view s);  // '"' + json_escape(s) + '"'

}  // namespace weft::support
