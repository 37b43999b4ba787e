// Runtime settings from the environment. See config.h.
#include "runtime/config.h"

#include <cstdlib>
#include <cstring>

namespace weft::runtime {

Config& config() {
    static Config c = [] {
        Config x;
        auto on = [](const char* name) {
            const char* v = std::getenv(name);
            return v && *v && std::strcmp(v, "0") != 0 && std::strcmp(v, "false") != 0;
        };
        x.debug = on("WEFT_DEBUG");
        x.verify_finite = on("WEFT_VERIFY_FINITE");
        if (const char* n = std::getenv("WEFT_NUM_THREADS")) x.num_threads = std::atoi(n);
        return x;
    }();
    return c;
}

}  // namespace weft::runtime
