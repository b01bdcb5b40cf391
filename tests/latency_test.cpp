// Sync modes and latency in virtual time: the host loop of `pacer simulate latency`
// (tools/latency_sim.cpp: SimulatedOs + SimulatedDisplay, vsync on, ground-truth figures).
#include <gtest/gtest.h>

#include <cmath>

#include "latency_sim.hpp"
#include "pacer/log.hpp"
#include "pacer/sim.hpp"
#include "pacer/sim_display.hpp"

namespace {

using pacer::SyncMode;
using pacer::tools::LatencySimConfig;
using pacer::tools::late_bound;
using pacer::tools::run_latency_sim;
using pacer::tools::work_quantile_ms;

struct Quiet {
    Quiet() { pacer::set_log_function(nullptr); }
    ~Quiet() { pacer::set_log_function(pacer::log_to_stderr); }
};

// Lognormal work whose (1 - b) quantile is `share` of the period.
LatencySimConfig lognormal(double hz, double share, double sigma, double b = 0.01) {
    LatencySimConfig c;
    c.hz = hz;
    c.seconds = 60;
    c.max_late_share = b;
    c.work.sigma = sigma;
    c.work.mean_ms = 1.0;
    c.work.mean_ms = share * (1000.0 / hz) / work_quantile_ms(c.work, 1.0 - b);
    return c;
}

TEST(WorkTrace, LognormalQuantileAndMean) {
    // Hand-computed: sigma 0.5, mean 4 ms -> mu = ln 4 - 0.125; q99 = exp(mu + 0.5 x 2.3263) = 11.296.
    pacer::tools::WorkModel w;
    w.mean_ms = 4;
    w.sigma = 0.5;
    EXPECT_NEAR(work_quantile_ms(w, 0.99), 11.296, 0.005);
    const std::vector<double> t = pacer::tools::work_trace(w, 100000, 7);
    double sum = 0;
    std::size_t above = 0;
    for (double v : t) {
        sum += v;
        above += v > 11.296 ? 1 : 0;
    }
    EXPECT_NEAR(sum / 1e5, 4.0, 0.03);
    EXPECT_NEAR(static_cast<double>(above) / 1e5, 0.01, 0.0015);
    EXPECT_EQ(t, pacer::tools::work_trace(w, 100000, 7));  // seeded
}

// The acceptance: 60 and 144 Hz, vsync, work whose 99 % quantile is 20-80 % of the period.
class JustInTime : public ::testing::TestWithParam<std::tuple<double, double, double>> {};

TEST_P(JustInTime, LatencyNearTheQuantileWithinTheBudget) {
    Quiet quiet;
    const auto [hz, share, sigma] = GetParam();
    const LatencySimConfig c = lognormal(hz, share, sigma);
    const double q = work_quantile_ms(c.work, 0.99);
    const auto jit = run_latency_sim(c, SyncMode::just_in_time);
    const auto start = run_latency_sim(c, SyncMode::frame_start);
    ASSERT_GT(jit.frames, static_cast<std::size_t>(50 * hz));
    EXPECT_LE(jit.latency_p50_ms, q + 1.0) << "q99 of the work " << q;
    EXPECT_LE(static_cast<double>(jit.late), late_bound(jit.frames, 0.01));
    EXPECT_LE(jit.cpu_share, start.cpu_share + 0.01);
    // frame_start waits a whole period in the queue: well above just_in_time's.
    EXPECT_GT(start.latency_p50_ms, 1000.0 / hz);
    // What the pacer reports agrees with the display (the host reports displayed times).
    EXPECT_NEAR(jit.pacer_latency_p50_ms, jit.latency_p50_ms, 0.05);
}

INSTANTIATE_TEST_SUITE_P(Rates, JustInTime,
                         ::testing::Combine(::testing::Values(60.0, 144.0), ::testing::Values(0.2, 0.5, 0.8),
                                            ::testing::Values(0.25, 0.5)));

TEST(JustInTimeStep, HeavierSceneFollowedWithin30Frames) {
    Quiet quiet;
    for (double hz : {60.0, 144.0}) {
        for (double share : {0.2, 0.35}) {
            LatencySimConfig c = lognormal(hz, share, 0.5);
            c.step_at_s = 30;
            c.step_factor = 2.0;
            const auto r = run_latency_sim(c, SyncMode::just_in_time);
            ASSERT_TRUE(r.recovery_frames.has_value());
            EXPECT_LE(*r.recovery_frames, 30) << hz << " Hz, share " << share;
            EXPECT_LE(static_cast<double>(r.late), late_bound(r.frames, 0.01) + 10) << hz << " Hz";
        }
    }
    LatencySimConfig none = lognormal(60, 0.3, 0.5);
    EXPECT_FALSE(run_latency_sim(none, SyncMode::just_in_time).recovery_frames.has_value());
}

TEST(PresentSync, FlatPresentsOnJitteryWork) {
    Quiet quiet;
    for (double hz : {60.0, 144.0}) {
        const LatencySimConfig c = lognormal(hz, 0.5, 0.5);
        const auto present = run_latency_sim(c, SyncMode::present);
        const auto start = run_latency_sim(c, SyncMode::frame_start);
        EXPECT_GT(start.present_interval_p99_error_ms, 1.0);  // the work's jitter shows
        EXPECT_LE(present.present_interval_p99_error_ms, 0.5 * start.present_interval_p99_error_ms);
        EXPECT_LE(static_cast<double>(present.late), late_bound(present.frames, 0.01));
    }
}

TEST(JustInTime, NeverFasterThanTheTarget) {
    Quiet quiet;
    LatencySimConfig c;
    c.hz = 60;
    c.seconds = 10;
    c.work.kind = pacer::tools::WorkModel::Kind::constant;
    c.work.mean_ms = 0.1;  // almost no work: a loop without a wait would spin
    const auto r = run_latency_sim(c, SyncMode::just_in_time);
    // 9 counted seconds at 60 Hz: 540 frames, not more.
    EXPECT_NEAR(static_cast<double>(r.frames), 540.0, 3.0);
    EXPECT_LT(r.cpu_share, 0.02);
    EXPECT_LE(r.latency_p50_ms, 0.1 + 1.0);
}

}  // namespace
