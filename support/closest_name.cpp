// Did-you-mean suggestions. See closest_name.h.
#include "support/closest_name.h"

#include <algorithm>

namespace weft::support {

std::string closest_name(std::string_view name, const std::vector<std::string>& candidates) {
    // Optimal-string-alignment distance (insert, delete, substitute, transpose adjacent).
    auto distance = [](std::string_view a, std::string_view b) {
        std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
        for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
        for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
        for (size_t i = 1; i <= a.size(); ++i)
            for (size_t j = 1; j <= b.size(); ++j) {
                d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
                if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                    d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
            }
        return d[a.size()][b.size()];
    };
    std::string best;
    size_t best_d = static_cast<size_t>(-1);
    size_t limit = std::max<size_t>(1, name.size() / 3);
    for (const auto& c : candidates) {
        if (c == name) continue;
        size_t d = distance(name, c);
        if (d <= limit && d < best_d) {
            best_d = d;
            best = c;
        }
    }
    return best;
}

}  // namespace weft::support
