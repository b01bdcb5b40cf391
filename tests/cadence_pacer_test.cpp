// FramePacer with the cadence governor and the display-time delta, in virtual time (SimulatedOs,
// SimulatedDisplay): what a host loop sees in FrameTiming.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "log_capture.hpp"
#include "pacer/pacer.hpp"
#include "sim_time.hpp"

using namespace std::chrono_literals;

namespace {

using pacer_test::kMs;
using pacer_test::kS;
using pacer_test::LogSilenced;
using pacer_test::noiseless;
using pacer_test::ns_of;

// A loaded machine's OS sleep: a 1 ms scheduler and exponential wake-up noise.
pacer::SimModel noisy() {
    pacer::SimModel m;
    m.granularity = 1ms;
    m.jitter_mean = 300us;
    return m;
}

pacer::PacerConfig automatic(double hz, pacer::WaitMode mode = pacer::WaitMode::hybrid) {
    pacer::PacerConfig c;
    c.target_hz = hz;
    c.mode = mode;
    c.cadence = pacer::CadenceMode::automatic;
    return c;
}

// 20 ms of work against a 60 Hz target: without the governor the frames mix 16.7 and 33.3 ms;
// with it, from the first judged frame on, every frame is 33.3 ms: a steady 30 fps.
TEST(FramePacerCadence, OverrunningWorkGetsASteadyHalfRate) {
    LogSilenced quiet;
    pacer::SimulatedOs os(noiseless(), 1, pacer::clock::from_ns(kS));
    pacer::FramePacer fp(automatic(60), &os);
    int switched = -1;
    std::uint32_t prev = 1;
    for (int i = 0; i < 600; ++i) {
        const pacer::FrameTiming t = fp.wait();
        if (t.cadence != prev && switched < 0) switched = i;
        prev = t.cadence;
        if (i > pacer::CadenceGovernor::kMinFrames + 1) {
            ASSERT_EQ(t.cadence, 2u) << i;
            ASSERT_NEAR(t.cadence_hz, 30.0, 1e-9) << i;
            ASSERT_NEAR(static_cast<double>(t.interval.count()), 1e9 / 30, 200.0) << i;  // spin steps of 100 ns
            ASSERT_FALSE(t.missed) << i;
        }
        // The switch re-anchors like a rate change: no burst of short frames.
        if (i > 1) {
            ASSERT_GE(t.interval.count(), 20 * kMs) << i;
        }
        os.advance(std::chrono::nanoseconds(20 * kMs));
    }
    // The cost of frames 0..15 is seen at waits 1..16: the 16th cost decides at wait 16.
    EXPECT_EQ(switched, pacer::CadenceGovernor::kMinFrames);
    EXPECT_EQ(fp.status().cadence.divisor, 2u);
    EXPECT_EQ(fp.status().cadence.code, pacer::CadenceReason::steady);
    EXPECT_EQ(fp.status().period.count(), 33'333'333);

    // The same loop with CadenceMode::fixed: the target rate, whatever the work.
    pacer::SimulatedOs os2(noiseless(), 1, pacer::clock::from_ns(kS));
    pacer::FramePacer fixed({.target_hz = 60}, &os2);
    int short_frames = 0;
    for (int i = 0; i < 600; ++i) {
        const pacer::FrameTiming t = fixed.wait();
        ASSERT_EQ(t.cadence, 1u);
        ASSERT_EQ(t.cadence_hz, 60.0);
        ASSERT_EQ(t.cadence_reason, pacer::CadenceReason::fixed);
        short_frames += i > 1 && t.interval.count() < 25 * kMs;
        os2.advance(std::chrono::nanoseconds(20 * kMs));
    }
    EXPECT_GT(short_frames, 100);  // what the governor is for
    EXPECT_EQ(fixed.status().cadence.code, pacer::CadenceReason::fixed);
}

TEST(FramePacerCadence, LightWorkKeepsTheTargetAndAHeavierSceneComesBackUp) {
    pacer_test::LogCapture log(pacer::LogLevel::info);
    pacer::SimulatedOs os(noiseless(), 1, pacer::clock::from_ns(kS));
    pacer::FramePacer fp(automatic(60), &os);
    std::vector<std::pair<std::int64_t, std::uint32_t>> switches;
    std::uint32_t prev = 1;
    for (int i = 0; i < 1500; ++i) {
        const pacer::FrameTiming t = fp.wait();
        if (t.cadence != prev) switches.emplace_back(ns_of(t.wake), t.cadence);
        prev = t.cadence;
        // 8 ms, then 22 ms from frame 300 to 700, then 8 ms again.
        os.advance(std::chrono::nanoseconds(i >= 300 && i < 700 ? 22 * kMs : 8 * kMs));
    }
    ASSERT_EQ(switches.size(), 2u);
    EXPECT_EQ(switches[0].second, 2u);
    EXPECT_EQ(switches[1].second, 1u);
    // Back up only after the window holds the light frames and a whole dwell (1 s) has passed.
    EXPECT_GE(switches[1].first - switches[0].first, kS);
    EXPECT_EQ(fp.status().cadence.code, pacer::CadenceReason::fits);
    EXPECT_EQ(fp.status().cadence.switches, 2u);
    // Logged once per switch, with the reason.
    EXPECT_EQ(log.count("cadence: every"), 2) << log.text();
    EXPECT_EQ(log.count("cadence: every 2 target periods, 30 Hz"), 1) << log.text();
    EXPECT_EQ(log.count("the work overran its budget"), 1) << log.text();
}

// A vsync'd swap: the governor asks the swap for every N-th vblank (swap interval N), and the
// display shows each frame for exactly N refreshes. 60 Hz with 20 ms of work: 30 fps; 144 Hz
// with 10 ms: 72 (10 <= 0.95 x 13.9); with 15 ms: 48 (15 > 13.2, <= 0.95 x 20.8).
TEST(FramePacerCadence, VsyncSwapGetsIntervalNAndSteadyScanouts) {
    LogSilenced quiet;
    struct Case {
        double hz;
        std::int64_t work;
        int divisor;
    };
    for (const Case c : {Case{60, 20 * kMs, 2}, Case{144, 10 * kMs, 2}, Case{144, 15 * kMs, 3}}) {
        SCOPED_TRACE(std::to_string(c.hz) + " Hz, divisor " + std::to_string(c.divisor));
        pacer::SimulatedOs os(noiseless(), 1, pacer::clock::from_ns(kS));
        pacer::DisplayConfig dc;
        dc.refresh_hz = c.hz;
        pacer::SimulatedDisplay d(os, dc);
        pacer::FramePacer fp(automatic(c.hz, pacer::WaitMode::vsync), &os);
        std::vector<std::int64_t> scanouts;
        for (int i = 0; i < 600; ++i) {
            const pacer::FrameTiming t = fp.wait();
            os.advance(std::chrono::nanoseconds(c.work));
            fp.before_present();
            const pacer::PresentResult r = d.present(fp.desired_swap_interval());
            for (int k = 0; k < r.reports; ++k) fp.report_present(r.info());
            if (i >= 300) {
                scanouts.push_back(pacer::clock::to_ns(r.scanout));
                ASSERT_EQ(t.cadence, static_cast<std::uint32_t>(c.divisor));
                ASSERT_NEAR(t.cadence_hz, c.hz / c.divisor, 1e-3);
            }
        }
        EXPECT_EQ(fp.desired_swap_interval(), c.divisor);
        for (std::size_t i = 1; i < scanouts.size(); ++i)
            ASSERT_NEAR(static_cast<double>(scanouts[i] - scanouts[i - 1]), c.divisor * 1e9 / c.hz, 1.0) << i;
    }
}

// The acceptance on a sawtooth workload through the pacer: the work ramps from 6 to 22 ms
// over 10 s and drops back, for two minutes, with OS wake-up noise. At most one switch per dwell
// window, and while the cadence is 2 no frame comes a refresh early (no 16.7 / 33.3 mix).
TEST(FramePacerCadence, SawtoothSwitchesAtMostOncePerDwellAndHoldsASteadyDivisor) {
    LogSilenced quiet;
    pacer::SimModel m;
    m.granularity = 50us;
    m.jitter_mean = 20us;
    pacer::SimulatedOs os(m, 9, pacer::clock::from_ns(kS));
    pacer::FramePacer fp(automatic(60), &os);
    std::vector<std::int64_t> switches;
    std::uint32_t prev = 1;
    int halves = 0;
    const std::int64_t start = pacer::clock::to_ns(os.now()), cycle = 10 * kS;
    while (pacer::clock::to_ns(os.now()) - start < 120 * kS) {
        const pacer::FrameTiming t = fp.wait();
        if (t.cadence != prev) {
            switches.push_back(ns_of(t.wake));
        } else if (t.cadence == 2) {
            ASSERT_GT(t.interval.count(), 30 * kMs) << "at " << ns_of(t.wake) - start;
            ++halves;
        }
        prev = t.cadence;
        const double phase = static_cast<double>((pacer::clock::to_ns(os.now()) - start) % cycle) / static_cast<double>(cycle);
        os.advance(std::chrono::nanoseconds(static_cast<std::int64_t>((6.0 + 16.0 * phase) * 1e6)));
    }
    ASSERT_GE(switches.size(), 20u);  // down and up in each of the 12 cycles (the last up may not come)
    EXPECT_LE(switches.size(), 24u);
    for (std::size_t i = 1; i < switches.size(); ++i) EXPECT_GE(switches[i] - switches[i - 1], kS) << i;
    EXPECT_GT(halves, 1000);
}

// |sum of display_dt - wall time| stays within one refresh period at every frame of long runs
// with OS wake-up noise: no display known (the schedule), and a display that reports its
// displayed times, loses a fifth of the reports and changes its refresh from 60 to 144 Hz.
TEST(FramePacerDisplayDelta, SumTracksWallTimeWithNoiseLostReportsAndARefreshChange) {
    LogSilenced quiet;
    // Hybrid waits hand the end of their spin to the caller (FramePacer::wait(), inline): that
    // time must reach the deltas too (without it the sum fell 20 us behind every frame).
    for (const pacer::WaitMode mode : {pacer::WaitMode::sleep, pacer::WaitMode::hybrid})
    for (const bool display : {false, true}) {
        SCOPED_TRACE(display ? "display" : "no display");
        SCOPED_TRACE(pacer::to_string(mode));
        pacer::SimulatedOs os(noisy(), 7, pacer::clock::from_ns(kS));
        pacer::DisplayConfig dc;
        dc.refresh_hz = 60;
        dc.vsync = false;  // the pacer's sleep paces; presents tear and report when shown
        dc.drop_probability = 0.2;
        dc.refresh_changes = {{std::chrono::nanoseconds(120 * kS), 144}};
        pacer::SimulatedDisplay d(os, dc);
        pacer::FramePacer fp({.target_hz = 60, .mode = mode}, &os);
        std::int64_t sum = 0, first = 0, worst = 0, exact_dt = 0, frames = 0;
        std::int64_t prev_refresh = d.refresh_period_at(os.now()).count();
        for (int i = 0; i < 60 * 240; ++i) {  // 4 minutes
            const pacer::FrameTiming t = fp.wait();
            if (i == 0) first = ns_of(t.wake);
            sum += t.display_dt.count();
            const std::int64_t wall = ns_of(t.wake) - first;
            const std::int64_t refresh = d.refresh_period_at(t.wake).count();
            ASSERT_LE(std::llabs(wall - sum), std::max(refresh, prev_refresh)) << "frame " << i;
            worst = std::max<std::int64_t>(worst, std::llabs(wall - sum));
            prev_refresh = refresh;
            if (i > 100 && i < 60 * 120) {  // 60 Hz: whole refreshes, or the 60 Hz schedule
                exact_dt += display ? t.display_dt.count() % 16'666'667 == 0
                                    : std::llabs(t.display_dt.count() - 16'666'667) <= 1;
                ++frames;
            }
            os.advance(std::chrono::nanoseconds(4 * kMs + static_cast<std::int64_t>(os.uniform() * 4e6)));
            if (display) {
                const pacer::PresentResult r = d.present(0);
                for (int k = 0; k < r.reports; ++k) fp.report_present(r.info());
                // A torn present's displayed time is no vblank: the host reports those itself
                // (a vblank event), here the last one before now, when this frame's report came.
                if (r.reports > 0) {
                    const std::int64_t now = pacer::clock::to_ns(os.now());
                    fp.report_vblank(pacer::clock::from_ns(pacer::clock::to_ns(d.vblank_after(pacer::clock::from_ns(now - d.refresh_period_at(pacer::clock::from_ns(now)).count())))));
                }
            }
        }
        EXPECT_GT(worst, 0);  // the noise did reach the debt
        // Nearly every delta is a whole refresh of the known display, or the schedule's period:
        // the wake-up noise stays out (sleep mode wakes 0-2 ms late).
        EXPECT_GT(static_cast<double>(exact_dt) / static_cast<double>(frames), 0.9);
    }
}

// FixedStep fed display_dt at its own rate, snapping to the refresh: one step per frame and the
// same interpolation alpha every frame, where the wake intervals (sleep mode, 1 ms scheduler)
// move alpha by the wake-up noise: the render would jitter.
TEST(FramePacerDisplayDelta, FixedStepGetsOneStepAndASteadyAlphaPerFrame) {
    LogSilenced quiet;
    pacer::SimulatedOs os(noisy(), 3, pacer::clock::from_ns(kS));
    pacer::DisplayConfig dc;
    dc.refresh_hz = 60;
    dc.vsync = false;
    pacer::SimulatedDisplay d(os, dc);
    pacer::FramePacer fp({.target_hz = 60, .mode = pacer::WaitMode::sleep}, &os);
    pacer::FixedStep by_display({.step_hz = 60, .snap_period = fp.status().period});
    pacer::FixedStep by_interval({.step_hz = 60});
    int odd_steps = 0, alpha_moves_display = 0, alpha_moves_interval = 0, frames = 0;
    double prev_a = 0, prev_b = 0;
    std::int64_t given = 0;
    for (int i = 0; i < 6000; ++i) {
        const pacer::FrameTiming t = fp.wait();
        const pacer::FixedStep::Advance a = by_display.advance(t.display_dt);
        const pacer::FixedStep::Advance b = by_interval.advance(t.interval);
        given += t.display_dt.count();
        if (i > 100) {
            odd_steps += a.steps != 1;
            alpha_moves_display += std::fabs(a.alpha - prev_a) > 0.001;
            alpha_moves_interval += std::fabs(b.alpha - prev_b) > 0.001;
            ++frames;
        }
        prev_a = a.alpha;
        prev_b = b.alpha;
        os.advance(std::chrono::nanoseconds(5 * kMs));
        const pacer::PresentResult r = d.present(0);
        for (int k = 0; k < r.reports; ++k) fp.report_present(r.info());
    }
    EXPECT_LE(odd_steps, frames / 100);
    EXPECT_LE(alpha_moves_display, frames / 20) << alpha_moves_interval;
    EXPECT_GE(alpha_moves_interval, frames / 2);
    // Snapping only moves time between frames: simulated + backlog = the deltas given.
    EXPECT_NEAR(static_cast<double>(by_display.total_steps()) * by_display.step().count() + by_display.backlog().count(),
                static_cast<double>(given), 1.0);
}

// On a display the tracker classifies as VRR, the cap keeps the frame period below the ceiling by
// the wake jitter: the pacer's deadlines are never closer than the panel's min period. (Wake
// intervals can be: a frame that overran is caught up at once, by the late policy.)
TEST(FramePacerVrr, CapsBelowTheCeiling) {
    LogSilenced quiet;
    pacer::SimulatedOs os(noisy(), 5, pacer::clock::from_ns(kS));
    pacer::DisplayConfig dc;
    dc.refresh_hz = 144;
    dc.vrr_min_hz = 48;
    pacer::SimulatedDisplay d(os, dc);
    pacer::FramePacer fp({.target_hz = 144, .mode = pacer::WaitMode::hybrid}, &os);
    std::int64_t closest = kS, prev_deadline = 0;
    int capped = 0;
    for (int i = 0; i < 3000; ++i) {
        const pacer::FrameTiming t = fp.wait();
        const std::int64_t deadline = ns_of(t.deadline);
        if (i > 2000 && t.skipped == 0) closest = std::min(closest, deadline - prev_deadline);
        if (i > 2000) capped += t.cadence_reason == pacer::CadenceReason::vrr;
        prev_deadline = deadline;
        // Work of 2-10 ms: frames that overrun a period show late, so the scanouts vary as only a
        // variable-refresh panel lets them (steady frames at the ceiling look like a fixed display).
        os.advance(std::chrono::nanoseconds(2 * kMs + static_cast<std::int64_t>(os.uniform() * 8e6)));
        const pacer::PresentResult r = d.present(1);
        for (int k = 0; k < r.reports; ++k) fp.report_present(r.info());
    }
    ASSERT_EQ(fp.status().display.state, pacer::DisplayState::vrr) << fp.status().display.reason;
    EXPECT_EQ(capped, 999);
    EXPECT_GT(fp.status().period.count(), 6'944'444);  // below the ceiling
    EXPECT_GE(closest, 6'944'444);              // never scheduled faster than the panel
}

// VRR with the governor on: work that cannot hold the target (5-11 ms at 144 Hz) is paced at the
// rate it sustains, evenly, instead of late against the cap: few missed frames, a steady period.
TEST(FramePacerVrr, TheGovernorPacesAtTheRateTheWorkSustains) {
    LogSilenced quiet;
    int missed[2] = {0, 0};
    std::int64_t period[2] = {0, 0};
    for (int governed = 0; governed < 2; ++governed) {
        pacer::SimulatedOs os(noisy(), 5, pacer::clock::from_ns(kS));
        pacer::DisplayConfig dc;
        dc.refresh_hz = 144;
        dc.vrr_min_hz = 48;
        pacer::SimulatedDisplay d(os, dc);
        pacer::PacerConfig pc;
        pc.target_hz = 144;
        pc.cadence = governed ? pacer::CadenceMode::automatic : pacer::CadenceMode::fixed;
        pacer::FramePacer fp(pc, &os);
        for (int i = 0; i < 3000; ++i) {
            const pacer::FrameTiming t = fp.wait();
            if (i > 2000) missed[governed] += t.missed;
            os.advance(std::chrono::nanoseconds(5 * kMs + static_cast<std::int64_t>(os.uniform() * 6e6)));
            const pacer::PresentResult r = d.present(1);
            for (int k = 0; k < r.reports; ++k) fp.report_present(r.info());
        }
        ASSERT_EQ(fp.status().display.state, pacer::DisplayState::vrr) << fp.status().display.reason;
        period[governed] = fp.status().period.count();
    }
    // The cost's 0.9 quantile is 10.4 ms: over the fit of 0.95, about 10.9 ms (92 Hz).
    EXPECT_GT(period[1], 10'400'000);
    EXPECT_LT(period[1], 11'600'000);
    EXPECT_LT(period[0], 7'100'000);  // the cap alone: just under the top rate
    EXPECT_LE(missed[1], 50) << "of 999";
    EXPECT_GE(missed[0], 300) << "of 999";
}

}  // namespace
