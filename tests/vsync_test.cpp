// Vsync detection and hand-over, against simulated presenters in virtual time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "log_capture.hpp"
#include "pacer/pacer.hpp"
#include "sim_vsync.hpp"

namespace {

using namespace std::chrono_literals;
using pacer_test::VsyncFrame;

auto constant(std::int64_t ns) {
    return [ns](int) { return ns; };
}

// An exact OS: these tests are about vsync decisions; hybrid accuracy is tested elsewhere.
pacer::SimModel quiet() { return {.granularity = 0ns, .jitter_mean = 0ns, .relax_time = 100ns}; }

// The pacer at 60 Hz in `mode` on an exact OS, beside a display at refresh_hz (pacer_test::SimPresenter).
pacer_test::VsyncHost host(double refresh_hz, pacer::WaitMode mode = pacer::WaitMode::automatic) {
    return {quiet(), {.target_hz = 60.0, .mode = mode}, refresh_hz};
}

// Index of the first frame from which `pred` holds to the end; -1 if none.
int holds_from(const std::vector<VsyncFrame>& f, const std::function<bool(const VsyncFrame&)>& pred) {
    int from = -1;
    for (int i = 0; i < static_cast<int>(f.size()); ++i) {
        if (pred(f[static_cast<std::size_t>(i)])) {
            if (from < 0) from = i;
        } else {
            from = -1;
        }
    }
    return from;
}

// Every frame's interval in [first, last) within tol_ns of the 60 Hz period; else the first that is not.
::testing::AssertionResult at_sixty_hz(const std::vector<VsyncFrame>& f, std::size_t first, std::size_t last,
                                       double tol_ns) {
    for (std::size_t i = first; i < last; ++i) {
        const double interval = static_cast<double>(f[i].t.interval.count());
        if (std::fabs(interval - 16'666'667.0) > tol_ns)
            return ::testing::AssertionFailure() << "frame " << i << ": interval " << interval << " ns, more than "
                                                 << tol_ns << " ns from 16666667";
    }
    return ::testing::AssertionSuccess();
}

// 30 s of 4 ms frames on a 60 Hz display whose swap stops waiting at frame 600 (e.g. the
// compositor took over) and waits again from frame 900.
std::vector<VsyncFrame> lost_and_back() {
    auto h = host(60.0);
    return h.run(1800, constant(4'000'000), [&](int i) {
        if (i == 600) h.pr.honours = false;
        if (i == 900) h.pr.honours = true;
    });
}

pacer::PresentInfo present(std::int64_t begin_ns, std::int64_t end_ns, int interval, double hz, bool ok) {
    return {pacer::clock::from_ns(begin_ns), pacer::clock::from_ns(end_ns), interval, hz, ok};
}

bool vsync_paced(const VsyncFrame& f) { return f.vs.in_use && f.t.source == pacer::PacingSource::vsync; }
bool hybrid_paced(const VsyncFrame& f) {
    return !f.vs.in_use && f.vs.swap_interval == 0 && f.t.source == pacer::PacingSource::hybrid;
}

TEST(Vsync, CompatibleSwapIntervals) {
    EXPECT_EQ(pacer::compatible_swap_interval(60, 60), 1);
    EXPECT_EQ(pacer::compatible_swap_interval(59.94, 60), 1);
    EXPECT_EQ(pacer::compatible_swap_interval(120, 60), 2);
    EXPECT_EQ(pacer::compatible_swap_interval(240, 60), 4);
    EXPECT_EQ(pacer::compatible_swap_interval(144, 60), 0);  // 72 Hz at interval 2
    EXPECT_EQ(pacer::compatible_swap_interval(60, 144), 0);
    EXPECT_EQ(pacer::compatible_swap_interval(0, 60), 0);
    EXPECT_EQ(pacer::compatible_swap_interval(std::nan(""), 60), 0);
    EXPECT_EQ(pacer::compatible_swap_interval(5000, 60), 0);  // absurd refresh
}

TEST(Vsync, DetectorNeedsSixteenLockedToTrustAndFourUnlockedToDrop) {
    pacer::VsyncDetector d;
    const std::int64_t t = 16'666'667;
    std::int64_t now = 0;
    d.add(present(now, now, 1, 60, true));
    for (int i = 0; i < 15; ++i) {
        now += t;
        EXPECT_TRUE(d.add(present(now - 100'000, now, 1, 60, true)));
    }
    EXPECT_FALSE(d.verified());
    now += t;
    d.add(present(now - 100'000, now, 1, 60, true));
    EXPECT_TRUE(d.verified());
    for (int i = 0; i < 3; ++i) {
        now += 5'000'000;  // unlocked
        EXPECT_FALSE(d.add(present(now, now, 1, 60, true)));
    }
    EXPECT_TRUE(d.verified());  // three odd presents do not flip it
    now += 5'000'000;
    d.add(present(now, now, 1, 60, true));
    EXPECT_FALSE(d.verified());
}

TEST(Vsync, AHitchIsStillLockedButCountsAsMissed) {
    pacer::VsyncDetector d;
    const std::int64_t t = 16'666'667;
    d.add(present(0, 0, 1, 60, true));
    EXPECT_TRUE(d.add(present(0, 3 * t, 1, 60, true)));  // shown two vblanks late
    EXPECT_DOUBLE_EQ(d.missed_share(), 1.0);
    EXPECT_TRUE(d.add(present(0, 4 * t, 1, 60, true)));
    EXPECT_DOUBLE_EQ(d.missed_share(), 0.5);
    // With interval 2 on 120 Hz, one vblank is too early: not locked.
    pacer::VsyncDetector e;
    e.add(present(0, 0, 2, 120, true));
    EXPECT_FALSE(e.add(present(0, 8'333'333, 2, 120, true)));
}

// The controller alone: pure logic on the presents and times it is given, no pacer, no clock.
TEST(VsyncController, DecidesFromPresentsAlone) {
    using pacer::VsyncReason;
    pacer::VsyncController c;
    pacer::clock::time_point t{};
    c.configure(pacer::WaitMode::automatic, 60.0, t);
    EXPECT_EQ(c.status().code, VsyncReason::auto_waiting);
    EXPECT_EQ(c.desired_swap_interval(), 0);
    EXPECT_FALSE(c.on_frame());

    // Presents locked to a 60 Hz display at the interval it asks for.
    const auto refresh = std::chrono::nanoseconds(16'666'667);
    int presents = 0;
    while (c.status().code != VsyncReason::auto_verified && presents < 100) {
        t += refresh;
        c.on_present({t - 100us, t, c.desired_swap_interval(), 60.0, true});
        ++presents;
    }
    EXPECT_EQ(c.status().code, VsyncReason::auto_verified);
    EXPECT_LE(presents, 1 + 2 + pacer::VsyncDetector::kTrustAfter + 1);  // first, settle, trust
    EXPECT_TRUE(c.status().in_use);
    EXPECT_TRUE(c.on_frame());
    EXPECT_TRUE(c.last_present_locked());

    // The host stops reporting presents: after two frames its swap no longer paces.
    EXPECT_TRUE(c.on_frame());
    EXPECT_FALSE(c.on_frame());

    // A driver that refuses the interval: fallback, and a re-probe only 10 s later.
    pacer::VsyncController r;
    r.configure(pacer::WaitMode::automatic, 60.0, t);
    for (int i = 0; i < 10; ++i) {
        t += refresh;
        r.on_present({t, t, -1, 60.0, true});
    }
    EXPECT_EQ(r.status().code, VsyncReason::auto_refused);
    EXPECT_EQ(r.desired_swap_interval(), 0);
    r.on_present({t + 9s, t + 9s, 0, 60.0, true});
    EXPECT_EQ(r.status().code, VsyncReason::auto_refused);
    r.on_present({t + 10s, t + 10s, 0, 60.0, true});
    EXPECT_EQ(r.status().code, VsyncReason::auto_probing);

    // Plain modes never ask for vsync.
    pacer::VsyncController h;
    h.configure(pacer::WaitMode::hybrid, 60.0, t);
    h.on_present({t, t + refresh, 1, 60.0, true});
    EXPECT_EQ(h.status().code, VsyncReason::off);
    EXPECT_FALSE(h.on_frame());
}

TEST(Vsync, HonestSixtyHertzIsVerifiedAndPacesTheFrames) {
    auto h = host(60.0);
    const auto f = h.run(300, constant(4'000'000));
    const int from = holds_from(f, vsync_paced);
    ASSERT_GE(from, 0) << f.back().vs.reason;
    EXPECT_LE(from, 30);  // 1 present to learn the display, 2 to settle, 16 to trust
    EXPECT_EQ(h.fp.desired_swap_interval(), 1);
    EXPECT_TRUE(f.back().vs.detected);
    EXPECT_NE(std::strstr(f.back().vs.reason, "verified"), nullptr);
    ASSERT_TRUE(at_sixty_hz(f, static_cast<std::size_t>(from) + 1, f.size(), 2.0));
    for (std::size_t i = static_cast<std::size_t>(from) + 1; i < f.size(); ++i)
        ASSERT_EQ(f[i].t.slept + f[i].t.spun, 0ns) << "the swap paces: the pacer must not wait";
}

// A compositor that repaints at its own rate (weston's X11 backend: every ~19.7 ms) while the mode
// reports 60 Hz: the swap blocks, steadily, at a rate the refresh does not explain. Auto mode must
// fall back and name that, with the rate it measured, not claim that the swap does not wait.
TEST(Vsync, ASwapPacedAtAnotherRateIsMeasuredAndNamed) {
    auto h = host(1e9 / 19'700'000.0);  // the real cadence, 50.76 Hz
    h.pr.reported_hz = 60.0;
    const auto f = h.run(400, constant(1'000'000));
    const int from = holds_from(f, hybrid_paced);
    ASSERT_GE(from, 0) << f.back().vs.reason;
    EXPECT_LE(from, 12);
    EXPECT_EQ(f.back().vs.code, pacer::VsyncReason::auto_other_rate) << f.back().vs.reason;
    EXPECT_NEAR(f.back().vs.swap_hz, 50.76, 0.01);
    EXPECT_FALSE(f.back().vs.detected);
    // After the fallback the pacer holds the 60 Hz target.
    EXPECT_NEAR(static_cast<double>(f.back().t.interval.count()), 16'666'667.0, 2.0);
}

// A compositor whose repaints keep no pace (a loaded machine stalling weston's software repaint:
// gaps of 2-60 ms): the swap still waits, for most of each frame, but its presents show no
// cadence to judge. Auto mode falls back naming that (auto_irregular, with the evidence logged),
// never "the swap does not wait for vblank", which would send a user looking for a driver
// setting that is not there.
TEST(Vsync, ASwapThatWaitsWithoutAPaceIsNamedIrregularNotNonBlocking) {
    auto h = host(60.0);
    std::uint64_t x = 7;
    for (int i = 0; i < 256; ++i) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        h.pr.repaint_gaps.push_back(2'000'000 + static_cast<std::int64_t>((x >> 33) % 58'000'000));
    }
    pacer_test::LogCapture log(pacer::LogLevel::info);
    const auto f = h.run(300, constant(1'000'000));
    const int from = holds_from(f, hybrid_paced);
    ASSERT_GE(from, 0) << f.back().vs.reason;
    EXPECT_EQ(f.back().vs.code, pacer::VsyncReason::auto_irregular) << f.back().vs.reason;
    EXPECT_EQ(f.back().vs.swap_hz, 0.0);  // no cadence measured
    EXPECT_FALSE(f.back().vs.detected);
    EXPECT_EQ(log.count("too irregular"), 1) << log.text();
    EXPECT_EQ(log.count("median swap took"), 1) << "the fall-back logs its evidence:\n" << log.text();
}

// A swap that returns at once has no cadence of its own, however regular the loop around it (the
// probe's floor makes it very regular): swap_hz stays 0.
TEST(VsyncDetector, ALoopRegularAroundANonBlockingSwapHasNoCadence) {
    pacer::VsyncDetector d;
    for (std::int64_t i = 0; i < 20; ++i)
        d.add(present(i * 8'333'333 - 300'000, i * 8'333'333, 1, 60, true));
    EXPECT_EQ(d.cadence().count(), 0);
    // The same intervals with the swap blocking most of each: a cadence of 8.33 ms.
    pacer::VsyncDetector b;
    for (std::int64_t i = 0; i < 20; ++i)
        b.add(present(i * 8'333'333 - 6'000'000, i * 8'333'333, 1, 60, true));
    EXPECT_EQ(b.cadence().count(), 8'333'333);
    // SDL's SDL_Delay-based "vsync" (15.4 and 16.4 ms alternating, the swap sleeping most of
    // each) waits too, at its own mean cadence of 15.9 ms.
    pacer::VsyncDetector s;
    std::int64_t t = 0;
    for (int i = 0; i < 20; ++i) {
        t += i % 2 ? 15'400'000 : 16'400'000;
        s.add(present(t - 12'000'000, t, 1, 60, true));
    }
    EXPECT_EQ(s.cadence().count(), 15'900'000);
    // A compositor's wandering repaint (18-22 ms) with one 80 ms hitch: the hitch is left out.
    pacer::VsyncDetector r;
    t = 0;
    const std::int64_t iv[] = {18, 22, 20, 19, 21, 80, 20, 18, 22, 20};
    for (std::int64_t ms : iv) {
        t += ms * 1'000'000;
        r.add(present(t - 15'000'000, t, 1, 60, true));
    }
    EXPECT_TRUE(r.swap_waits());
    // The first present has no interval before it: (22+20+19+21+20+18+22+20) / 8 = 20.25 ms.
    EXPECT_EQ(r.cadence().count(), 20'250'000);
    // Presents with no steady pace at all (5, 10, 20, 40 ms...): no cadence.
    pacer::VsyncDetector w;
    t = 0;
    for (int i = 0; i < 16; ++i) {
        const std::int64_t ms = std::int64_t{5} << (i % 4);
        t += ms * 1'000'000;
        w.add(present(t - ms * 900'000, t, 1, 60, true));
    }
    EXPECT_TRUE(w.swap_waits());
    EXPECT_EQ(w.cadence().count(), 0);
}


TEST(Vsync, DriverIgnoringTheIntervalFallsBackToHybridAtTheTargetRate) {
    auto h = host(60.0);
    h.pr.honours = false;
    pacer_test::LogCapture log(pacer::LogLevel::info);
    const auto f = h.run(500, constant(4'000'000));  // 8.3 s: before the re-probe
    // The fall-back says what it saw: the swap returned at once (its median call well under a
    // quarter of the time between presents).
    bool evidence = false;
    for (const std::string& line : log.lines)
        if (line.find("does not wait for vblank") != std::string::npos &&
            line.find("presents the median swap took 0.") != std::string::npos)
            evidence = true;
    EXPECT_TRUE(evidence) << (log.lines.empty() ? std::string("no log") : log.lines.back());
    const int from = holds_from(f, hybrid_paced);
    ASSERT_GE(from, 0);
    // 48 presents for a FIFO of up to 3 to fill at 1/16 fast, then 4 unlocked ones.
    EXPECT_LE(from, 56) << "the fill time and 4 unlocked presents after the probe starts";
    EXPECT_EQ(h.fp.desired_swap_interval(), 0);
    EXPECT_FALSE(f.back().vs.detected);
    EXPECT_NE(std::strstr(f.back().vs.reason, "does not wait for vblank"), nullptr) << f.back().vs.reason;
    // The probe never let the loop run more than 1/16 faster than the target rate.
    for (const VsyncFrame& x : f)
        if (x.t.interval.count() > 0) {
            ASSERT_GE(x.t.interval, 15'625'000ns - 1ns);
        }
    // After the fallback the target rate holds.
    ASSERT_TRUE(at_sixty_hz(f, static_cast<std::size_t>(from) + 2, f.size(), 5'000.0));
}

TEST(Vsync, FailedProbesAreRetriedWithBackoff) {
    auto h = host(60.0);
    h.pr.honours = false;
    std::vector<double> probe_starts, probe_ends;
    bool probing = false;
    const std::int64_t t0 = pacer::clock::to_ns(h.os.now());
    h.run(60 * 80, constant(2'000'000), [&](int) {
        const bool p = h.fp.desired_swap_interval() > 0;
        const double now = static_cast<double>(pacer::clock::to_ns(h.os.now()) - t0) / 1e9;
        if (p && !probing) probe_starts.push_back(now);
        if (!p && probing) probe_ends.push_back(now);
        probing = p;
    });
    // Probes at ~0 s, then 10, 20 and 40 s after each failure. A probe of a swap that does not
    // block lasts about a second (the time a FIFO of 3 would need to fill, then 4 presents).
    ASSERT_EQ(probe_starts.size(), 4u);
    ASSERT_GE(probe_ends.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_LT(probe_ends[i] - probe_starts[i], 1.1) << i;
    EXPECT_NEAR(probe_starts[1] - probe_ends[0], 10.0, 0.1);
    EXPECT_NEAR(probe_starts[2] - probe_ends[1], 20.0, 0.1);
    EXPECT_NEAR(probe_starts[3] - probe_ends[2], 40.0, 0.1);
}

TEST(Vsync, FastDisplayWithoutAWholeDivisorIsNeverUsed) {
    auto h = host(144.0);
    const auto f = h.run(300, constant(4'000'000));
    for (const VsyncFrame& x : f) ASSERT_EQ(x.vs.swap_interval, 0);
    EXPECT_NE(std::strstr(f.back().vs.reason, "not a whole multiple"), nullptr) << f.back().vs.reason;
    EXPECT_EQ(holds_from(f, hybrid_paced), 0);
    ASSERT_TRUE(at_sixty_hz(f, 2, f.size(), 5'000.0));
}

TEST(Vsync, OneHundredTwentyHertzServesSixtyWithIntervalTwo) {
    auto h = host(120.0);
    const auto f = h.run(300, constant(4'000'000));
    const int from = holds_from(f, vsync_paced);
    ASSERT_GE(from, 0) << f.back().vs.reason;
    EXPECT_LE(from, 30);
    EXPECT_EQ(h.fp.desired_swap_interval(), 2);
    ASSERT_TRUE(at_sixty_hz(f, static_cast<std::size_t>(from) + 1, f.size(), 2.0));
}

TEST(Vsync, LostMidwayFallsBackAtOnceAndIsRetakenWhenItComesBack) {
    const auto f = lost_and_back();
    EXPECT_TRUE(vsync_paced(f[599]));
    int lost_at = -1;
    for (int i = 600; i < 700 && lost_at < 0; ++i)
        if (hybrid_paced(f[static_cast<std::size_t>(i)])) lost_at = i;
    ASSERT_GE(lost_at, 0);
    // 4 unlocked presents and none of the last 12 blocked and came back on the grid (a machine's
    // stall makes a FIFO return at once for a few presents: pacer/vsync.hpp), then the next frame.
    EXPECT_LE(lost_at, 613);
    EXPECT_NE(std::strstr(f[static_cast<std::size_t>(lost_at)].vs.reason, "lost"), nullptr);
    // While lost, hybrid holds the rate.
    ASSERT_TRUE(at_sixty_hz(f, static_cast<std::size_t>(lost_at) + 2, 900, 5'000.0));
    // Re-probed 10 s (600 frames) after the loss; vsync is back by then.
    const int back = holds_from(f, vsync_paced);
    ASSERT_GE(back, 0);
    EXPECT_GT(back, 1150);
    EXPECT_LT(back, 1260);
}

TEST(Vsync, EachDecisionIsLoggedOnceByItsReason) {
    pacer_test::LogCapture log(pacer::LogLevel::info);
    const auto f = lost_and_back();
    // Before the first present the pacer waits; then the frames saw probing, verified, lost,
    // probing, verified.
    std::vector<pacer::VsyncReason> seen{pacer::VsyncReason::auto_waiting};
    for (const VsyncFrame& x : f)
        if (seen.back() != x.vs.code) seen.push_back(x.vs.code);
    ASSERT_GE(seen.size(), 6u);
    // One line per change, in order, with the reason's words; nothing logged twice in a row.
    std::vector<std::string> lines;
    for (const std::string& l : log.lines)
        if (l.rfind("info: auto:", 0) == 0) lines.push_back(l);
    ASSERT_EQ(lines.size(), seen.size()) << log.text();
    for (std::size_t i = 0; i < seen.size(); ++i) {
        EXPECT_EQ(lines[i].rfind(std::string("info: ") + pacer::to_string(seen[i]), 0), 0u) << lines[i];
    }
    // Reasons are compared by value, and each has its own words.
    for (const auto& a : pacer::kVsyncReasonNames) {
        for (const auto& b : pacer::kVsyncReasonNames) {
            if (a.value != b.value) {
                EXPECT_STRNE(a.name, b.name);
            }
        }
    }
}

TEST(Vsync, OccasionalLongFramesDoNotFlipTheDecision) {
    auto h = host(60.0);
    const auto f = h.run(1200, [](int i) -> std::int64_t { return i % 50 == 49 ? 25'000'000 : 4'000'000; });
    const int from = holds_from(f, [](const VsyncFrame& x) { return x.vs.in_use; });
    ASSERT_GE(from, 0);
    EXPECT_LE(from, 30);
    int long_frames = 0;
    for (const VsyncFrame& x : f) long_frames += x.t.interval > 30ms;
    EXPECT_GE(long_frames, 20);  // the hitches did happen, and were shown at the next vblank
}

TEST(Vsync, ExplicitVsyncModeHandsPacingToTheSwapEvenIfItDoesNotBlock) {
    auto h = host(60.0, pacer::WaitMode::vsync);
    h.pr.honours = false;
    const auto f = h.run(200, constant(1'000'000));
    EXPECT_TRUE(f.back().vs.in_use);
    EXPECT_FALSE(f.back().vs.detected);
    EXPECT_NE(std::strstr(f.back().vs.reason, "do not show vsync"), nullptr) << f.back().vs.reason;
    // The floor: never more than 1/16 faster than the target rate.
    for (std::size_t i = 1; i < f.size(); ++i) ASSERT_GE(f[i].t.interval, 15'625'000ns - 1ns);
}

TEST(Vsync, BadDisplayReportsFallBackToHybridWithAReason) {
    for (double hz : {0.0, std::nan(""), -60.0, 5000.0}) {
        auto h = host(60.0);
        h.pr.reported_hz = hz;
        const auto f = h.run(120, constant(2'000'000));
        EXPECT_EQ(h.fp.desired_swap_interval(), 0) << hz;
        EXPECT_NE(std::strstr(f.back().vs.reason, "refresh rate unknown"), nullptr) << hz << f.back().vs.reason;
        EXPECT_TRUE(hybrid_paced(f.back()));
    }
}

TEST(Vsync, RefusedIntervalAndFailingSwapsNeverStall) {
    {
        auto h = host(60.0);
        h.pr.accepts = false;
        const auto f = h.run(200, constant(2'000'000));
        EXPECT_EQ(h.fp.desired_swap_interval(), 0);
        EXPECT_NE(std::strstr(f.back().vs.reason, "refused"), nullptr) << f.back().vs.reason;
        EXPECT_NEAR(static_cast<double>(f.back().t.interval.count()), 16'666'667.0, 5'000.0);
    }
    {
        auto h = host(60.0);
        h.pr.fails = true;
        const auto f = h.run(200, constant(2'000'000));
        EXPECT_FALSE(f.back().vs.in_use);
        EXPECT_NEAR(static_cast<double>(f.back().t.interval.count()), 16'666'667.0, 5'000.0);
    }
}

TEST(Vsync, WithoutPresentReportsTheWaitPacesInEveryMode) {
    for (auto mode : {pacer::WaitMode::vsync, pacer::WaitMode::automatic}) {
        pacer::SimulatedOs os(quiet());
        pacer::FramePacer fp({.target_hz = 100.0, .mode = mode}, &os);
        fp.wait();
        pacer::FrameTiming t;
        for (int i = 0; i < 20; ++i) {
            os.advance(1ms);
            t = fp.wait();
        }
        EXPECT_EQ(t.source, pacer::PacingSource::hybrid) << pacer::to_string(mode);
        EXPECT_NEAR(static_cast<double>(t.interval.count()), 10'000'000.0, 1'000.0) << pacer::to_string(mode);
    }
}

TEST(Vsync, PlainModesNeverAskForVsyncButStillReportWhatTheySee) {
    auto h = host(60.0, pacer::WaitMode::hybrid);  // the default mode
    const auto f = h.run(100, constant(2'000'000));
    for (const VsyncFrame& x : f) ASSERT_EQ(x.vs.swap_interval, 0);
    EXPECT_FALSE(f.back().vs.in_use);
    EXPECT_STREQ(f.back().vs.reason, "vsync off: the pacer's wait paces the frames");
}

}  // namespace
