// gpusim/sass/sass_map.cpp — SassMap from a cubin: a small ELF64 reader (sections, symbols, RELA)
// and a DWARF 2 line-program decoder for `.nv_debug_line_sass` (sass_map.h says why).
//
// The line program's DW_LNE_set_address operands are 0 in the file; a relocation in
// `.rela.nv_debug_line_sass` names the `.text.<kernel>` section each sequence belongs to. SASS
// instructions are 16 bytes (sm_70 and later); the low 12 bits of an instruction are its
// opcode, which is how the padding after the final EXIT (0x947 BRA to itself, 0x918 NOP) is
// recognised.
#include "gpusim/sass/sass_map.h"

#include "gpusim/arch/ptxas.h"
#include "gpusim/sass/sass_cfg.h"
#include "gpusim/sass/sass_decode.h"
#include "gpusim/timing/instr_class.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

namespace weft::gpusim {
namespace {

struct Section {
    std::string name;
    uint32_t type = 0, link = 0, info = 0;
    uint64_t offset = 0, size = 0, entsize = 0;
};

class Elf {
public:
    explicit Elf(const std::string& bytes) : b_(bytes) {
        if (b_.size() < 64 ||
            b_.compare(0, 4,
                       "\x7f"
                       "ELF") != 0 ||
            b_[4] != 2)
            throw SassMapError("not a 64-bit ELF cubin");
        const uint64_t shoff = u64(0x28);
        const uint16_t shentsize = u16(0x3A), shnum = u16(0x3C), shstrndx = u16(0x3E);
        for (uint32_t i = 0; i < shnum; ++i) {
            const uint64_t o = shoff + uint64_t{i} * shentsize;
            Section s;
            s.type = u32(o + 4);
            s.offset = u64(o + 24);
            s.size = u64(o + 32);
            s.link = u32(o + 40);
            s.info = u32(o + 44);
            s.entsize = u64(o + 56);
            name_offsets_.push_back(u32(o));
            sections_.push_back(s);
        }
        if (shstrndx >= sections_.size()) throw SassMapError("cubin has no section name table");
        for (size_t i = 0; i < sections_.size(); ++i) sections_[i].name = str(sections_[shstrndx].offset + name_offsets_[i]);
    }
    const std::vector<Section>& sections() const { return sections_; }
    const Section* find(const std::string& name) const {
        for (const Section& s : sections_)
            if (s.name == name) return &s;
        return nullptr;
    }
    uint8_t u8(uint64_t o) const {
        check(o, 1);
        return static_cast<uint8_t>(b_[o]);
    }
    uint16_t u16(uint64_t o) const { return get<uint16_t>(o); }
    uint32_t u32(uint64_t o) const { return get<uint32_t>(o); }
    uint64_t u64(uint64_t o) const { return get<uint64_t>(o); }
    std::string str(uint64_t o) const {
        check(o, 1);
        const size_t e = b_.find('\0', o);
        return b_.substr(o, e == std::string::npos ? std::string::npos : e - o);
    }
    void check(uint64_t o, uint64_t n) const {
        if (o + n > b_.size() || o + n < o) throw SassMapError("cubin is truncated (offset " + std::to_string(o) + ")");
    }

private:
    template <typename T>
    T get(uint64_t o) const {
        check(o, sizeof(T));
        T v;
        std::memcpy(&v, b_.data() + o, sizeof v);
        return v;
    }
    const std::string& b_;
    std::vector<Section> sections_;
    std::vector<uint32_t> name_offsets_;
};

uint64_t uleb(const Elf& e, uint64_t& p) {
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        const uint8_t x = e.u8(p++);
        r |= uint64_t{x & 0x7fu} << shift;
        if (x < 0x80) return r;
    }
    return r;
}
int64_t sleb(const Elf& e, uint64_t& p) {
    int64_t r = 0;
    int shift = 0;
    uint8_t x = 0;
    do {
        x = e.u8(p++);
        r |= static_cast<int64_t>(x & 0x7f) << shift;
        shift += 7;
    } while (x >= 0x80 && shift < 64);
    if (shift < 64 && (x & 0x40)) r -= int64_t{1} << shift;
    return r;
}

struct Row {
    std::string section;
    uint64_t address;
    int32_t line;  // -1: end of sequence
};

std::vector<Row> line_rows(const Elf& e) {
    const Section* ls = e.find(".nv_debug_line_sass");
    if (!ls) throw SassMapError("cubin has no .nv_debug_line_sass section (was ptxas run with -lineinfo?)");
    // Relocations of DW_LNE_set_address: offset in the line section -> target section.
    std::map<uint64_t, std::pair<std::string, int64_t>> reloc;
    if (const Section* rel = e.find(".rela.nv_debug_line_sass")) {
        if (rel->link >= e.sections().size()) throw SassMapError("bad symbol table link");
        const Section& symtab = e.sections()[rel->link];
        for (uint64_t o = rel->offset; o + 24 <= rel->offset + rel->size; o += 24) {
            const uint64_t off = e.u64(o), info = e.u64(o + 8);
            const int64_t addend = static_cast<int64_t>(e.u64(o + 16));
            const uint64_t sym = info >> 32;
            const uint16_t shndx = e.u16(symtab.offset + sym * 24 + 6);
            if (shndx < e.sections().size()) reloc[off] = {e.sections()[shndx].name, addend};
        }
    }
    std::vector<Row> rows;
    uint64_t p = ls->offset;
    const uint64_t end_all = ls->offset + ls->size;
    while (p + 4 <= end_all) {
        const uint32_t unit_length = e.u32(p);
        p += 4;
        const uint64_t unit_end = p + unit_length;
        p += 2;  // version
        const uint32_t header_length = e.u32(p);
        p += 4;
        const uint64_t program = p + header_length;
        const uint8_t min_inst = e.u8(p), line_base_u = e.u8(p + 2), line_range = e.u8(p + 3), opcode_base = e.u8(p + 4);
        const int line_base = static_cast<int8_t>(line_base_u);
        std::vector<uint8_t> std_lengths;
        for (int i = 0; i + 1 < opcode_base; ++i) std_lengths.push_back(e.u8(p + 5 + static_cast<uint64_t>(i)));
        if (line_range == 0) throw SassMapError("bad line table header");
        p = program;
        std::string section;
        uint64_t address = 0;
        int64_t line = 1;
        while (p < unit_end) {
            const uint8_t op = e.u8(p++);
            if (op >= opcode_base) {
                const int adj = op - opcode_base;
                address += static_cast<uint64_t>(adj / line_range) * min_inst;
                line += line_base + adj % line_range;
                rows.push_back({section, address, static_cast<int32_t>(line)});
            } else if (op == 0) {
                const uint64_t n = uleb(e, p);
                const uint64_t start = p;
                const uint8_t sub = e.u8(p);
                if (sub == 1) {
                    rows.push_back({section, address, -1});
                    address = 0;
                    line = 1;
                } else if (sub == 2) {
                    auto it = reloc.find(p + 1 - ls->offset);
                    section = it == reloc.end() ? "" : it->second.first;
                    address = e.u64(p + 1) + static_cast<uint64_t>(it == reloc.end() ? 0 : it->second.second);
                }
                p = start + n;
            } else if (op == 1) {
                rows.push_back({section, address, static_cast<int32_t>(line)});
            } else if (op == 2) {
                address += uleb(e, p) * min_inst;
            } else if (op == 3) {
                line += sleb(e, p);
            } else if (op == 8) {
                address += static_cast<uint64_t>((255 - opcode_base) / line_range) * min_inst;
            } else if (op == 9) {
                address += e.u16(p);
                p += 2;
            } else {
                for (uint8_t k = 0; k < std_lengths[op - 1]; ++k) uleb(e, p);
            }
        }
        p = unit_end;
    }
    return rows;
}

}  // namespace

SassMap read_sass_map(const std::string& cubin) {
    const Elf e(cubin);
    const std::vector<Row> rows = line_rows(e);
    SassMap map;
    for (const Section& s : e.sections()) {
        if (s.name.rfind(".text.", 0) != 0 || s.size % 16 != 0) continue;
        KernelSass& k = map.kernels[s.name.substr(6)];
        // Strip the padding: trailing NOPs, then one branch to itself.
        uint64_t n = s.size / 16;
        auto opcode = [&](uint64_t i) { return e.u64(s.offset + i * 16) & 0xfff; };
        while (n > 0 && opcode(n - 1) == 0x918) --n;
        if (n > 0 && opcode(n - 1) == 0x947 && (e.u64(s.offset + (n - 1) * 16) >> 32) == 0xfffffffc) --n;
        k.static_instructions = static_cast<uint32_t>(n);
        // Rows of this section, in address order within each sequence.
        std::vector<std::pair<uint64_t, int32_t>> r;
        for (const Row& row : rows)
            if (row.section == s.name) r.push_back({row.address, row.line});
        for (uint64_t i = 0; i < n; ++i) {
            const uint64_t a = i * 16;
            int32_t line = -1;
            for (size_t j = 0; j < r.size(); ++j) {
                if (r[j].first > a) break;
                line = r[j].second;  // the last row at or before a; -1 past an end of sequence
            }
            if (line > 0)
                ++k.per_ptx_line[line];
            else
                ++k.unattributed;
            k.code.push_back({e.u64(s.offset + a), e.u64(s.offset + a + 8), line > 0 ? line : -1});
        }
    }
    return map;
}

std::string sass_map_to_text(const SassMap& map) {
    std::string out;
    char buf[64];
    for (const auto& [name, k] : map.kernels) {
        out += "kernel " + name + " " + std::to_string(k.code.size()) + "\n";
        for (const SassInstruction& w : k.code) {
            std::snprintf(buf, sizeof buf, "%llx %llx %d\n", static_cast<unsigned long long>(w.lo),
                          static_cast<unsigned long long>(w.hi), w.ptx_line);
            out += buf;
        }
    }
    return out;
}

SassMap sass_map_from_text(const std::string& text) {
    SassMap map;
    std::istringstream in(text);
    std::string word, name;
    size_t n = 0;
    while (in >> word) {
        if (word != "kernel" || !(in >> name >> n))
            throw SassMapError("SASS map text: expected 'kernel NAME COUNT', found '" + word + "'");
        KernelSass& k = map.kernels[name];
        for (size_t i = 0; i < n; ++i) {
            SassInstruction w;
            if (!(in >> std::hex >> w.lo >> w.hi >> std::dec >> w.ptx_line))
                throw SassMapError("SASS map text: kernel '" + name + "' has fewer than " + std::to_string(n) + " instructions");
            if (w.ptx_line > 0) {
                ++k.per_ptx_line[w.ptx_line];
            } else {
                w.ptx_line = -1;
                ++k.unattributed;
            }
            k.code.push_back(w);
        }
        k.static_instructions = static_cast<uint32_t>(n);
    }
    return map;
}

SassMap map_sass(const std::string& ptx, const ArchSpec& arch, const std::string& ptxas) {
    PtxasOptions o;
    o.ptxas = ptxas;
    o.verbose = false;
    o.lineinfo = true;
    std::string cubin;
    try {
        cubin = run_ptxas(ptx, arch, o).cubin;
    } catch (const PtxasError& e) { throw SassMapError(e.what()); }
    return read_sass_map(cubin);
}

// A PTX instruction ptxas turns into exactly one SASS instruction when it does not unroll:
// 32-bit integer and f32 arithmetic, compares, selects, shifts, logic, loads and stores.
bool sass_one_to_one(const std::string& text) {
    size_t i = text.find_first_not_of(" \t");
    if (i == std::string::npos) return false;
    if (text[i] == '@') i = text.find_first_not_of(" \t", text.find_first_of(" \t", i));
    if (i == std::string::npos) return false;
    const std::string op = text.substr(i, text.find_first_of(" \t", i) - i);
    if (op.find("64") != std::string::npos || op.find(".v2") != std::string::npos || op.find(".v4") != std::string::npos)
        return false;
    static const char* kHeads[] = {"fma.",  "add.",  "sub.",      "mul.lo",    "mad.lo",    "mul.f",    "mul.rn",
                                   "setp.", "selp.", "and.",      "or.",       "xor.",      "shl.",     "shr.",
                                   "min.",  "max.",  "ld.global", "ld.shared", "st.global", "st.shared"};
    for (const char* h : kHeads)
        if (op.rfind(h, 0) == 0) return true;
    return false;
}

namespace {

// Per instruction: the unroll factor ptxas applied to its basic block, read off the block's
// one-to-one instructions as the lower median of their SASS counts (1 where none has SASS).
// Basic blocks: a branch target or the instruction after a branch starts one.
std::vector<bool> block_leaders(const Module& module) {
    const auto& code = module.instructions();
    std::vector<bool> leader(code.size() + 1, false);
    leader[0] = true;
    for (size_t i = 0; i < code.size(); ++i) {
        if (code[i].op == Op::Bra || code[i].op == Op::Ret || code[i].op == Op::Exit) leader[i + 1] = true;
        if (code[i].op == Op::Bra && code[i].target >= 0 && static_cast<size_t>(code[i].target) < code.size())
            leader[static_cast<size_t>(code[i].target)] = true;
    }
    return leader;
}

std::vector<double> unroll_factors(const std::map<int32_t, uint32_t>& per_line, const Module& module) {
    const auto& code = module.instructions();
    std::vector<double> k(code.size(), 1.0);
    const std::vector<bool> leader = block_leaders(module);
    for (size_t b = 0; b < code.size();) {
        size_t e = b + 1;
        while (e < code.size() && !leader[e]) ++e;
        std::vector<uint32_t> simple;
        for (size_t i = b; i < e; ++i) {
            auto l = per_line.find(code[i].ptx_line);
            const uint32_t n = l == per_line.end() ? 0 : l->second;
            if (n > 0 && sass_one_to_one(module.instruction_text(static_cast<int32_t>(i)))) simple.push_back(n);
        }
        if (!simple.empty()) {
            // The lower median: a block of two with one 2-SASS compare is not an unrolled loop.
            const size_t mid = (simple.size() - 1) / 2;
            std::nth_element(simple.begin(), simple.begin() + static_cast<long>(mid), simple.end());
            for (size_t i = b; i < e; ++i) k[i] = simple[mid];
        }
        b = e;
    }
    return k;
}

const KernelSass& kernel_sass(const SassMap& map, const std::string& kernel) {
    auto it = map.kernels.find(kernel);
    if (it == map.kernels.end()) throw SassMapError("ptxas made no code for kernel '" + kernel + "'");
    return it->second;
}

}  // namespace

std::vector<double> sass_weights(const SassMap& map, const Module& module, const std::string& kernel) {
    const auto& per_line = kernel_sass(map, kernel).per_ptx_line;
    const auto& code = module.instructions();
    const std::vector<double> unroll = unroll_factors(per_line, module);
    std::vector<double> w(code.size(), 0.0);
    for (size_t i = 0; i < code.size(); ++i) {
        auto l = per_line.find(code[i].ptx_line);
        w[i] = (l == per_line.end() ? 0.0 : l->second) / unroll[i];
    }
    return w;
}

std::vector<SharedIssue> sass_shared_issue(const SassMap& map, const Module& module, const std::string& kernel) {
    const KernelSass& ks = kernel_sass(map, kernel);
    const auto& code = module.instructions();
    const std::vector<double> unroll = unroll_factors(ks.per_ptx_line, module);
    std::vector<SharedIssue> out(code.size());
    const Function* f = module.find_function(kernel);
    if (ks.code.empty() || !f) return out;  // a map without instruction words (a cached line table): as written
    // The LDS/STS words of each PTX line: count and the widths seen.
    struct LineOps {
        int loads = 0, stores = 0, load_width = 0, store_width = 0;
        bool mixed = false;
    };
    std::map<int32_t, LineOps> ops;
    for (const SassInstruction& w : ks.code) {
        bool store;
        int width;
        if (w.ptx_line < 0 || !decode_shared_sass(w.lo, w.hi, &store, &width)) continue;
        LineOps& o = ops[w.ptx_line];
        int& n = store ? o.stores : o.loads;
        int& wd = store ? o.store_width : o.load_width;
        if (n > 0 && wd != width) o.mixed = true;
        ++n;
        wd = width;
    }
    // Per basic block (same unroll factor, contiguous), per kind: the bytes per thread the PTX
    // moves must equal the bytes the machine code moves; otherwise ptxas did something other
    // than merging neighbours (hoisted a load out of a loop, split one, eliminated one), and
    // the block's accesses stay as written.
    auto is_shared = [&](const Instr& in) { return (in.op == Op::Ld || in.op == Op::St) && in.space == Space::Shared; };
    const std::vector<bool> leader = block_leaders(module);
    const size_t first = static_cast<size_t>(f->begin), last = static_cast<size_t>(f->end);  // the kernel's own code
    for (size_t b = first; b < last;) {
        size_t e = b + 1;
        while (e < last && !leader[e]) ++e;
        for (int store = 0; store < 2; ++store) {
            double ptx_bytes = 0, sass_bytes = 0;
            const double k = unroll[b];  // ptxas's copies of the block: each has its own instruction
            bool ok = true, any = false;
            for (size_t i = b; i < e; ++i) {
                const Instr& in = code[i];
                if (!is_shared(in) || (in.op == Op::St) != (store == 1)) continue;
                any = true;
                const int ptx_width = type_bytes(in.type) * in.vec;
                ptx_bytes += ptx_width;
                auto o = ops.find(in.ptx_line);
                const int n = o == ops.end() ? 0 : store ? o->second.stores : o->second.loads;
                const int width = o == ops.end() ? 0 : store ? o->second.store_width : o->second.load_width;
                if ((n != 0 && n != k) || (o != ops.end() && o->second.mixed) || (n != 0 && width < ptx_width)) ok = false;
                sass_bytes += n / k * width;
                out[i] = {n / k, n ? width : 0};
            }
            if (!any) continue;
            if (!ok || ptx_bytes != sass_bytes) {
                for (size_t i = b; i < e; ++i)
                    if (is_shared(code[i]) && (code[i].op == Op::St) == (store == 1)) out[i] = SharedIssue{};
                continue;
            }
            bool head = false;
            for (size_t i = b; i < e; ++i) {
                if (!is_shared(code[i]) || (code[i].op == Op::St) != (store == 1)) continue;
                if (out[i].requests > 0 && out[i].width > type_bytes(code[i].type) * code[i].vec) head = true;
                if (out[i].requests == 0) out[i].after_head = head;
            }
        }
        b = e;
    }
    return out;
}

std::vector<bool> schedule_segments(const Module& module) {
    std::vector<bool> leader = block_leaders(module);
    const auto& code = module.instructions();
    for (size_t i = 0; i < code.size(); ++i)
        if (code[i].op == Op::Bar || code[i].op == Op::Membar) leader[i + 1] = true;
    return leader;
}

std::vector<LoadHoist> sass_load_hoist(const SassMap& map, const Module& module, const std::string& kernel,
                                       const std::vector<double>& weights) {
    const KernelSass& ks = kernel_sass(map, kernel);
    const auto& code = module.instructions();
    std::vector<LoadHoist> out(code.size());
    const Function* f = module.find_function(kernel);
    if (ks.code.empty() || !f || weights.size() != code.size()) return out;
    std::map<int32_t, size_t> first;  // PTX line -> position of its first SASS instruction
    for (size_t k = 0; k < ks.code.size(); ++k)
        if (ks.code[k].ptx_line > 0) first.emplace(ks.code[k].ptx_line, k);
    const std::vector<bool> leader = schedule_segments(module);
    const std::vector<InstrClass> cls = classify_instructions(module);
    auto is_load = [&](const Instr& in) {
        return in.op == Op::Ld && (in.space == Space::Shared || in.space == Space::Global || in.space == Space::Local);
    };
    const size_t lo = static_cast<size_t>(f->begin), hi = static_cast<size_t>(f->end);
    for (size_t b = lo; b < hi;) {
        size_t e = b + 1;
        while (e < hi && !leader[e]) ++e;
        // Each instruction's SASS position; a merged load (none) takes the previous load's.
        std::vector<long> pos(e - b, -1);
        long last_load = -1;
        for (size_t i = b; i < e; ++i) {
            auto it = first.find(code[i].ptx_line);
            if (it != first.end()) pos[i - b] = static_cast<long>(it->second);
            if (is_load(code[i])) {
                if (pos[i - b] < 0)
                    pos[i - b] = last_load;
                else
                    last_load = pos[i - b];
            }
        }
        // Which instructions read a register the segment wrote before them (by a load: uses_load).
        std::vector<bool> uses_load(e - b, false), uses_segment(e - b, false);
        std::set<int32_t> loaded, written;
        for (size_t i = b; i < e; ++i) {
            const InstrClass& c = cls[i];
            for (int k = 0; k < c.nsrc; ++k) {
                uses_load[i - b] = uses_load[i - b] || loaded.count(c.src[k]);
                uses_segment[i - b] = uses_segment[i - b] || written.count(c.src[k]);
            }
            for (int k = 0; k < c.ndst; ++k) {
                written.insert(c.dst[k]);
                if (is_load(code[i]))
                    loaded.insert(c.dst[k]);
                else
                    loaded.erase(c.dst[k]);
            }
        }
        for (size_t i = b; i < e; ++i) {
            if (!is_load(code[i]) || pos[i - b] < 0) continue;
            bool bypassed = false, blocked = false;
            LoadHoist h;
            h.offset = 0;
            for (size_t j = b; j < e; ++j) {
                if (j == i || pos[j - b] < 0) continue;
                if (j < i && pos[j - b] > pos[i - b]) bypassed = true;
                if (pos[j - b] < pos[i - b] || (pos[j - b] == pos[i - b] && j < i)) {
                    h.offset += weights[j];
                    if (j > i && uses_load[j - b]) blocked = true;
                    if (j < i && uses_segment[j - b]) h.after.push_back(static_cast<int32_t>(j));
                }
            }
            if (bypassed && !blocked) out[i] = std::move(h);
        }
        b = e;
    }
    return out;
}

std::vector<int32_t> sass_stall_sites(const SassMap& map, const Module& module, const std::string& kernel) {
    const auto& code = module.instructions();
    std::vector<int32_t> site(code.size(), -1);
    auto it = map.kernels.find(kernel);
    if (it == map.kernels.end()) return site;
    const std::vector<SassInstruction>& sass = it->second.code;
    // PTX line -> its instruction (nvcc and NVRTC write one per line; else the first).
    std::map<int32_t, int32_t> of_line;
    for (size_t i = 0; i < code.size(); ++i) of_line.emplace(code[i].ptx_line, static_cast<int32_t>(i));
    std::vector<SassSchedule> sched(sass.size());
    std::vector<bool> ends(sass.size());  // an unconditional EXIT or a RET: no waiter after it
    for (size_t t = 0; t < sass.size(); ++t) {
        sched[t] = decode_sass_schedule(sass[t].hi);
        const SassControl c = decode_sass_control(sass[t].lo, sass[t].hi, static_cast<int64_t>(t));
        ends[t] = (c.flow == SassFlow::Exit && !c.conditional) || c.flow == SassFlow::Return;
    }
    std::map<int32_t, int32_t> waiter_line;  // producer's PTX line -> the line of the first SASS waiting for it
    for (size_t s = 0; s < sass.size(); ++s) {
        const int32_t line = sass[s].ptx_line;
        const int b = sched[s].write_barrier;
        if (line <= 0 || b < 0 || waiter_line.count(line)) continue;
        for (size_t t = s + 1; t < sass.size(); ++t) {
            if (sched[t].wait_mask >> b & 1) {
                if (sass[t].ptx_line > 0) waiter_line[line] = sass[t].ptx_line;
                break;
            }
            if (ends[t]) break;
        }
    }
    for (const auto& [line, waiter] : waiter_line) {
        auto p = of_line.find(line);
        auto w = of_line.find(waiter);
        if (p != of_line.end() && w != of_line.end()) site[static_cast<size_t>(p->second)] = w->second;
    }
    return site;
}

SassTiming sass_timing(const SassMap& map, const Module& module, const std::string& kernel) {
    SassTiming t;
    t.issue_weights = sass_weights(map, module, kernel);
    t.shared_issue = sass_shared_issue(map, module, kernel);
    t.load_hoist = sass_load_hoist(map, module, kernel, t.issue_weights);
    t.stall_site = sass_stall_sites(map, module, kernel);
    return t;
}

}  // namespace weft::gpusim
