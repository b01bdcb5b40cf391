// FrameStats against hand-computed values; CpuMeter in virtual time.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <initializer_list>
#include <vector>

#include "pacer/pacer.hpp"

namespace {

using namespace std::chrono_literals;

pacer::FrameTiming frame(std::int64_t interval_ns, std::int64_t late_ns = 0, bool missed = false) {
    pacer::FrameTiming t;
    t.interval = std::chrono::nanoseconds(interval_ns);
    t.lateness = std::chrono::nanoseconds(late_ns);
    t.period = 10ms;
    t.missed = missed;
    return t;
}

TEST(Percentile, LinearInterpolationAtNMinusOneP) {
    const std::vector<double> v{1, 2, 3, 4, 10};
    EXPECT_DOUBLE_EQ(pacer::percentile_sorted(v, 0.0), 1);
    EXPECT_DOUBLE_EQ(pacer::percentile_sorted(v, 0.5), 3);
    EXPECT_DOUBLE_EQ(pacer::percentile_sorted(v, 0.9), 7.6);   // h = 3.6: 4 + 0.6 * 6
    EXPECT_DOUBLE_EQ(pacer::percentile_sorted(v, 0.99), 9.76);  // h = 3.96
    EXPECT_DOUBLE_EQ(pacer::percentile_sorted(v, 1.0), 10);
    EXPECT_DOUBLE_EQ(pacer::percentile_sorted({}, 0.5), 0);
}

TEST(Milliseconds, ConvertBothWaysRoundedToTheNearestNanosecond) {
    EXPECT_EQ(pacer::to_ms(16'666'667ns), 16.666667);
    EXPECT_EQ(pacer::to_ms(-250us), -0.25);
    EXPECT_EQ(pacer::from_ms(16.6666666), 16'666'667ns);  // 16666666.6 ns rounds up
    EXPECT_EQ(pacer::from_ms(-1.0000004), -1'000'000ns);  // halves away from zero, both signs
    EXPECT_EQ(pacer::from_ms(-1.0000006), -1'000'001ns);
    static_assert(pacer::from_ms(2.5) == 2500us);
    for (std::int64_t ns : {0LL, 1LL, 999LL, 16'666'667LL, 6'944'444LL, 3'600'000'000'000LL})
        EXPECT_EQ(pacer::from_ms(pacer::to_ms(std::chrono::nanoseconds(ns))).count(), ns);
    // Not a number: 0; beyond about 100 years either way: saturated, never undefined.
    EXPECT_EQ(pacer::from_ms(std::nan("")), 0ns);
    EXPECT_EQ(pacer::from_ms(1e300 * 1e300).count(), 3'200'000'000'000'000'000LL);
    EXPECT_EQ(pacer::from_ms(-1e300 * 1e300).count(), -3'200'000'000'000'000'000LL);
    EXPECT_EQ(pacer::from_ms(1e20).count(), 3'200'000'000'000'000'000LL);
}

TEST(FrameStats, SummaryMatchesHandComputedValues) {
    pacer::FrameStats s(16);
    s.add(frame(0));  // the first frame of a grid has no frame time: ignored
    for (std::int64_t ms : {10, 10, 10, 10, 20, 10, 10, 10, 10, 10})
        s.add(frame(ms * 1'000'000, ms == 20 ? 10'000'000 : 0, ms == 20));
    const pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.frames, 10u);
    EXPECT_EQ(r.frames_total, 11u);
    EXPECT_EQ(r.interval.mean, 11ms);
    EXPECT_EQ(r.interval.stddev, 3ms);   // sqrt(9 * 1 + 81) / 10 = sqrt(9)
    EXPECT_EQ(r.interval.min, 10ms);
    EXPECT_EQ(r.interval.max, 20ms);
    EXPECT_EQ(r.interval.p50, 10ms);
    EXPECT_EQ(r.interval.p90, 11ms);     // h = 8.1: sorted[8] = 10, sorted[9] = 20
    EXPECT_NEAR(r.avg_fps, 1000.0 / 11.0, 1e-9);
    EXPECT_DOUBLE_EQ(r.low1_fps, 50.0);            // mean of frames >= p99 (19.1 ms): 20 ms
    EXPECT_EQ(r.lateness.max, 10ms);
    EXPECT_EQ(r.missed, 1u);
    EXPECT_EQ(r.target, 10ms);
}

TEST(FrameStats, P90IsInterpolated) {
    pacer::FrameStats s(16);
    for (int ms = 1; ms <= 10; ++ms) s.add(frame(ms * 1'000'000));
    const pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.interval.p90, 9100us);   // h = 8.1 between 9 and 10
    EXPECT_EQ(r.interval.p50, 5500us);
    EXPECT_NEAR(r.low1_fps, 100.0, 1e-9);        // only the 10 ms frame is >= p99 = 9.91
}

TEST(FrameStats, RingKeepsTheNewestFrames) {
    pacer::FrameStats s(4);
    for (int ms = 1; ms <= 10; ++ms) s.add(frame(ms * 1'000'000));
    EXPECT_EQ(s.size(), 4u);
    std::array<float, 8> out{};
    ASSERT_EQ(s.series_ms(pacer::FrameMetric::interval, out), 4u);
    EXPECT_FLOAT_EQ(out[0], 7.0f);
    EXPECT_FLOAT_EQ(out[3], 10.0f);
    std::array<float, 2> last{};
    ASSERT_EQ(s.series_ms(pacer::FrameMetric::interval, last), 2u);
    EXPECT_FLOAT_EQ(last[0], 9.0f);
    const pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.interval.mean, 8500us);
    EXPECT_EQ(r.frames_total, 10u);
}

TEST(FrameStats, HistogramBinsAndClampsOutliersIntoTheEdges) {
    pacer::FrameStats s(64);
    for (double ms : {0.5, 1.2, 1.7, 3.9, 4.0, 9.0, 25.0}) s.add(frame(static_cast<std::int64_t>(ms * 1e6)));
    std::array<float, 4> bins{};  // [1,2) [2,3) [3,4) [4,5)
    EXPECT_EQ(s.histogram(pacer::FrameMetric::interval, 1ms, 5ms, bins).placed, 7u);
    EXPECT_FLOAT_EQ(bins[0], 3.0f);  // 0.5 (clamped), 1.2, 1.7
    EXPECT_FLOAT_EQ(bins[1], 0.0f);
    EXPECT_FLOAT_EQ(bins[2], 1.0f);  // 3.9
    EXPECT_FLOAT_EQ(bins[3], 3.0f);  // 4.0, and 9 and 25 clamped
    EXPECT_EQ(s.histogram(pacer::FrameMetric::interval, 5ms, 5ms, bins).placed, 0u);  // empty range
}

TEST(FrameStats, HistogramSaysHowManyValuesFellOutsideTheRange) {
    pacer::FrameStats s(64);
    for (double ms : {0.5, 1.2, 1.7, 3.9, 4.0, 9.0, 25.0}) s.add(frame(static_cast<std::int64_t>(ms * 1e6)));
    std::array<float, 4> bins{};
    pacer::HistogramCounts c = s.histogram(pacer::FrameMetric::interval, 1ms, 5ms, bins);
    EXPECT_EQ(c.placed, 7u);
    EXPECT_EQ(c.below, 1u);  // 0.5, counted in bins[0]
    EXPECT_EQ(c.above, 2u);  // 9 and 25, counted in bins[3]
    // [lo, hi): lo is inside, hi is above.
    c = s.histogram(pacer::FrameMetric::interval, 1200us, 4ms, bins);
    EXPECT_EQ(c.placed, 7u);
    EXPECT_EQ(c.below, 1u);
    EXPECT_EQ(c.above, 3u);  // 4.0, 9, 25
    float sum = 0;
    for (float b : bins) sum += b;
    EXPECT_FLOAT_EQ(sum, 7.0f);  // the edge bins still hold every frame
    c = s.histogram(pacer::FrameMetric::interval, 5ms, 5ms, bins);  // empty range: nothing counted
    EXPECT_EQ(c.placed + c.below + c.above, 0u);
}

TEST(FrameStats, SharesOfSleepSpinAndWork) {
    pacer::FrameStats s(8);
    for (int i = 0; i < 4; ++i) {
        pacer::FrameTiming t = frame(10'000'000);
        t.work = 4ms;
        t.slept = 5ms;
        t.spun = 1ms;
        s.add(t);
    }
    const pacer::StatsSummary r = s.summarize();
    EXPECT_DOUBLE_EQ(r.work_share, 0.4);
    EXPECT_DOUBLE_EQ(r.sleep_share, 0.5);
    EXPECT_DOUBLE_EQ(r.spin_share, 0.1);
}

TEST(FrameStats, EmptyAndResetAreWellDefined) {
    pacer::FrameStats s(2);
    pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.frames, 0u);
    EXPECT_EQ(r.avg_fps, 0.0);
    s.add(frame(5'000'000));
    s.reset();
    r = s.summarize();
    EXPECT_EQ(r.frames, 0u);
    EXPECT_EQ(r.frames_total, 0u);
}

// ---- interval error ------------------------------------------------------------------------

// A frame of `interval_ns` paced at `period_ns` (0: no period known).
pacer::FrameTiming paced(std::int64_t interval_ns, std::int64_t period_ns) {
    pacer::FrameTiming t;
    t.interval = std::chrono::nanoseconds(interval_ns);
    t.period = std::chrono::nanoseconds(period_ns);
    return t;
}

// Errors 0, 2, ..., 198 us, early and late in turn: |interval - period| is what counts.
TEST(FrameStats, IntervalErrorP99AndShareOffMoreThan100us) {
    pacer::FrameStats s(128);
    for (std::int64_t k = 0; k < 100; ++k) {
        const std::int64_t e = 2'000 * k;
        s.add(paced(k % 2 == 0 ? 10'000'000 + e : 10'000'000 - e, 10'000'000));
    }
    const pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.interval_error_frames, 100u);
    EXPECT_EQ(r.interval_error.min, 0ns);
    EXPECT_EQ(r.interval_error.max, 198us);
    EXPECT_EQ(r.interval_error.p50, 99us);       // h = 49.5: between 98 and 100
    EXPECT_EQ(r.interval_error.p99, 196'020ns);  // h = 98.01: 196 us + 0.01 x 2 us
    // Above 100 us, strictly: 102 ... 198 us are 49 frames; exactly 100 us is not off.
    EXPECT_DOUBLE_EQ(r.off_100us_share, 0.49);
    EXPECT_EQ(pacer::kIntervalOffThreshold, 100us);
}

// `pacer compare` (tools/lib/compare.cpp) takes |interval - period| / 1e3 per frame in us, its p99
// with percentile_sorted and the share above 100 us: FrameStats gives the same figures.
TEST(FrameStats, IntervalErrorAgreesWithPacerComparesDefinition) {
    pacer::FrameStats s(512);
    std::vector<double> interr_us;
    std::uint64_t x = 12345;
    for (int i = 0; i < 500; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        const std::int64_t period = i < 250 ? 6'944'444 : 16'666'667;
        const std::int64_t interval = period - 150'000 + static_cast<std::int64_t>((x >> 33) % 400'000);
        s.add(paced(interval, period));
        interr_us.push_back(std::abs(static_cast<double>(interval - period)) / 1e3);
    }
    std::sort(interr_us.begin(), interr_us.end());
    const auto off = std::count_if(interr_us.begin(), interr_us.end(), [](double e) { return e > 100.0; });
    const pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.interval_error_frames, 500u);
    EXPECT_NEAR(pacer::to_ms(r.interval_error.p99) * 1e3, pacer::percentile_sorted(interr_us, 0.99), 0.0005);
    EXPECT_DOUBLE_EQ(r.off_100us_share, static_cast<double>(off) / 500.0);
    EXPECT_GT(off, 0);
    EXPECT_LT(off, 500);
}

// Each interval against the period of its own frame: five frames at 10 ms, 50 us off, then five
// at 20 ms, 150 us off. Against one period (the newest, 20 ms) the first five would be 9.95 ms off.
TEST(FrameStats, IntervalErrorAcrossARateChangeUsesEachFramesOwnPeriod) {
    pacer::FrameStats s(16);
    for (int i = 0; i < 5; ++i) s.add(paced(10'050'000, 10'000'000));
    for (int i = 0; i < 5; ++i) s.add(paced(19'850'000, 20'000'000));
    const pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.target, 20ms);
    EXPECT_EQ(r.interval_error_frames, 10u);
    EXPECT_EQ(r.interval_error.min, 50us);
    EXPECT_EQ(r.interval_error.max, 150us);
    EXPECT_EQ(r.interval_error.p50, 100us);      // h = 4.5: between 50 and 150
    EXPECT_EQ(r.interval_error.p99, 150us);
    EXPECT_EQ(r.interval_error.mean, 100us);
    EXPECT_DOUBLE_EQ(r.off_100us_share, 0.5);
}

// A frame without a period has no interval error: left out, the rest still counted; with none
// left the figures are 0 and interval_error_frames says why.
TEST(FrameStats, FramesWithoutAPeriodHaveNoIntervalError) {
    pacer::FrameStats none(8);
    for (int i = 0; i < 4; ++i) none.add(paced(17'000'000, 0));
    none.add(paced(17'000'000, -5));  // not a period either
    pacer::StatsSummary r = none.summarize();
    EXPECT_EQ(r.frames, 5u);
    EXPECT_EQ(r.interval_error_frames, 0u);
    EXPECT_EQ(r.interval_error.p99, 0ns);
    EXPECT_EQ(r.interval_error.max, 0ns);
    EXPECT_EQ(r.off_100us_share, 0.0);

    pacer::FrameStats mixed(8);
    mixed.add(paced(16'666'667, 0));           // no period: not 16.7 ms off
    mixed.add(paced(10'200'000, 10'000'000));  // 200 us off
    mixed.add(paced(10'000'000, 10'000'000));
    r = mixed.summarize();
    EXPECT_EQ(r.frames, 3u);
    EXPECT_EQ(r.interval_error_frames, 2u);
    EXPECT_EQ(r.interval_error.max, 200us);
    EXPECT_DOUBLE_EQ(r.off_100us_share, 0.5);
}

// No frames, the first frame of a grid (interval 0, not a frame time, though it has a period),
// a reset, and the ring: only the window's frames count.
TEST(FrameStats, IntervalErrorOfNoFramesOfTheFirstFrameAndOfTheRing) {
    pacer::FrameStats s(4);
    EXPECT_EQ(s.summarize().interval_error_frames, 0u);
    EXPECT_EQ(s.summarize().off_100us_share, 0.0);
    s.add(paced(0, 10'000'000));
    EXPECT_EQ(s.summarize().interval_error_frames, 0u);
    for (int i = 0; i < 4; ++i) s.add(paced(11'000'000, 10'000'000));  // 1 ms off
    for (int i = 0; i < 3; ++i) s.add(paced(10'000'000, 10'000'000));  // on time, pushing three out
    pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.interval_error_frames, 4u);
    EXPECT_EQ(r.interval_error.max, 1ms);
    EXPECT_DOUBLE_EQ(r.off_100us_share, 0.25);
    s.reset();
    r = s.summarize();
    EXPECT_EQ(r.interval_error_frames, 0u);
    EXPECT_EQ(r.interval_error.max, 0ns);
    EXPECT_EQ(r.off_100us_share, 0.0);
}

// What FramePacer fills: the period in force for each frame. On an exact virtual clock every
// interval is its own frame's period, through a rate change (50 -> 200 Hz), so no frame is off;
// the frame time alone mixes 20 and 5 ms.
TEST(FrameStats, FramePacerGivesEachFrameThePeriodInForce) {
    pacer::SimulatedOs os({.granularity = 0ns, .relax_time = 1ns, .sleep_cpu = 0ns}, 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 50.0, .mode = pacer::WaitMode::sleep}, &os);
    pacer::FrameStats s(64);
    for (int i = 0; i < 10; ++i) s.add(fp.wait());
    ASSERT_TRUE(fp.set_target_hz(200.0).ok());
    for (int i = 0; i < 10; ++i) s.add(fp.wait());
    const pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.frames, 19u);
    EXPECT_EQ(r.interval.max, 20ms);
    EXPECT_EQ(r.interval.min, 5ms);
    EXPECT_EQ(r.interval_error_frames, 19u);
    EXPECT_EQ(r.interval_error.max, 0ns);
    EXPECT_EQ(r.off_100us_share, 0.0);
}

// ---- stutters ----------------------------------------------------------------------------

// add() for each value; the verdicts, in order.
std::vector<bool> verdicts(pacer::StutterCounter& c, std::initializer_list<double> ms) {
    std::vector<bool> out;
    for (double v : ms) out.push_back(c.add(v));
    return out;
}

TEST(StutterCounter, NoVerdictUntilTheWindowHoldsWindowFrames) {
    pacer::StutterCounter c;  // 20 frames, 2.5x
    EXPECT_EQ(c.window(), 20);
    EXPECT_EQ(c.factor(), 2.5);
    // A 100 ms spike as the 6th frame: only 5 frames precede it, no verdict.
    for (int i = 0; i < 5; ++i) EXPECT_FALSE(c.add(10));
    EXPECT_FALSE(c.add(100));
    for (int i = 0; i < 14; ++i) EXPECT_FALSE(c.add(10));
    EXPECT_EQ(c.count(), 0u);
    // The 21st frame has 20 before it: mean (19 x 10 + 100) / 20 = 14.5, threshold 36.25.
    EXPECT_TRUE(c.add(100));
    EXPECT_EQ(c.count(), 1u);
    EXPECT_DOUBLE_EQ(c.time_sum(), 100.0);
}

TEST(StutterCounter, TheWindowSlidesAndTheThresholdIsStrict) {
    pacer::StutterCounter c(4, 2.5);
    // 30 against mean(10,10,10,10) = 10: 30 > 25. 24 against mean(10,10,10,30) = 15: 24 < 37.5.
    // Then four 10s refill the window, and 25 against a mean of 10 is exactly 2.5x: not above.
    EXPECT_EQ(verdicts(c, {10, 10, 10, 10, 30, 24}),
              (std::vector<bool>{false, false, false, false, true, false}));
    EXPECT_EQ(verdicts(c, {10, 10, 10, 10, 25}), (std::vector<bool>{false, false, false, false, false}));
    EXPECT_EQ(c.count(), 1u);
    EXPECT_DOUBLE_EQ(c.time_sum(), 30.0);
}

TEST(StutterCounter, WindowOfOneComparesWithThePreviousFrame) {
    pacer::StutterCounter c(1, 2.5);
    // First frame: nothing before it. 25 = 2.5 x 10 is not above; 100 > 2.5 x 26.
    EXPECT_EQ(verdicts(c, {10, 25, 26, 100, 10, 30}),
              (std::vector<bool>{false, false, false, true, false, true}));
    EXPECT_EQ(c.count(), 2u);
    EXPECT_DOUBLE_EQ(c.time_sum(), 130.0);
    EXPECT_EQ(pacer::StutterCounter(0).window(), 1);  // a window below 1 is taken as 1
}

TEST(StutterCounter, ResetForgetsTheCountAndTheWindow) {
    pacer::StutterCounter c(3);
    EXPECT_EQ(verdicts(c, {10, 10, 10, 50}), (std::vector<bool>{false, false, false, true}));
    c.reset();
    EXPECT_EQ(c.count(), 0u);
    EXPECT_EQ(c.time_sum(), 0.0);
    // The window starts empty again: the first spike has only 1 frame before it.
    EXPECT_EQ(verdicts(c, {10, 50, 10, 10, 10, 50}),
              (std::vector<bool>{false, false, false, false, false, true}));
    EXPECT_EQ(c.count(), 1u);
}

TEST(StutterCounter, NonFiniteAndNegativeValuesAreIgnored) {
    pacer::StutterCounter c(2);
    EXPECT_EQ(verdicts(c, {10, std::nan(""), 10, -5, 1e300 * 1e300, 30}),
              (std::vector<bool>{false, false, false, false, false, true}));
    EXPECT_EQ(c.count(), 1u);
}

TEST(FrameStats, CountsStuttersInTheWindowAndSinceReset) {
    pacer::FrameStats s(5, 4, 2.5);
    s.add(frame(0));  // no frame time: not judged, not averaged
    for (std::int64_t ms : {10, 10, 10, 10, 30, 10, 10, 10, 10, 40})
        s.add(frame(ms * 1'000'000));
    pacer::StatsSummary r = s.summarize();
    EXPECT_EQ(r.stutters_total, 2u);  // 30 and 40 (mean of the 4 before 40: 10)
    EXPECT_EQ(r.stutters, 1u);        // the window holds the newest 5: 30 has left it
    EXPECT_EQ(s.stutters(), 2u);
    s.reset();
    r = s.summarize();
    EXPECT_EQ(r.stutters_total, 0u);
    EXPECT_EQ(r.stutters, 0u);
}

TEST(CpuMeter, MeasuresSpinAsCpuAndSleepAsIdle) {
    pacer::SimulatedOs os({.granularity = 0ns, .relax_time = 1us, .sleep_cpu = 0ns});
    pacer::CpuMeter m(&os);
    os.advance(2ms);                   // 2 ms busy
    os.sleep_until(pacer::clock::from_ns(pacer::clock::to_ns(os.now()) + 8'000'000));  // 8 ms asleep
    const pacer::CpuUsage u = m.sample();
    EXPECT_TRUE(u.valid);
    EXPECT_NEAR(u.thread_pct, 20.0, 1e-9);
    EXPECT_EQ(u.wall, 10ms);
    const pacer::CpuUsage v = m.sample();  // no time passed
    EXPECT_FALSE(v.valid);
}

}  // namespace

// Presentation feedback: shown and dropped presents over the window; without feedback shown
// frames are unknown (shown_fps 0), never the submitted rate. A ring of 4 keeps the last 4 frames.
TEST(FrameStats, ShownAndDroppedFramesFromPresentationFeedback) {
    pacer::FrameStats none(8);
    for (int i = 0; i < 8; ++i) {
        pacer::FrameTiming t;
        t.interval = 20ms;
        none.add(t);
    }
    const pacer::StatsSummary n = none.summarize();
    EXPECT_FALSE(n.present_feedback);
    EXPECT_EQ(n.shown_fps, 0.0);
    EXPECT_DOUBLE_EQ(n.avg_fps, 50.0);

    pacer::FrameStats stats(4);
    for (int i = 0; i < 6; ++i) {
        pacer::FrameTiming t;
        t.interval = 20ms;            // 50 submitted a second
        t.present_feedback = true;
        t.presents_shown = i % 2;     // every other frame shown: 25 a second
        t.presents_dropped = i % 2 == 0 ? 1 : 0;
        stats.add(t);
    }
    const pacer::StatsSummary s = stats.summarize();
    EXPECT_TRUE(s.present_feedback);
    EXPECT_EQ(s.presents_shown, 2u);
    EXPECT_EQ(s.presents_dropped, 2u);
    EXPECT_DOUBLE_EQ(s.avg_fps, 50.0);
    EXPECT_DOUBLE_EQ(s.shown_fps, 25.0);
}
