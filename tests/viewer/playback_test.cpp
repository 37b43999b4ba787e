// tests/viewer/playback_test.cpp: the playback state machine with made-up clock times.
#include "viewer/playback.h"

#include <gtest/gtest.h>

namespace weft::viewer {
namespace {

TEST(PlaybackTest, PausedRunsNothingStepRunsOneFrame) {
    Playback p;
    EXPECT_FALSE(p.playing());
    EXPECT_EQ(p.frames_due(0.0, 60), 0);
    p.step();
    EXPECT_EQ(p.frames_due(0.0, 60), 1);
    EXPECT_EQ(p.frames_due(0.0, 60), 0);
    EXPECT_FALSE(p.playing());
}

TEST(PlaybackTest, PlayingPacesFramesAtTheSceneRateTimesSpeed) {
    Playback p;
    p.toggle();
    ASSERT_TRUE(p.playing());
    // A UI at 240 Hz over one second of a 60 fps scene: 60 frames; at speed 0.5, 30.
    for (float speed : {1.0f, 0.5f}) {
        p.speed = speed;
        p.pause();
        p.play();
        int frames = 0;
        for (int i = 0; i < 240; ++i) frames += p.frames_due(10.0 + i / 240.0, 60);
        EXPECT_NEAR(frames, 60 * speed, 1) << "speed " << speed;
    }
    // A slow simulation (a UI frame every 0.1 s) runs one frame per UI frame and drops the backlog.
    p.speed = 1;
    p.pause();
    p.play();
    int frames = 0;
    for (int i = 0; i < 10; ++i) frames += p.frames_due(20.0 + i * 0.1, 60);
    EXPECT_EQ(frames, 10);
    // 0.9 s behind a 60 fps schedule: the next UI frame runs a frame (back to back), but the one
    // right after it does not: the 50 frames of backlog were dropped, not owed.
    EXPECT_EQ(p.frames_due(20.905, 60), 1);
    EXPECT_EQ(p.frames_due(20.906, 60), 0) << "no backlog to catch up";
    EXPECT_EQ(p.frames_due(20.925, 60), 1);
    p.toggle();
    EXPECT_FALSE(p.playing());
}

TEST(PlaybackTest, ResetIsTakenOnceAndPauses) {
    Playback p;
    p.play();
    p.reset();
    EXPECT_FALSE(p.playing());
    EXPECT_TRUE(p.take_reset());
    EXPECT_FALSE(p.take_reset());
}

TEST(PlaybackTest, StepsPerSecondAverages) {
    Playback p;
    EXPECT_EQ(p.steps_per_second(), 0.0);
    p.frame_done(8, 0.01);
    EXPECT_DOUBLE_EQ(p.steps_per_second(), 800.0);
    for (int i = 0; i < 200; ++i) p.frame_done(8, 0.02);
    EXPECT_NEAR(p.steps_per_second(), 400.0, 1e-3);
    EXPECT_EQ(p.frames_done(), 201);
}

}  // namespace
}  // namespace weft::viewer
