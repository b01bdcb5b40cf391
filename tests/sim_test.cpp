// The virtual-time OS model itself: the other tests are only as good as it is.
#include <gtest/gtest.h>

#include "pacer/sim.hpp"

namespace {

TEST(SimulatedOs, SleepNeverWakesEarlyAndStaysWithinTheModel) {
    pacer::SimulatedOs os({.granularity_ns = 1'000'000, .jitter_mean_ns = 0});
    for (int i = 0; i < 10'000; ++i) {
        const std::int64_t want = os.now_ns() + 300'000 + i;
        os.sleep_until_ns(want);
        ASSERT_GE(os.now_ns(), want);
        ASSERT_LT(os.now_ns(), want + 1'000'000);  // uniform delay is below one period
    }
}

TEST(SimulatedOs, TickAlignedWakesLandOnTicks) {
    pacer::SimulatedOs os({.granularity_ns = 4'000'000, .tick_aligned = true}, 7, 0);
    os.sleep_until_ns(1);
    EXPECT_EQ(os.now_ns(), 4'000'000);
    os.sleep_until_ns(8'000'000);
    EXPECT_EQ(os.now_ns(), 8'000'000);
    os.sleep_until_ns(8'000'001);
    EXPECT_EQ(os.now_ns(), 12'000'000);
}

// Mean oversleep of 100'000 short sleeps, in ns.
double mean_oversleep(const pacer::SimModel& model) {
    pacer::SimulatedOs os(model);
    std::int64_t extra = 0;
    const int n = 100'000;
    for (int i = 0; i < n; ++i) {
        const std::int64_t want = os.now_ns() + 1000;
        os.sleep_until_ns(want);
        extra += os.now_ns() - want;
    }
    return static_cast<double>(extra) / n;
}

TEST(SimulatedOs, PreemptionRateMatchesTheModel) {
    // With probability 0.1 of each (repeated) preemption, the mean extra delay is 0.1/0.9 periods.
    const double mean = mean_oversleep({.granularity_ns = 0, .preempt_probability = 0.1, .preempt_ns = 1'000'000});
    EXPECT_NEAR(mean / 1e6, 0.1 / 0.9, 0.01);
}

TEST(SimulatedOs, ExponentialJitterHasTheRequestedMean) {
    EXPECT_NEAR(mean_oversleep({.granularity_ns = 0, .jitter_mean_ns = 50'000}), 50'000.0, 1'000.0);
}

TEST(SimulatedOs, SameSeedSameRun) {
    pacer::SimModel m{.granularity_ns = 1'000'000, .jitter_mean_ns = 30'000, .preempt_probability = 0.05};
    pacer::SimulatedOs a(m, 42), b(m, 42), c(m, 43);
    bool differs = false;
    for (int i = 0; i < 1000; ++i) {
        a.sleep_until_ns(a.now_ns() + 500'000);
        b.sleep_until_ns(b.now_ns() + 500'000);
        c.sleep_until_ns(c.now_ns() + 500'000);
        ASSERT_EQ(a.now_ns(), b.now_ns());
        differs = differs || a.now_ns() != c.now_ns();
    }
    EXPECT_TRUE(differs);
}

TEST(SimulatedOs, RelaxAdvancesTimeAndCpu) {
    pacer::SimulatedOs os({.relax_ns = 250}, 1, 0);
    for (int i = 0; i < 4; ++i) os.relax();
    EXPECT_EQ(os.now_ns(), 1000);
    EXPECT_EQ(os.cpu_times().thread_ns, 1000);
    os.jump(5000);  // suspend: time, no CPU
    EXPECT_EQ(os.now_ns(), 6000);
    EXPECT_EQ(os.cpu_times().thread_ns, 1000);
}

TEST(SimulatedOs, BlockingOnAnEventIgnoresTheSchedulerTick) {
    // A vblank or a fence wakes the thread by interrupt: no timer granularity, only wake-up noise.
    pacer::SimulatedOs os({.granularity_ns = 4'000'000, .tick_aligned = true, .sleep_cpu_ns = 2'000}, 7, 0);
    os.block_until_ns(1'234'567);
    EXPECT_EQ(os.now_ns(), 1'234'567);  // not the 4 ms tick
    EXPECT_EQ(os.cpu_times().thread_ns, 2'000);
    os.block_until_ns(1'000'000);  // in the past: at once, same cost
    EXPECT_EQ(os.now_ns(), 1'234'567);
    EXPECT_EQ(os.cpu_times().thread_ns, 4'000);
    pacer::SimulatedOs noisy({.granularity_ns = 0, .jitter_mean_ns = 50'000}, 7, 0);
    std::int64_t late = 0;
    for (int i = 1; i <= 10'000; ++i) {
        const std::int64_t t = noisy.now_ns() + 1'000'000;
        noisy.block_until_ns(t);
        ASSERT_GE(noisy.now_ns(), t);
        late += noisy.now_ns() - t;
    }
    EXPECT_NEAR(static_cast<double>(late) / 10'000, 50'000.0, 2'500.0);  // the exponential's mean
}

}  // namespace
