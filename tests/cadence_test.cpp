// The cadence governor, the display-time delta and the VRR cap (pacer/cadence.hpp) on their own,
// against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "pacer/cadence.hpp"
#include "sim_time.hpp"

namespace {

using namespace std::chrono_literals;
using std::chrono::nanoseconds;
constexpr nanoseconds kOneMs = 1ms;
using pacer_test::k60;
constexpr nanoseconds k144{6'944'444};   // 1e9 / 144, rounded

using pacer::CadenceGovernor;
using pacer::CadenceReason;

// The governor's time points: t after the clock's epoch.
using pacer_test::at;

TEST(CadenceGovernor, MinDivisorKeepsTheRateAtOrBelowTheTarget) {
    EXPECT_EQ(CadenceGovernor::min_divisor(k60, k60), 1u);
    EXPECT_EQ(CadenceGovernor::min_divisor(16'683'350ns, k60), 1u);  // 59.94 Hz serves 60
    EXPECT_EQ(CadenceGovernor::min_divisor(8'333'333ns, k60), 2u);   // 120 Hz: 60 = 120 / 2
    EXPECT_EQ(CadenceGovernor::min_divisor(k144, k60), 3u);        // 144 / 2 = 72 > 60: 48 Hz
    EXPECT_EQ(CadenceGovernor::min_divisor(k144, k144), 1u);
    EXPECT_EQ(CadenceGovernor::min_divisor(k60, k144), 1u);        // a target above the refresh
}

TEST(CadenceGovernor, WorkThatFitsKeepsTheFullRate) {
    CadenceGovernor g;
    for (int i = 0; i < 200; ++i) EXPECT_FALSE(g.update(at(i * k60), 10 * kOneMs, k60, k60)) << i;
    EXPECT_EQ(g.divisor(), 1u);
    EXPECT_EQ(g.status().code, CadenceReason::fits);
    EXPECT_NEAR(g.status().hz, 60.0, 1e-5);
    EXPECT_EQ(g.status().cost, 10 * kOneMs);
    EXPECT_EQ(g.status().switches, 0u);
}

// 20 ms of work at 60 Hz: 20 > 0.95 x 16.67 = 15.83, and 20 <= 0.95 x 33.33 = 31.67: every other
// refresh, decided at the first judged frame (kMinFrames), with no dwell before the first switch.
TEST(CadenceGovernor, OverrunGoesToTheHighestSustainableDivisorAtOnce) {
    CadenceGovernor g;
    for (int i = 0; i < CadenceGovernor::kMinFrames - 1; ++i) {
        EXPECT_FALSE(g.update(at(i * k60), 20 * kOneMs, k60, k60));
        EXPECT_EQ(g.status().code, CadenceReason::learning);
    }
    EXPECT_TRUE(g.update(at(15 * k60), 20 * kOneMs, k60, k60));
    EXPECT_EQ(g.divisor(), 2u);
    EXPECT_EQ(g.status().code, CadenceReason::overrun);
    EXPECT_NEAR(g.status().hz, 30.0, 1e-5);
    EXPECT_FALSE(g.update(at(16 * k60), 20 * kOneMs, k60, k60));
    EXPECT_EQ(g.status().code, CadenceReason::steady);
    // 35 ms: 0.95 x 50 = 47.5 holds it: every third refresh, 20 Hz (min_hz 20, within 0.5 %).
    CadenceGovernor h;
    for (int i = 0; i < 16; ++i) h.update(at(i * k60), 35 * kOneMs, k60, k60);
    EXPECT_EQ(h.divisor(), 3u);
    // 144 Hz, 15 ms: 0.95 x 3 x 6.944 = 19.79 holds it: 48 Hz.
    CadenceGovernor f;
    for (int i = 0; i < 16; ++i) f.update(at(i * k144), 15 * kOneMs, k144, k144);
    EXPECT_EQ(f.divisor(), 3u);
    EXPECT_NEAR(f.status().hz, 48.0, 1e-4);
}

TEST(CadenceGovernor, WorkBeyondTheSlowestCadenceStopsAtMinHz) {
    CadenceGovernor g;  // min_hz 20: at 60 Hz at most every third refresh
    for (int i = 0; i < 40; ++i) g.update(at(i * k60), 100 * kOneMs, k60, k60);
    EXPECT_EQ(g.divisor(), 3u);
    EXPECT_EQ(g.status().code, CadenceReason::slowest);
    pacer::CadenceConfig c;
    c.min_hz = 10;  // 60 / 6 = 10 Hz
    CadenceGovernor h(c);
    for (int i = 0; i < 40; ++i) h.update(at(i * k60), 90 * kOneMs, k60, k60);
    EXPECT_EQ(h.divisor(), 6u);  // 0.95 x 5 x 16.67 = 79.2 < 90 <= 0.95 x 6 x 16.67 = 95
    EXPECT_EQ(h.status().code, CadenceReason::steady);
}

// Back up: the 0.9 quantile of the window (index 57 of 64 sorted) falls to the light cost once 58
// light frames are in; from then on the headroom must last a whole dwell (1 s).
TEST(CadenceGovernor, HeadroomForADwellGoesBackUp) {
    CadenceGovernor g;
    const nanoseconds step = 10 * kOneMs;  // the governor only sees the times it is given
    int switched_down = -1, switched_up = -1;
    for (int i = 0; i < 400; ++i) {
        const nanoseconds cost = i < 64 ? 20 * kOneMs : 12 * kOneMs;  // 12 <= 0.8 x 16.67 = 13.33
        if (g.update(at(i * step), cost, k60, k60)) (g.divisor() == 2 ? switched_down : switched_up) = i;
        if (i >= 121 && i < 221) {
            EXPECT_EQ(g.status().code, CadenceReason::dwell) << i;
        }
    }
    EXPECT_EQ(switched_down, 15);
    // Headroom from frame 64 + 57 = 121 (t = 1.21 s); the switch once 1 s has passed: t = 2.21 s.
    EXPECT_EQ(switched_up, 221);
    EXPECT_EQ(g.divisor(), 1u);
    EXPECT_EQ(g.status().switches, 2u);
}

// Heavy again right after going back up: the switch down waits for the dwell since the last one.
TEST(CadenceGovernor, ASwitchRightAfterAnotherWaitsForTheDwell) {
    CadenceGovernor g;
    const nanoseconds step = 10 * kOneMs;
    int down_again = -1;
    for (int i = 0; i < 400; ++i) {
        const nanoseconds cost = i < 64 ? 20 * kOneMs : i <= 221 ? 12 * kOneMs : 20 * kOneMs;
        const bool changed = g.update(at(i * step), cost, k60, k60);
        if (i == 221) {
            ASSERT_TRUE(changed && g.divisor() == 1u);  // as in HeadroomForADwellGoesBackUp
        }
        if (i > 221 && changed) {
            down_again = i;
            break;
        }
        // 7 heavy costs (from frame 222) lift the quantile at index 57 of 64: frame 228.
        if (i >= 228) {
            EXPECT_EQ(g.status().code, CadenceReason::dwell) << i;
        }
    }
    EXPECT_EQ(down_again, 321);  // t = 2.21 s + 1 s
    EXPECT_EQ(g.divisor(), 2u);
    EXPECT_EQ(g.status().code, CadenceReason::overrun);
}

// Between the two thresholds (13.33 < cost <= 15.83 ms at 60 Hz) the cadence stays where it is.
TEST(CadenceGovernor, HysteresisBetweenFitAndHeadroom) {
    CadenceGovernor fresh;
    for (int i = 0; i < 500; ++i) fresh.update(at(i * k60), 15 * kOneMs, k60, k60);
    EXPECT_EQ(fresh.divisor(), 1u);
    CadenceGovernor slow;
    for (int i = 0; i < 64; ++i) slow.update(at(i * k60), 20 * kOneMs, k60, k60);
    ASSERT_EQ(slow.divisor(), 2u);
    for (int i = 64; i < 1000; ++i) slow.update(at(i * k60), 15 * kOneMs, k60, k60);  // 16 s
    EXPECT_EQ(slow.divisor(), 2u);
    EXPECT_EQ(slow.status().switches, 1u);
}

TEST(CadenceGovernor, ARefreshChangeChoosesAfreshAtOnce) {
    CadenceGovernor g;
    for (int i = 0; i < 64; ++i) g.update(at(i * k60), 10 * kOneMs, k60, k60);
    ASSERT_EQ(g.divisor(), 1u);
    // The display turns out to be 144 Hz with a 60 Hz target: 10 ms fits 3 x 6.944 x 0.95 = 19.8.
    EXPECT_TRUE(g.update(at(64 * k60), 10 * kOneMs, k144, k60));
    EXPECT_EQ(g.divisor(), 3u);
    EXPECT_EQ(g.status().code, CadenceReason::rebased);
    EXPECT_EQ(g.status().base, k144);
    // 144 Hz with a 144 Hz target: 10 ms needs 2 x 6.944 x 0.95 = 13.2: 72 Hz.
    EXPECT_TRUE(g.update(at(65 * k60), 10 * kOneMs, k144, k144));
    EXPECT_EQ(g.divisor(), 2u);
    EXPECT_NEAR(g.status().hz, 72.0, 1e-4);
}

// A sawtooth workload: the cost ramps from 6 to 22 ms over 10 s and drops back, for a minute; the
// frames come at the cadence in force. It goes to every other refresh as the ramp crosses 15.83 ms
// and back once the light frames fill the window and the headroom has lasted a dwell: two
// switches a cycle, never two within a dwell.
TEST(CadenceGovernor, SawtoothSwitchesAtMostOncePerDwell) {
    for (const std::int64_t dwell_ms : {250, 1000, 2000}) {
        pacer::CadenceConfig c;
        c.dwell = std::chrono::milliseconds(dwell_ms);
        CadenceGovernor g(c);
        nanoseconds t{0};
        std::vector<nanoseconds> switches;
        const nanoseconds cycle = 10s;
        while (t < 60s) {
            const double phase = static_cast<double>((t % cycle).count()) / static_cast<double>(cycle.count());
            const nanoseconds cost{static_cast<std::int64_t>((6.0 + 16.0 * phase) * 1e6)};
            if (g.update(at(t), cost, k60, k60)) switches.push_back(t);
            t += g.divisor() * k60;
        }
        SCOPED_TRACE("dwell " + std::to_string(dwell_ms) + " ms");
        for (std::size_t i = 1; i < switches.size(); ++i)
            EXPECT_GE(switches[i] - switches[i - 1], dwell_ms * kOneMs) << "switch " << i;
        EXPECT_GE(switches.size(), 10u);  // it follows every cycle ...
        EXPECT_LE(switches.size(), 12u);  // ... and no more than down and up in each
    }
}

TEST(CadenceGovernor, BadConfigsAreRefusedWithTheRange) {
    struct Case {
        void (*change)(pacer::CadenceConfig&);
        const char* message;
    };
    const Case cases[] = {
        {[](pacer::CadenceConfig& c) { c.min_hz = 0; }, "governor.min_hz = 0: must be in [1, 1000]"},
        {[](pacer::CadenceConfig& c) { c.min_hz = std::nan(""); }, "governor.min_hz = nan: must be in [1, 1000]"},
        {[](pacer::CadenceConfig& c) { c.dwell = std::chrono::seconds(-1); },
         "governor.dwell = -1000000000 ns: must be in [0, 60 s]"},
        {[](pacer::CadenceConfig& c) { c.quantile = 0.2; }, "governor.quantile = 0.2: must be in [0.5, 1]"},
        {[](pacer::CadenceConfig& c) { c.fit = 1.5; }, "governor.fit = 1.5: must be in (0, 1]"},
        {[](pacer::CadenceConfig& c) { c.headroom = 0.95; }, "governor.headroom = 0.95: must be in (0, fit = 0.95)"},
    };
    for (const Case& k : cases) {
        pacer::CadenceConfig c;
        k.change(c);
        const pacer::Status s = pacer::validate(c);
        ASSERT_FALSE(s.ok()) << k.message;
        EXPECT_EQ(s.message(), k.message);
        EXPECT_THROW(CadenceGovernor{c}, pacer::ConfigError);
    }
    EXPECT_TRUE(pacer::validate(pacer::CadenceConfig{}).ok());
}

// ---------------------------------------------------------------------------------------------

TEST(DisplayDelta, QuantizeRoundsToWholeRefreshes) {
    using pacer::DisplayDelta;
    EXPECT_EQ(DisplayDelta::quantize(16'900'000ns, k60), k60);
    EXPECT_EQ(DisplayDelta::quantize(24'900'000ns, k60), k60);        // 1.494 refreshes
    EXPECT_EQ(DisplayDelta::quantize(25'100'000ns, k60), 2 * k60);    // 1.506
    EXPECT_EQ(DisplayDelta::quantize(3'000'000ns, k60), k60);         // at least one
    EXPECT_EQ(DisplayDelta::quantize(0ns, k60), 0ns);
    EXPECT_EQ(DisplayDelta::quantize(12'345'678ns, 0ns), 12'345'678ns);  // no refresh: as it is
}

TEST(DisplayDelta, SteadyJitterGivesExactRefreshes) {
    pacer::DisplayDelta d;
    // Wakes late by 0 or 0.3 ms in turn: intervals refresh +- 0.3 ms, inside the dead band.
    for (int i = 0; i < 1000; ++i) {
        const nanoseconds interval = k60 + (i % 2 == 0 ? 300us : -300us);
        ASSERT_EQ(d.next(interval, pacer::DisplayDelta::quantize(interval, k60), k60 / 2), k60) << i;
    }
    EXPECT_EQ(d.debt(), 0ns);
}

// Wall time and the deltas' sum never part by more than half a refresh, whatever the intervals:
// exponential wake-up noise, lost frames (two refreshes), a refresh change, and a display slower
// than it says (every interval 0.6 refreshes long: each rounds up to one, the debt pulls back).
TEST(DisplayDelta, SumTracksWallTimeOverLongNoisyRuns) {
    std::uint64_t x = 12345;
    auto uniform = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return static_cast<double>(x >> 11) / 9007199254740992.0;
    };
    pacer::DisplayDelta d;
    nanoseconds wall{0}, sum{0}, prev_late{0};
    std::int64_t exact = 0, frames = 0;
    for (int i = 0; i < 1'000'000; ++i) {
        const nanoseconds refresh = i < 400'000 ? k60 : i < 700'000 ? k144 : 16'683'350ns;
        nanoseconds nominal = refresh;
        if (i % 97 == 0) nominal = 2 * refresh;                       // a frame shown a refresh late
        if (i >= 900'000) nominal = refresh * 6 / 10;                 // a drifting schedule
        const nanoseconds late{static_cast<std::int64_t>(-std::log(1.0 - uniform()) * 300'000.0)};
        const nanoseconds interval = nominal + late - prev_late;
        prev_late = late;
        const nanoseconds dt = d.next(interval, pacer::DisplayDelta::quantize(interval, refresh), refresh / 2);
        ASSERT_GE(dt, 0ns);
        wall += interval;
        sum += dt;
        ASSERT_LE(std::chrono::abs(wall - sum), refresh / 2) << "frame " << i;
        ASSERT_EQ(wall - sum, d.debt());
        if (i < 900'000) {
            exact += dt % refresh == 0ns;
            ++frames;
        }
    }
    // Most deltas are whole refreshes: the noise (0.3 ms mean) stays inside the dead band.
    EXPECT_GT(static_cast<double>(exact) / static_cast<double>(frames), 0.9);
}

TEST(DisplayDelta, ScheduledIntervalsPassUnchanged) {
    pacer::DisplayDelta d;
    for (int i = 0; i < 100; ++i) EXPECT_EQ(d.next(k60, k60, k60 / 2), k60);
    // A late wake (interval + 3 ms) then its early successor. The debt of 3 ms is beyond the dead
    // band (bound / 4 = 2'083'333 ns): a quarter of the excess comes back at once.
    const nanoseconds a = d.next(k60 + 3 * kOneMs, k60, k60 / 2);
    EXPECT_EQ(a, k60 + 229'166ns);  // (3'000'000 - 2'083'333) / 4
    const nanoseconds b = d.next(k60 - 3 * kOneMs, k60, k60 / 2);
    EXPECT_EQ(a + b + d.debt(), 2 * k60);
}

// ---------------------------------------------------------------------------------------------

TEST(VrrCap, KeepsThePeriodInsideTheRangeByTheJitter) {
    using pacer::vrr_period;
    // 48-144 Hz panel, 0.2 ms jitter quantile.
    EXPECT_EQ(vrr_period(k144, 48, 144, 200us), k144 + 200us);        // capped below the ceiling
    EXPECT_EQ(vrr_period(1ms, 48, 144, 200us), k144 + 200us);          // 1000 Hz target
    EXPECT_EQ(vrr_period(k60, 48, 144, 200us), k60);                   // inside: unchanged
    EXPECT_EQ(vrr_period(25ms, 48, 144, 200us), 20'833'333ns - 200us); // 40 Hz: above the floor
    EXPECT_EQ(vrr_period(25ms, 0, 144, 200us), 25ms);                  // no floor known
    // A narrow range: [1 / 120 + 1 ms, 1 / 100 - 1 ms] is empty; the ceiling's bound wins.
    EXPECT_EQ(vrr_period(k60, 100, 120, 1ms), 8'333'333ns + 1ms);
    // The jitter decides the cap: 2 ms on a 240 Hz panel is half its period.
    EXPECT_EQ(vrr_period(1ms, 48, 240, 2ms), 4'166'667ns + 2ms);
}

TEST(VrrCap, SlewLimitsEachStep) {
    nanoseconds p = k60;
    int frames = 0;
    while (p != k144) {
        const nanoseconds next = pacer::slew_period(p, k144);
        ASSERT_LE(std::chrono::abs(next - p).count(), std::llround(static_cast<double>(p.count()) * 0.02)) << frames;
        ASSERT_LT(next, p);
        p = next;
        ASSERT_LT(++frames, 100);
    }
    // 16.67 -> 6.94 ms at 2 % per frame: ln(16.67 / 6.94) / -ln(0.98) = 43.3 frames, plus the last.
    EXPECT_GE(frames, 43);
    EXPECT_LE(frames, 45);
    EXPECT_EQ(pacer::slew_period(k60, k60 + 1000ns), k60 + 1000ns);  // a small change at once
}

}  // namespace
