// FramePacer in virtual time: the grid, drift, every late-frame policy, clock jumps, run-time
// changes.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "pacer/pacer.hpp"
#include "sim_run.hpp"
#include "sim_time.hpp"

namespace {

using namespace std::chrono_literals;

using pacer_test::exact;
using pacer_test::ns_of;

TEST(FramePacer, FirstWaitAnchorsAtOnceThenFollowsTheGrid) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(5'000));
    pacer::FramePacer fp({.target_hz = 100.0}, &os);
    pacer::FrameTiming t = fp.wait();
    EXPECT_EQ(t.index, 0u);
    EXPECT_EQ(ns_of(t.wake), 5'000);
    EXPECT_EQ(t.interval, 0ns);
    for (int k = 1; k <= 50; ++k) {
        os.advance(3ms);
        t = fp.wait();
        ASSERT_EQ(t.index, static_cast<std::uint64_t>(k));
        ASSERT_EQ(ns_of(t.deadline), 5'000 + k * 10'000'000);
        ASSERT_EQ(t.lateness, 0ns);
        ASSERT_EQ(t.interval, 10ms);
        ASSERT_EQ(t.work, 3ms);
        ASSERT_FALSE(t.missed);
    }
}

TEST(FramePacer, NoDriftOverAMillionFrames) {
    // Each wait is OS sleep in an exact OS, so this is the deadline arithmetic alone.
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 144.0, .mode = pacer::WaitMode::sleep}, &os);
    const std::int64_t start = ns_of(fp.wait().wake);
    pacer::FrameTiming t;
    const std::uint64_t n = 1'000'000;
    std::int64_t worst = 0;
    for (std::uint64_t k = 1; k <= n; ++k) {
        t = fp.wait();
        // Exact deadline: start + k * 1e9 / 144, in integers.
        const std::int64_t want = start + static_cast<std::int64_t>((k * 1'000'000'000ull) / 144ull);
        worst = std::max(worst, std::abs(ns_of(t.deadline) - want));
    }
    EXPECT_EQ(t.index, n);
    EXPECT_LE(worst, 1);  // ns, over 1.9 hours of frames
    EXPECT_EQ(ns_of(t.wake) - start, 6'944'444'444'444);  // 10^6 / 144 s, floored to the ns
}

TEST(FramePacer, CatchUpServesOneLateFrameAtOnceAndKeepsTheGrid) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0}, &os);  // catch_up, max 1
    fp.wait();                     // slot 0 at 0
    os.advance(15ms);        // frame 1's work overruns by 5 ms
    pacer::FrameTiming t = fp.wait();
    EXPECT_EQ(t.index, 1u);
    EXPECT_EQ(ns_of(t.deadline), 10'000'000);
    EXPECT_EQ(t.lateness, 5ms);    // returned at once
    EXPECT_EQ(t.skipped, 0u);
    EXPECT_TRUE(t.missed);
    t = fp.wait();                 // back on the grid
    EXPECT_EQ(t.index, 2u);
    EXPECT_EQ(ns_of(t.wake), 20'000'000);
    EXPECT_EQ(t.interval, 5ms);
    EXPECT_FALSE(t.missed);
}

TEST(FramePacer, CatchUpIsBoundedAfterAClockJump) {
    for (int m : {0, 1, 3}) {
        pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
        pacer::FramePacer fp({.target_hz = 60.0, .max_catch_up = m}, &os);
        fp.wait();
        fp.wait();
        os.jump(10s);   // 10 s: suspend or a debugger stop
        int immediate = 0;
        pacer::FrameTiming t;
        for (int i = 0; i < 10; ++i) {
            const std::int64_t before = pacer::clock::to_ns(os.now());
            t = fp.wait();
            if (ns_of(t.wake) == before) ++immediate;
        }
        EXPECT_EQ(immediate, m) << "max_catch_up " << m;
        EXPECT_EQ(t.lateness, 0ns) << "resynchronized on the grid";
    }
}

TEST(FramePacer, SkipWaitsForTheNextSlotOnTheGrid) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .late_policy = pacer::LatePolicy::skip}, &os);
    fp.wait();
    os.advance(25ms);  // 2.5 periods of work
    const pacer::FrameTiming t = fp.wait();
    EXPECT_EQ(t.skipped, 2u);                  // slots 1 and 2 passed
    EXPECT_EQ(t.index, 3u);
    EXPECT_EQ(ns_of(t.deadline), 30'000'000);
    EXPECT_EQ(ns_of(t.wake), 30'000'000);
    EXPECT_EQ(t.lateness, 0ns);
    EXPECT_TRUE(t.missed);
    const pacer::FrameTiming u = fp.wait();
    EXPECT_EQ(ns_of(u.deadline), 40'000'000);
}

TEST(FramePacer, ResyncRestartsTheGridAtTheLateWakeUp) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .late_policy = pacer::LatePolicy::resync}, &os);
    fp.wait();
    os.advance(13ms);
    pacer::FrameTiming t = fp.wait();
    EXPECT_EQ(t.index, 1u);
    EXPECT_EQ(ns_of(t.wake), 13'000'000);         // at once
    EXPECT_EQ(t.lateness, 0ns);                // its deadline is now
    t = fp.wait();
    EXPECT_EQ(t.index, 2u);
    EXPECT_EQ(ns_of(t.deadline), 23'000'000);     // new grid
    os.jump(5s);
    t = fp.wait();
    EXPECT_EQ(ns_of(t.wake), 5'023'000'000);
    t = fp.wait();
    EXPECT_EQ(ns_of(t.deadline), 5'033'000'000);
}

TEST(FramePacer, SlightLatenessUnderEachPolicy) {
    // Frame 1's work overruns the period by 0.3 ms at 60 Hz: the interval of that frame and of
    // the next one under each policy.
    const std::int64_t p = 16'666'666;  // 1e9 / 60, floored (the grid alternates ...666/...667)
    const std::int64_t over = 300'000;
    struct Case {
        pacer::LatePolicy policy;
        std::int64_t late_interval, next_interval;
    };
    for (const Case c : {Case{pacer::LatePolicy::catch_up, p + over, p - over},
                         Case{pacer::LatePolicy::skip, 2 * p, p},
                         Case{pacer::LatePolicy::resync, p + over, p}}) {
        pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
        pacer::FramePacer fp({.target_hz = 60.0, .late_policy = c.policy}, &os);
        fp.wait();
        os.advance(std::chrono::nanoseconds(p + over));
        const pacer::FrameTiming late = fp.wait();
        const pacer::FrameTiming next = fp.wait();
        EXPECT_NEAR(static_cast<double>(late.interval.count()), static_cast<double>(c.late_interval), 2.0)
            << pacer::to_string(c.policy);
        EXPECT_NEAR(static_cast<double>(next.interval.count()), static_cast<double>(c.next_interval), 2.0)
            << pacer::to_string(c.policy);
    }
}

TEST(FramePacer, RateChangeTakesEffectAtTheNextFrameFromTheLastDeadline) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 50.0}, &os);
    fp.wait();
    pacer::FrameTiming t = fp.wait();
    EXPECT_EQ(ns_of(t.deadline), 20'000'000);
    ASSERT_TRUE(fp.set_target_hz(200.0).ok());
    EXPECT_EQ(fp.status().period, 5ms);
    t = fp.wait();
    EXPECT_EQ(ns_of(t.deadline), 25'000'000);
    EXPECT_EQ(t.index, 2u);
    EXPECT_EQ(t.period, 5ms);
    t = fp.wait();
    EXPECT_EQ(ns_of(t.deadline), 30'000'000);
}

TEST(FramePacer, ModeChangeTakesEffectAtTheNextFrame) {
    pacer::SimulatedOs os({.granularity = 100us, .relax_time = 100ns});
    pacer::FramePacer fp({.target_hz = 100.0, .mode = pacer::WaitMode::sleep}, &os);
    fp.wait();
    pacer::FrameTiming t = fp.wait();
    EXPECT_EQ(t.mode, pacer::WaitMode::sleep);
    EXPECT_EQ(t.spun, 0ns);
    ASSERT_TRUE(pacer_test::change(fp, [](pacer::PacerConfig& c) { c.mode = pacer::WaitMode::spin; }).ok());
    t = fp.wait();
    EXPECT_EQ(t.mode, pacer::WaitMode::spin);
    EXPECT_EQ(t.slept, 0ns);
    EXPECT_GT(t.spun, 9ms);
    ASSERT_TRUE(pacer_test::change(fp, [](pacer::PacerConfig& c) { c.late_policy = pacer::LatePolicy::skip; }).ok());
    os.advance(25ms);
    t = fp.wait();
    EXPECT_EQ(t.skipped, 2u);
}

TEST(FramePacer, ResetAnchorsANewGridAndIndicesContinue) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0}, &os);
    fp.wait();
    fp.wait();
    os.advance(3333333ns);
    fp.reset();
    pacer::FrameTiming t = fp.wait();
    EXPECT_EQ(t.index, 2u);
    EXPECT_EQ(ns_of(t.wake), 13'333'333);
    EXPECT_EQ(t.interval, 0ns);
    t = fp.wait();
    EXPECT_EQ(ns_of(t.deadline), 23'333'333);
}

TEST(FramePacer, MissedCountsLateAndSkippedFrames) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .miss_tolerance = 1ms}, &os);
    fp.wait();
    os.advance(10500us);  // 0.5 ms late: tolerated
    EXPECT_FALSE(fp.wait().missed);
    fp.wait();
    os.advance(12ms);  // 2 ms late
    EXPECT_TRUE(fp.wait().missed);
    EXPECT_EQ(fp.status().missed, 1u);
    EXPECT_EQ(fp.status().frames, 4u);
}

TEST(FramePacer, HybridIsAccurateOnANoisyOs) {
    // 1 ms scheduler, 50 us noise, 1 % preemption; 144 Hz with 3 ms of work.
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 50us,
                           .preempt_probability = 0.01});
    pacer::FramePacer fp({.target_hz = 144.0}, &os);
    fp.wait();
    std::vector<std::int64_t> late;
    for (int i = 0; i < 5000; ++i) {
        os.advance(3ms);
        late.push_back(fp.wait().lateness.count());
    }
    std::sort(late.begin(), late.end());
    EXPECT_LT(late[late.size() / 2], 100);        // median: within one simulated relax
    EXPECT_LT(late[late.size() * 99 / 100], 100);  // p99 too
}

TEST(FramePacer, ALongSuspendAtAHighRateKeepsTheDeadlineExact) {
    // A period of 100000.75 ns (9999.925 Hz): the fixed-point fraction is 0.75 * 2^32, so the
    // product slot * fraction passes 2^64 from 5.7e9 slots on (6.6 days). Ten days of suspend
    // must not wrap it (it used to give a deadline 2^32 ns = 4.29 s early, so the frame that
    // "caught up" reported 4.29 s of lateness).
    const long double period_ns = 100000.75L;
    const double hz = static_cast<double>(1e9L / period_ns);
    for (pacer::LatePolicy policy : {pacer::LatePolicy::catch_up, pacer::LatePolicy::skip}) {
        pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
        pacer::FramePacer fp({.target_hz = hz, .late_policy = policy}, &os);
        const std::int64_t start = ns_of(fp.wait().wake);
        fp.wait();
        os.jump(std::chrono::nanoseconds(10LL * 24 * 3600 * 1'000'000'000));
        for (int i = 0; i < 3; ++i) {
            const pacer::FrameTiming t = fp.wait();
            const auto want = start + static_cast<std::int64_t>(std::floor(static_cast<long double>(t.index) * period_ns));
            EXPECT_LE(std::abs(ns_of(t.deadline) - want), 2) << pacer::to_string(policy) << " frame " << i;
            EXPECT_LT(t.lateness, 100'001ns) << pacer::to_string(policy) << " frame " << i;
            EXPECT_GT(t.index, 8'000'000'000u);
        }
    }
}

TEST(FramePacer, ANewTimeSourceKeepsWhatTheWaiterLearned) {
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 30us});
    pacer::FramePacer fp({.target_hz = 100.0}, &os);
    for (int i = 0; i < 300; ++i) {
        os.advance(2ms);
        fp.wait();
    }
    const std::chrono::nanoseconds margin = fp.status().waiter.margin;
    const std::int64_t learned = fp.status().waiter.sleeps_measured;
    ASSERT_GT(learned, 16);

    pacer::SimulatedOs coarse({.granularity = 4ms, .tick_aligned = true}, 2, os.now());
    fp.set_time_source(&coarse);
    coarse.jump(1us);  // the two clocks part: the pacer reads the new one
    EXPECT_EQ(pacer::clock::to_ns(fp.now()), pacer::clock::to_ns(coarse.now()));
    EXPECT_NE(pacer::clock::to_ns(fp.now()), pacer::clock::to_ns(os.now()));
    EXPECT_EQ(fp.status().waiter.margin, margin);
    EXPECT_EQ(fp.status().waiter.sleeps_measured, learned);
    const std::int64_t sleeps = coarse.sleeps();
    const pacer::FrameTiming first = fp.wait();  // the grid restarts on the new clock
    EXPECT_EQ(ns_of(first.wake), pacer::clock::to_ns(coarse.now()));
    for (int i = 0; i < 10; ++i) {
        coarse.advance(2ms);
        fp.wait();
    }
    EXPECT_GT(coarse.sleeps(), sleeps) << "waits must go to the new source";
    EXPECT_GT(fp.status().waiter.sleeps_measured, learned);
    // coarse is destroyed before fp, whose destructor ends pacing on its source: not on coarse.
    fp.set_time_source(&os);
}

// A minimized window: 10 Hz, OS sleep only, vsync off; back to the target without a burst.
TEST(FramePacer, BackgroundPacesSlowlyWithOsSleepAndReturnsWithoutABurst) {
    pacer::SimModel m = exact();
    m.granularity = 1ms;  // a 1 ms scheduler: OS sleep ends on a tick
    pacer::SimulatedOs os(m, 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 144.0, .mode = pacer::WaitMode::automatic}, &os);
    // The host reports a 144 Hz display whose swap blocks: auto mode asks for vsync.
    auto present = [&] {
        fp.report_present({fp.now() - 100us, fp.now(), fp.desired_swap_interval(), 144.0, true});
    };
    fp.wait();
    for (int i = 0; i < 5; ++i) {
        present();
        fp.wait();
    }
    EXPECT_EQ(fp.desired_swap_interval(), 1);
    fp.set_background(true);
    EXPECT_TRUE(fp.status().background);
    std::int64_t last = 0;
    for (int i = 0; i < 20; ++i) {
        os.advance(2ms);
        present();
        const pacer::FrameTiming t = fp.wait();
        EXPECT_TRUE(t.background);
        EXPECT_EQ(t.source, pacer::PacingSource::sleep);
        EXPECT_EQ(t.spun, 0ns) << "no spin in the background";
        EXPECT_EQ(t.period, 100ms);
        EXPECT_EQ(t.mode, pacer::WaitMode::automatic) << "the configured mode is kept";
        EXPECT_EQ(fp.desired_swap_interval(), 0) << "vsync off in the background";
        if (i > 0) {
            EXPECT_EQ(ns_of(t.deadline) - last, 100'000'000);
        }
        last = ns_of(t.deadline);
        EXPECT_LT(t.lateness, 1ms) << "a 1 ms tick late at most";
    }
    // Back in front, in hybrid mode (in auto mode the vsync probe would restart and pace).
    fp.set_background(false);
    ASSERT_TRUE(pacer_test::change(fp, [](pacer::PacerConfig& c) { c.mode = pacer::WaitMode::hybrid; }).ok());
    const pacer::FrameTiming back = fp.wait();
    EXPECT_FALSE(back.background);
    EXPECT_EQ(ns_of(back.deadline) - last, 6'944'444) << "one target period after the last deadline";
    // The next frames follow the 144 Hz grid: no frame comes sooner than a period.
    std::int64_t prev = ns_of(back.wake);
    for (int i = 0; i < 10; ++i) {
        const pacer::FrameTiming t = fp.wait();
        EXPECT_GE(ns_of(t.wake) - prev, 6'944'444);
        prev = ns_of(t.wake);
    }
    // A target below the background rate is kept: background never speeds a loop up.
    pacer::FramePacer slow({.target_hz = 4.0}, &os);
    slow.set_background(true);
    slow.wait();
    EXPECT_EQ(slow.wait().period, 250ms);
}

TEST(FramePacer, BackgroundRateIsValidated) {
    for (double hz : {0.0, -10.0, std::nan(""), 1e9}) {
        pacer::PacerConfig c;
        c.background_hz = hz;
        const pacer::Status s = pacer::validate(c);
        EXPECT_FALSE(s.ok()) << hz;
        EXPECT_NE(s.message().find("background_hz"), std::string::npos) << s.message();
    }
}

}  // namespace
