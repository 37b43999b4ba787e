// apps/arch_option.cpp: --arch (arch_option.h).
#include "apps/arch_option.h"

#include <stdexcept>

#include "gpusim/arch/resolve_arch.h"

namespace weft::apps {

gpusim::ArchSpec arch_option(const Args& args) {
    const std::string arg = args.get_or("arch", kDefaultArch);
    try {
        return gpusim::resolve_arch(arg);
    } catch (const gpusim::ArchError& e) {
        if (gpusim::is_arch_path(arg)) throw std::runtime_error(e.what());
        throw UsageError(std::string("--arch: ") + e.what());
    }
}

}  // namespace weft::apps
