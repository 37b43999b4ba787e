// `weft builtins`: the builtin table as text or as the Markdown section of
// docs/kernel-language.md (a test checks that the document holds exactly this output).
#include <cstdio>
#include <string>

#include "apps/cli.h"
#include "compiler/builtins/builtin_docs.h"
#include "compiler/builtins/builtin_table.h"

namespace weft::apps {

int cmd_builtins(const std::vector<std::string>& argv) {
    Args args(argv, {}, {"markdown", "help"});
    if (args.flag("help")) {
        printf("usage: weft builtins [--markdown]\n");
        return 0;
    }
    if (args.flag("markdown")) {
        fputs(compiler::builtins_markdown().c_str(), stdout);
        return 0;
    }
    for (const auto& o : compiler::builtin_table().overloads())
        printf("%-12s %s\n", o.group.c_str(), compiler::signature_text(o).c_str());
    return 0;
}

}  // namespace weft::apps
