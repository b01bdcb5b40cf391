// pacer's log: quiet by default, routable through a plain function, never breaking a frame loop.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "log_capture.hpp"
#include "pacer/pacer.hpp"
#include "sim_time.hpp"

using namespace std::chrono_literals;

namespace {

using pacer_test::LogCapture;

using pacer_test::exact;

void run_frames(pacer::FramePacer& fp, pacer::SimulatedOs& os, int n) {
    for (int i = 0; i < n; ++i) {
        os.advance(1ms);
        fp.wait();
    }
}

TEST(Log, QuietByDefaultWarningsOnly) {
    ASSERT_EQ(pacer::log_level(), pacer::LogLevel::warn);
    LogCapture log(pacer::LogLevel::warn);
    pacer::SimulatedOs os(exact());
    pacer::FramePacer fp({.target_hz = 120.0}, &os);
    run_frames(fp, os, 20);
    ASSERT_TRUE(fp.set_target_hz(60.0));
    run_frames(fp, os, 5);
    EXPECT_TRUE(log.lines.empty()) << log.text();

    EXPECT_FALSE(fp.set_target_hz(std::nan("")));
    ASSERT_EQ(log.lines.size(), 1u) << log.text();
    EXPECT_EQ(log.lines[0], "warn: setting refused: target_hz = nan: must be a finite number in (0, 10000]");
}

TEST(Log, InfoOnRequestAndNoVsyncLineInPlainModes) {
    LogCapture log(pacer::LogLevel::info);
    pacer::SimulatedOs os(exact());
    for (pacer::WaitMode m : {pacer::WaitMode::sleep, pacer::WaitMode::spin, pacer::WaitMode::hybrid}) {
        pacer::FramePacer fp({.target_hz = 144.0, .mode = m}, &os);
        run_frames(fp, os, 5);
    }
    EXPECT_EQ(log.count("info: pacing at 144 Hz, mode "), 3) << log.text();
    EXPECT_EQ(log.count("vsync"), 0) << log.text();
    pacer::FramePacer fp({.target_hz = 60.0, .mode = pacer::WaitMode::automatic}, &os);
    EXPECT_EQ(log.count("auto: the pacer's wait until a present reports the display"), 1) << log.text();
}

TEST(Log, SilencedAndLevelFiltered) {
    LogCapture log(pacer::LogLevel::error);
    pacer::SimulatedOs os(exact());
    pacer::FramePacer fp({.target_hz = 60.0}, &os);
    EXPECT_FALSE(fp.set_target_hz(-1));  // a warning: below the level
    EXPECT_TRUE(log.lines.empty()) << log.text();
    pacer::set_log_level(pacer::LogLevel::debug);
    pacer::set_log_function(nullptr);
    EXPECT_FALSE(fp.set_target_hz(-1));
    EXPECT_TRUE(log.lines.empty()) << log.text();
}

TEST(Log, DefaultGoesToStderrWithThePacerPrefix) {
    pacer::SimulatedOs os(exact());
    pacer::FramePacer fp({.target_hz = 60.0}, &os);
    testing::internal::CaptureStderr();
    EXPECT_FALSE(fp.set_target_hz(0));
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err, "pacer: warning: setting refused: target_hz = 0: must be a finite number in (0, 10000]\n");
}

TEST(Log, AThrowingLogFunctionNeverBreaksTheLoop) {
    pacer::set_log_level(pacer::LogLevel::debug);
    pacer::set_log_function([](pacer::LogLevel, const char*, void*) { throw std::runtime_error("sink full"); });
    pacer::SimulatedOs os(exact());
    pacer::FramePacer fp({.target_hz = 60.0, .mode = pacer::WaitMode::automatic}, &os);
    EXPECT_FALSE(fp.set_target_hz(1e9));
    // Inside noexcept paths: a failed present and the vsync decisions it triggers.
    for (int i = 0; i < 10; ++i) {
        const pacer::clock::time_point b = fp.now();
        fp.report_present({b, b, 1, 60.0, false});
        run_frames(fp, os, 1);
    }
    pacer::set_log_function(pacer::log_to_stderr);
    pacer::set_log_level(pacer::LogLevel::warn);
    SUCCEED();
}

TEST(Log, LevelNames) {
    EXPECT_STREQ(pacer::to_string(pacer::LogLevel::debug), "debug");
    EXPECT_STREQ(pacer::to_string(pacer::LogLevel::warn), "warn");
    EXPECT_STREQ(pacer::to_string(pacer::LogLevel::off), "off");
}

}  // namespace
