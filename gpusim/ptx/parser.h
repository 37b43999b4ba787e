// gpusim/ptx/parser.h — the recursive-descent PTX parser behind parse_ptx() (internal header).
//
// parse_ptx.cpp holds the module-level grammar (directives, variables, functions, bodies,
// scopes); parse_instruction.cpp decodes one instruction (mnemonic, modifiers, operands) into
// an Instr. Names resolve through a stack of scopes because NVRTC re-declares registers such as
// %r0 inside the { } blocks of inline assembly and call sequences.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gpusim/ptx/lexer.h"
#include "gpusim/ptx/module.h"

namespace weft::gpusim {

class Parser {
public:
    Parser(std::string_view text, std::string_view name);
    Module run();

private:
    struct Symbol {
        AddrBase base = AddrBase::None;
        Space space = Space::Global;
        uint64_t value = 0;  // host address or offset, per base
        uint64_t size = 0;
        bool dynamic_shared = false;  // extern .shared x[]: placed after all static shared memory
    };
    struct Scope {
        std::unordered_map<std::string, int32_t> regs;
        std::unordered_map<std::string, Symbol> vars;
    };
    // A syntactic operand before name resolution.
    struct RawOperand {
        enum Kind { Name, Neg, Number, Address, Vector, Pair, List } kind = Name;
        Token tok;               // first token (for locations)
        std::string_view name;   // Name/Neg/Address base/Pair first
        std::string_view name2;  // Pair second
        Token number;            // Number, or Address base when it is a literal
        bool negative = false;   // Number
        bool addr_has_name = false;
        int64_t offset = 0;                   // Address
        std::vector<std::string_view> names;  // Vector / List elements ("_" for sinks)
    };
    struct LabelUse {
        int32_t instr;
        std::string name;
        Token tok;
    };

    // Tokens.
    void bump();
    const Token& ahead();
    [[noreturn]] void fail(const Token& at, const std::string& message) const;
    bool at_punct(char c) const { return tok_.kind == TokKind::Punct && tok_.punct == c; }
    bool at_directive(std::string_view d) const { return tok_.kind == TokKind::Directive && tok_.text == d; }
    void expect_punct(char c, const std::string& context);
    std::string_view expect_ident(const std::string& what);
    uint64_t expect_int(const std::string& what);

    // Module level (parse_ptx.cpp).
    void parse_top();
    void parse_function(bool is_entry, bool is_extern, const Token& at);
    void parse_params(std::vector<ParamInfo>& out, bool is_entry, const std::string& fn);
    void parse_variable(Space space, bool module_scope, bool is_extern, const Token& at);
    void parse_initializer(std::byte* storage, uint64_t size, Type elem, const Token& at);
    void parse_block(const Token& open);  // after its '{'
    void parse_statement();
    void parse_reg_decl();
    void parse_loc();
    void skip_braced_section();
    void finish_function();
    const Symbol* find_symbol(std::string_view name) const;
    int32_t find_register(std::string_view name) const;
    uint32_t allocate_frame(uint32_t size, uint32_t align);
    int32_t add_instr(Instr in, const Token& first, size_t end_offset);

    // One instruction (parse_instruction.cpp).
    void parse_instruction(int32_t guard, bool guard_neg, const Token& guard_tok);
    RawOperand parse_operand();
    void decode_modifiers(Instr& in, std::string_view mnemonic, const Token& at);
    Operand resolve_operand(const Instr& in, const RawOperand& raw, Type expected, bool is_dest);
    Operand resolve_address(const RawOperand& raw);
    void resolve_call(Instr& in, const std::vector<RawOperand>& raw, const Token& at);
    Type operand_type(const Instr& in, int index) const;

    std::string_view text_;
    std::string name_;
    Lexer lex_;
    Token tok_;
    Token ahead_;
    bool have_ahead_ = false;
    Module m_;

    std::unordered_map<std::string, Symbol> module_symbols_;
    std::vector<Scope> scopes_;
    std::vector<std::pair<int32_t, int>> dynamic_shared_uses_;  // (instr, operand) to patch
    std::unordered_map<std::string, int32_t> loc_index_;

    // The function being parsed.
    int32_t fn_ = -1;
    uint32_t frame_bytes_ = 0;
    int32_t cur_loc_ = -1;
    std::unordered_map<std::string, int32_t> labels_;
    std::vector<LabelUse> label_uses_;
};

}  // namespace weft::gpusim
