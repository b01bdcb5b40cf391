// FixedStep: steps * dt tracks elapsed time, alpha stays in [0, 1), the guards hold.
#include <gtest/gtest.h>

#include <cmath>

#include "pacer/pacer.hpp"

namespace {

using namespace std::chrono_literals;

TEST(FixedStep, EqualRatesGiveOneStepPerFrame) {
    pacer::FixedStep fs({.step_hz = 60.0});
    // 1e9/60 is not a whole number of ns: frames of 16'666'667 ns would drift one way,
    // alternating 16'666'666/16'666'667 is what a 60 Hz grid actually delivers.
    int zero = 0, two = 0;
    for (int i = 0; i < 6000; ++i) {
        const auto a = fs.advance(std::chrono::nanoseconds(i % 3 == 2 ? 16'666'668 : 16'666'666));
        zero += a.steps == 0;
        two += a.steps == 2;
        ASSERT_GE(a.alpha, 0.0);
        ASSERT_LT(a.alpha, 1.0);
    }
    EXPECT_EQ(fs.total_steps(), 6000u - static_cast<unsigned>(zero) + static_cast<unsigned>(two));
    EXPECT_NEAR(static_cast<double>(fs.total_steps()), 6000.0, 1.0);
}

TEST(FixedStep, StepsTimesDtTracksElapsedTime) {
    pacer::FixedStep fs({.step_hz = 120.0});
    pacer::SimulatedOs os({}, 3);
    double elapsed = 0;
    for (int i = 0; i < 1'000'000; ++i) {
        // Frame times between 1 and 30 ms: never clamped, rarely capped.
        const auto d = std::chrono::nanoseconds(1'000'000 + static_cast<std::int64_t>(os.uniform() * 29e6));
        const auto a = fs.advance(d);
        ASSERT_EQ(a.dropped, 0ns);
        elapsed += static_cast<double>(d.count());
    }
    const double simulated = static_cast<double>(fs.total_steps()) * fs.step().count();
    // Whatever was not simulated is in the accumulator, which is less than one step.
    EXPECT_GE(elapsed - simulated, -1.0);
    EXPECT_LT(elapsed - simulated, fs.step().count() + 1.0);
    EXPECT_NEAR(elapsed - simulated, fs.backlog().count(), 1.0);  // to the ns after ~4.3 hours
}

TEST(FixedStep, AlphaIsTheFractionOfAStepLeft) {
    pacer::FixedStep fs({.step_hz = 100.0});
    auto a = fs.advance(25ms);
    EXPECT_EQ(a.steps, 2);
    EXPECT_DOUBLE_EQ(a.alpha, 0.5);
    a = fs.advance(5ms);
    EXPECT_EQ(a.steps, 1);
    EXPECT_NEAR(a.alpha, 0.0, 1e-12);
    a = fs.advance(-3ms);  // a clock that went backwards counts as zero
    EXPECT_EQ(a.steps, 0);
}

TEST(FixedStep, HugeFramesAreClampedAndStepsAreCapped) {
    pacer::FixedStep fs({.step_hz = 60.0, .max_steps = 5, .max_frame_delta = 250ms});
    const auto a = fs.advance(30s);  // a debugger pause
    EXPECT_EQ(a.steps, 5);            // not 1800, not even 15
    EXPECT_LT(a.alpha, 1.0);
    // Everything beyond 5 steps and the fractional remainder is dropped or kept: nothing lost.
    EXPECT_NEAR(static_cast<double>(a.dropped.count()) + 5 * fs.step().count() + fs.backlog().count(), 30e9, 2.0);
    const auto b = fs.advance(16'666'667ns);  // the next normal frame is normal again
    EXPECT_LE(b.steps, 2);
    EXPECT_EQ(b.dropped, 0ns);
}

TEST(FixedStep, SnappingRemovesZeroAndTwoStepFramesFromJitter) {
    // A paced loop's frame times are wake-to-wake: period + late[i] - late[i-1], with each frame
    // 0..100 us late. Their sum tracks the grid; a first frame 50 us short of a period puts the
    // simulation's step boundary right inside that jitter.
    const auto period = 16'666'667ns;
    const double tolerance = 200'000;
    pacer::FixedStep plain({.step_hz = 60.0});
    pacer::FixedStep snapped({.step_hz = 60.0, .snap_period = period, .snap_tolerance = 200us});
    pacer::SimulatedOs os({}, 9);
    int plain_odd = 0, snapped_odd = 0;
    const auto first = period - 50us;
    plain.advance(first);
    snapped.advance(first);
    double real = static_cast<double>(first.count());
    std::int64_t prev_late = 0;
    for (int i = 0; i < 10'000; ++i) {
        const auto late = static_cast<std::int64_t>(os.uniform() * 100'000);
        const auto d = period + std::chrono::nanoseconds(late - prev_late);
        prev_late = late;
        real += static_cast<double>(d.count());
        plain_odd += plain.advance(d).steps != 1;
        const auto a = snapped.advance(d);
        snapped_odd += a.steps != 1;
        ASSERT_TRUE(a.snapped) << i;
        // Simulated time plus the accumulator stays within the tolerance of real time.
        const double sim = static_cast<double>(snapped.total_steps()) * snapped.step().count() +
                           snapped.alpha() * snapped.step().count();
        ASSERT_LE(std::abs(real - sim), tolerance + 1.0) << i;
    }
    EXPECT_GT(plain_odd, 1000);  // jitter at the step boundary: many 0/2-step frames
    EXPECT_EQ(snapped_odd, 0);
}

TEST(FixedStep, SnappingLetsRealLongFramesThrough) {
    pacer::FixedStep fs({.step_hz = 60.0, .snap_period = 16'666'667ns});
    const auto a = fs.advance(40ms);  // 2.4 periods: not near a multiple
    EXPECT_FALSE(a.snapped);
    EXPECT_EQ(a.steps, 2);
    const auto b = fs.advance(33'400'000ns);  // 2 periods + 67 us: snapped to 2
    EXPECT_TRUE(b.snapped);
}

TEST(FixedStep, ChangingTheRateKeepsAlphaInRange) {
    pacer::FixedStep fs({.step_hz = 30.0});
    fs.advance(30ms);
    ASSERT_TRUE(fs.set_config({.step_hz = 240.0}).ok());
    EXPECT_LT(fs.alpha(), 1.0);
    const auto a = fs.advance(10ms);
    EXPECT_GE(a.steps, 2);
    EXPECT_LT(a.alpha, 1.0);
}

TEST(FixedStep, DefaultsHoldAtEveryRateThePacerAccepts) {
    // With snapping to the pacer's period, the defaults once failed above 1250 Hz (0.2 ms > a
    // quarter period) and below 4 Hz (a 250 ms clamp shorter than one step).
    for (double hz : {0.01, 0.5, 2.0, 3.9, 60.0, 144.0, 1250.0, 1251.0, 5000.0, 10000.0}) {
        const pacer::FramePacer fp({.target_hz = hz});
        const pacer::FixedStepConfig c{.step_hz = hz, .snap_period = hz >= 0.1 ? fp.status().period : 0ns};
        ASSERT_TRUE(pacer::validate(c)) << hz << " Hz: " << pacer::validate(c).message();
        const pacer::FixedStep fs(c);
        EXPECT_GE(fs.max_frame_delta().count(), fs.step().count()) << hz;
        EXPECT_LE(fs.snap_tolerance(), c.snap_period / 4 + (c.snap_period.count() == 0 ? 200us : 0ns)) << hz;
    }
    // Explicit values are still checked.
    EXPECT_FALSE(pacer::validate(pacer::FixedStepConfig{.step_hz = 2.0, .max_frame_delta = 250ms}));
    EXPECT_FALSE(pacer::validate(pacer::FixedStepConfig{.snap_period = 500us, .snap_tolerance = 200us}));
}

}  // namespace
