// Sync modes and latency in virtual time: the host loop of `pacer simulate latency`
// (tools/lib/latency_sim.cpp: SimulatedOs + SimulatedDisplay, vsync on, ground-truth figures).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "latency_sim.hpp"
#include "pacer/log.hpp"
#include "pacer/pacer.hpp"
#include "sim_run.hpp"
#include "pacer/sim.hpp"
#include "pacer/sim_display.hpp"
#include "sim_vsync.hpp"

namespace {

using namespace std::chrono_literals;

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

// A render thread a frame behind (tools/lib/latency_sim.hpp): frame_start lets the vsync'd pipeline
// fill (hand-over queue and swap chain: 4 periods), just_in_time learns the lead over both threads'
// work by frame id and keeps the queues empty, within its budget; the pacer's own figures, per
// frame id, agree with the display's.
TEST(JustInTimeRenderThread, TakesThePipelinesExtraFramesBack) {
    Quiet quiet;
    for (double hz : {60.0, 144.0}) {
        LatencySimConfig c = lognormal(hz, 0.5, 0.5);
        c.render_thread = true;
        const auto jit = run_latency_sim(c, SyncMode::just_in_time);
        const auto start = run_latency_sim(c, SyncMode::frame_start);
        ASSERT_GT(jit.frames, static_cast<std::size_t>(50 * hz));
        EXPECT_NEAR(start.latency_p50_ms, 4000.0 / hz, 0.1) << hz << " Hz";
        EXPECT_LE(jit.latency_p50_ms, 0.6 * start.latency_p50_ms) << hz << " Hz";
        EXPECT_LE(static_cast<double>(jit.late), late_bound(jit.frames, 0.01)) << hz << " Hz";
        EXPECT_NEAR(jit.pacer_latency_p50_ms, jit.latency_p50_ms, 0.05) << hz << " Hz";
    }
}

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
    // 9 counted seconds at 60 Hz: 540 vblanks, so at most 541 frames; fewer only by the late ones
    // (a late frame takes two vblanks).
    EXPECT_LE(r.frames, 541u);
    EXPECT_GE(static_cast<double>(r.frames), 540.0 - late_bound(540, 0.01));
    EXPECT_LT(r.cpu_share, 0.02);
    EXPECT_LE(r.latency_p50_ms, 0.1 + 1.0);
}

}  // namespace

// A swap that blocks until the next vblank and shows the frame there (the demo's --fake-vsync
// presenter; a blocking swap's return is its shown time), with no displayed time reported: the
// pacer learns the vblanks from the blocking returns and predicts latency from them.
struct BlockingRun {
    std::vector<double> truth_ms, pacer_ms;
    std::size_t late = 0, frames = 0;
    double cpu = 0;
};
BlockingRun run_blocking(SyncMode sync, double hz, const pacer::tools::WorkModel& work, int frames) {
    pacer::SimModel model;
    model.granularity = 50us;
    model.jitter_mean = 20us;
    pacer::SimulatedOs os(model, 3);
    const double period = 1e9 / hz;
    const std::int64_t phase0 = pacer::clock::to_ns(os.now()) + 1'234'567;  // vblanks at phase0 + n period
    const pacer_test::SimVblanks vblanks{phase0, std::round(period)};
    pacer::FramePacer fp({.target_hz = hz, .mode = pacer::WaitMode::vsync, .sync = sync}, &os);
    const std::vector<double> trace = pacer::tools::work_trace(work, static_cast<std::size_t>(frames), 5);
    BlockingRun out;
    std::int64_t prev_shown = 0, cpu0 = 0, t0 = 0;
    for (int i = 0; i < frames; ++i) {
        const pacer::FrameTiming t = fp.wait();
        fp.mark_input();
        const std::int64_t input = pacer::clock::to_ns(os.now());
        if (i == 200) {
            cpu0 = os.cpu_times().thread.count();
            t0 = input;
        }
        if (i > 200 && t.latency.count() > 0) out.pacer_ms.push_back(static_cast<double>(t.latency.count()) / 1e6);
        os.advance(std::chrono::nanoseconds(static_cast<std::int64_t>(trace[static_cast<std::size_t>(i)] * 1e6)));
        const std::int64_t shown = pacer_test::present_blocking(os, fp, vblanks, hz);
        if (i >= 200) {
            out.truth_ms.push_back(static_cast<double>(shown - input) / 1e6);
            out.late += prev_shown != 0 && static_cast<double>(shown - prev_shown) > 1.5 * period ? 1 : 0;
            ++out.frames;
        }
        prev_shown = shown;
    }
    out.cpu = static_cast<double>(os.cpu_times().thread.count() - cpu0) / static_cast<double>(pacer::clock::to_ns(os.now()) - t0);
    std::sort(out.truth_ms.begin(), out.truth_ms.end());
    std::sort(out.pacer_ms.begin(), out.pacer_ms.end());
    return out;
}

TEST(BlockingSwap, VblanksFromTheReturnsWithoutDisplayedTimes) {
    Quiet quiet;
    for (double hz : {60.0, 144.0}) {
        pacer::tools::WorkModel work;
        work.sigma = 0.5;
        work.mean_ms = 1.0;
        work.mean_ms = 0.5 * (1000.0 / hz) / work_quantile_ms(work, 0.99);
        const double q = work_quantile_ms(work, 0.99);
        const int frames = static_cast<int>(60 * hz);
        const BlockingRun jit = run_blocking(SyncMode::just_in_time, hz, work, frames);
        const BlockingRun start = run_blocking(SyncMode::frame_start, hz, work, frames);
        const double jit_p50 = pacer::percentile_sorted(jit.truth_ms, 0.5);
        const double start_p50 = pacer::percentile_sorted(start.truth_ms, 0.5);
        EXPECT_LE(jit_p50, q + 1.0) << hz;
        EXPECT_LE(static_cast<double>(jit.late), late_bound(jit.frames, 0.01)) << hz;
        EXPECT_LE(jit.cpu, start.cpu + 0.01) << hz;
        // frame_start: input at a vblank (the previous swap's return), shown at the next one.
        EXPECT_NEAR(start_p50, 1000.0 / hz, 0.2) << hz;
        // The pacer's predicted latency (no displayed time) is the display's.
        EXPECT_NEAR(pacer::percentile_sorted(jit.pacer_ms, 0.5), jit_p50, 0.1) << hz;
        EXPECT_NEAR(pacer::percentile_sorted(start.pacer_ms, 0.5), start_p50, 0.1) << hz;
    }
}

// ---- FramePacer's markers and sync modes on an exact OS (hand-computed times) -----------------
namespace {

using namespace std::chrono_literals;
std::int64_t at(pacer::clock::time_point t) { return pacer::clock::to_ns(t); }
pacer::SimModel exact() {  // the priority calls (automatic raises at the first wait) take no time
    return {.granularity = 0ns, .jitter_mean = 0ns, .relax_time = 1ns, .sleep_cpu = 0ns, .priority_call = 0ns};
}

// One present of `swap_ns` on a tearing swap (interval 0), optionally with a displayed time.
void present(pacer::SimulatedOs& os, pacer::FramePacer& fp, std::int64_t swap_ns, std::int64_t displayed = 0) {
    pacer::PresentInfo p;
    p.begin = fp.now();
    os.advance(std::chrono::nanoseconds(swap_ns));
    p.end = fp.now();
    p.swap_interval = 0;
    if (displayed != 0) p.displayed = pacer::clock::from_ns(displayed);
    fp.report_present(p);
}

TEST(Markers, LatencyFromInputToPresentReturnWhenTheSwapTears) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .mode = pacer::WaitMode::sleep}, &os);
    pacer::FrameTiming t = fp.wait();  // 0 ms
    EXPECT_EQ(t.latency, 0ns);         // no frame before the first
    os.advance(1ms);
    fp.mark_input();                   // 1 ms
    os.advance(3ms);
    fp.before_present();               // 4 ms
    present(os, fp, 500'000);          // returns at 4.5 ms
    t = fp.wait();                     // waits until 10 ms
    EXPECT_EQ(at(t.wake), 10'000'000);
    EXPECT_EQ(t.latency, 3'500'000ns);  // 1 ms -> 4.5 ms
    EXPECT_EQ(t.input_to_present, 3ms);
    EXPECT_FALSE(t.latency_measured);
    EXPECT_FALSE(t.shown_late);
    EXPECT_EQ(t.sync, pacer::SyncMode::frame_start);

    // Without mark_input() the frame's input is its wake; a displayed time is measured latency.
    os.advance(2ms);
    present(os, fp, 100'000, 19'000'000);  // call at 12 ms, shown at 19 ms
    t = fp.wait();
    EXPECT_EQ(t.latency, 9ms);  // 10 ms -> 19 ms
    EXPECT_EQ(t.input_to_present, 2ms);
    EXPECT_TRUE(t.latency_measured);

    // No present reported, no latency (a headless loop): zero, even with the markers called.
    os.advance(1ms);
    fp.mark_input();
    os.advance(3ms);
    fp.before_present();
    t = fp.wait();
    EXPECT_EQ(t.latency, 0ns);
    EXPECT_EQ(t.input_to_present, 0ns);
    EXPECT_FALSE(t.latency_measured);
    EXPECT_FALSE(t.shown_late);
}

TEST(PresentSync, WaitReturnsAtOnceAndBeforePresentHoldsTheGrid) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .mode = pacer::WaitMode::sleep, .sync = pacer::SyncMode::present}, &os);
    fp.wait();  // anchors the grid at 0
    const std::int64_t work[] = {2'000'000, 7'000'000, 3'000'000, 5'000'000, 1'000'000};
    for (std::int64_t k = 1; k <= 5; ++k) {
        os.advance(std::chrono::nanoseconds(work[k - 1]));
        fp.before_present();
        ASSERT_EQ(pacer::clock::to_ns(os.now()), k * 10'000'000);  // flat presents whatever the work
        present(os, fp, 200'000);
        const std::int64_t called = pacer::clock::to_ns(os.now());
        const pacer::FrameTiming t = fp.wait();
        ASSERT_EQ(pacer::clock::to_ns(os.now()), called);  // no wait at the frame start
        // The record is the wait made before the present.
        ASSERT_EQ(at(t.deadline), k * 10'000'000);
        ASSERT_EQ(at(t.wake), k * 10'000'000);
        ASSERT_EQ(t.interval, 10ms);
        ASSERT_EQ(t.sync, pacer::SyncMode::present);
        // Frame 1 started at 0 (the anchor), later ones when the wait() before them was called,
        // 0.2 ms after the previous present: input to present return = 10.2 ms, then 10 ms.
        ASSERT_EQ(t.latency, k == 1 ? 10'200'000ns : 10ms);
    }
}

TEST(PresentSync, AHostWithoutTheSecondCallGetsFrameStart) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .mode = pacer::WaitMode::sleep, .sync = pacer::SyncMode::present}, &os);
    fp.wait();
    for (std::int64_t k = 1; k <= 5; ++k) {
        os.advance(3ms);
        const pacer::FrameTiming t = fp.wait();
        ASSERT_EQ(at(t.wake), k * 10'000'000);
        ASSERT_EQ(t.interval, 10ms);
    }
}

TEST(JustInTimeUnit, WithoutADisplayPresentsLandOnTheGridAtTheTargetRate) {
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .mode = pacer::WaitMode::sleep, .sync = pacer::SyncMode::just_in_time},
                         &os);
    const std::int64_t anchor = at(fp.wait().wake);
    std::int64_t wake20 = 0, late = 0;
    for (std::int64_t k = 1; k <= 1000; ++k) {
        const pacer::FrameTiming t = fp.wait();
        if (k == 20) wake20 = at(t.wake);
        late += t.shown_late ? 1 : 0;
        os.advance(3ms);
        fp.before_present();
        const std::int64_t deadline = anchor + k * 10'000'000;  // the grid: the present's deadline
        if (k >= 20) {
            // Lead = learned 3 ms (to a histogram bin, 9 %) + offset: the present comes at most
            // 0.5 ms before the deadline, and late by at most the miss tolerance (0.5 ms, the
            // late frames of the budget) plus one offset step (period / 64 = 0.16 ms).
            ASSERT_GE(pacer::clock::to_ns(os.now()), deadline - 500'000) << k;
            ASSERT_LE(pacer::clock::to_ns(os.now()), deadline + 500'000 + 156'250) << k;
        }
        present(os, fp, 0);
    }
    EXPECT_EQ(at(fp.now()) >= wake20, true);
    // 980 frames from frame 20 to 1000 at exactly the target rate (wakes on the 10 ms grid).
    const pacer::FrameTiming last = fp.wait();
    EXPECT_NEAR(static_cast<double>(at(last.wake) - wake20) / 981.0, 10'000'000.0, 1'000.0);
    EXPECT_LE(late, 1000 * 0.01 + 1.96 * std::sqrt(1000 * 0.01 * 0.99) + 8);  // + the warm-up
    EXPECT_GT(fp.status().lead.lead, 2ms);
    EXPECT_LT(fp.status().lead.lead, 4ms);
}

TEST(SyncConfig, NamesValidationAndRunTimeSwitch) {
    pacer::SyncMode m;
    EXPECT_TRUE(pacer::parse_sync_mode("just_in_time", &m));
    EXPECT_EQ(m, pacer::SyncMode::just_in_time);
    EXPECT_FALSE(pacer::parse_sync_mode("jit", &m));
    EXPECT_STREQ(pacer::to_string(pacer::SyncMode::present), "present");
    pacer::PacerConfig c;
    c.max_late_share = 0.0;
    EXPECT_NE(pacer::validate(c).message().find("max_late_share = 0: must be in [0.001, 0.5]"), std::string::npos);
    c.max_late_share = 0.01;
    c.sync = static_cast<pacer::SyncMode>(7);
    EXPECT_NE(pacer::validate(c).message().find("sync = 7"), std::string::npos);

    Quiet quiet;
    pacer::SimulatedOs os(exact(), 1, pacer::clock::from_ns(0));
    pacer::FramePacer fp({.target_hz = 100.0, .mode = pacer::WaitMode::sleep}, &os);
    EXPECT_FALSE(pacer_test::change(fp, [](pacer::PacerConfig& cfg) { cfg.sync = static_cast<pacer::SyncMode>(9); }));
    EXPECT_EQ(fp.config().sync, pacer::SyncMode::frame_start);
    fp.wait();
    std::int64_t prev = pacer::clock::to_ns(os.now());
    const pacer::SyncMode order[] = {pacer::SyncMode::frame_start, pacer::SyncMode::just_in_time,
                                     pacer::SyncMode::present, pacer::SyncMode::frame_start};
    for (int phase = 0; phase < 4; ++phase) {
        ASSERT_TRUE(pacer_test::change(fp, [&](pacer::PacerConfig& cfg) { cfg.sync = order[phase]; }));
        for (int k = 0; k < 100; ++k) {
            const pacer::FrameTiming t = fp.wait();
            ASSERT_EQ(t.sync, order[phase]);
            // Never faster than the target: presents (and wakes) at least ~a period apart.
            os.advance(2ms);
            fp.before_present();
            if (k > 1) {
                ASSERT_GE(pacer::clock::to_ns(os.now()) - prev, 9'000'000) << phase << " " << k;
            }
            prev = pacer::clock::to_ns(os.now());
            present(os, fp, 0);
        }
    }
}

TEST(FrameStatsLatency, PercentilesOverTheFramesThatHaveOne) {
    pacer::FrameStats stats(256);
    for (int i = 1; i <= 120; ++i) {
        pacer::FrameTiming t;
        t.interval = 10ms;
        t.period = 10ms;
        t.latency = i <= 100 ? std::chrono::nanoseconds(i * 1'000'000) : 0ns;  // 20 without one
        t.shown_late = i % 25 == 0;
        stats.add(t);
    }
    const pacer::StatsSummary s = stats.summarize();
    EXPECT_EQ(s.latency_frames, 100u);
    EXPECT_EQ(s.latency.p50, 50500us);  // h = 99 x 0.5 = 49.5: between 50 and 51
    EXPECT_EQ(s.latency.p99, 99010us);  // h = 98.01
    EXPECT_EQ(s.latency.min, 1ms);
    EXPECT_EQ(s.shown_late, 4u);
    float bins[10];
    const pacer::HistogramCounts h = stats.histogram(pacer::FrameMetric::latency, 0ms, 100ms, bins);
    EXPECT_EQ(h.placed, 100u);
    EXPECT_EQ(bins[0], 9.0f);  // 1..9 ms
    EXPECT_EQ(h.above, 1u);    // 100 ms
}

}  // namespace
