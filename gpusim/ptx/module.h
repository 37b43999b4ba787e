// gpusim/ptx/module.h — a parsed and decoded PTX module, ready to launch.
//
// [SECTION] Source locations   SourceLoc, the .file table
// [SECTION] Parameters         ParamInfo: how a kernel's or function's parameters are laid out
// [SECTION] Functions          Function: one .entry or .func with its instruction range
// [SECTION] Module             the module: functions, decoded instructions, module variables
//
// A Module owns host storage for its module-scope .global and .const variables (decoded
// instructions hold their host addresses, so a Module is move-only and the storage never moves).
// All functions' instructions live in one array; a function is a [begin, end) range of it.
// Registers are numbered module-wide; the first kNumStaticSregs indices are the special
// registers that stay fixed during a launch (%tid.x, %ctaid.y, %laneid, ...), prefilled per warp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpusim/ptx/instruction.h"

namespace weft::gpusim {

// ---------------------------------------------------------------------------------------------
// [SECTION] Source locations
// A .loc: where an instruction came from. When the .loc says "inlined_at F L C", the at_*
// fields hold that call site; reports attribute counts to the call site (the line of the
// kernel the user wrote) and keep the inlined location for detail.
struct SourceLoc {
    int32_t file = -1;  // index into Module::files(); -1 if the file number was never declared
    int32_t line = 0;   // 1-based source line
    int32_t col = 0;
    int32_t at_file = -1;  // inlined_at call site, -1 if not inlined
    int32_t at_line = 0;
    int32_t at_col = 0;
    // The location counts are attributed to.
    int32_t report_file() const { return at_file >= 0 ? at_file : file; }
    int32_t report_line() const { return at_file >= 0 ? at_line : line; }
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Parameters
struct ParamInfo {
    std::string name;        // as declared, e.g. "saxpy_param_0"
    Type type = Type::None;  // element type (.b8 for struct parameters)
    uint32_t offset = 0;     // entries: byte offset in the packed parameter buffer; funcs: frame offset
    uint32_t size = 0;       // bytes (element size x array length)
    uint32_t align = 1;      // bytes
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Functions
struct Function {
    std::string name;
    bool is_entry = false;           // .entry (a kernel) or .func
    bool has_body = false;           // false for prototypes and .extern declarations
    bool recursive = false;          // part of a cycle in the call graph
    std::vector<ParamInfo> params;   // in declaration order
    std::vector<ParamInfo> returns;  // .func only
    uint32_t param_bytes = 0;        // entries: size of the packed parameter buffer
    int32_t begin = 0;               // first instruction index
    int32_t end = 0;                 // one past the last
    uint32_t frame_bytes = 0;        // per-thread frame: .local variables, call params, own params
    int32_t reg_begin = 0;           // registers declared in the body: [reg_begin, reg_end)
    int32_t reg_end = 0;
    uint32_t maxntid[3] = {0, 0, 0};  // .maxntid, 0 if absent
    uint32_t reqntid[3] = {0, 0, 0};  // .reqntid, 0 if absent
    uint32_t minnctapersm = 0;
    int32_t ptx_line = 0;  // line of the .entry/.func directive
};

// Static special registers: register indices 0 .. kNumStaticSregs-1 of every warp.
enum StaticSreg : int32_t {
    kSregTidX,
    kSregTidY,
    kSregTidZ,
    kSregNtidX,
    kSregNtidY,
    kSregNtidZ,
    kSregCtaidX,
    kSregCtaidY,
    kSregCtaidZ,
    kSregNctaidX,
    kSregNctaidY,
    kSregNctaidZ,
    kSregLaneid,
    kSregWarpid,
    kSregNwarpid,
    kSregSmid,
    kSregNsmid,
    kSregGridid,
    kSregLanemaskEq,
    kSregLanemaskLe,
    kSregLanemaskLt,
    kSregLanemaskGe,
    kSregLanemaskGt,
    kSregDynamicSmemSize,
    kSregTotalSmemSize,
    kNumStaticSregs
};

// Argument copy of a call: caller frame offset -> callee frame offset, size bytes.
struct CallArgSlot {
    int32_t caller_offset = 0;
    int32_t callee_offset = 0;
    int32_t size = 0;
};

// One call instruction's parameter traffic (Instr::call indexes Module::calls()).
struct CallArgs {
    int32_t callee = -1;    // function index
    int32_t caller = -1;    // function index of the calling function
    CallArgSlot ret;        // callee retval -> caller variable (size 0: no return value)
    int32_t first_arg = 0;  // index into Module::call_arg_slots()
    int32_t nargs = 0;
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Module
class Module {
public:
    Module() = default;
    Module(Module&&) = default;
    Module& operator=(Module&&) = default;
    Module(const Module&) = delete;
    Module& operator=(const Module&) = delete;

    const std::string& name() const { return name_; }
    const std::string& target() const { return target_; }  // "sm_90"
    int version_major() const { return version_major_; }
    int version_minor() const { return version_minor_; }

    const std::vector<Function>& functions() const { return functions_; }
    // The function or kernel named `name`, or nullptr.
    const Function* find_function(std::string_view name) const;

    const std::vector<Instr>& instructions() const { return code_; }
    // The instruction's text as written in the PTX (trimmed), for reports.
    const std::string& instruction_text(int32_t index) const { return code_text_[index]; }
    const std::vector<std::string>& files() const { return files_; }  // .file names by index
    const std::vector<SourceLoc>& locations() const { return locs_; }
    // Reports attribute inlined code to its call site. A front end whose user code is itself
    // inlined into generated glue can choose instead: for locations in files where `innermost`
    // is true, the inlined_at call site is dropped, so counts stay on the innermost (user) line.
    template <typename Pred>
    void attribute_innermost_in(Pred innermost) {
        for (auto& loc : locs_)
            if (loc.file >= 0 && loc.file < static_cast<int32_t>(files_.size()) &&
                innermost(files_[static_cast<size_t>(loc.file)]))
                loc.at_file = -1;
    }
    const std::vector<CallArgs>& calls() const { return calls_; }
    const std::vector<CallArgSlot>& call_arg_slots() const { return call_arg_slots_; }

    int32_t num_registers() const { return num_regs_; }  // including kNumStaticSregs
    uint32_t static_shared_bytes() const { return shared_bytes_; }
    uint32_t dynamic_shared_offset() const { return dynamic_shared_offset_; }  // extern .shared []

    // Host storage of a module-scope .global or .const variable (what cudaMemcpyToSymbol
    // writes); an empty span if there is none by that name.
    std::span<std::byte> global_symbol(std::string_view name) const;
    // The host storage of every module-scope variable (libdevice's constant tables among them):
    // buffers every launch of the module may read.
    std::vector<std::span<std::byte>> global_storage() const;

private:
    friend class Parser;
    friend class ModuleBuilder;

    struct GlobalVar {
        std::unique_ptr<std::byte[]> storage;  // aligned to 16 by allocation
        size_t size = 0;
    };

    std::string name_;
    std::string target_;
    int version_major_ = 0;
    int version_minor_ = 0;
    std::vector<Function> functions_;
    std::unordered_map<std::string, int32_t> function_index_;
    std::vector<Instr> code_;
    std::vector<std::string> code_text_;
    std::vector<std::string> files_;
    std::vector<SourceLoc> locs_;
    std::vector<CallArgs> calls_;
    std::vector<CallArgSlot> call_arg_slots_;
    std::unordered_map<std::string, GlobalVar> globals_;
    int32_t num_regs_ = kNumStaticSregs;
    uint32_t shared_bytes_ = 0;
    uint32_t dynamic_shared_offset_ = 0;
};

}  // namespace weft::gpusim
