// apps/npz.cpp: numpy's .npz archives as `weft launch --inputs`, with the errors of an archive
// that does not fit (compressed, wrong dtype, a name no parameter has).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

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

}  // namespace
