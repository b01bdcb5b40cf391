// FramePacer's thread roles (pacer/frame_pacer.hpp): one pacing thread at a time (a hand-over
// after end_pacing() works in every build; a second thread's wait() while the first one paces
// aborts in debug builds: the asan preset is Debug, so CI runs the death test there), one present
// thread beside it, status() from any thread. Real threads on the real clock, run under
// ThreadSanitizer in CI (.ci/sanitizers.sh): what they assert holds however the threads interleave.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "pacer/pacer.hpp"
#include "present_thread.hpp"
#include "sim_time.hpp"

using namespace std::chrono_literals;

namespace {

using pacer_test::exact;

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

// A render thread presents each frame the game thread hands it (a frame behind, as an engine's
// render thread does), while a third thread reads status() all along. Every report reaches the
// pacer (at the pacing thread's next wait()), none is lost, and the figures name the frames
// presented.
TEST(FramePacerThreads, APresentThreadReportsWhileThePacingThreadWaits) {
    pacer::FramePacer fp({.target_hz = 500.0, .mode = pacer::WaitMode::sleep});
    constexpr int kFrames = 300;
    std::atomic<bool> done{false};
    pacer_test::PresentThread render([&fp](std::uint64_t f) {
        fp.before_present(f);
        pacer::PresentInfo p;
        p.begin = fp.now();
        p.end = fp.now();
        p.swap_interval = 0;
        p.frame = f;
        fp.report_present(p);
    });
    std::uint64_t seen_frames = 0;
    bool monotonic = true;
    std::thread reader([&] {
        while (!done.load()) {
            const pacer::PacerStatus s = fp.status();
            monotonic = monotonic && s.frames >= seen_frames;
            seen_frames = s.frames;
        }
    });
    // A frame is named once, after it started. (Not in order: a render thread that fell behind
    // skips frames, which close unpresented after newer ones closed presented.)
    int named = 0;
    std::vector<int> times_named(kFrames + 2, 0);
    bool ordered = true;
    for (int i = 0; i < kFrames; ++i) {
        const pacer::FrameTiming t = fp.wait();
        if (t.latency_frame != 0) {
            ++named;
            ordered = ordered && t.latency_frame < t.frame && ++times_named[t.latency_frame] == 1;
        }
        render.hand(t.frame);
    }
    render.stop();
    done.store(true);
    reader.join();
    fp.wait();  // drains the last reports
    const pacer::PacerStatus s = fp.status();
    EXPECT_EQ(s.reports_lost, 0u);
    EXPECT_EQ(s.presents.submitted, static_cast<std::uint64_t>(render.presented()));
    EXPECT_GT(render.presented(), 0);
    EXPECT_GT(named, 0);
    EXPECT_TRUE(ordered) << "latency figures for a frame not yet presented, or twice";
    EXPECT_TRUE(monotonic);
    EXPECT_GT(seen_frames, 0u) << "the reader saw the pacing thread's copies";
    EXPECT_LE(s.frames_in_flight, 3);
}

// Present sync with a present thread: its before_present(frame) waits for the next present slot
// (the pacing thread publishes its grid at each wait()), one per period. What holds on any
// machine: never two presents in one slot, so N presents span at least N - 1 periods (less the
// first wait's lateness: 20 ms allowed; a late wait may return close to the next one, so single
// intervals say nothing), and wait() on the pacing thread describes those waits.
TEST(FramePacerThreads, PresentSyncWaitsOnThePresentThread) {
    pacer::FramePacer fp({.target_hz = 200.0, .mode = pacer::WaitMode::hybrid, .sync = pacer::SyncMode::present});
    std::vector<std::int64_t> returns;
    pacer_test::PresentThread render([&fp, &returns](std::uint64_t f) {
        fp.before_present(f);
        returns.push_back(pacer::clock::to_ns(fp.now()));
        pacer::PresentInfo p;
        p.begin = p.end = fp.now();
        p.swap_interval = 0;
        p.frame = f;
        fp.report_present(p);
    });
    // A wait() that describes the present thread's wait returns a wake from before the call (the
    // pacing thread's own waits end after it).
    int described = 0;
    for (int i = 0; i < 200; ++i) {
        const pacer::clock::time_point called = fp.now();
        const pacer::FrameTiming t = fp.wait();
        described += t.sync == pacer::SyncMode::present && t.wake < called ? 1 : 0;
        render.hand(t.frame, true);  // an engine's one-slot hand-over: the render thread paces
    }
    render.stop();
    ASSERT_GT(returns.size(), 150u);
    const auto n = static_cast<std::int64_t>(returns.size());
    EXPECT_GE(returns.back() - returns.front(), (n - 1) * 5'000'000 - 20'000'000)
        << n << " presents: two in one slot";
    EXPECT_GT(described, 150) << "of 200 wait() calls";
    EXPECT_EQ(fp.status().reports_lost, 0u);
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

// One present thread: the queue has one producer, so a second thread's present-side call aborts
// in debug builds, where the stack shows it. The first present thread stays alive meanwhile (a
// thread id may be reused once its thread ended).
void two_present_threads() {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .mode = pacer::WaitMode::sleep}, &os);
    fp.wait();
    std::atomic<bool> reported{false};
    std::atomic<bool> end{false};
    std::thread first([&] {
        fp.report_vblank(pacer::clock::from_ns(1));
        reported.store(true);
        while (!end.load()) std::this_thread::yield();
    });
    while (!reported.load()) std::this_thread::yield();
    std::thread([&] { fp.report_vblank(pacer::clock::from_ns(2)); }).join();
    end.store(true);
    first.join();
}

TEST(FramePacerDeathTest, ASecondPresentThreadAbortsInDebugBuilds) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_DEATH(two_present_threads(), "present-side calls from a second thread");
}
#endif

}  // namespace
