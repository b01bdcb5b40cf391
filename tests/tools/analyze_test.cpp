// The capture reader and `analyze`: round trip with the writer, hand-computed metrics, PresentMon
// and MangoHud files written by hand, bad input, and a deterministic mutation test of the reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <new>
#include <regex>
#include <string>
#include <vector>

#include "analyze.hpp"
#include "capture_reader.hpp"
#include "mutate.hpp"
#include "pacer/pacer.hpp"
#include "temp_dir.hpp"

using namespace std::chrono_literals;

namespace {

namespace fs = std::filesystem;
using pacer::tools::Analysis;
using pacer::tools::AnalyzeOptions;
using pacer::tools::CaptureFormat;
using pacer::tools::CaptureReader;
using pacer::tools::FrameRecord;

using pacer_test::temp_path;

std::string write_file(const std::string& name, const std::string& text) {
    const std::string p = temp_path(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

pacer::Status analyze_text(const std::string& text, Analysis& a, const AnalyzeOptions& o = {}) {
    CaptureReader r;
    if (pacer::Status st = r.open_memory(text, "mem.csv"); !st) return st;
    return pacer::tools::analyze_reader(r, o, a);
}

std::string classic_header() {
    return "Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,AllowsTearing,PresentMode,"
           "Dropped,TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,MsUntilRenderComplete,"
           "MsUntilDisplayed\n";
}

// A PresentMon 1.x style file with the given frame times.
std::string classic_file(const std::vector<double>& ft, const char* app = "game.exe") {
    std::string s = classic_header();
    double t = 0;
    char line[256];
    for (double f : ft) {
        t += f / 1000;
        std::snprintf(line, sizeof line, "%s,1234,0x1F2E3D4C,DXGI,1,0,0,Hardware: Independent Flip,0,%.6f,%.4f,%.4f,0.25,1.5,20.0\n",
                      app, t, f, f);
        s += line;
    }
    return s;
}

// ---- round trip ----------------------------------------------------------------------------

TEST(RoundTrip, EveryValueWrittenIsReadBack) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 40us, .preempt_probability = 0.03});
    pacer::FramePacer fp({.target_hz = 144.0}, &os);
    const std::string path = temp_path("roundtrip.csv");
    pacer::CaptureWriter cap;
    pacer::CaptureOptions co;
    co.application = "roundtrip";
    ASSERT_TRUE(cap.open(path, co).ok());
    std::vector<pacer::FrameTiming> written;
    for (int i = 0; i < 3000; ++i) {
        os.advance(std::chrono::nanoseconds(1'500'000 + (i % 13) * 300'000 + (i % 500 == 7 ? 20'000'000 : 0)));
        if (i == 1500) {
            pacer::PacerConfig c = fp.config();
            c.mode = pacer::WaitMode::spin;
            (void)fp.set_config(c);
        }
        if (i == 2000) (void)fp.set_target_hz(60.0);
        written.push_back(fp.wait());
        cap.add(written.back());
    }
    ASSERT_TRUE(cap.close().ok());

    CaptureReader r;
    ASSERT_TRUE(r.open(path).ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::pacer);
    // A row per frame with a frame time: all but the first (interval 0, not written).
    std::vector<pacer::FrameTiming> rows;
    for (const auto& t : written)
        if (t.interval.count() > 0) rows.push_back(t);
    ASSERT_EQ(rows.size(), written.size() - 1);
    const auto wakes_col = std::find(r.columns().begin(), r.columns().end(), "MsBetweenWakes") - r.columns().begin();
    ASSERT_LT(static_cast<std::size_t>(wakes_col), r.columns().size());
    FrameRecord f;
    std::size_t i = 0;
    const auto t0 = written[0].wake;
    auto ns = [](double ms) { return static_cast<std::int64_t>(std::llround(ms * 1e6)); };
    while (r.next(f)) {
        ASSERT_LT(i, rows.size());
        const pacer::FrameTiming& t = rows[i];
        SCOPED_TRACE("row " + std::to_string(i));
        EXPECT_EQ(f.application, "roundtrip");
        EXPECT_EQ(static_cast<std::uint64_t>(f.frame_index), t.index);
        EXPECT_EQ(static_cast<std::int64_t>(std::llround(f.time_s * 1e9)), (t.wake - t0).count());
        EXPECT_EQ(ns(f.frame_ms), t.interval.count());  // no presents: wake to wake
        EXPECT_EQ(ns(f.busy_ms), t.work.count());
        EXPECT_EQ(ns(f.wait_ms), (t.interval - t.work).count());
        const std::string wakes(r.fields()[static_cast<std::size_t>(wakes_col)]);
        EXPECT_EQ(ns(std::stod(wakes)), t.interval.count());
        EXPECT_EQ(ns(f.target_ms), t.period.count());
        EXPECT_EQ(ns(f.lateness_ms), t.lateness.count());
        EXPECT_EQ(ns(f.sleep_ms), t.slept.count());
        EXPECT_EQ(ns(f.spin_ms), t.spun.count());
        EXPECT_EQ(ns(f.oversleep_ms), t.oversleep.count());
        EXPECT_EQ(ns(f.margin_ms), t.margin.count());
        EXPECT_EQ(static_cast<std::uint32_t>(f.skipped), t.skipped);
        EXPECT_EQ(f.missed != 0, t.missed);
        EXPECT_EQ(f.wait_mode, pacer::to_string(t.mode));
        EXPECT_EQ(f.pacing_source, pacer::to_string(t.source));
        EXPECT_TRUE(std::isnan(f.display_change_ms));
        EXPECT_TRUE(std::isnan(f.dropped));
        ++i;
    }
    EXPECT_TRUE(r.error().ok()) << r.error().message();
    EXPECT_EQ(i, rows.size());

    // The summary agrees with the frames it came from.
    Analysis a;
    ASSERT_TRUE(pacer::tools::analyze_file(path, {}, a).ok());
    EXPECT_EQ(a.frames, rows.size());
    EXPECT_EQ(a.na_rows, 0u);
    std::int64_t sum = 0;
    std::uint64_t missed = 0;
    for (const auto& t : written) {
        sum += t.interval.count();
        missed += t.missed;
    }
    EXPECT_NEAR(a.avg_fps, 1e9 * static_cast<double>(a.frames) / static_cast<double>(sum), 1e-6);
    EXPECT_TRUE(a.has_target);
    EXPECT_TRUE(a.has_lateness);
    EXPECT_EQ(a.missed, missed - (written[0].missed ? 1 : 0));
}

// A host that marks its input and reports when each frame was displayed: MsPCLatency holds each
// frame's input-to-display time, the reader reads it as PC latency and analyze gives its
// percentiles.
TEST(RoundTrip, LatencyIsWrittenPerFrameAndAnalyzed) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 40us, .preempt_probability = 0.0});
    pacer::FramePacer fp({.target_hz = 100.0}, &os);
    const std::string path = temp_path("latency_roundtrip.csv");
    pacer::CaptureWriter cap;
    ASSERT_TRUE(cap.open(path).ok());
    const int n = 997;
    std::vector<std::int64_t> want(n);  // frame i's input to display, ns
    for (int i = 0; i < n; ++i) {
        const pacer::FrameTiming t = fp.wait();
        os.advance(1ms);
        fp.mark_input();
        const std::int64_t input = pacer::clock::to_ns(os.now());
        os.advance(3ms);  // the work
        fp.before_present();
        pacer::PresentInfo p{fp.now(), {}, 0, 0, true, {}};
        os.advance(500us);  // the swap call
        p.end = fp.now();
        const std::int64_t shown = pacer::clock::to_ns(p.end) + (2 + i % 5) * 1'000'000;
        p.displayed = pacer::clock::from_ns(shown);
        want[static_cast<std::size_t>(i)] = shown - input;  // 5.5, 6.5, 7.5, 8.5, 9.5 ms
        fp.report_present(p);
        pacer::CaptureExtras x;
        x.present = p;
        cap.add(t, x);
    }
    ASSERT_TRUE(cap.close().ok());

    CaptureReader r;
    ASSERT_TRUE(r.open(path).ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::pacer);
    FrameRecord f;
    std::size_t rows = 0;
    while (r.next(f)) {
        const auto i = static_cast<std::size_t>(f.frame_index);  // frames 1 .. n-1: frame 0's present has no previous
        ASSERT_EQ(i, rows + 1);
        if (i + 1 < static_cast<std::size_t>(n)) {
            EXPECT_EQ(std::llround(f.pc_latency_ms * 1e6), want[i]) << "frame " << i;
        } else {
            EXPECT_TRUE(std::isnan(f.pc_latency_ms));  // the last frame's latency never came
        }
        ++rows;
    }
    EXPECT_TRUE(r.error().ok()) << r.error().message();
    EXPECT_EQ(rows, static_cast<std::size_t>(n - 1));

    // 995 figures, 199 of each of 5.5 .. 9.5 ms: p50 (sorted[497]) 7.5 ms, p99 (sorted[984.06]) 9.5.
    Analysis a;
    ASSERT_TRUE(pacer::tools::analyze_file(path, {}, a).ok());
    EXPECT_TRUE(a.has_pc_latency);
    EXPECT_NEAR(a.pc_latency_p50_ms, 7.5, 1e-9);
    EXPECT_NEAR(a.pc_latency_p99_ms, 9.5, 1e-9);
}

// No present reported, no latency: a loop that marks its input and calls before_present() but
// never reports a present (a headless loop) writes MsPCLatency NA in every row and in the
// sidecar, and analyze prints no PC latency for it.
TEST(RoundTrip, NoPresentsNoLatency) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 40us, .preempt_probability = 0.0});
    pacer::FramePacer fp({.target_hz = 100.0}, &os);
    const std::string path = temp_path("no_presents.csv");
    pacer::CaptureWriter cap;
    ASSERT_TRUE(cap.open(path).ok());
    for (int i = 0; i < 200; ++i) {
        const pacer::FrameTiming t = fp.wait();
        EXPECT_EQ(t.latency, 0ns) << "frame " << i;
        EXPECT_FALSE(t.shown_late) << "frame " << i;
        os.advance(1ms);
        fp.mark_input();
        os.advance(3ms);  // the work
        fp.before_present();
        cap.add(t);
    }
    ASSERT_TRUE(cap.close().ok());

    CaptureReader r;
    ASSERT_TRUE(r.open(path).ok()) << r.error().message();
    FrameRecord f;
    std::size_t rows = 0;
    while (r.next(f)) {
        EXPECT_TRUE(std::isnan(f.pc_latency_ms)) << "line " << f.line << ": " << f.pc_latency_ms;
        ++rows;
    }
    EXPECT_TRUE(r.error().ok()) << r.error().message();
    EXPECT_EQ(rows, 199u);
    std::ifstream sidecar(pacer::CaptureWriter::stats_path(path));
    const std::string kv((std::istreambuf_iterator<char>(sidecar)), std::istreambuf_iterator<char>());
    EXPECT_NE(kv.find("\nWindowLatencyFrames,0\nWindowMsPCLatencyP50,NA\n"), std::string::npos) << kv;

    pacer::tools::FileAnalysis fa;
    ASSERT_TRUE(pacer::tools::analyze_file(path, {}, fa).ok());
    ASSERT_EQ(fa.analyses.size(), 1u);
    EXPECT_FALSE(fa.analyses[0].has_pc_latency);
    const std::string text = pacer::tools::format_text(fa.analyses);
    EXPECT_NE(text.find("average FPS"), std::string::npos) << text;
    EXPECT_EQ(text.find("PC latency"), std::string::npos) << text;
    EXPECT_NE(pacer::tools::format_json(fa.analyses).find("\"latency_ms\": null"), std::string::npos);
}

// ---- FrameRecord ---------------------------------------------------------------------------

TEST(FrameRecord, DefaultConstructedIsLineZeroAndNothingMeasured) {
    // Default-initialised over bytes that are not a NaN pattern, as `FrameRecord f;` is over
    // whatever the stack held: a member without an initializer would keep the 0x11 bytes.
    alignas(FrameRecord) unsigned char raw[sizeof(FrameRecord)];
    std::memset(raw, 0x11, sizeof raw);
    const FrameRecord* f = new (raw) FrameRecord;
    EXPECT_EQ(f->line, 0u);
    for (double v : {f->time_s, f->frame_ms, f->busy_ms, f->wait_ms, f->display_change_ms,
                     f->in_present_ms, f->until_render_complete_ms, f->until_displayed_ms, f->dropped,
                     f->frame_index, f->target_ms, f->lateness_ms, f->sleep_ms, f->spin_ms,
                     f->oversleep_ms, f->margin_ms, f->skipped, f->missed, f->sync_interval, f->fps})
        EXPECT_TRUE(std::isnan(v)) << v;
    EXPECT_TRUE(f->application.empty());
    EXPECT_TRUE(f->wait_mode.empty());
    EXPECT_TRUE(f->pacing_source.empty());
    f->~FrameRecord();
}

// ---- metrics against hand computation ------------------------------------------------------

TEST(Metrics, NineFastFramesAndOneSlow) {
    // 9 x 10 ms + 1 x 100 ms. Sum 190 ms, mean 19, stddev sqrt((9*81 + 81^2)/10) = 27.
    // Q(p) at h = 9p: Q(0.99) = 10 + 0.91 * 90 = 91.9, Q(0.999) = 10 + 0.991 * 90 = 99.19.
    Analysis a;
    AnalyzeOptions o;
    o.target_ms = 10;
    o.refresh_hz = 100;
    o.stutter_window = 9;  // the slow frame gets a verdict: 9 frames precede it
    ASSERT_TRUE(analyze_text(classic_file({10, 10, 10, 10, 10, 10, 10, 10, 10, 100}), a, o).ok());
    EXPECT_EQ(a.format, "PresentMon 1.x");
    EXPECT_EQ(a.frames, 10u);
    EXPECT_NEAR(a.avg_fps, 10000.0 / 190.0, 1e-9);
    EXPECT_NEAR(a.mean_ms, 19, 1e-9);
    EXPECT_NEAR(a.stddev_ms, 27, 1e-9);
    EXPECT_NEAR(a.p50_ms, 10, 1e-9);
    EXPECT_NEAR(a.p99_ms, 91.9, 1e-9);
    EXPECT_NEAR(a.p999_ms, 99.19, 1e-9);
    EXPECT_NEAR(a.p1_fps, 1000 / 91.9, 1e-9);
    EXPECT_NEAR(a.p01_fps, 1000 / 99.19, 1e-9);
    EXPECT_NEAR(a.low1_avg_fps, 10, 1e-9);       // mean of {100}
    EXPECT_NEAR(a.low1_integral_fps, 10, 1e-9);  // 100 ms alone covers 1 % of 190 ms
    // Against a 10 ms target: errors 0 x 9 and 90.
    EXPECT_NEAR(a.bias_ms, 9, 1e-9);
    EXPECT_NEAR(a.rms_ms, std::sqrt(810.0), 1e-9);
    EXPECT_NEAR(a.abs_err_p99_ms, 0.91 * 90, 1e-9);
    EXPECT_NEAR(a.within_05ms, 0.9, 1e-12);
    EXPECT_NEAR(a.off_100us_share, 0.1, 1e-12);
    // Jitter: |diffs| = 0 x 8, 90.
    EXPECT_NEAR(a.jitter_mean_ms, 10, 1e-9);
    EXPECT_NEAR(a.jitter_max_ms, 90, 1e-9);
    // 100 > 2.5 x 10 (stutter); > 60 ms and >= 1.5 x 10 (hitch).
    EXPECT_EQ(a.stutters, 1u);
    EXPECT_NEAR(a.stutter_time_share, 100.0 / 190.0, 1e-12);
    EXPECT_EQ(a.hitches, 1u);
    // Refresh 10 ms: 10 ms -> bucket 1, 100 ms -> bucket 5 (clamped).
    EXPECT_EQ(a.interval_hist[1], 9u);
    EXPECT_EQ(a.interval_hist[5], 1u);
    EXPECT_FALSE(a.has_lateness);
    EXPECT_FALSE(a.has_missed);
}

TEST(Metrics, AverageAndIntegralLowsDiffer) {
    // 990 x 12 ms and 20, 30, ..., 110 ms. Total 11880 + 650 = 12530 ms.
    // Integral 1 %: 125.3 ms of the longest: 110 + 100 >= 125.3 -> 1000 / 100 = 10 FPS.
    // Average 1 %: Q(0.99) at h = 989.01 = 12 + 0.01 * 8 = 12.08; mean{20..110} = 65 -> 15.3846 FPS.
    // 0.1 %: integral 12.53 ms -> 110 -> 9.0909; average Q(0.999) = 100.01 -> mean{110} -> 9.0909.
    std::vector<double> ft(990, 12.0);
    for (int k = 2; k <= 11; ++k) ft.push_back(10.0 * k);
    Analysis a;
    ASSERT_TRUE(analyze_text(classic_file(ft), a).ok());
    EXPECT_NEAR(a.low1_integral_fps, 10.0, 1e-9);
    EXPECT_NEAR(a.low1_avg_fps, 1000.0 / 65.0, 1e-9);
    EXPECT_NEAR(a.low01_integral_fps, 1000.0 / 110.0, 1e-9);
    EXPECT_NEAR(a.low01_avg_fps, 1000.0 / 110.0, 1e-9);
    EXPECT_NEAR(a.p99_ms, 12.08, 1e-9);
    EXPECT_EQ(a.hitches, 0u);  // 70..110 ms follow 60..100 ms: never 1.5 x the previous frame
}

TEST(Metrics, HitchNeedsSixtyMsAndOnePointFiveTimesThePrevious) {
    Analysis a;
    // 61 after 40 (hitch), 70 after 61 (not 1.5x), 59 after 10 (not > 60), 100 after 59 (hitch).
    ASSERT_TRUE(analyze_text(classic_file({40, 61, 70, 10, 59, 100}), a).ok());
    EXPECT_EQ(a.hitches, 2u);
}

TEST(Metrics, StutterUsesTheMovingAverage) {
    // Window 4: frame 5 (30 ms) against mean(10,10,10,10) = 10 -> 30 > 25: stutter.
    // Frame 6 (24 ms) against mean(10,10,10,30) = 15 -> 24 < 37.5: none.
    Analysis a;
    AnalyzeOptions o;
    o.stutter_window = 4;
    ASSERT_TRUE(analyze_text(classic_file({10, 10, 10, 10, 30, 24}), a, o).ok());
    EXPECT_EQ(a.stutters, 1u);
}

TEST(Metrics, StutterNeedsAFullWindowBeforeTheFrame) {
    // Default window 20: the spike at frame 6 has 5 frames before it (no verdict); the one at
    // frame 21 has 20: mean (19 x 10 + 100) / 20 = 14.5 -> 100 > 36.25.
    std::vector<double> ft(20, 10.0);
    ft[5] = 100;
    ft.push_back(100);
    Analysis a;
    ASSERT_TRUE(analyze_text(classic_file(ft), a).ok());
    EXPECT_EQ(a.stutters, 1u);
    EXPECT_NEAR(a.stutter_time_share, 100.0 / 390.0, 1e-12);
}

TEST(Metrics, AnalyzeAndFrameStatsCountTheSameStutters) {
    // Frame times with spikes everywhere, one among the first frames too.
    std::vector<std::int64_t> ns;
    std::uint64_t x = 0x2545F4914F6CDD1DULL;
    for (int i = 0; i < 3000; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        const std::int64_t v = 6'000'000 + static_cast<std::int64_t>(x % 3'000'000);
        ns.push_back(x % 41 == 0 ? v * (2 + static_cast<std::int64_t>(x % 5)) : v);
    }
    ns.insert(ns.begin() + 3, 60'000'000);
    pacer::FrameStats stats(4096);
    std::vector<double> ft;
    for (std::int64_t v : ns) {
        pacer::FrameTiming t;
        t.interval = std::chrono::nanoseconds(v);
        stats.add(t);
        ft.push_back(static_cast<double>(v) * 1e-6);  // the ms value FrameStats judges
    }
    Analysis a;
    pacer::tools::compute(ft, {}, {}, {}, a);
    const pacer::StatsSummary s = stats.summarize();
    EXPECT_GT(a.stutters, 10u);
    EXPECT_EQ(s.stutters_total, a.stutters);
    EXPECT_EQ(s.stutters, a.stutters);  // the window holds every frame
}

TEST(Metrics, LatenessHistogramInRefreshPeriods) {
    std::string s = pacer::CaptureWriter::header() + "\n";
    // Lateness 0.1, 7, 15, 40 ms against 6.944 ms target -> buckets 0, 1, 2, 5.
    const double late[] = {0.1, 7, 15, 40};
    for (int i = 0; i < 4; ++i) {
        char l[512];
        std::snprintf(l, sizeof l, "app,1,NA,Other,NA,NA,NA,Unknown,NA,%d.0,7.0,NA,NA,NA,NA,%d,1.0,6.0,hybrid,6.944444,%.3f,5.0,0.5,0.1,0.2,0,1,hybrid,7.0,frame_start,1,144.000,fixed,6.944444,0,NA\n",
                      i, i, late[i]);
        s += l;
    }
    Analysis a;
    ASSERT_TRUE(analyze_text(s, a).ok());
    EXPECT_EQ(a.format, "pacer");
    EXPECT_TRUE(a.has_lateness);
    EXPECT_NEAR(a.refresh_ms, 6.944444, 1e-9);
    EXPECT_EQ(a.lateness_hist[0], 1u);
    EXPECT_EQ(a.lateness_hist[1], 1u);
    EXPECT_EQ(a.lateness_hist[2], 1u);
    EXPECT_EQ(a.lateness_hist[5], 1u);
    EXPECT_EQ(a.missed, 4u);
}

// True when the text table has the row `label` whose (only) cell is `cell`.
bool has_row(const std::string& text, const std::string& label, const std::string& cell) {
    for (std::size_t pos = text.find(label); pos != std::string::npos; pos = text.find(label, pos + 1)) {
        if (pos > 0 && text[pos - 1] != '\n') continue;
        const std::size_t end = text.find('\n', pos);
        std::string rest = text.substr(pos + label.size(), end - pos - label.size());
        rest.erase(0, rest.find_first_not_of(' '));
        if (rest == cell) return true;
    }
    return false;
}

// ---- definitions: PresentMon's and CapFrameX's ------------------------------------------------

TEST(Definitions, QuantileR8IsMathNetsStatisticsQuantile) {
    // R type 8: h = (N + 1/3) p + 1/3, 1-based. {1, 2, 3, 4}:
    // p 0.5: h = 4.333 x 0.5 + 0.333 = 2.5 -> 2 + 0.5 x 1 = 2.5;
    // p 0.25: h = 1.0833 + 0.3333 = 1.41667 -> 1.41667 (R: quantile(1:4, 0.25, type = 8));
    // p 0.1: h = 0.7667 < 1 -> x1 = 1; p 0.9: h = 4.2333 >= N -> x4 = 4.
    const std::vector<double> s = {1, 2, 3, 4};
    EXPECT_NEAR(pacer::tools::quantile_r8(s, 0.5), 2.5, 1e-12);
    EXPECT_NEAR(pacer::tools::quantile_r8(s, 0.25), 1.0 + 5.0 / 12.0, 1e-12);
    EXPECT_DOUBLE_EQ(pacer::tools::quantile_r8(s, 0.1), 1.0);
    EXPECT_DOUBLE_EQ(pacer::tools::quantile_r8(s, 0.9), 4.0);
    EXPECT_DOUBLE_EQ(pacer::tools::quantile_r8({}, 0.5), 0.0);
}

TEST(Definitions, CapFrameXQuantilesAndP1OnFpsValues) {
    // 98 x 10 ms, one 20 ms, one 40 ms (N = 100, sum 1040 ms).
    // capframex: p99 ms = Q8(0.99) of the frame times: h = (100 + 1/3) 0.99 + 1/3 = 99.66333 ->
    //   x99 + 0.66333 (x100 - x99) = 20 + 0.66333 x 20 = 33.2667 (199/300 x 20 + 20);
    //   P1 FPS = Q8(0.01) of the FPS values (25, 50, 100 x 98 ascending): h = 1.003333 + 0.333333
    //   = 1.336667 -> 25 + 0.336667 x (50 - 25) = 33.41667 (10025 / 300), not 1000 / 33.27 = 30.06;
    //   P0.1 FPS: h = 0.100333 + 0.333333 < 1 -> the smallest FPS value, 25;
    //   p50: h = 50.5 -> 10; 1 % low (average): frames >= 33.27 = {40} -> 25 FPS.
    // presentmon: Q(0.99) at h = 99 x 0.99 = 98.01 (0-based) -> 20 + 0.01 x 20 = 20.2 -> P1 = 49.505.
    std::vector<double> ft(98, 10.0);
    ft.push_back(40);
    ft.push_back(20);
    Analysis pm, cfx;
    AnalyzeOptions o;
    pacer::tools::compute(ft, {}, {}, o, pm);
    o.definitions = pacer::tools::Definitions::capframex;
    pacer::tools::compute(ft, {}, {}, o, cfx);
    EXPECT_NEAR(pm.p99_ms, 20.2, 1e-9);
    EXPECT_NEAR(pm.p1_fps, 1000 / 20.2, 1e-9);
    EXPECT_NEAR(cfx.p99_ms, 20 + 20 * 199.0 / 300.0, 1e-9);
    EXPECT_NEAR(cfx.p1_fps, 10025.0 / 300.0, 1e-9);
    EXPECT_NEAR(cfx.p01_fps, 25.0, 1e-9);
    EXPECT_NEAR(cfx.p50_ms, 10.0, 1e-9);
    EXPECT_NEAR(cfx.low1_avg_fps, 25.0, 1e-9);
    EXPECT_NEAR(cfx.avg_fps, 100000.0 / 1040.0, 1e-9);  // the same in both
    EXPECT_NEAR(cfx.low1_integral_fps, pm.low1_integral_fps, 1e-12);
    EXPECT_EQ(cfx.definitions, pacer::tools::Definitions::capframex);
}

TEST(Definitions, OneLongFrameMovesTheCapFrameXPointOnePercentMost) {
    // 999 x 10 ms and one 100 ms frame. presentmon: Q(0.999) at h = 999 x 0.999 = 998.001 ->
    // 10 + 0.001 x 90 = 10.09 ms -> P0.1 = 99.108 FPS. capframex: FPS values 10, 100 x 999;
    // Q8(0.001): h = 1000.3333 x 0.001 + 0.3333 = 1.3336667 -> 10 + 0.3336667 x 90 = 40.03 FPS;
    // p99.9 ms: h = 1000.3333 x 0.999 + 0.3333 = 999.666333 -> 10 + 0.666333 x 90 = 69.97 ms.
    std::vector<double> ft(999, 10.0);
    ft.insert(ft.begin() + 500, 100.0);
    Analysis pm, cfx;
    AnalyzeOptions o;
    pacer::tools::compute(ft, {}, {}, o, pm);
    o.definitions = pacer::tools::Definitions::capframex;
    pacer::tools::compute(ft, {}, {}, o, cfx);
    EXPECT_NEAR(pm.p01_fps, 1000.0 / 10.09, 1e-9);
    EXPECT_NEAR(cfx.p01_fps, 40.03, 1e-9);
    EXPECT_NEAR(cfx.p999_ms, 69.97, 1e-9);
}

TEST(Definitions, CapFrameXStutterAverageIncludesTheFrameAndStartsAtOnce) {
    // 1, 1, 1, 4, 1, 1, 3, 1 ms: mean 13/8 = 1.625, W = round(10 sqrt(1.625)) = round(12.75) = 13
    // (more than the frames: every average runs from the first frame). v3 = 1 (4 > 3 x 1: the
    // previous frame enters the average instead), v6 = 3 (3 is not > 3 x 1).
    // Frame 3: average (1 + 1 + 1 + 1) / 4 = 1 -> 4 > 2.5: a stutter, with three frames before it.
    // Frame 6: (1 + 1 + 1 + 1 + 1 + 1 + 3) / 7 = 1.286 -> 3 < 3.21: none.
    // presentmon (20 frames before a verdict): none.
    const std::vector<double> ft = {1, 1, 1, 4, 1, 1, 3, 1};
    Analysis pm, cfx;
    AnalyzeOptions o;
    pacer::tools::compute(ft, {}, {}, o, pm);
    o.definitions = pacer::tools::Definitions::capframex;
    pacer::tools::compute(ft, {}, {}, o, cfx);
    EXPECT_EQ(pm.stutters, 0u);
    EXPECT_EQ(cfx.stutters, 1u);
    EXPECT_NEAR(cfx.stutter_time_share, 4.0 / 13.0, 1e-12);
}

TEST(Definitions, CapFrameXStutterWindowAndOutlierSubstitution) {
    // 10 x 0.2 ms, 0.7, 0.55: sum 3.25, mean 0.270833, W = round(10 x 0.52042) = 5.
    // v10 = v9 = 0.2 (0.7 > 3 x 0.2), so frame 10's average is (0.2 x 5) / 5 = 0.2 -> 0.7 > 0.5:
    // a stutter (with 0.7 itself in the average it would be 0.3 and 0.7 < 0.75: none).
    // Frame 11: v11 = 0.55 (not > 2.1); average over v7..v11 = (0.8 + 0.55) / 5 = 0.27 -> 0.55 < 0.675.
    std::vector<double> ft(10, 0.2);
    ft.push_back(0.7);
    ft.push_back(0.55);
    Analysis a;
    AnalyzeOptions o;
    o.definitions = pacer::tools::Definitions::capframex;
    pacer::tools::compute(ft, {}, {}, o, a);
    EXPECT_EQ(a.stutters, 1u);
    EXPECT_NEAR(a.stutter_time_share, 0.7 / 3.25, 1e-12);
}

// ---- displayed frames, CPU / GPU busy, latency ------------------------------------------------

TEST(Displayed, DroppedShareDisplayedFpsAndDisplayPercentiles) {
    // 10 frames of 4 ms (40 ms, 250 FPS), 6 dropped (Dropped = 1, display change 0), 4 displayed
    // with display changes 8, 12, 8, 12 ms. Dropped 60 %; displayed FPS 1000 x 4 / 40 = 100;
    // display times {8, 8, 12, 12}: p50 at h = 1.5 -> 10, p90 at h = 2.7 -> 12.
    std::string s = classic_header();
    const int dropped[] = {0, 1, 1, 0, 1, 1, 0, 1, 1, 0};
    const double shown[] = {8, 0, 0, 12, 0, 0, 8, 0, 0, 12};
    for (int i = 0; i < 10; ++i) {
        char line[256];
        std::snprintf(line, sizeof line, "game.exe,1,0x1,DXGI,0,0,1,Hardware: Independent Flip,%d,%.3f,4.0,%.1f,0.2,1.0,%s\n",
                      dropped[i], 0.004 * (i + 1), shown[i], dropped[i] ? "0" : "20.0");
        s += line;
    }
    Analysis a;
    ASSERT_TRUE(analyze_text(s, a).ok());
    EXPECT_EQ(a.frame_column, "MsBetweenPresents");
    EXPECT_NEAR(a.avg_fps, 250.0, 1e-9);
    ASSERT_TRUE(a.has_displayed);
    EXPECT_EQ(a.dropped, 6u);
    EXPECT_EQ(a.displayed, 4u);
    EXPECT_NEAR(a.dropped_share, 0.6, 1e-12);
    EXPECT_NEAR(a.displayed_fps, 100.0, 1e-9);
    ASSERT_TRUE(a.has_display_times);
    EXPECT_NEAR(a.display_p50_ms, 10.0, 1e-9);
    EXPECT_NEAR(a.display_p90_ms, 12.0, 1e-9);
    const std::string text = pacer::tools::format_text({a});
    EXPECT_TRUE(has_row(text, "dropped frames %", "60.00")) << text;
    EXPECT_TRUE(has_row(text, "frame time column", "MsBetweenPresents")) << text;
    const std::string json = pacer::tools::format_json({a});
    EXPECT_NE(json.find("\"displayed\": {\"displayed\": 4, \"dropped\": 6, \"dropped_share\": 0.6, \"displayed_fps\": 100"),
              std::string::npos) << json;
}

TEST(Displayed, PresentMon2NotDisplayedIsDisplayedTimeNA) {
    // No Dropped column: DisplayedTime NA is a frame that never reached the screen. 4 frames of
    // 10 ms, one NA: dropped 25 %, displayed FPS 1000 x 3 / 40 = 75.
    std::string s =
        "Application,ProcessID,SwapChainAddress,PresentRuntime,SyncInterval,PresentFlags,AllowsTearing,PresentMode,"
        "CPUStartTime,FrameTime,CPUBusy,CPUWait,GPULatency,GPUTime,GPUBusy,GPUWait,DisplayLatency,DisplayedTime\n";
    const char* shown[] = {"10.0", "NA", "20.0", "10.0"};
    for (int i = 0; i < 4; ++i)
        s += std::string("game.exe,1,0x1,DXGI,0,0,1,Hardware: Independent Flip,") + std::to_string(10 * i) +
             ",10.0,6.0,4.0,0.5,5.0,4.8,0.2,20.0," + shown[i] + "\n";
    Analysis a;
    ASSERT_TRUE(analyze_text(s, a).ok());
    EXPECT_EQ(a.frame_column, "FrameTime");
    EXPECT_EQ(a.dropped, 1u);
    EXPECT_EQ(a.displayed, 3u);
    EXPECT_NEAR(a.displayed_fps, 75.0, 1e-9);
    EXPECT_NEAR(a.display_p50_ms, 10.0, 1e-9);  // {10, 10, 20}
}

TEST(Displayed, PacerCaptureHasNoDisplayedFigures) {
    // Dropped and MsBetweenDisplayChange are NA in pacer's own captures: no claim either way.
    std::string s = pacer::CaptureWriter::header() + "\n";
    for (int i = 0; i < 3; ++i)
        s += "app,1,NA,Other,NA,NA,NA,Unknown,NA," + std::to_string(i) +
             ".0,7.0,NA,NA,NA,NA,1,1.0,6.0,hybrid,6.944444,0.1,5.0,0.5,0.1,0.2,0,0,hybrid,7.0,frame_start,1,144.000,fixed,6.944444,0,NA\n";
    Analysis a;
    ASSERT_TRUE(analyze_text(s, a).ok());
    EXPECT_FALSE(a.has_displayed);
    EXPECT_FALSE(a.has_cpu_busy);  // MsCPUBusy is the work time; reported only beside a GPU busy
    EXPECT_EQ(pacer::tools::format_text({a}).find("dropped"), std::string::npos);
}

TEST(Busy, GpuBoundShareMediansAndLatency) {
    // CPU busy 5, 6, 7, 8; GPU busy 6, 6, 4, NA: 3 frames with both, GPU >= CPU in 2 (6 >= 5,
    // 6 >= 6) -> 2/3. Medians: CPU {5, 6, 7, 8} -> 6.5, GPU {4, 6, 6} -> 6.
    // PC latency 10, 20, 30, NA: p50 20, p99 at h = 2 x 0.99 = 1.98 -> 20 + 0.98 x 10 = 29.8.
    const double na = std::nan("");
    pacer::tools::FrameColumns c;
    c.cpu_busy_ms = {5, 6, 7, 8};
    c.gpu_busy_ms = {6, 6, 4, na};
    c.pc_latency_ms = {10, 20, 30, na};
    Analysis a;
    pacer::tools::compute({10, 10, 10, 10}, c, {}, a);
    EXPECT_TRUE(a.has_cpu_busy);
    EXPECT_TRUE(a.has_gpu_busy);
    EXPECT_EQ(a.busy_frames, 3u);
    EXPECT_NEAR(a.gpu_bound_share, 2.0 / 3.0, 1e-12);
    EXPECT_NEAR(a.cpu_busy_p50_ms, 6.5, 1e-12);
    EXPECT_NEAR(a.gpu_busy_p50_ms, 6.0, 1e-12);
    EXPECT_TRUE(a.has_pc_latency);
    EXPECT_NEAR(a.pc_latency_p50_ms, 20.0, 1e-12);
    EXPECT_NEAR(a.pc_latency_p99_ms, 29.8, 1e-9);
    EXPECT_FALSE(a.has_input_latency);
    const std::string text = pacer::tools::format_text({a});
    EXPECT_NE(text.find("GPU busy >= CPU busy % frames"), std::string::npos) << text;
    EXPECT_EQ(text.find("input to photon"), std::string::npos) << text;
}

// ---- sampled logs -----------------------------------------------------------------------------

TEST(Sampled, OnlyFiguresOfAveragedSamples) {
    // 5 samples 0.1 s apart (time 0.1 .. 0.5 s), frame times 10, 20, 10, 20, 10 ms: sampled FPS
    // 100, 50, 100, 50, 100 -> average 80, min 50, max 100; they cover 0.4 s + one interval
    // (0.4 / 4) = 0.5 s, not the 70 ms the frame times add up to.
    pacer::tools::FrameColumns c;
    c.sampled = true;
    c.time_s = {0.1, 0.2, 0.3, 0.4, 0.5};
    Analysis a;
    a.file = "mango.csv";
    pacer::tools::compute({10, 20, 10, 20, 10}, c, {}, a);
    EXPECT_TRUE(a.sampled);
    EXPECT_EQ(a.frames, 5u);
    EXPECT_NEAR(a.duration_s, 0.5, 1e-12);
    EXPECT_NEAR(a.avg_fps, 80.0, 1e-12);
    EXPECT_NEAR(a.sampled_fps_min, 50.0, 1e-12);
    EXPECT_NEAR(a.sampled_fps_max, 100.0, 1e-12);
    EXPECT_EQ(a.stutters, 0u);
    EXPECT_EQ(a.p99_ms, 0.0);  // not computed
    const std::string text = pacer::tools::format_text({a});
    EXPECT_NE(text.find("mango.csv: sampled: 5 samples over 0.5 s"), std::string::npos) << text;
    EXPECT_EQ(text.find("jitter"), std::string::npos) << text;  // no file in the table has one
    // Beside a capture of frames, the frame-level rows say "-" for the sampled log.
    Analysis frames;
    pacer::tools::compute({10, 20}, {}, {}, {}, frames);
    const std::string both = pacer::tools::format_text({a, frames});
    EXPECT_TRUE(std::regex_search(both, std::regex("\njitter mean ms +- +10.000\n"))) << both;
    EXPECT_EQ(text.find("frame-time histogram"), std::string::npos) << text;
    const std::string json = pacer::tools::format_json({a});
    EXPECT_NE(json.find("\"sampled\": true"), std::string::npos) << json;
    EXPECT_NE(json.find("\"samples\": 5"), std::string::npos) << json;
    EXPECT_NE(json.find("\"p1_fps\": null"), std::string::npos) << json;
    EXPECT_NE(json.find("\"sampled_fps\": {\"min\": 50, \"max\": 100}"), std::string::npos) << json;
}

// ---- refresh period and the Swappy histogram --------------------------------------------------

TEST(Refresh, PeriodSaysWhereItCameFrom) {
    Analysis a;
    ASSERT_TRUE(analyze_text(classic_file({10, 20, 30}), a).ok());
    EXPECT_STREQ(a.refresh_source, "60 Hz default");
    EXPECT_NEAR(a.refresh_ms, 1000.0 / 60.0, 1e-12);
    // In refresh periods of 16.667 ms: 10 -> 0.6 and 20 -> 1.2, both in the bin of 1 period
    // [0.5,1.5); 30 -> 1.8, in the bin of 2 [1.5,2.5).
    EXPECT_EQ(a.interval_hist[0], 0u);
    EXPECT_EQ(a.interval_hist[1], 2u);
    EXPECT_EQ(a.interval_hist[2], 1u);
    const std::string text = pacer::tools::format_text({a});
    EXPECT_TRUE(has_row(text, "refresh period from", "60 Hz default")) << text;
    EXPECT_TRUE(has_row(text, "% frames lasting 1 refresh [0.5,1.5)", "66.67")) << text;
    EXPECT_TRUE(has_row(text, "% frames lasting 2 refreshes [1.5,2.5)", "33.33")) << text;
    const std::string json = pacer::tools::format_json({a});
    EXPECT_NE(json.find("\"frame_time_refresh_histogram\": [0,2,1,0,0,0]"), std::string::npos) << json;
    EXPECT_NE(json.find("\"frame_time_refresh_bins\": [[0, 0.5], [0.5, 1.5],"), std::string::npos) << json;

    AnalyzeOptions o;
    o.refresh_hz = 100;
    Analysis b;
    ASSERT_TRUE(analyze_text(classic_file({10, 20, 30}), b, o).ok());
    EXPECT_STREQ(b.refresh_source, "--refresh-hz");
    EXPECT_EQ(b.interval_hist[3], 1u);  // 30 ms = 3 periods of 10 ms
    // Frames on target, a microsecond either side of one period: all in the bin of 1 period
    // (bins from the floor of frame time / period split them half and half between 0 and 1).
    Analysis on;
    ASSERT_TRUE(analyze_text(classic_file({9.999, 10.001, 9.999, 10.001, 10}), on, o).ok());
    EXPECT_EQ(on.interval_hist[1], 5u);
    EXPECT_TRUE(has_row(pacer::tools::format_text({on}), "% frames lasting 1 refresh [0.5,1.5)", "100.00"));
    o = {};
    o.target_ms = 20;
    Analysis c;
    ASSERT_TRUE(analyze_text(classic_file({10, 20, 30}), c, o).ok());
    EXPECT_STREQ(c.refresh_source, "--target-hz");
    EXPECT_NEAR(c.refresh_ms, 20.0, 1e-12);
}

// ---- analyze --json --frames ------------------------------------------------------------------

TEST(Frames, JsonHoldsThePerFrameSeries) {
    // classic_file writes TimeInSeconds as the running sum (0.010000, 0.030500) and the display
    // change equal to the frame time, Dropped 0.
    AnalyzeOptions o;
    o.keep_frames = true;
    Analysis a;
    ASSERT_TRUE(analyze_text(classic_file({10, 20.5}), a, o).ok());
    const std::string json = pacer::tools::format_json({a}, true);
    EXPECT_NE(json.find("\"time_s\": [0,0.0205]"), std::string::npos) << json;
    EXPECT_NE(json.find("\"frame_ms\": [10,20.5]"), std::string::npos) << json;
    EXPECT_NE(json.find("\"display_ms\": [10,20.5]"), std::string::npos) << json;
    EXPECT_NE(json.find("\"dropped\": [0,0]"), std::string::npos) << json;
    EXPECT_EQ(json.find("cpu_busy_ms"), std::string::npos) << json;  // not in the file
    EXPECT_EQ(pacer::tools::format_json({a}).find("\"frames\": {"), std::string::npos);
}

// ---- other tools' files, written by hand in their formats -----------------------------------

TEST(Formats, PresentMonClassicReadsMsBetweenPresentsAndFiltersByApplication) {
    std::string s = classic_header() +
                    "game.exe,100,0x1,DXGI,1,0,0,Hardware: Independent Flip,0,0.016,16.0000,16.6,0.2,1.0,20.0\n"
                    "dwm.exe,200,0x2,DXGI,1,0,0,Composed: Flip,0,0.017,99.0000,16.6,0.2,1.0,20.0\n"
                    "game.exe,100,0x1,DXGI,1,0,0,Hardware: Independent Flip,1,0.034,18.0000,NA,0.2,1.0,NA\n";
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(s, "pm1.csv").ok());
    EXPECT_EQ(r.format(), CaptureFormat::presentmon1);
    FrameRecord f;
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.application, "game.exe");
    EXPECT_DOUBLE_EQ(f.frame_ms, 16.0);
    EXPECT_DOUBLE_EQ(f.display_change_ms, 16.6);
    EXPECT_DOUBLE_EQ(f.in_present_ms, 0.2);
    EXPECT_DOUBLE_EQ(f.time_s, 0.016);
    EXPECT_DOUBLE_EQ(f.dropped, 0);
    ASSERT_TRUE(r.next(f));
    ASSERT_TRUE(r.next(f));
    EXPECT_DOUBLE_EQ(f.dropped, 1);
    EXPECT_TRUE(std::isnan(f.display_change_ms));
    EXPECT_FALSE(r.next(f));
    EXPECT_TRUE(r.error().ok());

    Analysis a;
    AnalyzeOptions o;
    o.application = "game.exe";
    ASSERT_TRUE(analyze_text(s, a, o).ok());
    EXPECT_EQ(a.frames, 2u);
    EXPECT_EQ(a.filtered_rows, 1u);
    EXPECT_NEAR(a.mean_ms, 17.0, 1e-12);
}

TEST(Formats, PresentMon2ReadsFrameTimeCpuBusyAndWait) {
    const std::string s =
        "Application,ProcessID,SwapChainAddress,PresentRuntime,SyncInterval,PresentFlags,AllowsTearing,PresentMode,"
        "CPUStartTime,FrameTime,CPUBusy,CPUWait,GPULatency,GPUTime,GPUBusy,GPUWait,DisplayLatency,DisplayedTime,"
        "ClickToPhotonLatency\n"
        "game.exe,100,0x1,DXGI,0,512,1,Hardware: Independent Flip,1.5000,8.3000,6.1000,2.2000,0.5,5.0,4.8,0.2,20.1,8.4,NA\n"
        "game.exe,100,0x1,DXGI,0,512,1,Hardware: Independent Flip,1.5083,8.4000,6.0000,2.4000,0.5,5.0,4.8,0.2,20.3,NA,NA\n";
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(s, "pm2.csv").ok());
    EXPECT_EQ(r.format(), CaptureFormat::presentmon2);
    FrameRecord f;
    ASSERT_TRUE(r.next(f));
    EXPECT_DOUBLE_EQ(f.frame_ms, 8.3);
    EXPECT_DOUBLE_EQ(f.busy_ms, 6.1);
    EXPECT_DOUBLE_EQ(f.wait_ms, 2.2);
    EXPECT_DOUBLE_EQ(f.display_change_ms, 8.4);
    EXPECT_DOUBLE_EQ(f.time_s, 1.5);
    ASSERT_TRUE(r.next(f));
    EXPECT_DOUBLE_EQ(f.frame_ms, 8.4);
    EXPECT_TRUE(std::isnan(f.display_change_ms));
    EXPECT_FALSE(r.next(f));
    EXPECT_TRUE(r.error().ok());
}

TEST(Formats, MangoHudMicrosecondAndMillisecondFrameTimes) {
    const std::string sys = "os,cpu,gpu,ram,kernel,driver,cpuscheduler\n"
                            "Debian 12,AMD Ryzen 5 5600X,Radeon RX 6600,16 GB,6.1.0,Mesa 22.3.6,\n"
                            "fps,frametime,cpu_load,gpu_load,cpu_temp,gpu_temp,gpu_core_clock,gpu_mem_clock,"
                            "gpu_vram_used,gpu_power,ram_used,elapsed\n";
    const std::string us = sys + "60.0,16666.7,23,40,55,60,2400,1000,2.1,80,5.5,100000000\n"
                                 "50.0,20000,25,42,55,60,2400,1000,2.1,80,5.5,200000000\n";
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(us, "mango_us.csv").ok());
    EXPECT_EQ(r.format(), CaptureFormat::mangohud);
    EXPECT_EQ(r.header_line(), 3u);
    FrameRecord f;
    ASSERT_TRUE(r.next(f));
    EXPECT_NEAR(f.frame_ms, 16.6667, 1e-9);
    EXPECT_NEAR(f.time_s, 0.1, 1e-12);
    ASSERT_TRUE(r.next(f));
    EXPECT_NEAR(f.frame_ms, 20.0, 1e-12);

    const std::string ms = sys + "144.0,6.944,23,40,55,60,2400,1000,2.1,80,5.5,100000000\n";
    CaptureReader r2;
    ASSERT_TRUE(r2.open_memory(ms, "mango_ms.csv").ok());
    ASSERT_TRUE(r2.next(f));
    EXPECT_NEAR(f.frame_ms, 6.944, 1e-12);
}

TEST(Formats, CrLfAndNoFinalLineFeed) {
    std::string s = classic_file({10, 20});
    std::string crlf;
    for (char c : s) {
        if (c == '\n') crlf += '\r';
        crlf += c;
    }
    crlf.pop_back();  // no final line feed
    crlf.pop_back();
    Analysis a;
    ASSERT_TRUE(analyze_text(crlf, a).ok());
    EXPECT_EQ(a.frames, 2u);
    EXPECT_NEAR(a.mean_ms, 15.0, 1e-12);
}

// ---- bad input ------------------------------------------------------------------------------

std::string analysis_error(const std::string& text) {
    Analysis a;
    return analyze_text(text, a).message();
}

TEST(BadInput, MissingFileNamesTheFile) {
    Analysis a;
    const pacer::Status st = pacer::tools::analyze_file("/nonexistent/capture.csv", {}, a);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message(), "/nonexistent/capture.csv: cannot open: No such file or directory");
}

TEST(BadInput, EmptyFile) {
    Analysis a;
    const pacer::Status st = pacer::tools::analyze_file(write_file("empty.csv", ""), {}, a);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("empty.csv: empty file"), std::string::npos) << st.message();
}

TEST(BadInput, HeaderWithoutFrameTimeColumn) {
    EXPECT_EQ(analysis_error("Application,ProcessID,TimeInSeconds\ngame,1,0.5\n"),
              "mem.csv:1: header has no frame-time column (MsBetweenPresents, FrameTime or MsBetweenAppStart)");
    EXPECT_NE(analysis_error("a,b\n1,2\n").find("mem.csv:2: no header with a frame-time column"), std::string::npos);
    // Only the first line past the preamble is a PresentMon header: a later row that starts with
    // "Application" is not called one.
    const std::string late = analysis_error("a,b\n1,2\nApplication,game\n");
    EXPECT_EQ(late.find("header has no frame-time column"), std::string::npos) << late;
    EXPECT_NE(late.find("no header with a frame-time column"), std::string::npos) << late;
}

// pacer's stats sidecar ("Key,Value" rows beside each capture) is no capture: the reader refuses
// it naming line 1 and the capture it summarises; analyze_file and list_file skip it with a note.
TEST(BadInput, StatsSidecarIsRecognisedAndSkipped) {
    const std::string text = "Key,Value\nCapture,\"a,b.csv\"\nApplication,pacer-run\nRows,41\n";
    CaptureReader r;
    const pacer::Status st = r.open_memory(text, "a,b-stats.csv");
    EXPECT_EQ(st.message(), "a,b-stats.csv:1: pacer's stats sidecar of a,b.csv (Key,Value rows), not a capture");
    EXPECT_TRUE(r.stats_sidecar());
    EXPECT_EQ(r.sidecar_of(), "a,b.csv");
    CaptureReader capture;
    ASSERT_TRUE(capture.open_memory(classic_file({10, 20}), "c.csv").ok());
    EXPECT_FALSE(capture.stats_sidecar());

    // The sidecar CaptureWriter writes.
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 40us, .preempt_probability = 0.0});
    pacer::FramePacer fp({.target_hz = 100.0}, &os);
    const std::string path = temp_path("sidecar_run.csv");
    pacer::CaptureWriter cap;
    ASSERT_TRUE(cap.open(path).ok());
    for (int i = 0; i < 30; ++i) cap.add(fp.wait());
    ASSERT_TRUE(cap.close().ok());
    const std::string sidecar = pacer::CaptureWriter::stats_path(path);
    const std::string note = "note: skipped " + sidecar + ": pacer's stats sidecar of sidecar_run.csv, not a capture";
    pacer::tools::FileAnalysis fa;
    ASSERT_TRUE(pacer::tools::analyze_file(sidecar, {}, fa).ok());
    EXPECT_TRUE(fa.skipped);
    EXPECT_TRUE(fa.analyses.empty());
    EXPECT_EQ(fa.note, note);
    pacer::tools::FileAnalysis listed;
    ASSERT_TRUE(pacer::tools::list_file(sidecar, listed).ok());
    EXPECT_TRUE(listed.skipped);
    EXPECT_EQ(listed.note, note);
    ASSERT_TRUE(pacer::tools::analyze_file(path, {}, fa).ok());  // its capture is read
    EXPECT_FALSE(fa.skipped);
    EXPECT_EQ(fa.analyses.size(), 1u);
    Analysis a;  // one capture asked for: the reader's message
    EXPECT_EQ(pacer::tools::analyze_file(sidecar, {}, a).message(),
              sidecar + ":1: pacer's stats sidecar of sidecar_run.csv (Key,Value rows), not a capture");
}

TEST(BadInput, RowWithTooFewFields) {
    EXPECT_EQ(analysis_error(classic_header() + "game,1,0x1,DXGI,1,0,0,Flip,0,0.1,16.0\n"),
              "mem.csv:2: row has 11 fields, the header has 15");
}

TEST(BadInput, TextNaNNegativeAndHugeNumbers) {
    auto row = [](const char* ft) {
        return classic_header() + "game,1,0x1,DXGI,1,0,0,Flip,0,0.1,16.0,NA,NA,NA,NA\n" +
               "game,1,0x1,DXGI,1,0,0,Flip,0,0.2," + ft + ",NA,NA,NA,NA\n";
    };
    EXPECT_EQ(analysis_error(row("16,7")), "mem.csv:3: row has 16 fields, the header has 15");
    EXPECT_EQ(analysis_error(row("abc")), "mem.csv:3: MsBetweenPresents = \"abc\": not a number");
    EXPECT_EQ(analysis_error(row("16.6ms")), "mem.csv:3: MsBetweenPresents = \"16.6ms\": not a number");
    EXPECT_EQ(analysis_error(row(" 16.6")), "mem.csv:3: MsBetweenPresents = \" 16.6\": not a number");
    EXPECT_EQ(analysis_error(row("nan")), "mem.csv:3: MsBetweenPresents = nan: not a finite number");
    EXPECT_EQ(analysis_error(row("inf")), "mem.csv:3: MsBetweenPresents = inf: not a finite number");
    EXPECT_EQ(analysis_error(row("-1")), "mem.csv:3: MsBetweenPresents = -1: negative");
    EXPECT_EQ(analysis_error(row("1e400")), "mem.csv:3: MsBetweenPresents = 1e400: number out of range");
    EXPECT_NE(analysis_error(row("1e300")).find("mem.csv:3: MsBetweenPresents = 1e300: too large"), std::string::npos);
    EXPECT_NE(analysis_error(row("3600001")).find("mem.csv:3: MsBetweenPresents: frame time above one hour"), std::string::npos);
}

TEST(BadInput, OverlongLineIsRefusedWithoutReadingOn) {
    std::string s = classic_header() + std::string(CaptureReader::kMaxLine + 10, '1') + "\n";
    EXPECT_EQ(analysis_error(s), "mem.csv:2: line longer than 65536 bytes");
    // No line feed at all: the same error, from the first kMaxLine bytes.
    EXPECT_EQ(analysis_error(std::string(200'000, 'x')), "mem.csv:1: line longer than 65536 bytes");
}

TEST(BadInput, TwoGigabyteFileStopsAtTheFirstBadLine) {
    // A sparse 2 GiB file (no disk space used): a header, then NUL bytes. The reader stops at line 2
    // after one buffer instead of reading 2 GiB.
    const std::string p = write_file("huge.csv", classic_header());
    fs::resize_file(p, 2ull << 30);
    Analysis a;
    const pacer::Status st = pacer::tools::analyze_file(p, {}, a);
    fs::remove(p);
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("huge.csv:2: line longer than"), std::string::npos) << st.message();
}

TEST(BadInput, NoFramesIsAnError) {
    EXPECT_EQ(analysis_error(classic_header()), "mem.csv: no frames");
}

// ---- deterministic mutation test (the fuzz target's property, without libFuzzer) -------------

TEST(Mutation, ReaderSurvivesRandomEdits) {
    std::vector<std::string> seeds = {
        classic_file({10, 11, 12, 50, 10}),
        pacer::CaptureWriter::header() +
            "\na,1,NA,Other,NA,NA,NA,Unknown,NA,0.1,7.0,NA,NA,NA,NA,1,1.0,6.0,hybrid,6.944444,0.1,5.0,0.5,0.1,0.2,0,1,hybrid\n",
        "os,cpu\nx,y\nfps,frametime,elapsed\n60,16666,1000\n61,16000,2000\n",
    };
    pacer_test::Mutator mutate(seeds, ",\n\r0123456789.-eNA \"x", 0x9e3779b97f4a7c15ULL, 8);
    int ok = 0, errors = 0;
    for (int iter = 0; iter < 20000; ++iter) {
        const std::string s = mutate.next();
        {
            CaptureReader full;  // every column parsed
            if (full.open_memory(s, "mem.csv").ok()) {
                FrameRecord f;
                while (full.next(f)) {
                }
                if (!full.error().ok()) {
                    EXPECT_EQ(full.error().message().rfind("mem.csv", 0), 0u);
                }
            }
        }
        Analysis a;
        const pacer::Status st = analyze_text(s, a);
        if (st.ok()) {
            ++ok;
            EXPECT_GT(a.frames, 0u);
            EXPECT_TRUE(std::isfinite(a.avg_fps));
        } else {
            ++errors;
            EXPECT_EQ(st.message().rfind("mem.csv", 0), 0u) << st.message();
        }
    }
    EXPECT_GT(ok, 0);
    EXPECT_GT(errors, 0);
}

}  // namespace

// ---- pacer analyze --columns ------------------------------------------------------------------

TEST(Columns, ListEveryColumnWithItsUnitOriginAndAliases) {
    const std::string text = pacer::tools::format_columns();
    std::size_t lines = 0;
    for (char ch : text) lines += ch == '\n';
    EXPECT_EQ(lines, 1 + pacer::kCaptureColumnCount) << text;  // a heading, then a line each
    EXPECT_TRUE(std::regex_search(text, std::regex("\nTimeInSeconds +seconds +presentmon +CPUStartTime, "
                                                   "CPUStartTimeInMs \\(ms\\), TimeInMs \\(ms\\), elapsed \\(ns\\)\n")))
        << text;
    EXPECT_TRUE(std::regex_search(text, std::regex("\nMsCPUBusy +ms +pacer +CPUBusy, CpuActive\n"))) << text;
    EXPECT_TRUE(std::regex_search(text, std::regex("\nGPUBusy +ms +other +MsGPUBusy, MsGPUActive, GpuActive\n"))) << text;
    for (const pacer::CaptureColumn& c : pacer::kCaptureColumns)
        EXPECT_NE(text.find("\n" + std::string(c.name) + " "), std::string::npos) << c.name;
}

// ---- percentiles without the values ---------------------------------------------------------------

TEST(Scale, PercentilesKeptInLittleMemoryEqualThoseOfAFullSort) {
    // analyze finds the p99 of jitter and pacing error from the top 1 % of the values, the
    // display and latency percentiles from counts of distinct values (few distinct) or from the
    // ranks put in place (many): each must be the very double a full sort gives.
    for (const std::size_t distinct : {std::size_t{7}, std::size_t{100000}}) {
        std::vector<double> ft, display, latency;
        std::uint64_t x = 0x9E3779B97F4A7C15ULL;
        for (int i = 0; i < 60000; ++i) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            const double v = 10.0 + static_cast<double>((x >> 20) % distinct) / 1000.0;
            ft.push_back(v);
            display.push_back(v + 0.25);
            latency.push_back(i % 5 == 0 ? std::nan("") : 2 * v);
        }
        pacer::tools::FrameColumns c;
        c.display_ms = display;
        c.dropped.assign(ft.size(), 0.0);
        c.pc_latency_ms = latency;
        AnalyzeOptions o;
        o.target_ms = 10.05;
        Analysis a;
        pacer::tools::compute(ft, c, o, a);
        auto p = [](std::vector<double> v, double q) {
            v.erase(std::remove_if(v.begin(), v.end(), [](double d) { return std::isnan(d); }), v.end());
            std::sort(v.begin(), v.end());
            return pacer::percentile_sorted({v.data(), v.size()}, q);
        };
        std::vector<double> jit, err;
        for (std::size_t i = 0; i < ft.size(); ++i) {
            if (i > 0) jit.push_back(std::fabs(ft[i] - ft[i - 1]));
            err.push_back(std::fabs(ft[i] - 10.05));
        }
        EXPECT_EQ(a.jitter_p99_ms, p(jit, 0.99)) << distinct;
        EXPECT_EQ(a.abs_err_p99_ms, p(err, 0.99)) << distinct;
        EXPECT_EQ(a.p99_ms, p(ft, 0.99)) << distinct;
        EXPECT_EQ(a.display_p50_ms, p(display, 0.5)) << distinct;
        EXPECT_EQ(a.display_p999_ms, p(display, 0.999)) << distinct;
        EXPECT_EQ(a.pc_latency_p50_ms, p(latency, 0.5)) << distinct;
        EXPECT_EQ(a.pc_latency_p99_ms, p(latency, 0.99)) << distinct;
    }
}

// The library's names for its two pacing figures (pacer/stats.hpp: StatsSummary::interval_error,
// whose p99 is the interval error p99, and off_100us_share), in the text and the JSON, beside
// the older "pacing |error|" and "within" lines: errors 0, 0.05, 0.2, 0.15, 0 ms against 10 ms
// are two of five off by more than 100 us.
TEST(Analyze, ShowsTheLibrarysIntervalErrorNames) {
    Analysis a;
    AnalyzeOptions o;
    o.target_ms = 10;
    ASSERT_TRUE(analyze_text(classic_file({10, 10.05, 10.2, 9.85, 10}), a, o).ok());
    EXPECT_NEAR(a.off_100us_share, 0.4, 1e-12);
    const std::string text = pacer::tools::format_text({a});
    EXPECT_NE(text.find("interval_error p99 us"), std::string::npos) << text;
    const std::size_t off = text.find("off_100us_share %");
    ASSERT_NE(off, std::string::npos) << text;
    EXPECT_NE(text.find("40.00", off), std::string::npos) << text;
    const std::string json = pacer::tools::format_json({a});
    EXPECT_NE(json.find("\"off_100us_share\": 0.4"), std::string::npos) << json;
    EXPECT_NE(json.find("\"interval_error_p99_us\": "), std::string::npos) << json;
    // No target, no figure: null, never 0.
    Analysis b;
    ASSERT_TRUE(analyze_text(classic_file({10, 10.05, 10.2, 9.85, 10}), b, AnalyzeOptions{}).ok());
    if (!b.has_target) {
        EXPECT_NE(pacer::tools::format_json({b}).find("\"off_100us_share\": null"), std::string::npos);
    }
}
