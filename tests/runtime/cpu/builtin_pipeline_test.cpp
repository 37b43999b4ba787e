// Every typed builtin overload, called from a kernel and run through the whole pipeline (sema's
// overload resolution, the code generator, the Clang JIT on the CPU device), gives bit for bit the
// result of the same builtin compiled by the host C++ compiler (host_eval.cpp, generated from the
// table). The builtins themselves are checked against float64/Eigen references and finite
// differences in tests/compiler/native.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiler/builtins/builtin_table.h"
#include "tests/runtime/cpu/host_eval.h"
#include "tests/runtime/devices/kernel_test_util.h"

namespace {

using namespace weft;
using compiler::ScalarKind;
using compiler::Type;

// Argument k of element e: well inside every builtin's domain (0.15 .. 0.85; integers 1 .. 4).
void fill(std::byte* dst, Type t, int e, int k, const std::string& name) {
    int n = compiler::component_count(t);
    size_t w = static_cast<size_t>(compiler::scalar_bits(t->scalar) / 8);
    for (int c = 0; c < n; ++c) {
        double v = 0.15 + 0.7 * std::fmod(0.137 * (e + 1) + 0.291 * (k + 1) + 0.0731 * (c + 1) * (c + 2), 1.0);
        if (compiler::is_matrix(t) && (c / t->cols == c % t->cols)) v += 2.0;  // well-conditioned matrices
        if (t->kind == compiler::TypeKind::Quat && c == 3) v += 1.0;
        (void)name;
        std::byte* p = dst + static_cast<size_t>(c) * w;
        switch (t->scalar) {
            case ScalarKind::Float32: {
                float f = static_cast<float>(v);
                std::memcpy(p, &f, 4);
                break;
            }
            case ScalarKind::Float64: std::memcpy(p, &v, 8); break;
            case ScalarKind::Bool: {
                uint8_t b = (e + k + c) % 2;
                std::memcpy(p, &b, 1);
                break;
            }
            default: {
                int64_t iv = 1 + (e + 2 * k + c) % 4;
                std::memcpy(p, &iv, w);  // little-endian: the low bytes hold the value
            }
        }
    }
}

// The kernel-language spelling of a type: wp.vec3f, or wp.vec(length=6, dtype=wp.int32).
std::string spelling(Type t) {
    std::string n = compiler::type_name(t);
    auto paren = n.find('(');
    if (paren == std::string::npos) return "wp." + n;
    std::string s = "wp." + n.substr(0, paren + 1);
    std::string rest = n.substr(paren + 1);
    auto dt = rest.find("dtype=");
    return s + rest.substr(0, dt + 6) + "wp." + rest.substr(dt + 6);
}

TEST(BuiltinPipeline, EveryOverloadMatchesTheHostCompiledBuiltin) {
    if (!runtime::device_available(runtime::Device{})) GTEST_SKIP() << "this build has no CPU JIT";
    int n = 0;
    const HostEval* evals = host_evals(&n);
    ASSERT_GT(n, 200);
    const auto& all = compiler::builtin_table().overloads();
    const int kElems = 5;
    const int kBatch = 120;
    int checked = 0;
    for (int start = 0; start < n; start += kBatch) {
        std::string src;
        int end = std::min(n, start + kBatch);
        for (int j = start; j < end; ++j) {
            const auto& o = all[static_cast<size_t>(evals[j].overload)];
            src += "@wp.kernel\ndef k" + std::to_string(j) + "(";
            for (size_t a = 0; a < o.params.size(); ++a)
                src += "in" + std::to_string(a) + ": wp.array(dtype=" + spelling(o.params[a].type) + "), ";
            src += "out: wp.array(dtype=" + spelling(o.ret) + ")):\n    i = wp.tid()\n    out[i] = wp." + o.name + "(";
            for (size_t a = 0; a < o.params.size(); ++a) src += (a ? ", " : "") + std::string("in") + std::to_string(a) + "[i]";
            src += ")\n\n";
        }
        std::shared_ptr<runtime::Module> m;
        try {
            m = test::module_of(src, "builtin_sweep.py");
        } catch (const std::exception& e) { FAIL() << "the sweep module does not compile:\n" << e.what(); }
        for (int j = start; j < end; ++j) {
            const auto& o = all[static_cast<size_t>(evals[j].overload)];
            SCOPED_TRACE(compiler::signature_text(o));
            std::vector<runtime::Array> ins;
            std::vector<std::vector<std::byte>> host_in;
            std::vector<runtime::LaunchArg> args;
            for (size_t a = 0; a < o.params.size(); ++a) {
                Type t = o.params[a].type;
                size_t sz = compiler::type_size(t);
                std::vector<std::byte> h(sz * kElems);
                for (int e = 0; e < kElems; ++e) fill(h.data() + sz * e, t, e, static_cast<int>(a), o.name);
                runtime::Array arr = runtime::Array::empty(t, {kElems}, {});
                arr.copy_from_host(h.data(), h.size());
                ins.push_back(arr);
                host_in.push_back(h);
                args.push_back(runtime::LaunchArg::of(arr));
            }
            size_t rsz = compiler::type_size(o.ret);
            runtime::Array out = runtime::Array::zeros(o.ret, {kElems}, {});
            args.push_back(runtime::LaunchArg::of(out));
            test::run(m, "k" + std::to_string(j), {kElems}, args);
            std::vector<std::byte> got(rsz * kElems), want(rsz);
            out.copy_to_host(got.data(), got.size());
            for (int e = 0; e < kElems; ++e) {
                std::vector<const void*> ptrs;
                for (size_t a = 0; a < o.params.size(); ++a)
                    ptrs.push_back(host_in[a].data() + compiler::type_size(o.params[a].type) * e);
                evals[j].eval(ptrs.data(), want.data());
                EXPECT_EQ(std::memcmp(got.data() + rsz * e, want.data(), rsz), 0) << "element " << e;
            }
            ++checked;
        }
    }
    EXPECT_EQ(checked, n);
}

}  // namespace
