// Shared loads and stores of machine code, per source line (see compiled_shared.h).
#include "compiler/audit/compiled_shared.h"

#include "gpusim/sass/sass_decode.h"

#include <regex>
#include <set>
#include <sstream>
#include <tuple>

namespace weft::compiler::audit {

namespace {

std::string base_name(const std::string& path) {
    size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::vector<const SharedOp*> CompiledShared::at(int line, bool store) const {
    std::vector<const SharedOp*> out;
    for (const SharedOp& op : ops)
        if (op.line == line && op.store == store) out.push_back(&op);
    return out;
}

std::map<int, int> ptx_source_lines(const std::string& ptx, const std::string& source_path) {
    static const std::regex file_re(R"(^\s*\.file\s+(\d+)\s+\"([^\"]*)\")");
    static const std::regex loc_re(R"(^\s*\.loc\s+(\d+)\s+(\d+)\s+(\d+)(.*)$)");
    static const std::regex inlined_re(R"(inlined_at\s+(\d+)\s+(\d+)\s+(\d+))");
    const std::string want = base_name(source_path);
    std::set<int> files;  // .file numbers of the kernel's source
    std::string text;
    std::smatch m;
    // NVVM writes the .file table after the code: read it first.
    for (std::istringstream in(ptx); std::getline(in, text);)
        if (std::regex_search(text, m, file_re) && base_name(m[2]) == want) files.insert(std::stoi(m[1]));
    // A location in a header inlined at another header location resolves through the .loc that
    // named that location earlier ("3 59 5 inlined_at 3 82 10", "3 82 10 inlined_at 2 9 5").
    std::map<std::tuple<int, int, int>, int> resolved;
    std::map<int, int> out;
    int line = 0, n = 0;
    for (std::istringstream in(ptx); std::getline(in, text);) {
        ++n;
        if (std::regex_search(text, m, loc_re)) {
            int f = std::stoi(m[1]), l = std::stoi(m[2]), c = std::stoi(m[3]);
            std::string rest = m[4];
            std::smatch im;
            line = 0;
            if (files.count(f)) {
                line = l;
            } else if (std::regex_search(rest, im, inlined_re)) {
                int fi = std::stoi(im[1]), li = std::stoi(im[2]), ci = std::stoi(im[3]);
                if (files.count(fi))
                    line = li;
                else if (auto it = resolved.find({fi, li, ci}); it != resolved.end())
                    line = it->second;
            }
            if (line > 0) resolved[{f, l, c}] = line;
            continue;
        }
        if (line > 0) out[n] = line;
    }
    return out;
}

CompiledShared compiled_shared_ops(const std::vector<SassWord>& code, const std::map<int, int>& ptx_to_source) {
    CompiledShared c;
    c.available = true;
    for (const SassWord& w : code) {
        SharedOp op;
        if (!gpusim::decode_shared_sass(w.lo, w.hi, &op.store, &op.width)) continue;
        auto it = ptx_to_source.find(w.ptx_line);
        if (it == ptx_to_source.end()) continue;
        op.line = it->second;
        op.text = std::string(op.store ? "STS" : "LDS") + (op.width == 4  ? ""
                                                           : op.width < 4 ? ".U" + std::to_string(8 * op.width)
                                                                          : "." + std::to_string(8 * op.width));
        c.ops.push_back(op);
    }
    return c;
}

}  // namespace weft::compiler::audit
