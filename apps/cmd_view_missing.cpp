// `weft view` in a build without the viewer (WEFT_WITH_VIEWER off: GLFW, OpenGL or Dear ImGui
// were not found): says so instead of being an unknown command.
#include <stdexcept>

#include "apps/cli.h"

namespace weft::apps {

int cmd_view(const std::vector<std::string>&) {
    throw std::runtime_error(
        "weft view: this build has no viewer (configure with GLFW, OpenGL and Dear ImGui installed: scripts/setup.sh)");
}

}  // namespace weft::apps
