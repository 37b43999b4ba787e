// `weft`: the command line.
//
//   weft compile MODULE.py [--kernel NAME] [--emit ast|ir|cpp|ptx] [--arch h200|FILE.json] [--debug]
//   weft launch  MODULE.py --kernel NAME --dim N[,M..] [--device cpu|cuda:0|sim:h200] [--print N]
//   weft sim     MODULE.py --kernel NAME --dim N[,M..] [--arch h200|FILE.json] [--report text|json]
//   weft builtins [--markdown]
//   weft run     SCENE.toml [--device cpu|cuda|sim:ARCH] [--frames N] [--out DIR] [--render DIR]
//   weft gradcheck SCENE.toml --loss EXPR --wrt PARAM[,PARAM..] [--golden FILE.npz [--update]] [--report text|json]
//   weft view    SCENE.toml [--device cpu|cuda|sim:ARCH] [--headless --frames N --png DIR]
//
// Exit codes: 0 success, 1 the input has errors (compile errors, launch errors), 2 usage,
// 130 a launch interrupted by Ctrl-C (runtime/cancel.h), as a shell reports SIGINT.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "runtime/cancel.h"
#include "support/closest_name.h"

namespace {

void usage(FILE* out) {
    fprintf(out,
            "usage: weft <command> [options]\n"
            "\n"
            "commands:\n"
            "  run SCENE.toml      simulate a scene file and write per-frame particle positions\n"
            "  gradcheck SCENE.toml  check a loss's gradients through a rollout (finite differences, goldens)\n"
            "  view SCENE.toml     watch a scene in a window (or write PNG frames with --headless)\n"
            "  compile MODULE.py   check a kernel module and print its AST, IR, C++ or PTX\n"
            "  launch MODULE.py    run one kernel on generated inputs and print its outputs\n"
            "  sim MODULE.py       run one kernel on the GPU simulator and print counts per source line\n"
            "  audit MODULE.py     static checks of kernels: bounds, divergence, barriers, races, banks, resources\n"
            "  builtins            list the kernel language's builtins (--markdown for the docs)\n"
            "\n"
            "Run 'weft <command> --help' for a command's options.\n");
}

}  // namespace

int main(int argc, char** argv) {
    using namespace weft::apps;
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    std::string cmd = argv[1];
    std::vector<std::string> rest(argv + 2, argv + argc);
    try {
        if (cmd == "compile") return cmd_compile(rest);
        if (cmd == "launch") return cmd_launch(rest);
        if (cmd == "sim") return cmd_sim(rest);
        if (cmd == "builtins") return cmd_builtins(rest);
        if (cmd == "audit") return cmd_audit(rest);
        if (cmd == "run") return cmd_run(rest);
        if (cmd == "gradcheck") return cmd_gradcheck(rest);
        if (cmd == "view") return cmd_view(rest);
        std::string near =
            weft::support::closest_name(cmd, {"compile", "launch", "sim", "builtins", "audit", "run", "gradcheck", "view"});
        fprintf(stderr, "weft: unknown command '%s'%s\n", cmd.c_str(),
                near.empty() ? "" : (" (did you mean '" + near + "'?)").c_str());
        usage(stderr);
        return 2;
    } catch (const weft::runtime::LaunchInterrupted& e) {
        fprintf(stderr, "weft %s: %s\n", cmd.c_str(), e.what());
        return 130;
    } catch (const UsageError& e) {
        fprintf(stderr, "weft %s: %s\n", cmd.c_str(), e.what());
        return 2;
    } catch (const std::exception& e) {
        fprintf(stderr, "%s", e.what());
        if (e.what()[0] && e.what()[strlen(e.what()) - 1] != '\n') fprintf(stderr, "\n");
        return 1;
    }
}
