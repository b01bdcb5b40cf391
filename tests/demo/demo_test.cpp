// Unit tests of the demo's pieces that do not need a window: the command line, the coarse
// scheduler injection, the machine CPU reader, the motion test and the background load.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "busy_threads.hpp"
#include "coarse_time_source.hpp"
#include "machine_cpu.hpp"
#include "options.hpp"
#include "pacer/capture.hpp"
#include "pacer/log.hpp"
#include "pacer/sim.hpp"
#include "replay.hpp"
#include "pacer/time_source.hpp"
#include "presenter.hpp"
#include "render_thread.hpp"
#include "session.hpp"

using namespace std::chrono_literals;

using namespace pacer_demo;

namespace {

ParseResult parse(std::vector<const char*> args, Options* o) {
    args.insert(args.begin(), "pacer_demo");
    return parse_options(static_cast<int>(args.size()), args.data(), o);
}

// A session at hz without simulated work, so frame times are the pacer's own.
Options idle_at(double hz) {
    Options o;
    o.hz = hz;
    o.work_ms = 0;
    o.work_jitter_ms = 0;
    return o;
}

}  // namespace

TEST(DemoOptions, NumbersMustParseWhole) {
    Options o;
    ASSERT_FALSE(parse({"--hz", "144"}, &o).exit);
    EXPECT_DOUBLE_EQ(o.hz, 144.0);
    ASSERT_FALSE(parse({"--hz", "59.94"}, &o).exit);
    EXPECT_DOUBLE_EQ(o.hz, 59.94);
    for (const char* bad : {"", " 60", "60 ", "60x", "x60", "nan", "inf", "-inf", "1e999", "0x"}) {
        const ParseResult r = parse({"--hz", bad}, &o);
        EXPECT_TRUE(r.exit) << bad;
        EXPECT_NE(r.message.find(std::string("--hz: \"") + bad + "\" is not a number"), std::string::npos)
            << bad << " -> " << r.message;
    }
    ASSERT_FALSE(parse({"--frames", "400"}, &o).exit);
    EXPECT_EQ(o.frames, 400u);
    for (const char* bad : {"", "-1", "+1", "1.5", "1e3", "12a"}) {
        const ParseResult r = parse({"--frames", bad}, &o);
        EXPECT_TRUE(r.exit) << bad;
        EXPECT_NE(r.message.find(std::string("--frames: \"") + bad + "\" is not a whole number"), std::string::npos)
            << bad << " -> " << r.message;
    }
    const ParseResult big = parse({"--frames", "99999999999999999999999"}, &o);
    EXPECT_TRUE(big.exit);
    EXPECT_NE(big.message.find("--frames = 99999999999999999999999: must be"), std::string::npos) << big.message;
}

TEST(DemoOptions, AcceptsTheDocumentedOptions) {
    Options o;
    const ParseResult r = parse({"--hz", "144", "--mode=spin", "--policy", "skip", "--seconds", "3",
                                 "--frames", "400", "--load", "2", "--work-ms", "2.5",
                                 "--work-jitter-ms", "0", "--vsync", "on", "--sim-hz", "120",
                                 "--coarse-ms", "5", "--screenshot-frame", "10"},
                                &o);
    ASSERT_FALSE(r.exit) << r.message;
    EXPECT_DOUBLE_EQ(o.hz, 144.0);
    EXPECT_EQ(o.mode, pacer::WaitMode::spin);
    EXPECT_EQ(o.policy, pacer::LatePolicy::skip);
    EXPECT_DOUBLE_EQ(o.seconds, 3.0);
    EXPECT_EQ(o.frames, 400u);
    EXPECT_EQ(o.load, 2);
    EXPECT_DOUBLE_EQ(o.work_ms, 2.5);
    EXPECT_DOUBLE_EQ(o.work_jitter_ms, 0.0);
    EXPECT_TRUE(o.vsync);
    EXPECT_DOUBLE_EQ(o.sim_hz, 120.0);
    EXPECT_EQ(o.coarse_ms, 5);
    EXPECT_EQ(o.screenshot_frame, 10u);
}

TEST(DemoOptions, AcceptsTheVsyncModesAndARefreshOverride) {
    Options o;
    ASSERT_FALSE(parse({"--mode", "auto", "--refresh-hz", "59.94"}, &o).exit);
    EXPECT_EQ(o.mode, pacer::WaitMode::automatic);
    EXPECT_DOUBLE_EQ(o.refresh_hz, 59.94);
    ASSERT_FALSE(parse({"--mode", "vsync", "--refresh-hz", "0"}, &o).exit);
    EXPECT_EQ(o.mode, pacer::WaitMode::vsync);
    EXPECT_DOUBLE_EQ(o.refresh_hz, 0.0);
}

TEST(DemoOptions, HelpExitsZero) {
    Options o;
    const ParseResult r = parse({"--help"}, &o);
    EXPECT_TRUE(r.exit);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.message.find("--headless"), std::string::npos);
}

TEST(DemoOptions, RefusesBadValuesWithExitCode2) {
    const std::vector<std::vector<const char*>> bad = {
        {"--hz", "0"},        {"--hz", "-1"},          {"--hz", "nan"},       {"--hz", "10000.5"},
        {"--hz", "1e9"},      {"--hz"},                {"--work-ms", "-0.1"}, {"--work-jitter-ms", "-1"},
        {"--load", "-1"},     {"--load", "65"},        {"--seconds", "-1"},   {"--frames", "-5"},
        {"--mode", "nap"},    {"--mode", "Auto"},      {"--refresh-hz", "5000"},    {"--policy", "later"},   {"--vsync", "yes"},    {"--sim-hz", "0"},
        {"--coarse-ms", "11"}, {"--screenshot-frame", "0"}, {"--unknown"},   {"-x"},
        {"--headless=1"},     {"--screenshot", "/nonexistent-dir/shot.png"},
        {"--headless", "--screenshot", "shot.png"},
        {"--frames", "10", "--screenshot", "shot.png", "--screenshot-frame", "20"},
    };
    for (const auto& args : bad) {
        Options o;
        const ParseResult r = parse(args, &o);
        std::string joined;
        for (const char* a : args) joined += std::string(a) + " ";
        EXPECT_TRUE(r.exit) << joined;
        EXPECT_EQ(r.exit_code, 2) << joined;
        EXPECT_EQ(r.message.rfind("pacer_demo: ", 0), 0u) << joined << " -> " << r.message;
    }
}

TEST(DemoOptions, ScreenshotPathCheckLeavesNoFileBehind) {
    const std::string path = testing::TempDir() + "pacer_demo_probe.png";
    std::remove(path.c_str());
    std::string why;
    EXPECT_TRUE(path_writable(path, &why)) << why;
    std::FILE* f = std::fopen(path.c_str(), "rb");
    EXPECT_EQ(f, nullptr) << "the probe must not leave an empty file";
    if (f) std::fclose(f);
}

TEST(CoarseTimeSource, WakesOnTheFakeSchedulerTickNeverEarly) {
    CoarseTimeSource ts(2ms, 0.0);  // 2 ms ticks, no preemption
    for (int i = 0; i < 5; ++i) {
        const std::int64_t deadline = pacer::clock::to_ns(ts.now()) + 300'000;
        ts.sleep_until(pacer::clock::from_ns(deadline));
        const std::int64_t woke = pacer::clock::to_ns(ts.now());
        EXPECT_GE(woke, deadline);
        // Woken at (or, on a busy machine, after) a multiple of the period, never before it.
        const std::int64_t tick = (deadline / 2'000'000 + 1) * 2'000'000;
        EXPECT_GE(woke, tick);
    }
    ts.set_period(50ms);
    EXPECT_EQ(ts.period(), 10ms);  // clamped to 1..10 ms
    ts.set_period(1ns);
    EXPECT_EQ(ts.period(), 1ms);
}

TEST(CoarseTimeSource, PastDeadlineReturnsAtOnce) {
    CoarseTimeSource ts(10ms, 0.0);
    const std::int64_t t0 = pacer::clock::to_ns(ts.now());
    // Twenty waits for the next 10 ms tick would take >= 190 ms; past deadlines take none.
    for (int i = 0; i < 20; ++i) ts.sleep_until(pacer::clock::from_ns(pacer::clock::to_ns(ts.now()) - 1));
    EXPECT_LT(pacer::clock::to_ns(ts.now()) - t0, 100'000'000);
}

TEST(MachineCpu, ReadsProcStatOrSaysUnavailable) {
    MachineCpu m;
#if defined(__linux__)
    EXPECT_TRUE(m.available());
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    const double pct = m.sample();
    // Either not enough ticks passed (-1) or a load in [0, 100].
    if (pct >= 0) {
        EXPECT_LE(pct, 100.0);
    }
#else
    EXPECT_LT(m.sample(), 0.0);
#endif
}

TEST(DemoOptions, SlowAndFastRatesGiveValidSimulationSettings) {
    Options o;
    EXPECT_FALSE(parse({"--sim-hz", "2"}, &o).exit);
    EXPECT_DOUBLE_EQ(o.sim_hz, 2.0);
    for (double hz : {0.01, 0.5, 60.0, 144.0, 10000.0}) {
        const auto period = std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / hz));
        EXPECT_TRUE(pacer::validate(sim_config(60.0, 8, period)).ok()) << hz;
    }
}

TEST(Motion, BouncesInsideTheTrackAndInterpolates) {
    Motion m;
    for (int i = 0; i < 1000; ++i) {
        m.step(1.0 / 60.0);
        ASSERT_GE(m.x, 0.0);
        ASSERT_LE(m.x, 1.0);
        ASSERT_NEAR(std::fabs(m.x - m.prev_x), 0.5 / 60.0, 1e-9 + 0.5 / 60.0);
    }
    EXPECT_DOUBLE_EQ(m.at(0.0), m.prev_x);
    EXPECT_NEAR(m.at(0.5), 0.5 * (m.prev_x + m.x), 1e-12);
}

TEST(Ring, KeepsTheNewestValuesInOrder) {
    Ring<4> r;
    for (int i = 1; i <= 6; ++i) r.push(static_cast<float>(i));
    ASSERT_EQ(r.count, 4u);
    EXPECT_EQ(r.last(4, 0), 3.0f);
    EXPECT_EQ(r.last(4, 3), 6.0f);
    EXPECT_EQ(r.last(2, 0), 5.0f);
}

// The demo's render thread (--render-thread): the game thread hands frames over one at a time,
// the render thread presents each to the pacer by frame id, and the game thread gets them back in
// order, every one, also the last frame handed over before stop(). Real threads (TSan in CI).
TEST(RenderThread, HandsFramesOverAndBackInOrder) {
    pacer::FramePacer fp({.target_hz = 1000.0, .mode = pacer::WaitMode::sleep});
    RenderThread r;
    std::thread::id render_id;
    r.start([&render_id] { render_id = std::this_thread::get_id(); }, nullptr);
    std::vector<std::uint64_t> back;
    for (int i = 0; i < 200; ++i) {
        const pacer::FrameTiming t = fp.wait();
        for (const RenderThread::Done& d : r.take_done()) back.push_back(d.frame);
        const std::uint64_t frame = t.frame;
        r.submit({frame, [&fp, frame] {
                      RenderThread::Done d;
                      fp.before_present(frame);
                      d.present.begin = fp.now();
                      d.present.end = fp.now();
                      d.present.frame = frame;
                      fp.report_present(d.present);
                      return d;
                  }});
    }
    r.stop();
    for (const RenderThread::Done& d : r.take_done()) back.push_back(d.frame);
    ASSERT_EQ(back.size(), 200u);
    for (std::size_t i = 0; i < back.size(); ++i) EXPECT_EQ(back[i], i + 1);
    EXPECT_NE(render_id, std::this_thread::get_id());
    fp.wait();  // the last reports
    EXPECT_EQ(fp.status().presents.submitted, 200u);
    EXPECT_EQ(fp.status().reports_lost, 0u);
    EXPECT_FALSE(r.running());
}

TEST(BusyThreads, StartAndStopOnRequest) {
    BusyThreads b;
    b.set_count(2);
    EXPECT_EQ(b.count(), 2);
    b.set_count(1);
    EXPECT_EQ(b.count(), 1);
    b.set_count(0);
    EXPECT_EQ(b.count(), 0);
}

TEST(Session, ControlsRefuseBadValuesAndKeepRunning) {
    Session s(idle_at(500));
    for (int i = 0; i < 10; ++i) {
        s.begin_frame();
        s.simulate();
        s.do_work();
    }
    EXPECT_FALSE(s.set_rate(0.0).ok());
    EXPECT_FALSE(s.set_rate(std::nan("")).ok());
    EXPECT_FALSE(s.set_rate(20000.0).ok());
    EXPECT_DOUBLE_EQ(s.pacer().config().target_hz, 500.0);
    EXPECT_TRUE(s.set_rate(10000.0).ok());  // the top rate also fits the simulation's snapping
    EXPECT_FALSE(s.set_work(-1, 0).ok());
    EXPECT_FALSE(s.set_load(-1).ok());
    EXPECT_FALSE(s.set_sim(0.0, 8).ok());
    EXPECT_FALSE(s.set_sim(60.0, 0).ok());
    EXPECT_TRUE(s.set_sim(2.0, 8).ok());  // slow simulations widen the frame-delta clamp
    EXPECT_FALSE(s.set_coarse(11).ok());
    pacer::WaiterConfig w;
    w.late_cost = std::chrono::seconds(2);
    EXPECT_FALSE(s.set_waiter(w).ok());

    // Switching the coarse scheduler on keeps the pacer, its settings and what its waiter
    // learned; the statistics carry on.
    EXPECT_TRUE(s.set_rate(500.0).ok());
    const pacer::FramePacer* before = &s.pacer();
    const std::int64_t learned = s.pacer().status().waiter.sleeps_measured;
    EXPECT_TRUE(s.set_coarse(1).ok());
    EXPECT_EQ(s.coarse_ms(), 1);
    EXPECT_EQ(&s.pacer(), before);
    EXPECT_EQ(s.pacer().status().waiter.sleeps_measured, learned);
    const std::string system_sleep = pacer::system_time_source().sleep_primitive();
    EXPECT_NE(s.pacer().status().waiter.sleep_primitive, system_sleep);
    EXPECT_DOUBLE_EQ(s.pacer().config().target_hz, 500.0);
    for (int i = 0; i < 5; ++i) s.begin_frame();
    EXPECT_TRUE(s.set_coarse(0).ok());
    EXPECT_EQ(s.pacer().status().waiter.sleep_primitive, system_sleep);
    for (int i = 0; i < 5; ++i) s.begin_frame();
    s.refresh(true);
    EXPECT_EQ(s.summary().frames_total, 20u);
    EXPECT_EQ(s.frames(), 20u);
}

TEST(Session, HistogramRangesFollowTheTargetRate) {
    for (double hz : {60.0, 120.0, 144.0}) {
        Session s(idle_at(hz));
        for (int i = 0; i < 12; ++i) s.begin_frame();
        s.refresh(true);
        const double target_ms = 1000.0 / hz;
        EXPECT_NEAR(s.interval_hi_ms, 2 * target_ms, 1e-3) << hz;
        EXPECT_NEAR(s.lateness_hi_ms, std::max(1.0, target_ms / 4), 1e-3) << hz;
        // Every frame time of the window is in some bin (out-of-range ones in the edge bins).
        float in_bins = 0;
        for (float b : s.interval_bins) in_bins += b;
        EXPECT_EQ(static_cast<std::size_t>(in_bins), s.summary().frames) << hz;
        EXPECT_EQ(s.summary().frames, 11u) << hz;  // the first frame has no interval
    }
}

TEST(Session, CountsStuttersByTheLibraryRule) {
    Session s(idle_at(500));
    auto slow_frame = [&s] {  // 30 ms of work: a frame time of 30 ms or more, against ~2 ms
        ASSERT_TRUE(s.set_work(30, 0).ok());
        s.do_work();
        ASSERT_TRUE(s.set_work(0, 0).ok());
        s.begin_frame();
    };
    s.begin_frame();  // the first frame has no frame time
    for (int i = 0; i < 5; ++i) s.begin_frame();
    slow_frame();  // frame time 6: 5 frame times before it, no verdict
    while (s.stats().size() < 20) s.begin_frame();
    EXPECT_EQ(s.stutters(), 0u);  // none of the first 20 frame times gets a verdict
    slow_frame();  // frame time 21: the mean of the 20 before it is ~3.4 ms
    EXPECT_GE(s.stutters(), 1u);
    s.refresh(false);
    EXPECT_EQ(s.stutters(), s.summary().stutters_total);
    s.reset_stats();
    EXPECT_EQ(s.stutters(), 0u);
}

// ---- replay (--replay FILE) -----------------------------------------------------------------

TEST(Replay, ReadsAPacerCaptureBackFrameByFrame) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 40us, .preempt_probability = 0.05});
    pacer::FramePacer fp({.target_hz = 144.0}, &os);
    const std::string path = std::string(PACER_TEST_WORK_DIR) + "/replay_roundtrip.csv";
    pacer::CaptureWriter cap;
    pacer::CaptureOptions co;
    co.write_stats = false;
    ASSERT_TRUE(cap.open(path, co).ok());
    std::vector<pacer::FrameTiming> written;
    for (int i = 0; i < 300; ++i) {
        os.advance(std::chrono::nanoseconds(2'000'000 + (i % 11) * 400'000 + (i % 50 == 3 ? 12'000'000 : 0)));
        written.push_back(fp.wait());
        cap.add(written.back());
    }
    ASSERT_TRUE(cap.close().ok());

    Replay r;
    ASSERT_TRUE(r.load(path).ok());
    EXPECT_EQ(r.format(), "pacer");
    EXPECT_EQ(r.mode(), "hybrid");
    EXPECT_TRUE(r.has_target());
    EXPECT_TRUE(r.has_lateness());
    EXPECT_EQ(r.target(), fp.status().period);
    ASSERT_EQ(r.size(), written.size() - 1);  // the first frame has no frame time, hence no row
    int missed = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
        const pacer::FrameTiming& w = written[i + 1];
        SCOPED_TRACE("frame " + std::to_string(i));
        EXPECT_EQ(r[i].index, w.index);
        EXPECT_EQ(r[i].interval, w.interval);
        EXPECT_EQ(r[i].lateness, w.lateness);
        EXPECT_EQ(r[i].work, w.work);
        EXPECT_EQ(r[i].period, w.period);
        EXPECT_EQ(r[i].skipped, w.skipped);
        EXPECT_EQ(r[i].missed, w.missed);
        missed += w.missed;
    }
    EXPECT_GT(missed, 0);  // the 12 ms stalls: the comparison above covered missed frames too
}

TEST(Replay, ABadFileIsRefusedWithItsLineAndTheSessionStaysLive) {
    Session s(idle_at(500));
    const pacer::Status st = s.start_replay(std::string(PACER_SAMPLES) + "/bad_number.csv");
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("bad_number.csv:3: MsBetweenPresents"), std::string::npos) << st.message();
    EXPECT_FALSE(s.replaying());
    EXPECT_FALSE(s.start_replay("/nonexistent-dir-of-pacer/x.csv").ok());
    s.begin_frame();
    s.begin_frame();
    EXPECT_EQ(s.stats().summarize().frames, 1u);  // live frames go on into the statistics
}

TEST(Replay, SteppedAndPlayedTheSessionShowsTheFilesFrames) {
    Session s(idle_at(500));
    s.begin_frame();
    s.begin_frame();  // a live frame in the statistics, which the replay replaces
    ASSERT_TRUE(s.start_replay(std::string(PACER_SAMPLES) + "/presentmon1.csv").ok());
    EXPECT_TRUE(s.replaying());
    s.step_replay(10);
    EXPECT_FALSE(s.replay_playing());
    // The file's first ten frame times: 16.0, 17.3334, 16.6666, three times over, then 16.0.
    pacer::StatsSummary m = s.stats().summarize();
    EXPECT_EQ(m.frames, 10u);
    EXPECT_NEAR(pacer::to_ms(m.interval.mean), (4 * 16.0 + 3 * 17.3334 + 3 * 16.6666) / 10, 1e-9);
    EXPECT_EQ(m.interval.max, std::chrono::nanoseconds(17'333'400));
    EXPECT_EQ(s.frame_ms.count, 10u);
    EXPECT_FLOAT_EQ(s.frame_ms.last(10, 1), 17.3334f);
    // No MsTargetFrameTime in a PresentMon file: the median of its 60 frame times (20 each of
    // 16.0, 16.6666 and 17.3334) is the target.
    EXPECT_EQ(s.target_period(), std::chrono::nanoseconds(16'666'600));

    // Played: the rest of the file at its own pace (1 s of frames), then it pauses at the end.
    s.set_replay_playing(true);
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (s.replay_playing() && std::chrono::steady_clock::now() < give_up) s.begin_frame();
    EXPECT_EQ(s.replay_position(), 60u);
    m = s.stats().summarize();
    EXPECT_EQ(m.frames, 60u);
    EXPECT_NEAR(m.avg_fps, 60.0, 1e-9);  // 60 frames in exactly 1000 ms

    s.stop_replay();
    EXPECT_FALSE(s.replaying());
    EXPECT_EQ(s.target_period(), s.pacer().status().period);
    EXPECT_EQ(s.stats().summarize().frames, 0u);
}

namespace {

// A swap that records what it is asked, for the report path.
class RecordingSwap final : public Swap {
public:
    bool refuse = false;
    std::vector<int> intervals;
    int swaps = 0;
    bool set_interval(int interval, std::string* why) override {
        intervals.push_back(interval);
        if (refuse) *why = "refused by the test";
        return !refuse;
    }
    void swap() override { ++swaps; }
};

}  // namespace

TEST(FakeVsync, BlocksUntilTicksOfItsClockAndNeverEarly) {
    RecordingSwap inner;
    FakeVsync fake(100.0, &inner);  // ticks every 10 ms from now
    std::string why;
    ASSERT_TRUE(fake.set_interval(1, &why));
    EXPECT_EQ(inner.intervals, std::vector<int>{0});  // only the fake clock blocks
    pacer::TimeSource& os = pacer::system_time_source();
    const std::int64_t before = pacer::clock::to_ns(os.now());
    for (int i = 0; i < 5; ++i) fake.swap();
    // Each swap ends on a later tick than the one before: five swaps span at least four periods
    // after the first tick, which is after `before`.
    EXPECT_GT(pacer::clock::to_ns(os.now()) - before, 40'000'000);
    EXPECT_EQ(inner.swaps, 5);
    ASSERT_TRUE(fake.set_interval(2, &why));
    const std::int64_t t2 = pacer::clock::to_ns(os.now());
    fake.swap();
    fake.swap();  // at least two ticks after the previous one
    EXPECT_GT(pacer::clock::to_ns(os.now()) - t2, 20'000'000);
    EXPECT_EQ(inner.intervals, std::vector<int>{0});  // told once
    ASSERT_TRUE(fake.set_interval(0, &why));  // vsync off: never waits for a tick
    const std::int64_t t0 = pacer::clock::to_ns(os.now());
    for (int i = 0; i < 100; ++i) fake.swap();
    EXPECT_LT(pacer::clock::to_ns(os.now()) - t0, 500'000'000);  // 100 ticks would be a whole second
}

TEST(Presenter, AsksForThePacersIntervalAndReportsEverySwap) {
    pacer::PacerConfig c;
    c.target_hz = 60;
    c.mode = pacer::WaitMode::vsync;
    pacer::FramePacer fp(c);
    RecordingSwap swap;
    Presenter p;
    p.refresh_hz = 60;
    p.present(swap, fp, fp.config().mode, false);
    EXPECT_EQ(swap.intervals, std::vector<int>{1});  // vsync mode at the refresh rate: interval 1
    EXPECT_EQ(p.in_effect, 1);
    p.present(swap, fp, fp.config().mode, false);
    EXPECT_EQ(swap.intervals.size(), 1u);  // asked again only when the wish changes
    EXPECT_EQ(swap.swaps, 2);
    EXPECT_EQ(fp.status().vsync.refresh_hz, 60.0);  // the reports reached the pacer

    // Hybrid mode: the user's checkbox decides; a refusal is remembered as -1.
    pacer::PacerConfig hybrid = fp.config();
    hybrid.mode = pacer::WaitMode::hybrid;
    ASSERT_TRUE(fp.set_config(hybrid).ok());
    RecordingSwap refusing;
    refusing.refuse = true;
    Presenter q;
    q.present(refusing, fp, fp.config().mode, true);
    EXPECT_EQ(refusing.intervals, std::vector<int>{1});
    EXPECT_EQ(q.in_effect, -1);
}

TEST(DemoOptions, DisplayLockMatchDisplayAndCadence) {
    Options o;
    ASSERT_FALSE(parse({}, &o).exit);
    EXPECT_TRUE(o.display_lock);  // the library's defaults
    EXPECT_FALSE(o.match_display);
    EXPECT_EQ(o.cadence, pacer::CadenceMode::fixed);
    ASSERT_FALSE(parse({"--display-lock", "off", "--match-display", "--cadence", "auto"}, &o).exit);
    EXPECT_FALSE(o.display_lock);
    EXPECT_TRUE(o.match_display);
    EXPECT_EQ(o.cadence, pacer::CadenceMode::automatic);
    for (const std::vector<const char*>& args : std::vector<std::vector<const char*>>{
             {"--display-lock", "yes"}, {"--display-lock"}, {"--cadence", "30"}, {"--cadence", "Auto"},
             {"--match-display=1"}}) {
        const ParseResult r = parse(args, &o);
        EXPECT_TRUE(r.exit) << args[0];
        EXPECT_EQ(r.exit_code, 2) << args[0];
        const std::string name = std::string(args[0]).substr(0, std::string(args[0]).find('='));
        EXPECT_NE(r.message.find(name), std::string::npos) << r.message;
    }
}

TEST(Session, DisplaySettingsReachThePacer) {
    Options o = idle_at(500);
    o.display_lock = false;
    o.match_display = true;
    o.cadence = pacer::CadenceMode::automatic;
    Session s(o);
    EXPECT_FALSE(s.pacer().config().display_lock);
    EXPECT_TRUE(s.pacer().config().match_display);
    EXPECT_EQ(s.pacer().config().cadence, pacer::CadenceMode::automatic);
    EXPECT_TRUE(s.set_display_lock(true).ok());
    EXPECT_TRUE(s.set_match_display(false).ok());
    EXPECT_TRUE(s.set_cadence(pacer::CadenceMode::fixed).ok());
    EXPECT_TRUE(s.pacer().config().display_lock);
    EXPECT_FALSE(s.pacer().config().match_display);
    EXPECT_EQ(s.pacer().config().cadence, pacer::CadenceMode::fixed);
    EXPECT_FALSE(s.set_cadence(static_cast<pacer::CadenceMode>(7)).ok());  // refused, kept
    EXPECT_EQ(s.pacer().config().cadence, pacer::CadenceMode::fixed);
    // No present reported: nothing predicted, nothing plotted, no phase figures.
    for (int i = 0; i < 5; ++i) s.begin_frame();
    s.note_present(s.pacer().now());
    s.refresh(false);
    const bool locked = s.pacer().status().display.state == pacer::DisplayState::locked;
    EXPECT_EQ(s.vblank_offset_ms.count, locked ? 1u : 0u);
    if (!locked) {
        EXPECT_LT(s.phase_p50_ms(), 0.0);
    }
}

TEST(VblankOffset, NearestVblankOfTheGrid) {
    // Vblanks at 1'000'000 and 17'666'667 (period 16'666'667).
    EXPECT_EQ(vblank_offset_ns(1'000'120, 17'666'667, 16'666'667), 120);         // 0.12 ms after one
    EXPECT_EQ(vblank_offset_ns(17'666'000, 17'666'667, 16'666'667), -667);       // just before the next
    EXPECT_EQ(vblank_offset_ns(9'333'333, 17'666'667, 16'666'667), 8'333'333);   // halfway: the earlier one
    EXPECT_EQ(vblank_offset_ns(9'333'334, 17'666'667, 16'666'667), -8'333'333);  // past halfway: the next
    EXPECT_EQ(vblank_offset_ns(1'000'000, 17'666'667, 16'666'667), 0);
    // Any vblank of the grid gives the same offsets: one far after, one before.
    EXPECT_EQ(vblank_offset_ns(1'000'120, 17'666'667 + 10 * 16'666'667, 16'666'667), 120);
    EXPECT_EQ(vblank_offset_ns(17'666'000, 1'000'000 - 3 * 16'666'667, 16'666'667), -667);
}

// Shown late is a share only where something says when frames were shown: presentation feedback,
// or a swap that waits for vblank. A software swap's return under Xvfb says nothing: unknown.
TEST(ShownLate, UnknownWithoutFeedbackOrASwapThatWaits) {
    pacer::StatsSummary m;
    EXPECT_EQ(shown_late_text(m, true, pacer::SyncMode::frame_start), "") << "no frame with a latency";
    m.latency_frames = 90;
    m.shown_late = 28;
    EXPECT_FALSE(shown_late_known(m, false));
    EXPECT_EQ(shown_late_text(m, false, pacer::SyncMode::frame_start), "Shown late  unknown (no presentation feedback)");
    EXPECT_TRUE(shown_late_known(m, true));
    EXPECT_EQ(shown_late_text(m, true, pacer::SyncMode::frame_start), "Shown late  31.11 % of 90 frames (sync frame_start)");
    m.present_feedback = true;
    EXPECT_TRUE(shown_late_known(m, false));
    EXPECT_EQ(shown_late_text(m, false, pacer::SyncMode::just_in_time),
              "Shown late  31.11 % of 90 frames (sync just_in_time)");
}

// The frames' own cost against the period: said when it is longer, with the swap's part.
TEST(Overrun, SaysWhatAFrameCostsAgainstThePeriod) {
    pacer::StatsSummary m;
    EXPECT_EQ(overrun_text(m, 144.0, false, 10.3), "") << "no frames";
    m.frames = 400;
    m.interval.mean = 15'400'000ns;  // 65 fps
    m.work_share = 0.98;             // 15.09 ms of the loop's own work a frame
    EXPECT_EQ(overrun_text(m, 144.0, false, 10.31), "cannot hold 144 Hz: a frame costs 15.09 ms (swap 10.31 ms) > 6.94 ms period");
    EXPECT_EQ(overrun_text(m, 144.0, false, -1), "cannot hold 144 Hz: a frame costs 15.09 ms > 6.94 ms period");
    EXPECT_EQ(overrun_text(m, 60.0, false, 10.31), "") << "15.09 ms fits in 16.67 ms";
    EXPECT_EQ(overrun_text(m, 144.0, true, 10.31), "") << "a swap that waits for vblank: its time is the wait";
}

// A live session whose work (a busy spin) is longer than the period: every real clock gives a frame
// cost of at least that work.
TEST(Overrun, ASessionWhoseWorkExceedsThePeriod) {
    Options o = idle_at(500.0);
    o.work_ms = 5;
    Session s(o);
    for (int i = 0; i < 20; ++i) {
        s.begin_frame();
        s.simulate();
        s.do_work();
    }
    s.refresh(false);
    const std::string why = overrun_text(s.summary(), s.pacer().status().rate.hz, false, -1);
    EXPECT_EQ(why.rfind("cannot hold 500 Hz: a frame costs ", 0), 0u) << why;
    EXPECT_NE(why.find(" ms > 2.00 ms period"), std::string::npos) << why;
}
