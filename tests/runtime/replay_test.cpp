// runtime/replay.h: off CUDA a Replay runs its work again on every run() (recording runs nothing),
// and an empty one refuses to run. (Its CUDA graphs are checked through engine/stepper.h's frames,
// tests/engine/stepper_test.cpp.)
#include <gtest/gtest.h>

#include "runtime/errors.h"
#include "runtime/replay.h"

namespace {

using namespace weft;

TEST(Replay, RunsTheWorkAgainOffCudaAndRefusesToRunNothing) {
    int calls = 0;
    runtime::Replay r(runtime::Device{}, [&] { ++calls; });
    EXPECT_EQ(calls, 0) << "recording does not run the work";
    EXPECT_FALSE(r.is_graph());
    r.run();
    r.run();
    EXPECT_EQ(calls, 2);
    runtime::Replay empty;
    try {
        empty.run();
        FAIL() << "expected an error";
    } catch (const runtime::RuntimeError& e) { EXPECT_STREQ(e.what(), "Replay::run: nothing was recorded"); }
}

}  // namespace
