// The virtual-time OS model itself: the other tests are only as good as it is.
#include <gtest/gtest.h>

#include "pacer/sim.hpp"

using namespace std::chrono_literals;

namespace {

TEST(SimulatedOs, SleepNeverWakesEarlyAndStaysWithinTheModel) {
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 0ns});
    for (int i = 0; i < 10'000; ++i) {
        const std::int64_t want = pacer::clock::to_ns(os.now()) + 300'000 + i;
        os.sleep_until(pacer::clock::from_ns(want));
        ASSERT_GE(pacer::clock::to_ns(os.now()), want);
        ASSERT_LT(pacer::clock::to_ns(os.now()), want + 1'000'000);  // uniform delay is below one period
    }
}

TEST(SimulatedOs, TickAlignedWakesLandOnTicks) {
    pacer::SimulatedOs os({.granularity = 4ms, .tick_aligned = true}, 7, pacer::clock::from_ns(0));
    os.sleep_until(pacer::clock::from_ns(1));
    EXPECT_EQ(pacer::clock::to_ns(os.now()), 4'000'000);
    os.sleep_until(pacer::clock::from_ns(8'000'000));
    EXPECT_EQ(pacer::clock::to_ns(os.now()), 8'000'000);
    os.sleep_until(pacer::clock::from_ns(8'000'001));
    EXPECT_EQ(pacer::clock::to_ns(os.now()), 12'000'000);
}

// Mean oversleep of 100'000 short sleeps, in ns.
double mean_oversleep(const pacer::SimModel& model) {
    pacer::SimulatedOs os(model);
    std::int64_t extra = 0;
    const int n = 100'000;
    for (int i = 0; i < n; ++i) {
        const std::int64_t want = pacer::clock::to_ns(os.now()) + 1000;
        os.sleep_until(pacer::clock::from_ns(want));
        extra += pacer::clock::to_ns(os.now()) - want;
    }
    return static_cast<double>(extra) / n;
}

TEST(SimulatedOs, PreemptionRateMatchesTheModel) {
    // With probability 0.1 of each (repeated) preemption, the mean extra delay is 0.1/0.9 periods.
    const double mean = mean_oversleep({.granularity = 0ns, .preempt_probability = 0.1, .preempt = 1ms});
    EXPECT_NEAR(mean / 1e6, 0.1 / 0.9, 0.01);
}

TEST(SimulatedOs, ExponentialJitterHasTheRequestedMean) {
    EXPECT_NEAR(mean_oversleep({.granularity = 0ns, .jitter_mean = 50us}), 50'000.0, 1'000.0);
}

// Stalls of the whole machine: nothing wakes, works or spins inside one; work that spans one
// ends that much later, with the CPU time of the work alone; the machine stops for the share of
// time the model says (a stall of 1-3 ms, 2 ms on average, every 20 ms: 2 / 22 = 9 %); and the
// other draws are the same as without stalls.
TEST(SimulatedOs, StallsStopEveryThreadAndTheirShareIsTheModels) {
    pacer::SimModel m{.granularity = 0ns, .jitter_mean = 20us};
    m.stall_gap = 20ms;
    m.stall_min = 1ms;
    m.stall_max = 3ms;
    pacer::SimulatedOs os(m, 7);
    pacer::SimModel plain = m;
    plain.stall_gap = 0ns;
    pacer::SimulatedOs ref(plain, 7);
    std::int64_t stalled = 0, worked = 0;
    for (int i = 0; i < 20'000; ++i) {
        // 100 us of work: what it took beyond that is the machine stopped.
        const std::int64_t t0 = pacer::clock::to_ns(os.now());
        const auto cpu0 = os.cpu_times().process;
        os.advance(100us);
        ASSERT_EQ((os.cpu_times().process - cpu0).count(), 100'000);
        stalled += pacer::clock::to_ns(os.now()) - t0 - 100'000;
        worked += 100'000;
        // A sleep of 400 us: it wakes no earlier than asked, and the jitter drawn is the one the
        // model without stalls draws.
        const std::int64_t want = pacer::clock::to_ns(os.now()) + 400'000;
        const std::int64_t ref_want = pacer::clock::to_ns(ref.now()) + 400'000;
        os.sleep_until(pacer::clock::from_ns(want));
        ref.sleep_until(pacer::clock::from_ns(ref_want));
        const std::int64_t late = pacer::clock::to_ns(os.now()) - want, ref_late = pacer::clock::to_ns(ref.now()) - ref_want;
        ASSERT_GE(late, ref_late);  // the same draw, pushed to a stall's end at most
        if (late > ref_late) stalled += late - ref_late;
        worked += 400'000 + ref_late;
        os.relax();
        ref.relax();
    }
    const double share = static_cast<double>(stalled) / static_cast<double>(stalled + worked);
    EXPECT_NEAR(share, 2.0 / 22.0, 0.01);
}

TEST(SimulatedOs, SameSeedSameRun) {
    pacer::SimModel m{.granularity = 1ms, .jitter_mean = 30us, .preempt_probability = 0.05};
    pacer::SimulatedOs a(m, 42), b(m, 42), c(m, 43);
    bool differs = false;
    for (int i = 0; i < 1000; ++i) {
        a.sleep_until(pacer::clock::from_ns(pacer::clock::to_ns(a.now()) + 500'000));
        b.sleep_until(pacer::clock::from_ns(pacer::clock::to_ns(b.now()) + 500'000));
        c.sleep_until(pacer::clock::from_ns(pacer::clock::to_ns(c.now()) + 500'000));
        ASSERT_EQ(pacer::clock::to_ns(a.now()), pacer::clock::to_ns(b.now()));
        differs = differs || pacer::clock::to_ns(a.now()) != pacer::clock::to_ns(c.now());
    }
    EXPECT_TRUE(differs);
}

TEST(SimulatedOs, RelaxAdvancesTimeAndCpu) {
    pacer::SimulatedOs os({.relax_time = 250ns}, 1, pacer::clock::from_ns(0));
    for (int i = 0; i < 4; ++i) os.relax();
    EXPECT_EQ(pacer::clock::to_ns(os.now()), 1000);
    EXPECT_EQ(os.cpu_times().thread.count(), 1000);
    os.jump(5us);  // suspend: time, no CPU
    EXPECT_EQ(pacer::clock::to_ns(os.now()), 6000);
    EXPECT_EQ(os.cpu_times().thread.count(), 1000);
}

TEST(SimulatedOs, BlockingOnAnEventIgnoresTheSchedulerTick) {
    // A vblank or a fence wakes the thread by interrupt: no timer granularity, only wake-up noise.
    pacer::SimulatedOs os({.granularity = 4ms, .tick_aligned = true, .sleep_cpu = 2us}, 7, pacer::clock::from_ns(0));
    os.block_until(pacer::clock::from_ns(1'234'567));
    EXPECT_EQ(pacer::clock::to_ns(os.now()), 1'234'567);  // not the 4 ms tick
    EXPECT_EQ(os.cpu_times().thread.count(), 2'000);
    os.block_until(pacer::clock::from_ns(1'000'000));  // in the past: at once, same cost
    EXPECT_EQ(pacer::clock::to_ns(os.now()), 1'234'567);
    EXPECT_EQ(os.cpu_times().thread.count(), 4'000);
    pacer::SimulatedOs noisy({.granularity = 0ns, .jitter_mean = 50us}, 7, pacer::clock::from_ns(0));
    std::int64_t late = 0;
    for (int i = 1; i <= 10'000; ++i) {
        const std::int64_t t = pacer::clock::to_ns(noisy.now()) + 1'000'000;
        noisy.block_until(pacer::clock::from_ns(t));
        ASSERT_GE(pacer::clock::to_ns(noisy.now()), t);
        late += pacer::clock::to_ns(noisy.now()) - t;
    }
    EXPECT_NEAR(static_cast<double>(late) / 10'000, 50'000.0, 2'500.0);  // the exponential's mean
}

}  // namespace
