// `weft audit` as a user runs it: exit codes, output forms and the messages of its error paths.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

struct Result {
    int code;
    std::string out;
};

Result weft(const std::string& args) {
    std::string cmd = std::string(WEFT_BINARY) + " audit " + args + " --no-resources 2>&1";
    FILE* f = popen(cmd.c_str(), "r");
    std::string out;
    char buf[1024];
    while (f && fgets(buf, sizeof buf, f)) out += buf;
    int status = f ? pclose(f) : -1;
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

const std::string kCorpus = WEFT_AUDIT_CORPUS;

TEST(AuditCli, ErrorPaths) {
    std::string m = kCorpus + "/bounds_plus_one.py";
    Result r = weft(m + " --shape a");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("weft audit: invalid --shape 'a': no NAME= (expected NAME=N or NAME=AxB, e.g. x=1024 or m=64x3)"), std::string::npos) << r.out;
    r = weft(m + " --shape a=10y3");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("invalid --shape 'a=10y3': '10y3' is not a positive integer"), std::string::npos) << r.out;
    r = weft(m + " --shape a=");
    EXPECT_NE(r.out.find("invalid --shape 'a=': '' is not a positive integer"), std::string::npos) << r.out;
    r = weft(m + " --shape zz=10");
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.out.find("--shape names 'zz', which is no array parameter of the audited kernel(s)"), std::string::npos) << r.out;
    r = weft(m + " --shape a=10x3");
    EXPECT_NE(r.out.find("--shape a has 2 dimension(s), but 'a' in kernel 'k' has 1"), std::string::npos) << r.out;
    r = weft(m + " --dim 4x4");
    EXPECT_NE(r.out.find("invalid --dim '4x4'"), std::string::npos) << r.out;
    r = weft(m + " --format xml");
    EXPECT_NE(r.out.find("--format takes text, json or sarif; got 'xml'"), std::string::npos) << r.out;
    r = weft(m + " --arch tpu");
    EXPECT_NE(r.out.find("unknown --arch 'tpu' (known: h200, h100, sm_90)"), std::string::npos) << r.out;
    r = weft(m + " --kernel kk");
    EXPECT_NE(r.out.find("has no kernel 'kk'; did you mean 'k'?"), std::string::npos) << r.out;
    r = weft(m + " --werorr");
    EXPECT_NE(r.out.find("unknown option --werorr (did you mean --werror?)"), std::string::npos) << r.out;
    r = weft("/nonexistent.py");
    EXPECT_NE(r.out.find("cannot read '/nonexistent.py'"), std::string::npos) << r.out;
}

TEST(AuditCli, ExitCodesAndFormats) {
    Result r = weft(kCorpus + "/bounds_plus_one.py --dim 100 --shape a=100 --shape b=100");
    EXPECT_EQ(r.code, 1);  // an error
    EXPECT_NE(r.out.find("bounds_plus_one.py:8:12: error: [bounds] out-of-bounds access"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1 kernel(s) audited: 1 error(s), 0 warning(s)"), std::string::npos) << r.out;
    r = weft(kCorpus + "/bank_stride32.py --dim 32");
    EXPECT_EQ(r.code, 0) << r.out;  // warnings only
    r = weft(kCorpus + "/bank_stride32.py --dim 32 --werror");
    EXPECT_EQ(r.code, 1) << r.out;
    r = weft(kCorpus + "/bank_stride16_suppressed.py --dim 32 --werror");
    EXPECT_EQ(r.code, 0) << r.out;
    r = weft(kCorpus + "/bank_stride32.py --dim 32 --format json");
    EXPECT_NE(r.out.find("\"check\": \"bank-conflict\""), std::string::npos) << r.out;
    r = weft(kCorpus + "/bank_stride32.py --dim 32 --format sarif");
    EXPECT_NE(r.out.find("\"ruleId\": \"bank-conflict\""), std::string::npos) << r.out;
}

TEST(AuditCli, DotWritesTheSyncGraph) {
    auto dir = std::filesystem::temp_directory_path() / "weft-audit-dot-test";
    std::filesystem::remove_all(dir);
    Result r = weft(kCorpus + "/clean_block_reduce.py --dim 128 --dot " + dir.string());
    EXPECT_EQ(r.code, 0) << r.out;
    std::ifstream in(dir / "block_sum.dot");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string dot = ss.str();
    EXPECT_NE(dot.find("digraph \"block_sum\""), std::string::npos) << dot;
    EXPECT_NE(dot.find("entry -> sync_l10_c5;"), std::string::npos) << dot;
    EXPECT_NE(dot.find("sync_l15_c9 -> sync_l15_c9;"), std::string::npos) << dot;
    EXPECT_NE(dot.find("line 14: write s[t]"), std::string::npos) << dot;
    std::filesystem::remove_all(dir);
}

}  // namespace
