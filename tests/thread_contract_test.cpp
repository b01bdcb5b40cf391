// FramePacer's one-pacing-thread contract (pacer/frame_pacer.hpp): a hand-over after
// end_pacing() works in every build; a second thread's wait() while the first one paces aborts
// in debug builds (the asan preset is Debug, so CI runs the death test there).
#include <gtest/gtest.h>

#include <thread>

#include "pacer/pacer.hpp"

using namespace std::chrono_literals;

namespace {

pacer::SimModel exact() { return {.granularity = 0ns, .jitter_mean = 0ns, .relax_time = 1ns, .sleep_cpu = 0ns}; }

TEST(FramePacerThreads, AnotherThreadTakesOverAfterEndPacing) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .mode = pacer::WaitMode::sleep}, &os);
    fp.wait();
    fp.wait();
    fp.end_pacing();
    std::uint64_t last = 0;
    std::thread other([&] {
        for (int i = 0; i < 3; ++i) last = fp.wait().index;
        fp.end_pacing();
    });
    other.join();
    EXPECT_EQ(last, 4u);  // the grid went on: one thread after the other is still one at a time
    EXPECT_EQ(fp.wait().index, 5u);
}

#ifndef NDEBUG
TEST(FramePacerDeathTest, WaitFromASecondThreadAbortsInDebugBuilds) {
    // "threadsafe" re-runs the test binary for the death test instead of forking a process that
    // has threads (ThreadSanitizer refuses the latter).
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(
        {
            pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
            pacer::FramePacer fp({.target_hz = 100.0, .mode = pacer::WaitMode::sleep}, &os);
            fp.wait();
            std::thread second([&] { fp.wait(); });
            second.join();
        },
        "wait\\(\\) called from a second thread");
}
#endif

}  // namespace
