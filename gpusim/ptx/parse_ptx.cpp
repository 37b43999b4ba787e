// gpusim/ptx/parse_ptx.cpp — module-level PTX grammar: directives, variables, functions, bodies.
//
// The grammar is the subset NVRTC/nvcc emit (PTX ISA 6.x-9.x): .version/.target/.address_size,
// .file/.loc line information, module and function-scope variables in every state space,
// .entry/.func with parameter lists (scalar and .align N .b8 name[SIZE] struct parameters),
// .reg declarations with <N> ranges, { } scopes, labels, and .section blocks (skipped: they
// only carry DWARF strings). Each instruction is handed to parse_instruction.cpp.
//
// Memory layout decided here:
//   * module .global/.const variables: host storage owned by the Module (address in the code);
//   * .shared variables of all functions: one static layout for the module, then the dynamic
//     (extern .shared x[]) area after it;
//   * per-thread frames: a .func's return values, then its parameters, then its .local
//     variables and the .param variables of its call sequences; a kernel's frame is the same
//     without returns/parameters (its parameters live in the launch's parameter buffer).
#include <algorithm>
#include <cstring>

#include "gpusim/errors.h"
#include "gpusim/ptx/parse_ptx.h"
#include "gpusim/ptx/parser.h"
#include "gpusim/ptx/call_graph.h"
#include "gpusim/ptx/reconvergence.h"

namespace weft::gpusim {
namespace {
uint64_t align_up(uint64_t v, uint64_t a) { return a <= 1 ? v : (v + a - 1) / a * a; }
bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
constexpr uint64_t kMaxVariableBytes = uint64_t{1} << 30;
}  // namespace

Parser::Parser(std::string_view text, std::string_view name) : text_(text), name_(name), lex_(text, std::string(name)) {
    m_.name_ = std::string(name);
    bump();
}

void Parser::bump() {
    if (have_ahead_) {
        tok_ = ahead_;
        have_ahead_ = false;
    } else {
        tok_ = lex_.next();
    }
}

const Token& Parser::ahead() {
    if (!have_ahead_) {
        ahead_ = lex_.next();
        have_ahead_ = true;
    }
    return ahead_;
}

void Parser::fail(const Token& at, const std::string& message) const { throw PtxError(name_, at.line, at.col, message); }

void Parser::expect_punct(char c, const std::string& context) {
    if (!at_punct(c)) fail(tok_, std::string("expected '") + c + "' " + context + ", found " + describe(tok_));
    bump();
}

std::string_view Parser::expect_ident(const std::string& what) {
    if (tok_.kind != TokKind::Ident) fail(tok_, "expected " + what + ", found " + describe(tok_));
    std::string_view s = tok_.text;
    bump();
    return s;
}

uint64_t Parser::expect_int(const std::string& what) {
    if (tok_.kind != TokKind::Int) fail(tok_, "expected " + what + " (an integer), found " + describe(tok_));
    const uint64_t v = tok_.bits;
    bump();
    return v;
}

Module Parser::run() {
    while (tok_.kind != TokKind::End) parse_top();
    // extern .shared arrays start after all static shared memory, known only now.
    m_.dynamic_shared_offset_ = static_cast<uint32_t>(align_up(m_.shared_bytes_, 16));
    for (const auto& [instr, op] : dynamic_shared_uses_) m_.code_[instr].ops[op].imm += m_.dynamic_shared_offset_;
    mark_recursive_functions(m_.functions_, m_.code_, m_.calls_);
    return std::move(m_);
}

void Parser::parse_top() {
    const Token at = tok_;
    if (tok_.kind != TokKind::Directive)
        fail(tok_, "expected a directive such as .version, .entry, .func or .global at module scope, found " + describe(tok_));
    const std::string_view d = tok_.text;
    if (d == ".version") {
        bump();
        if (tok_.kind == TokKind::Decimal) {
            const std::string s(tok_.text);
            const size_t dot = s.find('.');
            m_.version_major_ = std::atoi(s.substr(0, dot).c_str());
            m_.version_minor_ = dot == std::string::npos ? 0 : std::atoi(s.substr(dot + 1).c_str());
            bump();
        } else {
            m_.version_major_ = static_cast<int>(expect_int("a version number like 8.0"));
        }
        return;
    }
    if (d == ".target") {
        bump();
        m_.target_ = std::string(expect_ident("a target such as sm_90"));
        while (at_punct(',')) {
            bump();
            expect_ident("a target option");
        }
        return;
    }
    if (d == ".address_size") {
        bump();
        const uint64_t size = expect_int("an address size");
        if (size != 64) fail(at, "only .address_size 64 is supported, found " + std::to_string(size));
        return;
    }
    if (d == ".file") {
        bump();
        const uint64_t number = expect_int("a file number");
        if (tok_.kind != TokKind::String)
            fail(tok_, "expected a file name string after .file " + std::to_string(number) + ", found " + describe(tok_));
        if (number > 100000) fail(at, "file number " + std::to_string(number) + " is too large");
        if (m_.files_.size() <= number) m_.files_.resize(number + 1);
        m_.files_[number] = std::string(tok_.text);
        bump();
        while (at_punct(',')) {  // optional timestamp, size
            bump();
            expect_int("a file timestamp or size");
        }
        return;
    }
    if (d == ".section") {
        bump();
        if (tok_.kind != TokKind::Directive && tok_.kind != TokKind::Ident)
            fail(tok_, "expected a section name after .section, found " + describe(tok_));
        bump();
        skip_braced_section();
        return;
    }
    if (d == ".pragma") {
        bump();
        if (tok_.kind != TokKind::String) fail(tok_, "expected a string after .pragma, found " + describe(tok_));
        bump();
        expect_punct(';', "after .pragma");
        return;
    }
    bool is_extern = false;
    while (at_directive(".visible") || at_directive(".extern") || at_directive(".weak") || at_directive(".common")) {
        if (tok_.text == ".extern") is_extern = true;
        bump();
    }
    if (at_directive(".entry") || at_directive(".func")) {
        const bool is_entry = tok_.text == ".entry";
        bump();
        parse_function(is_entry, is_extern, at);
        return;
    }
    if (at_directive(".global") || at_directive(".const") || at_directive(".shared")) {
        const Space space = tok_.text == ".global" ? Space::Global : tok_.text == ".const" ? Space::Const : Space::Shared;
        bump();
        parse_variable(space, true, is_extern, at);
        return;
    }
    fail(tok_, "unexpected " + describe(tok_) +
                   " at module scope; expected .version, .target, .entry, .func, .global, .const or .shared");
}

void Parser::skip_braced_section() {
    const Token open = tok_;
    expect_punct('{', "to open the section");
    int depth = 1;
    while (depth > 0) {
        if (tok_.kind == TokKind::End) fail(open, "unterminated .section: missing '}'");
        if (at_punct('{')) ++depth;
        if (at_punct('}')) --depth;
        bump();
    }
}

void Parser::parse_params(std::vector<ParamInfo>& out, bool is_entry, const std::string& fn) {
    expect_punct('(', "to open the parameter list of '" + fn + "'");
    uint64_t offset = 0;
    if (!is_entry) offset = frame_bytes_;
    while (!at_punct(')')) {
        if (!out.empty()) expect_punct(',', "between parameters of '" + fn + "'");
        if (at_directive(".reg"))
            fail(tok_, "register parameters (.reg) of '" + fn + "' are not supported; NVRTC emits .param parameters");
        if (!at_directive(".param")) fail(tok_, "expected .param in the parameter list of '" + fn + "', found " + describe(tok_));
        bump();
        ParamInfo p;
        uint64_t align = 0;
        for (;;) {
            if (at_directive(".align")) {
                const Token at = tok_;
                bump();
                align = expect_int("an alignment");
                if (!is_pow2(align) || align > 4096)
                    fail(at, "alignment " + std::to_string(align) + " is not a power of two up to 4096");
            } else if (at_directive(".ptr") || at_directive(".global") || at_directive(".shared") || at_directive(".const") ||
                       at_directive(".local")) {
                bump();
            } else {
                break;
            }
        }
        if (tok_.kind != TokKind::Directive || parse_type_name(tok_.text.substr(1)) == Type::None ||
            parse_type_name(tok_.text.substr(1)) == Type::Pred)
            fail(tok_, "expected a parameter type such as .u64 or .b8, found " + describe(tok_));
        p.type = parse_type_name(tok_.text.substr(1));
        bump();
        if (at_directive(".ptr")) {  // ".param .u64 .ptr .global .align 8 name" order
            bump();
            while (at_directive(".global") || at_directive(".shared") || at_directive(".const") || at_directive(".local")) bump();
            if (at_directive(".align")) {
                bump();
                align = expect_int("an alignment");
                if (!is_pow2(align) || align > 4096) fail(tok_, "alignment is not a power of two up to 4096");
            }
        }
        p.name = std::string(expect_ident("a parameter name"));
        uint64_t count = 1;
        if (at_punct('[')) {
            bump();
            count = expect_int("an array size");
            expect_punct(']', "after the array size");
            if (count == 0 || count > (1u << 20))
                fail(tok_, "parameter array size " + std::to_string(count) + " is out of range");
        }
        const uint64_t elem = static_cast<uint64_t>(type_bytes(p.type));
        p.size = static_cast<uint32_t>(elem * count);
        p.align = static_cast<uint32_t>(align ? align : elem);
        offset = align_up(offset, p.align);
        p.offset = static_cast<uint32_t>(offset);
        offset += p.size;
        out.push_back(std::move(p));
    }
    bump();
    if (!is_entry) frame_bytes_ = static_cast<uint32_t>(offset);
}

void Parser::parse_function(bool is_entry, bool is_extern, const Token& at) {
    Function f;
    f.is_entry = is_entry;
    f.ptx_line = at.line;
    frame_bytes_ = 0;
    if (!is_entry && at_punct('(')) parse_params(f.returns, false, "return value");
    f.name = std::string(expect_ident(is_entry ? "a kernel name after .entry" : "a function name after .func"));
    if (at_punct('(')) parse_params(f.params, is_entry, f.name);
    if (is_entry) { f.param_bytes = f.params.empty() ? 0 : f.params.back().offset + f.params.back().size; }
    for (;;) {
        auto dims = [&](uint32_t* out) {
            bump();
            for (int i = 0; i < 3; ++i) {
                const uint64_t v = expect_int("a thread count");
                out[i] = static_cast<uint32_t>(std::min<uint64_t>(v, 1u << 30));
                if (!at_punct(',')) break;
                bump();
            }
        };
        if (at_directive(".maxntid")) {
            dims(f.maxntid);
        } else if (at_directive(".reqntid")) {
            dims(f.reqntid);
        } else if (at_directive(".minnctapersm") || at_directive(".maxnctapersm")) {
            const bool min = tok_.text == ".minnctapersm";
            bump();
            const uint64_t v = expect_int("a block count");
            if (min) f.minnctapersm = static_cast<uint32_t>(std::min<uint64_t>(v, 1u << 30));
        } else if (at_directive(".maxnreg") || at_directive(".maxclusterrank")) {
            bump();
            expect_int("a count");
        } else if (at_directive(".reqnctapercluster")) {
            uint32_t ignored[3];
            dims(ignored);
        } else if (at_directive(".noreturn") || at_directive(".explicitcluster")) {
            bump();
        } else if (at_directive(".pragma")) {
            bump();
            if (tok_.kind != TokKind::String) fail(tok_, "expected a string after .pragma, found " + describe(tok_));
            bump();
            expect_punct(';', "after .pragma");
        } else {
            break;
        }
    }
    // Declared before (a prototype)? Then this is its definition or a repeated declaration.
    auto it = m_.function_index_.find(f.name);
    int32_t index;
    if (it != m_.function_index_.end()) {
        index = it->second;
        Function& prev = m_.functions_[index];
        if (prev.is_entry != f.is_entry || prev.params.size() != f.params.size() || prev.returns.size() != f.returns.size())
            fail(at, "'" + f.name + "' is declared again with a different signature");
        if (prev.has_body && at_punct('{')) fail(at, "'" + f.name + "' is defined twice");
    } else {
        index = static_cast<int32_t>(m_.functions_.size());
        m_.function_index_.emplace(f.name, index);
        m_.functions_.push_back(f);
    }
    if (at_punct(';')) {
        bump();
        return;
    }
    if (!at_punct('{')) fail(tok_, "expected '{' or ';' after the declaration of '" + f.name + "', found " + describe(tok_));
    if (is_extern) fail(tok_, ".extern function '" + f.name + "' cannot have a body");
    // Define.
    Function& fn = m_.functions_[index];
    fn = f;
    fn.has_body = true;
    fn.begin = static_cast<int32_t>(m_.code_.size());
    fn.reg_begin = m_.num_regs_;
    fn_ = index;
    cur_loc_ = -1;
    labels_.clear();
    label_uses_.clear();
    scopes_.clear();
    scopes_.emplace_back();
    // Parameters are visible as symbols in the body.
    for (const ParamInfo& p : fn.params) {
        Symbol s;
        s.base = is_entry ? AddrBase::KernelParam : AddrBase::FrameParam;
        s.space = Space::Param;
        s.value = p.offset;
        s.size = p.size;
        scopes_.back().vars[p.name] = s;
    }
    for (const ParamInfo& p : fn.returns) {
        Symbol s;
        s.base = AddrBase::FrameParam;
        s.space = Space::Param;
        s.value = p.offset;
        s.size = p.size;
        scopes_.back().vars[p.name] = s;
    }
    const Token open = tok_;
    bump();
    parse_block(open);
    finish_function();
}

void Parser::finish_function() {
    Function& fn = m_.functions_[fn_];
    // An implicit return at the end, so that falling off the body (or branching to a label at its
    // very end) leaves the function instead of running into the next one.
    Instr end;
    end.op = fn.is_entry ? Op::Exit : Op::Ret;
    end.ptx_line = tok_.line;
    end.loc = cur_loc_;
    m_.code_.push_back(end);
    m_.code_text_.push_back(fn.is_entry ? "exit (implicit, end of kernel)" : "ret (implicit, end of function)");
    fn.end = static_cast<int32_t>(m_.code_.size());
    fn.reg_end = m_.num_regs_;
    for (const LabelUse& use : label_uses_) {
        auto it = labels_.find(use.name);
        if (it == labels_.end()) fail(use.tok, "branch to undefined label '" + use.name + "'");
        m_.code_[use.instr].target = it->second;
    }
    fn.frame_bytes = static_cast<uint32_t>(align_up(frame_bytes_, 16));
    compute_reconvergence(m_.code_, fn.begin, fn.end);
    fn_ = -1;
    scopes_.clear();
}

uint32_t Parser::allocate_frame(uint32_t size, uint32_t align) {
    const uint64_t offset = align_up(frame_bytes_, align);
    if (offset + size > (uint64_t{1} << 24)) fail(tok_, "the function's local frame exceeds 16 MiB");
    frame_bytes_ = static_cast<uint32_t>(offset + size);
    return static_cast<uint32_t>(offset);
}

void Parser::parse_variable(Space space, bool module_scope, bool is_extern, const Token& at) {
    uint64_t align = 0;
    int vec = 1;
    Type type = Type::None;
    for (;;) {
        if (at_directive(".align")) {
            const Token a = tok_;
            bump();
            align = expect_int("an alignment");
            if (!is_pow2(align) || align > 4096)
                fail(a, "alignment " + std::to_string(align) + " is not a power of two up to 4096");
        } else if (at_directive(".v2") || at_directive(".v4")) {
            vec = tok_.text == ".v2" ? 2 : 4;
            bump();
        } else if (at_directive(".ptr")) {
            bump();
        } else {
            break;
        }
    }
    if (tok_.kind != TokKind::Directive || (type = parse_type_name(tok_.text.substr(1))) == Type::None || type == Type::Pred)
        fail(tok_, "expected a variable type such as .b8 or .f32, found " + describe(tok_));
    bump();
    for (;;) {
        const Token name_tok = tok_;
        const std::string name(expect_ident("a variable name"));
        uint64_t count = 1;
        bool unsized = false;
        while (at_punct('[')) {
            bump();
            if (at_punct(']')) {
                unsized = true;
            } else {
                const uint64_t n = expect_int("an array size");
                if (n == 0 || n > kMaxVariableBytes || count * n > kMaxVariableBytes)
                    fail(name_tok, "array '" + name + "' is too large or empty");
                count *= n;
            }
            expect_punct(']', "after the array size");
        }
        const uint64_t elem = static_cast<uint64_t>(type_bytes(type)) * vec;
        const uint64_t size = elem * count;
        if (size > kMaxVariableBytes) fail(name_tok, "variable '" + name + "' is larger than 1 GiB");
        const uint64_t al = align ? align : elem;
        Symbol sym;
        sym.space = space;
        sym.size = size;
        if (unsized && !(space == Space::Shared && is_extern))
            fail(name_tok, "only .extern .shared arrays may be declared without a size ('" + name + "')");
        switch (space) {
            case Space::Global:
            case Space::Const: {
                Module::GlobalVar var;
                var.size = size;
                var.storage.reset(new std::byte[std::max<uint64_t>(size, 1) + 16]());
                sym.base = AddrBase::Host;
                sym.value = reinterpret_cast<uint64_t>(align_up(reinterpret_cast<uint64_t>(var.storage.get()), 16));
                if (at_punct('=')) {
                    bump();
                    parse_initializer(reinterpret_cast<std::byte*>(sym.value), size, type, name_tok);
                }
                m_.globals_[name] = std::move(var);
                break;
            }
            case Space::Shared:
                sym.base = AddrBase::Shared;
                if (unsized) {
                    sym.dynamic_shared = true;
                    sym.value = 0;
                } else {
                    const uint64_t offset = align_up(m_.shared_bytes_, al);
                    if (offset + size > (uint64_t{1} << 31)) fail(name_tok, "static shared memory exceeds 2 GiB");
                    sym.value = offset;
                    m_.shared_bytes_ = static_cast<uint32_t>(offset + size);
                }
                if (at_punct('=')) fail(tok_, ".shared variables cannot have initialisers");
                break;
            case Space::Local:
            case Space::Param:
                if (module_scope)
                    fail(at, "module-scope ." + std::string(space == Space::Local ? "local" : "param") +
                                 " variables are not supported");
                if (size > (1u << 24)) fail(name_tok, "variable '" + name + "' is too large for a frame");
                sym.base = space == Space::Local ? AddrBase::Local : AddrBase::FrameParam;
                sym.value = allocate_frame(static_cast<uint32_t>(size), static_cast<uint32_t>(al));
                if (at_punct('='))
                    fail(tok_, "." + std::string(space == Space::Local ? "local" : "param") +
                                   " variables cannot have initialisers here");
                break;
            case Space::Generic: GPUSIM_ASSERT(false);
        }
        if (module_scope) {
            module_symbols_[name] = sym;
        } else {
            scopes_.back().vars[name] = sym;
        }
        if (!at_punct(',')) break;
        bump();
    }
    expect_punct(';', "after the variable declaration");
}

void Parser::parse_initializer(std::byte* storage, uint64_t size, Type elem, const Token& at) {
    const uint64_t esize = static_cast<uint64_t>(type_bytes(elem));
    uint64_t index = 0;
    auto value = [&]() {
        if (index * esize >= size) fail(tok_, "too many initialiser values for a " + std::to_string(size) + "-byte variable");
        bool negative = false;
        if (at_punct('-')) {
            negative = true;
            bump();
        }
        uint64_t bits = 0;
        const Token v = tok_;
        if (tok_.kind == TokKind::Int) {
            const uint64_t i = negative ? (~tok_.bits + 1) : tok_.bits;
            if (elem == Type::F32) {
                float f = negative ? -static_cast<float>(tok_.bits) : static_cast<float>(tok_.bits);
                std::memcpy(&bits, &f, 4);
            } else if (elem == Type::F64) {
                double f = negative ? -static_cast<double>(tok_.bits) : static_cast<double>(tok_.bits);
                std::memcpy(&bits, &f, 8);
            } else
                bits = i;
        } else if (tok_.kind == TokKind::F32Bits || tok_.kind == TokKind::F64Bits || tok_.kind == TokKind::Decimal) {
            double d;
            if (tok_.kind == TokKind::F32Bits) {
                float f;
                uint32_t b = static_cast<uint32_t>(tok_.bits);
                std::memcpy(&f, &b, 4);
                d = f;
            } else if (tok_.kind == TokKind::F64Bits)
                std::memcpy(&d, &tok_.bits, 8);
            else
                d = tok_.decimal;
            if (negative) d = -d;
            if (elem == Type::F32) {
                float f = static_cast<float>(d);
                std::memcpy(&bits, &f, 4);
            } else if (elem == Type::F64)
                std::memcpy(&bits, &d, 8);
            else if (tok_.kind != TokKind::Decimal)
                bits = tok_.bits;
            else
                fail(v, "a decimal float cannot initialise a ." + std::string(type_name(elem)) + " variable");
        } else if (tok_.kind == TokKind::Ident) {
            // Address of another module variable (generic(x) is written as the name itself here).
            std::string_view n = tok_.text;
            const bool generic = n == "generic";
            if (generic) {
                bump();
                expect_punct('(', "after generic");
                n = tok_.text;
            }
            auto it = module_symbols_.find(std::string(n));
            if (it == module_symbols_.end() || it->second.base != AddrBase::Host)
                fail(tok_, "initialiser refers to unknown global variable '" + std::string(n) + "'");
            bits = it->second.value;
            if (generic) {
                bump();
                if (!at_punct(')')) fail(tok_, "expected ')' after generic(" + std::string(n));
            }
        } else {
            fail(tok_, "expected an initialiser value, found " + describe(tok_));
        }
        bump();
        std::memcpy(storage + index * esize, &bits, std::min<uint64_t>(esize, 8));
        ++index;
    };
    if (at_punct('{')) {
        int depth = 0;
        for (;;) {
            if (at_punct('{')) {
                ++depth;
                bump();
                continue;
            }
            if (at_punct('}')) {
                --depth;
                bump();
                if (depth == 0) break;
                if (at_punct(',')) bump();
                continue;
            }
            if (tok_.kind == TokKind::End) fail(at, "unterminated initialiser list");
            value();
            if (at_punct(','))
                bump();
            else if (!at_punct('}'))
                fail(tok_, "expected ',' or '}' in the initialiser list, found " + describe(tok_));
        }
    } else {
        value();
    }
}

void Parser::parse_block(const Token& open) {
    scopes_.emplace_back();
    for (;;) {
        if (tok_.kind == TokKind::End) fail(open, "missing '}': the block that starts here is never closed");
        if (at_punct('}')) break;
        parse_statement();
    }
    bump();
    scopes_.pop_back();
}

void Parser::parse_statement() {
    const Token at = tok_;
    if (at_punct('{')) {
        bump();
        parse_block(at);
        return;
    }
    if (tok_.kind == TokKind::Directive) {
        const std::string_view d = tok_.text;
        if (d == ".reg") {
            bump();
            parse_reg_decl();
        } else if (d == ".local" || d == ".shared" || d == ".param" || d == ".global" || d == ".const") {
            const Space space = d == ".local"    ? Space::Local
                                : d == ".shared" ? Space::Shared
                                : d == ".param"  ? Space::Param
                                : d == ".global" ? Space::Global
                                                 : Space::Const;
            bump();
            parse_variable(space, space == Space::Global || space == Space::Const, false, at);
        } else if (d == ".loc") {
            bump();
            parse_loc();
        } else if (d == ".pragma") {
            bump();
            if (tok_.kind != TokKind::String) fail(tok_, "expected a string after .pragma, found " + describe(tok_));
            bump();
            expect_punct(';', "after .pragma");
        } else {
            fail(at, "unexpected directive " + describe(at) + " in a function body");
        }
        return;
    }
    if (at_punct('@')) {
        bump();
        bool neg = false;
        if (at_punct('!')) {
            neg = true;
            bump();
        }
        const Token pred = tok_;
        const std::string_view name = expect_ident("a predicate register after '@'");
        const int32_t reg = find_register(name);
        if (reg < 0) fail(pred, "undeclared predicate register '" + std::string(name) + "'");
        if (tok_.kind != TokKind::Ident)
            fail(tok_, "expected an instruction after the guard @" + std::string(neg ? "!" : "") + std::string(name) +
                           ", found " + describe(tok_));
        parse_instruction(reg, neg, at);
        return;
    }
    if (tok_.kind == TokKind::Ident) {
        if (ahead().kind == TokKind::Punct && ahead().punct == ':') {
            const std::string name(tok_.text);
            bump();
            bump();
            if (at_directive(".callprototype")) {  // "prototype_0 : .callprototype (...) _ (...);"
                while (!at_punct(';')) {
                    if (tok_.kind == TokKind::End) fail(at, "unterminated .callprototype");
                    bump();
                }
                bump();
                return;
            }
            if (labels_.count(name)) fail(at, "label '" + name + "' is defined twice");
            labels_[name] = static_cast<int32_t>(m_.code_.size());
            return;
        }
        parse_instruction(-1, false, at);
        return;
    }
    fail(at, "expected an instruction, a label or a directive, found " + describe(at));
}

void Parser::parse_reg_decl() {
    int vec = 1;
    if (at_directive(".v2") || at_directive(".v4")) {
        vec = tok_.text == ".v2" ? 2 : 4;
        bump();
    }
    Type type = Type::None;
    if (tok_.kind != TokKind::Directive || (type = parse_type_name(tok_.text.substr(1))) == Type::None)
        fail(tok_, "expected a register type such as .b32 or .pred after .reg, found " + describe(tok_));
    if (vec != 1) fail(tok_, "vector registers (.reg .v2/.v4) are not supported");
    if (type_bits(type) > 64) fail(tok_, "128-bit registers are not supported");
    bump();
    for (;;) {
        const Token name_tok = tok_;
        const std::string name(expect_ident("a register name"));
        if (at_punct('<')) {
            bump();
            const uint64_t n = expect_int("a register count");
            expect_punct('>', "after the register count");
            if (n > 1000000 || m_.num_regs_ + n > 4000000) fail(name_tok, "too many registers declared");
            for (uint64_t i = 0; i < n; ++i) scopes_.back().regs[name + std::to_string(i)] = m_.num_regs_++;
        } else {
            if (m_.num_regs_ > 4000000) fail(name_tok, "too many registers declared");
            scopes_.back().regs[name] = m_.num_regs_++;
        }
        if (!at_punct(',')) break;
        bump();
    }
    expect_punct(';', "after the register declaration");
}

void Parser::parse_loc() {
    SourceLoc loc;
    auto small = [&](const char* what) {
        const uint64_t v = expect_int(what);
        return static_cast<int32_t>(std::min<uint64_t>(v, 1u << 30));
    };
    loc.file = small("a file number after .loc");
    loc.line = small("a line number");
    loc.col = small("a column number");
    while (at_punct(',')) {
        bump();
        const std::string_view key = expect_ident("function_name or inlined_at after ',' in .loc");
        if (key == "function_name") {
            expect_ident("a label naming the function");
            if (at_punct('+')) {
                bump();
                expect_int("an offset");
            }
        } else if (key == "inlined_at") {
            loc.at_file = small("a file number after inlined_at");
            loc.at_line = small("a line number");
            loc.at_col = small("a column number");
        } else {
            fail(tok_, "unknown .loc attribute '" + std::string(key) + "'");
        }
    }
    const std::string key = std::to_string(loc.file) + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col) + ":" +
                            std::to_string(loc.at_file) + ":" + std::to_string(loc.at_line) + ":" + std::to_string(loc.at_col);
    auto it = loc_index_.find(key);
    if (it == loc_index_.end()) {
        it = loc_index_.emplace(key, static_cast<int32_t>(m_.locs_.size())).first;
        m_.locs_.push_back(loc);
    }
    cur_loc_ = it->second;
}

const Parser::Symbol* Parser::find_symbol(std::string_view name) const {
    const std::string key(name);
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
        auto v = it->vars.find(key);
        if (v != it->vars.end()) return &v->second;
    }
    auto g = module_symbols_.find(key);
    return g == module_symbols_.end() ? nullptr : &g->second;
}

int32_t Parser::find_register(std::string_view name) const {
    const std::string key(name);
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
        auto r = it->regs.find(key);
        if (r != it->regs.end()) return r->second;
    }
    return -1;
}

int32_t Parser::add_instr(Instr in, const Token& first, size_t end_offset) {
    in.ptx_line = first.line;
    in.loc = cur_loc_;
    const size_t begin = static_cast<size_t>(first.text.data() - text_.data());
    std::string text(text_.substr(begin, end_offset > begin ? end_offset - begin : 0));
    for (char& c : text)
        if (c == '\t' || c == '\n' || c == '\r') c = ' ';
    m_.code_.push_back(in);
    m_.code_text_.push_back(std::move(text));
    return static_cast<int32_t>(m_.code_.size() - 1);
}

Module parse_ptx(std::string_view text, std::string_view name) {
    Parser parser(text, name);
    return parser.run();
}

// ---- Module accessors ----

const Function* Module::find_function(std::string_view name) const {
    auto it = function_index_.find(std::string(name));
    return it == function_index_.end() ? nullptr : &functions_[it->second];
}

std::vector<std::span<std::byte>> Module::global_storage() const {
    std::vector<std::span<std::byte>> out;
    for (const auto& [name, var] : globals_) out.push_back(global_symbol(name));
    return out;
}

std::span<std::byte> Module::global_symbol(std::string_view name) const {
    auto it = globals_.find(std::string(name));
    if (it == globals_.end()) return {};
    auto* p = reinterpret_cast<std::byte*>(align_up(reinterpret_cast<uint64_t>(it->second.storage.get()), 16));
    return {p, it->second.size};
}

}  // namespace weft::gpusim
