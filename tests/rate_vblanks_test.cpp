// The rate planner (pacer/rate.hpp) and the vblanks as the pacer knows them (pacer/vblanks.hpp),
// each on its own: the rate in force and its reason; the vblanks from a fit or the last one seen.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <optional>

#include "pacer/present_classifier.hpp"
#include "pacer/rate.hpp"
#include "pacer/vblanks.hpp"
#include "log_capture.hpp"
#include "sim_time.hpp"

namespace {

using namespace std::chrono_literals;
using pacer::clock;
using pacer::RateReason;

using pacer_test::at;

pacer::RatePlanner planner(double target_hz, pacer::CadenceMode cadence = pacer::CadenceMode::fixed,
                           bool match = false) {
    pacer::RateConfig c;
    c.target_hz = target_hz;
    c.cadence = cadence;
    c.match_display = match;
    pacer::RatePlanner r;
    r.configure(c);
    r.apply();
    return r;
}

TEST(RatePlanner, TheTargetUnlessSomethingElseDecides) {
    pacer::RatePlanner r = planner(144.0);
    EXPECT_EQ(r.hz(), 144.0);
    EXPECT_EQ(r.status().code, RateReason::target);
    EXPECT_EQ(r.status().hz, 144.0);
    EXPECT_FALSE(r.update(at(0s), 3ms, {}, 6'944'444ns));
    r.settle(6'944'444ns);
    EXPECT_EQ(r.cadence().code, pacer::CadenceReason::fixed);
    EXPECT_EQ(r.cadence().hz, 144.0);
    // The background: background_hz (10) with its reason; the target when that is lower.
    EXPECT_TRUE(r.set_background(true));
    EXPECT_FALSE(r.set_background(true));
    EXPECT_EQ(r.hz(), 10.0);
    EXPECT_EQ(r.status().code, RateReason::background);
    pacer::RatePlanner slow = planner(5.0);
    (void)slow.set_background(true);
    EXPECT_EQ(slow.hz(), 5.0);
}

TEST(RatePlanner, MatchDisplayFollowsTheFittedRefresh) {
    pacer::RatePlanner r = planner(60.0, pacer::CadenceMode::fixed, true);
    pacer::DisplayStatus d;
    d.state = pacer::DisplayState::locking;
    d.refresh_hz = 59.94;
    EXPECT_FALSE(r.follow_display({}, d)) << "not locked yet: the target stays";
    d.state = pacer::DisplayState::locked;
    EXPECT_TRUE(r.follow_display({}, d));
    EXPECT_EQ(r.target_hz(), 59.94);
    EXPECT_EQ(r.status().code, RateReason::display);
    d.refresh_hz = 59.9405;  // 8 ppm: the fit's noise, no new target
    EXPECT_FALSE(r.follow_display({}, d));
    // A new reported refresh voids the fit: followed at once.
    d.state = pacer::DisplayState::locking;
    d.reported_hz = 144.0;
    EXPECT_TRUE(r.follow_display({}, d));
    EXPECT_EQ(r.target_hz(), 144.0);
}

TEST(RatePlanner, MatchDisplayTakesTheSwapsOwnRate) {
    pacer::RatePlanner r = planner(60.0, pacer::CadenceMode::fixed, true);
    pacer::VsyncStatus vs;
    vs.code = pacer::VsyncReason::auto_other_rate;
    vs.swap_hz = 50.8;
    vs.refresh_hz = 60.0;
    EXPECT_TRUE(r.follow_display(vs, {}));
    EXPECT_EQ(r.target_hz(), 50.8);
    EXPECT_EQ(r.status().code, RateReason::swap_rate);
    // Presents then carry that rate as their refresh ...
    pacer::PresentInfo p;
    p.refresh_hz = 60.0;
    bool moved = true;
    EXPECT_EQ(r.as_reported(p, &moved).refresh_hz, 50.8);
    EXPECT_FALSE(moved);
    // ... until the host reports another refresh: it ends, the target goes back.
    p.refresh_hz = 75.0;
    EXPECT_EQ(r.as_reported(p, &moved).refresh_hz, 75.0);
    EXPECT_TRUE(moved);
    EXPECT_EQ(r.target_hz(), 60.0);
}

// 20 ms of work at 60 Hz on a known 60 Hz display: the governor settles on every other refresh.
TEST(RatePlanner, TheGovernorDividesTheRefresh) {
    pacer::RatePlanner r = planner(60.0, pacer::CadenceMode::automatic);
    pacer::RateInputs in;
    in.refresh = 16'666'667ns;
    int changes = 0;
    for (int i = 0; i < 40; ++i) {
        if (r.update(at(i * 33ms), 20ms, in, 16'666'667ns)) ++changes;
        r.settle(16'666'667ns);
    }
    EXPECT_EQ(changes, 2) << "the known refresh (59.99999 Hz), then every other refresh";
    EXPECT_NEAR(r.hz(), 30.0, 1e-4);
    EXPECT_EQ(r.status().code, RateReason::cadence);
    EXPECT_EQ(r.cadence().divisor, 2u);
}

// A 48-144 Hz panel: a 144 Hz target is kept below the ceiling by the wake-up jitter (0.2 ms),
// approached by at most 2 % a frame; with the governor on, heavy work sets a lower rate.
TEST(RatePlanner, VrrCapsTheTargetInsideThePanelsRange) {
    pacer::RatePlanner r = planner(144.0);
    for (int i = 0; i < 20; ++i) r.note_wake(200us);
    pacer::RateInputs in;
    in.vrr = true;
    in.vrr_min_hz = 48;
    in.vrr_max_hz = 144;
    std::chrono::nanoseconds period = 6'944'444ns;
    for (int i = 0; i < 100; ++i) {
        if (r.update(at(i * 7ms), 3ms, in, period)) period = std::chrono::nanoseconds(std::llround(1e9 / r.hz()));
        r.settle(period);
    }
    // The jitter quantile sits in 200 us's 9 % bin: the period lands 183-218 us over 6.944 ms.
    EXPECT_GT(period, 6'944'444ns + 183us);
    EXPECT_LT(period, 6'944'444ns + 219us);
    EXPECT_EQ(r.status().code, RateReason::vrr_cap);
    EXPECT_EQ(r.cadence().code, pacer::CadenceReason::vrr);
    EXPECT_EQ(r.vsync_hz(), 144.0) << "the swap is not asked for each VRR step";

    pacer::RatePlanner heavy = planner(144.0, pacer::CadenceMode::automatic);
    for (int i = 0; i < 200; ++i) {
        if (heavy.update(at(i * 12ms), 11ms, in, period)) period = std::chrono::nanoseconds(std::llround(1e9 / heavy.hz()));
        heavy.settle(period);
    }
    EXPECT_EQ(heavy.status().code, RateReason::vrr_work);
    // The cost's 0.9 quantile (in 11 ms's 9 % bin) over the fit 0.95: 11.6-12.2 ms.
    EXPECT_GT(heavy.hz(), 1e9 / 12.2e6);
    EXPECT_LT(heavy.hz(), 1e9 / 11.6e6);
}

// A change of the rate in force is never silent: one line per new reason or a move beyond 1 %.
TEST(RatePlanner, ARateChangeIsLoggedWithItsReason) {
    pacer_test::LogCapture log(pacer::LogLevel::info);
    pacer::RatePlanner r = planner(144.0);
    EXPECT_TRUE(r.log_change());
    EXPECT_EQ(log.count("rate in force"), 0) << "the configured target is said elsewhere";
    pacer::RateInputs in;
    in.vrr = true;
    in.vrr_min_hz = 48;
    in.vrr_max_hz = 120;  // below the target: capped
    std::chrono::nanoseconds period = 6'944'444ns;
    for (int i = 0; i < 100; ++i) {
        if (r.update(at(i * 8ms), 3ms, in, period)) period = std::chrono::nanoseconds(std::llround(1e9 / r.hz()));
        r.settle(period);
        r.log_change();
    }
    EXPECT_EQ(log.count("rate in force"), 1) << log.text();
    EXPECT_EQ(log.count("variable refresh: the target, kept inside the panel's range"), 1) << log.text();
    (void)r.set_background(true);
    r.log_change();
    EXPECT_EQ(log.count("in the background"), 1) << log.text();
}

// ---- Vblanks ------------------------------------------------------------------------------------

pacer::PresentInfo waited(std::chrono::nanoseconds vblank, double refresh_hz) {
    pacer::PresentInfo p;
    p.begin = at(vblank - 8ms);
    p.end = at(vblank + 100us);  // blocked half a refresh: waited for this vblank
    p.swap_interval = 1;
    p.refresh_hz = refresh_hz;
    return p;
}

TEST(Vblanks, FromTheLastObservedVblankUntilTheFitLocks) {
    pacer::Vblanks v;
    v.set_fallback_period(10ms);
    EXPECT_FALSE(v.known());
    const std::chrono::nanoseconds period{16'666'667};
    pacer::PresentInfo p = waited(1s, 60.0);
    v.set_reported_hz(60.0);
    v.observe(p, pacer::PresentClassifier::classify(p, false, v, true));
    EXPECT_TRUE(v.known());
    EXPECT_FALSE(v.use_fit());
    EXPECT_EQ(v.period(), period) << "the reported refresh";
    EXPECT_EQ(v.next_after(at(1s + 5ms)), at(1s + 100us + period)) << "from the last return";
    for (int k = 1; k < 20; ++k) {
        p = waited(1s + k * period, 60.0);
        v.observe(p, pacer::PresentClassifier::classify(p, false, v, true));
    }
    EXPECT_TRUE(v.use_fit());
    EXPECT_EQ(v.known_refresh(), v.tracker().period());
    EXPECT_TRUE(v.renewed(at(1s + 19 * period + 1ms)));
    EXPECT_FALSE(v.renewed(at(1s + 19 * period + 5 * period)));
}

TEST(Vblanks, WithoutTheLockATornDisplayedTimeStillServesAsReference) {
    pacer::Vblanks v;
    v.set_lock(false);
    v.set_fallback_period(10ms);
    pacer::PresentInfo p;
    p.begin = at(1s);
    p.end = at(1s + 1ms);
    p.swap_interval = 0;  // torn
    p.displayed = at(1s + 2ms);
    v.observe(p, pacer::PresentClassifier::classify(p, false, v, true));
    EXPECT_TRUE(v.known());
    EXPECT_EQ(v.period(), 10ms) << "no refresh reported: the fallback";
    EXPECT_EQ(v.next_after(at(1s + 3ms)), at(1s + 12ms));
    EXPECT_EQ(v.tracker().status().vblanks, 0u) << "a torn present is no vblank for the fit";
    v.reset();
    EXPECT_FALSE(v.known());
}

TEST(Vblanks, AVblankEventIsAnObservation) {
    pacer::Vblanks v;
    v.set_reported_hz(60.0);
    v.add_vblank(at(2s));
    EXPECT_EQ(v.tracker().status().vblanks, 1u);
    EXPECT_TRUE(v.known());
    EXPECT_EQ(v.tracker().last_vblank(), at(2s));
}

}  // namespace
