// apps/npz.cpp: numpy's .npz archives as `weft launch --inputs`, with the errors of an archive
// that does not fit (compressed, wrong dtype, a name no parameter has).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "apps/npz.h"
#include "tests/apps/weft_cli.h"

namespace {

using namespace weft::test;
using Result = CliResult;

// --inputs FILE.npz: numpy's savez archives supply named inputs (vec3 arrays as (n, 3)).
TEST(Cli, LaunchReadsInputsFromNpz) {
    std::string dir = ::testing::TempDir();
    std::string py =
        "/usr/bin/python3 -c \"import numpy as np; "
        "np.savez('" +
        dir +
        "/in.npz', points=np.array([[1,0,0],[0,0,2]], dtype=np.float32), angle=np.float32(3.14159265)); "
        "np.savez_compressed('" +
        dir +
        "/zip.npz', points=np.zeros((2,3), np.float32)); "
        "np.savez('" +
        dir + "/f64.npz', points=np.zeros((2,3)))\"";
    if (std::system(py.c_str()) != 0) GTEST_SKIP() << "numpy is not available to write the fixtures";
    Result r = run_weft("launch " + kExample + " --kernel rotate --dim 2 --inputs " + dir + "/in.npz");
    EXPECT_EQ(r.code, 0) << r.out;
    // rotating by pi about y: (x, y, z) -> (-x, y, -z), times SCALE = 2
    EXPECT_NE(r.out.find("[-2, 0, 1.74846e-07], [-3.49691e-07, 0, -4]"), std::string::npos) << r.out;
    r = run_weft("launch " + kExample + " --kernel rotate --dim 2 --inputs " + dir + "/zip.npz");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("member 'points.npy' is compressed; save with numpy.savez, not numpy.savez_compressed"),
              std::string::npos)
        << r.out;
    r = run_weft("launch " + kExample + " --kernel rotate --dim 2 --inputs " + dir + "/f64.npz");
    EXPECT_NE(r.out.find("input 'points' has dtype <f8; parameter 'points' needs float32"), std::string::npos) << r.out;
    r = run_weft("launch " + kExample + " --kernel saxpy --dim 2 --inputs " + dir + "/in.npz");
    EXPECT_NE(r.out.find("input 'angle' in " + dir + "/in.npz matches no parameter of kernel 'saxpy' (x, y, a)"),
              std::string::npos)
        << r.out;
}

// ---- the reader on hostile bytes (read_npz_bytes; also the fuzz target's entry, fuzz/npz_fuzz.cpp) ----

void put16(std::string& s, uint32_t v) {
    s += char(v & 0xff);
    s += char((v >> 8) & 0xff);
}
void put32(std::string& s, uint32_t v) {
    put16(s, v & 0xffff);
    put16(s, v >> 16);
}

// A .npy member: the numpy header dict given as text, then `data`.
std::string npy(const std::string& dict, const std::string& data) {
    std::string h = dict;
    while ((10 + h.size() + 1) % 64 != 0) h += ' ';
    h += '\n';
    std::string out = "\x93NUMPY";
    out += char(1);
    out += char(0);
    put16(out, uint32_t(h.size()));
    return out + h + data;
}

// A zip local file header for a stored member; `csize` and an optional zip64 extra field as given.
std::string member(const std::string& name, const std::string& body, uint32_t csize, const std::string& extra = "") {
    std::string z;
    put32(z, 0x04034b50);
    put16(z, 45);
    put16(z, 0);  // flags
    put16(z, 0);  // stored
    put32(z, 0);  // time, date
    put32(z, 0);  // crc (not checked)
    put32(z, csize);
    put32(z, csize);
    put16(z, uint32_t(name.size()));
    put16(z, uint32_t(extra.size()));
    return z + name + extra + body;
}

std::string error_of(const std::string& bytes) {
    try {
        weft::apps::read_npz_bytes(bytes, "in.npz");
    } catch (const std::runtime_error& e) { return e.what(); }
    return "(no error)";
}

TEST(Npz, ReadsWhatNumpyWrites) {
    std::string data(24, '\0');
    float one = 1.0f;
    std::memcpy(data.data() + 20, &one, 4);
    std::string body = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", data);
    auto arrays = weft::apps::read_npz_bytes(member("x.npy", body, uint32_t(body.size())), "in.npz");
    ASSERT_EQ(arrays.count("x"), 1u);
    EXPECT_EQ(arrays["x"].shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(arrays["x"].data.size(), 24u);
}

// A zip64 size that wraps the offset arithmetic once made read_npz loop forever at 100% CPU.
TEST(Npz, Zip64SizePastTheEndIsAnError) {
    std::string body = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", std::string(4, '\0'));
    std::string extra;
    put16(extra, 1);
    put16(extra, 16);
    put32(extra, 0);
    put32(extra, 0);   // uncompressed
    std::string wrap;  // compressed: 2^64 - 40, wraps data_at + size
    put32(wrap, uint32_t(-40));
    put32(wrap, 0xffffffffu);
    std::string z = member("x.npy", body, 0xffffffffu, extra.substr(0, 12) + wrap);
    EXPECT_EQ(error_of(z),
              "cannot read 'in.npz': member 'x.npy' is truncated: its size 18446744073709551576 is past the end "
              "of the file (" +
                  std::to_string(body.size()) + " bytes follow its header)");
    // a truncated zip64 extra field and a header cut short
    std::string bad_extra;
    put16(bad_extra, 1);
    put16(bad_extra, 200);
    EXPECT_EQ(error_of(member("x.npy", body, 0xffffffffu, bad_extra)),
              "cannot read 'in.npz': member 'x.npy' has a truncated extra field");
    EXPECT_EQ(error_of(z.substr(0, 20)), "cannot read 'in.npz': a member header at byte 0 is truncated");
}

// Shapes: a negative dimension was read as positive; malformed numbers gave a bare "stoll".
TEST(Npz, BadHeadersAreNamed) {
    auto with_shape = [](const std::string& shape) {
        std::string body = npy("{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }", std::string(8, '\0'));
        return member("x.npy", body, uint32_t(body.size()));
    };
    EXPECT_EQ(error_of(with_shape("(-2,)")),
              "cannot read 'in.npz:x.npy': its header's shape (-2,) is invalid: a dimension is negative");
    EXPECT_EQ(error_of(with_shape("(2, x)")),
              "cannot read 'in.npz:x.npy': its header's shape (2, x) is invalid: 'x' is not a dimension");
    EXPECT_EQ(error_of(with_shape("(99999999999999999999,)")),
              "cannot read 'in.npz:x.npy': its header's shape (99999999999999999999,) is invalid: a dimension is too large");
    EXPECT_EQ(error_of(with_shape("(4294967296, 4294967296)")),
              "cannot read 'in.npz:x.npy': its data is truncated (the shape needs more bytes than the 8 that follow the header)");
    EXPECT_EQ(error_of(with_shape("(3,)")),
              "cannot read 'in.npz:x.npy': its data is truncated (the shape needs more bytes "
              "than the 8 that follow the header)");
    std::string body = npy("{'descr': '<fx', 'fortran_order': False, 'shape': (2,), }", std::string(8, '\0'));
    EXPECT_EQ(error_of(member("x.npy", body, uint32_t(body.size()))),
              "cannot read 'in.npz:x.npy': its dtype '<fx' has no element size");
    body = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,", "");
    EXPECT_EQ(error_of(member("x.npy", body, uint32_t(body.size()))),
              "cannot read 'in.npz:x.npy': its header's 'shape' has no closing ')'");
    for (const char* path : {"/dev/zero", "/tmp"}) {  // /dev/zero once read forever
        try {
            weft::apps::read_npz(path);
            ADD_FAILURE() << "no error";
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()),
                      std::string("cannot read '") + path + "': it is " +
                          (path[1] == 'd' ? "not a regular file (a device, FIFO or socket)" : "a directory"));
        }
    }
    EXPECT_EQ(error_of("PK\x03\x04"), "cannot read 'in.npz': a member header at byte 0 is truncated");
    EXPECT_EQ(error_of(""), "cannot read 'in.npz': it holds no arrays (is it an .npz file?)");
}

// Numbers in options: a located, plain message naming the option and the value (they were bare
// "stoi"/"stod"), and values a parameter's type cannot hold (1e30 for an int32 once became INT_MIN).
TEST(Cli, NumbersInOptionsAreCheckedAndNamed) {
    std::string dir = ::testing::TempDir();
    std::string module = dir + "/int_param.py";
    FILE* f = fopen(module.c_str(), "w");
    fputs(
        "import weft as wp\n\n@wp.kernel\ndef put(n: int, h: wp.float16, out: wp.array(dtype=float)):\n"
        "    i = wp.tid()\n    out[i] = float(n) + float(h)\n",
        f);
    fclose(f);
    std::string launch = "launch " + module + " --kernel put --dim 2 ";
    struct Case {
        std::string args, message;
    };
    for (const Case& c : std::vector<Case>{
             {"--arg n=abc", "weft launch: --arg n expects a number, got 'abc'"},
             {"--arg n=1e30", "weft launch: --arg n: 1e30 is out of the range of int32 (-2147483648 to 2147483647)"},
             {"--arg n=2.5", "weft launch: --arg n: '2.5' is not an integer, and the parameter is int32"},
             {"--arg n=1e999", "weft launch: --arg n expects a finite number, got '1e999'"},
             {"--arg h=70000", "weft launch: --arg h: 70000 is out of the range of float16 (-65504 to 65504)"},
             {"--print x", "weft launch: --print expects an integer from 0 to 9223372036854775807, got 'x'"},
             {"--print 99999999999999999999",
              "weft launch: --print expects an integer from 0 to 9223372036854775807, got '99999999999999999999' (out of range)"},
             {"--block-dim 2000", "weft launch: --block-dim expects an integer from 1 to 1024, got '2000' (out of range)"},
             {"--dim x", "weft launch: invalid --dim 'x': expected N or N,M (up to 4 positive integers)"},
         }) {
        Result r = run_weft(launch + c.args);
        EXPECT_EQ(r.code, 2) << c.args << "\n" << r.out;
        EXPECT_NE(r.out.find(c.message), std::string::npos) << c.args << "\n" << r.out;
    }
    Result ok = run_weft(launch + "--arg n=2147483647 --arg h=1.5");
    EXPECT_EQ(ok.code, 0) << ok.out;
}

}  // namespace
