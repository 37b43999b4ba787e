// Source text for findings (see source_span.h).
#include "compiler/audit/source_span.h"

#include <algorithm>
#include <functional>
#include <string_view>

namespace weft::compiler::audit {

SourceLoc expr_span(const ir::Expr& e) {
    SourceLoc r = e.loc;
    int end = r.col + std::max(1, r.len);
    std::function<void(const ir::Expr&)> walk = [&](const ir::Expr& x) {
        if (x.loc.valid() && x.loc.file == r.file && x.loc.line == r.line) {
            int xe = x.loc.col + std::max(1, x.loc.len);
            if (x.loc.col < r.col) r.col = x.loc.col;
            end = std::max(end, xe);
        }
        for (const auto& a : x.args)
            if (a) walk(*a);
    };
    if (r.valid()) walk(e);
    r.len = end - r.col;
    // A call or index ends at its closing bracket, which no operand's location covers.
    if (r.valid()) {
        std::string_view line = r.file->line(r.line);
        int depth = 0;
        for (int i = r.col - 1; i < static_cast<int>(line.size()); ++i) {
            char ch = line[static_cast<size_t>(i)];
            if ((ch == ':' || ch == '#') && depth == 0) break;
            if (ch == '(' || ch == '[') ++depth;
            if (ch == ')' || ch == ']') {
                if (depth == 0) break;
                --depth;
                if (depth == 0 && i + 1 > r.col - 1 + r.len - 1) r.len = std::max(r.len, i + 2 - r.col);
            }
        }
    }
    return r;
}

std::string access_text(const SourceLoc& loc) {
    if (!loc.valid()) return "";
    std::string_view line = loc.file->line(loc.line);
    size_t start = static_cast<size_t>(std::max(0, loc.col - 1));
    size_t open = start + static_cast<size_t>(std::max(1, loc.len));
    while (open < line.size() && line[open] == ' ') ++open;
    if (open >= line.size() || line[open] != '[') return source_text(loc);
    int depth = 0;
    for (size_t i = open; i < line.size(); ++i) {
        if (line[i] == '[' || line[i] == '(') ++depth;
        if (line[i] == ']' || line[i] == ')') {
            if (--depth == 0) return std::string(line.substr(start, i + 1 - start));
        }
    }
    return source_text(loc);
}

std::string source_text(const SourceLoc& loc) {
    if (!loc.valid()) return "";
    std::string_view line = loc.file->line(loc.line);
    if (loc.col < 1 || static_cast<size_t>(loc.col - 1) >= line.size()) return "";
    return std::string(line.substr(static_cast<size_t>(loc.col - 1), static_cast<size_t>(std::max(1, loc.len))));
}

}  // namespace weft::compiler::audit
