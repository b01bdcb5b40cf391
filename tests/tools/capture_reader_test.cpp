// The capture reader on every format it reads (real excerpts in tests/samples, see its README), the
// CSV corners (BOM, CR LF, "//" preambles, RFC 4180 quotes, any-case column names), the series
// selection of `analyze`, and bad input. Expected numbers are computed by hand from the sample rows.
#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "analyze.hpp"
#include "mutate.hpp"
#include "capture_reader.hpp"
#include "pacer/capture.hpp"
#include "temp_dir.hpp"

namespace {

using pacer::tools::Analysis;
using pacer::tools::AnalyzeOptions;
using pacer::tools::CaptureFormat;
using pacer::tools::CaptureReader;
using pacer::tools::FileAnalysis;
using pacer::tools::FrameRecord;

std::string sample(const char* name) { return std::string(PACER_SAMPLES_DIR) + "/" + name; }

std::vector<FrameRecord> read_all(CaptureReader& r) {
    std::vector<FrameRecord> v;
    FrameRecord f;
    while (r.next(f)) v.push_back(f);
    EXPECT_TRUE(r.error().ok()) << r.error().message();
    return v;
}

FileAnalysis analyze(const std::string& path, const AnalyzeOptions& o = {}) {
    FileAnalysis fa;
    const pacer::Status st = pacer::tools::analyze_file(path, o, fa);
    EXPECT_TRUE(st.ok()) << st.message();
    return fa;
}

std::string reader_error(const std::string& text, const char* name = "mem.csv") {
    CaptureReader r;
    if (pacer::Status st = r.open_memory(text, name); !st) return st.message();
    FrameRecord f;
    while (r.next(f)) {
    }
    return r.error().message();
}

// ---- real samples ---------------------------------------------------------------------------

TEST(Samples, PresentMonV1MetricsLowerCaseColumnsAndBom) {
    CaptureReader r;
    ASSERT_TRUE(r.open(sample("presentmon_v1metrics_multi.csv")).ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::presentmon1);
    EXPECT_TRUE(r.has_process_id());
    EXPECT_TRUE(r.has_swapchain());
    EXPECT_EQ(read_all(r).size(), 32u);  // 12 dwm.exe + 4 x 5 Presenter.exe
    CaptureReader r2;
    ASSERT_TRUE(r2.open(sample("presentmon_v1metrics_multi.csv")).ok());
    FrameRecord f;
    ASSERT_TRUE(r2.next(f));
    EXPECT_EQ(f.application, "dwm.exe");  // no BOM left in the first column's name or value
    EXPECT_EQ(f.process_id, 10376);
    EXPECT_EQ(f.swapchain, "0x000001BF098B1ED0");
    EXPECT_DOUBLE_EQ(f.frame_ms, 50.1445);     // msBetweenPresents
    EXPECT_DOUBLE_EQ(f.time_s, 0.5515869);     // TimeInSeconds
    EXPECT_DOUBLE_EQ(f.in_present_ms, 0.1003); // msInPresentAPI
    EXPECT_DOUBLE_EQ(f.gpu_busy_ms, 0.7695);   // msGPUActive
    EXPECT_DOUBLE_EQ(f.display_change_ms, 49.9966);
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(r2.next(f));
    EXPECT_EQ(f.application, "Presenter.exe");
    EXPECT_EQ(f.sync_interval, -1);  // D3D9's "not set": a value, not a negative duration
}

TEST(Samples, EachProcessAndSwapChainIsItsOwnSeriesMainFirst) {
    const FileAnalysis fa = analyze(sample("presentmon_v1metrics_multi.csv"));
    ASSERT_EQ(fa.series.size(), 5u);
    ASSERT_EQ(fa.analyses.size(), 4u);  // max_series: the main one and 3 others
    const Analysis& main = fa.analyses[0];
    EXPECT_EQ(main.application, "dwm.exe");
    EXPECT_EQ(main.process_id, 10376);
    EXPECT_EQ(main.swapchain, "0x000001BF098B1ED0");
    EXPECT_EQ(main.frames, 12u);
    EXPECT_EQ(main.filtered_rows, 20u);
    // 50.1445 + 16.5226 + 52.6287 + 14.6386 + 16.4123 + 16.7035 + 16.5139 + 16.8025 + 16.575
    // + 16.7342 + 16.5089 + 16.9859 = 267.1706 ms
    EXPECT_NEAR(main.avg_fps, 12000.0 / 267.1706, 1e-9);
    // The Presenter.exe processes: 5 frames each, in the order they first appear.
    EXPECT_EQ(fa.analyses[1].process_id, 9620);
    EXPECT_EQ(fa.analyses[2].process_id, 8536);
    EXPECT_EQ(fa.analyses[3].process_id, 5236);
    EXPECT_EQ(fa.series[4].process_id, 5192);
    EXPECT_EQ(fa.series[4].frames, 5u);
    EXPECT_NE(fa.note.find("holds 5 series"), std::string::npos) << fa.note;
    EXPECT_NE(fa.note.find("not shown: 1 more with 5 frames"), std::string::npos) << fa.note;
    EXPECT_NE(fa.note.find("--pid N"), std::string::npos) << fa.note;
}

TEST(Samples, SelectByPidSwapChainOrApplication) {
    AnalyzeOptions o;
    o.process_id = 8536;
    FileAnalysis fa = analyze(sample("presentmon_v1metrics_multi.csv"), o);
    ASSERT_EQ(fa.analyses.size(), 1u);
    EXPECT_TRUE(fa.note.empty()) << fa.note;
    // 15.7572 + 15.624 + 15.6168 + 15.6984 + 15.5631 = 78.2595 ms
    EXPECT_EQ(fa.analyses[0].frames, 5u);
    EXPECT_NEAR(fa.analyses[0].avg_fps, 5000.0 / 78.2595, 1e-9);

    // The same swap chain written without PresentMon 1.x's zero padding, in lower case.
    AnalyzeOptions s;
    s.swapchain = "0x197b10bab70";
    fa = analyze(sample("presentmon_v1metrics_multi.csv"), s);
    ASSERT_EQ(fa.analyses.size(), 1u);
    EXPECT_EQ(fa.analyses[0].process_id, 8536);

    // Four processes called Presenter.exe: four series, never merged into one.
    AnalyzeOptions a;
    a.application = "presenter.exe";
    fa = analyze(sample("presentmon_v1metrics_multi.csv"), a);
    ASSERT_EQ(fa.analyses.size(), 4u);
    for (const Analysis& x : fa.analyses) {
        EXPECT_EQ(x.application, "Presenter.exe");
        EXPECT_EQ(x.frames, 5u);
    }
    EXPECT_EQ(fa.analyses[3].process_id, 5192);
    // 29.0196 + 19.2337 + 13.834 + 16.7929 + 16.5512 = 95.4314 ms
    EXPECT_NEAR(fa.analyses[3].mean_ms, 95.4314 / 5, 1e-9);
    EXPECT_NE(fa.note.find("4 series of"), std::string::npos) << fa.note;

    // The single-analysis call keeps the main series of the selection.
    Analysis one;
    ASSERT_TRUE(pacer::tools::analyze_file(sample("presentmon_v1metrics_multi.csv"), a, one).ok());
    EXPECT_EQ(one.process_id, 9620);
}

TEST(Samples, NoFramesOfASelectionSaysWhatTheFileHolds) {
    AnalyzeOptions o;
    o.process_id = 77;
    FileAnalysis fa;
    const pacer::Status st = pacer::tools::analyze_file(sample("presentmon2_multi.csv"), o, fa);
    ASSERT_FALSE(st.ok());
    const std::string m = st.message();
    EXPECT_NE(m.find("presentmon2_multi.csv: no frames of pid 77 (the file holds: dwm.exe (pid 10376, swap chain "
                     "0x1BF098B1ED0, 12 frames), Presenter.exe (pid 9620, swap chain 0x19E52815138, 5 frames)"),
              std::string::npos)
        << m;
    o.process_id = 9620;
    o.application = "dwm.exe";
    EXPECT_NE(pacer::tools::analyze_file(sample("presentmon2_multi.csv"), o, fa).message().find(
                  "no frames of application dwm.exe and pid 9620"),
              std::string::npos);
}

TEST(Samples, PresentMon2MetricsWithBom) {
    CaptureReader r;
    ASSERT_TRUE(r.open(sample("presentmon2_multi.csv")).ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::presentmon2);
    FrameRecord f;
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.application, "dwm.exe");
    EXPECT_DOUBLE_EQ(f.frame_ms, 50.1108);          // FrameTime
    EXPECT_DOUBLE_EQ(f.busy_ms, 50.0105);           // CPUBusy
    EXPECT_DOUBLE_EQ(f.gpu_busy_ms, 0.7695);        // GPUBusy
    EXPECT_DOUBLE_EQ(f.display_change_ms, 16.7167); // DisplayedTime
    EXPECT_TRUE(std::isnan(f.input_to_photon_ms));  // AllInputToPhotonLatency NA
    EXPECT_TRUE(std::isnan(f.time_s));              // CPUStartQPC is in ticks: not read as seconds
}

TEST(Samples, OcatSystemColumnsInTheFirstRowOnly) {
    CaptureReader r;
    ASSERT_TRUE(r.open(sample("ocat.csv")).ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::ocat);
    EXPECT_EQ(r.columns().size(), 29u);
    FrameRecord f;
    ASSERT_TRUE(r.next(f));
    ASSERT_EQ(r.fields().size(), 29u);
    EXPECT_EQ(r.fields()[17], "Micro-Star International Co. Ltd. MPG Z390 GAMING PRO CARBON (MS-7B17)");
    EXPECT_EQ(r.fields()[28], "Test");
    EXPECT_DOUBLE_EQ(f.frame_ms, 9.681);
    EXPECT_EQ(f.application, "MetroExodus.exe");
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(r.fields().size(), 17u);
    EXPECT_DOUBLE_EQ(f.frame_ms, 12.166);
    const FileAnalysis fa = analyze(sample("ocat.csv"));
    ASSERT_EQ(fa.analyses.size(), 1u);
    EXPECT_EQ(fa.analyses[0].frames, 20u);
    EXPECT_NEAR(fa.analyses[0].mean_ms, 209.279 / 20, 1e-9);
}

TEST(Samples, CapFrameXCsvAfterItsPreamble) {
    CaptureReader r;
    ASSERT_TRUE(r.open(sample("capframex.csv")).ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::capframex_csv);
    EXPECT_EQ(r.header_line(), 18u);  // after 17 "//Key=Value" lines
    FrameRecord f;
    r.set_summary_only(false);
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.line, 19u);
    EXPECT_DOUBLE_EQ(f.frame_ms, 3.387);
    EXPECT_EQ(f.dropped, 1);
    const FileAnalysis fa = analyze(sample("capframex.csv"));
    EXPECT_EQ(fa.analyses[0].frames, 15u);
    EXPECT_NEAR(fa.analyses[0].mean_ms, 52.403 / 15, 1e-9);
}

TEST(Samples, FrameViewLog) {
    CaptureReader r;
    ASSERT_TRUE(r.open(sample("frameview.csv")).ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::frameview);
    FrameRecord f;
    ASSERT_TRUE(r.next(f));
    EXPECT_DOUBLE_EQ(f.frame_ms, 30.063);
    EXPECT_DOUBLE_EQ(f.pc_latency_ms, 96.068);  // MsPCLatency
    EXPECT_DOUBLE_EQ(f.time_s, 1634.633077);
    EXPECT_EQ(f.process_id, 1832);
    const FileAnalysis fa = analyze(sample("frameview.csv"));
    // 30.063 + 20.349 + 17.951 + 17.25 + 27.085 + 18.64 = 131.338 ms
    EXPECT_NEAR(fa.analyses[0].avg_fps, 6000.0 / 131.338, 1e-9);
}

TEST(Samples, CapFrameXJsonRunsReadOneAfterAnother) {
    CaptureReader r;
    ASSERT_TRUE(r.open(sample("capframex.json")).ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::capframex_json);
    std::vector<double> ft, t, pcl, drop, gpu, cpu;
    std::vector<std::uint64_t> lines;
    FrameRecord f;
    while (r.next(f)) {
        EXPECT_EQ(f.application, "hl2.exe");  // Info.ProcessName
        ft.push_back(f.frame_ms);
        t.push_back(f.time_s);
        pcl.push_back(f.pc_latency_ms);
        drop.push_back(f.dropped);
        gpu.push_back(f.gpu_busy_ms);
        cpu.push_back(f.busy_ms);
        lines.push_back(f.line);
    }
    ASSERT_TRUE(r.error().ok()) << r.error().message();
    EXPECT_EQ(ft, (std::vector<double>{10, 10, 10, 20, 8, 8, 8, 8, 40}));
    // Run 2 starts one frame (8 ms) after run 1's last time stamp (0.05 s): 0.058, ...
    ASSERT_EQ(t.size(), 9u);
    EXPECT_NEAR(t[3], 0.05, 1e-12);
    EXPECT_NEAR(t[4], 0.058, 1e-12);
    EXPECT_NEAR(t[8], 0.05 + 0.072, 1e-12);
    EXPECT_TRUE(std::isnan(pcl[1]));  // null
    EXPECT_EQ(pcl[3], 35.0);
    EXPECT_EQ(drop[2], 1.0);           // true
    EXPECT_EQ(gpu[1], 6.5);            // GpuActive
    EXPECT_EQ(cpu[3], 19.0);           // CpuActive
    EXPECT_EQ(lines[0], 5u);           // where each run's MsBetweenPresents array starts
    EXPECT_EQ(lines[4], 20u);
    const FileAnalysis fa = analyze(sample("capframex.json"));
    ASSERT_EQ(fa.analyses.size(), 1u);
    EXPECT_EQ(fa.analyses[0].frames, 9u);
    EXPECT_NEAR(fa.analyses[0].avg_fps, 9000.0 / 122.0, 1e-9);  // 50 + 72 ms
}

TEST(Samples, MangoHudIntervalLogIsSampledPerFrameLogIsNot) {
    CaptureReader r;
    ASSERT_TRUE(r.open(sample("mangohud_interval.csv")).ok());
    EXPECT_TRUE(r.sampled());  // elapsed steps 100 ms, frame times 6.9 / 8.3 ms
    CaptureReader per_frame;
    ASSERT_TRUE(per_frame.open(sample("mangohud.csv")).ok());
    EXPECT_FALSE(per_frame.sampled());  // elapsed steps by the row's frame time
    const FileAnalysis fa = analyze(sample("mangohud_interval.csv"));
    EXPECT_TRUE(fa.sampled);
    EXPECT_TRUE(fa.analyses[0].sampled);
    FileAnalysis listed;
    ASSERT_TRUE(pacer::tools::list_file(sample("mangohud_interval.csv"), listed).ok());
    EXPECT_NE(pacer::tools::format_series(listed).find("1 series (a log of samples"), std::string::npos);
    // 30 rows at elapsed = 0.1 s ... 3.0 s: 2.9 s from the first to the last (the frame times,
    // 27 x 6.9444 + 3 x 8.3333 ms, add up to 0.2125 s).
    EXPECT_NEAR(listed.series[0].duration_s, 2.9, 1e-9);
    EXPECT_FALSE(analyze(sample("mangohud.csv")).analyses[0].sampled);
}

TEST(Series, ManyInterleavedProcessesStayApart) {
    // 40 processes taking turns, 10 rows each; process i's frames all last i + 1 ms. Past 16
    // series the lookup is a hash: every row must still land in its own series.
    std::string s = "Application,ProcessID,SwapChainAddress,MsBetweenPresents\n";
    for (int row = 0; row < 10; ++row)
        for (int i = 0; i < 40; ++i)
            s += "app" + std::to_string(i % 3) + ".exe," + std::to_string(1000 + i) + ",0x" + std::to_string(i) +
                 "," + std::to_string(i + 1) + "\n";
    AnalyzeOptions o;
    o.process_id = 1033;
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(s, "mem.csv").ok());
    FileAnalysis fa;
    ASSERT_TRUE(pacer::tools::analyze_reader(r, o, fa).ok());
    ASSERT_EQ(fa.series.size(), 40u);
    for (const auto& x : fa.series) EXPECT_EQ(x.frames, 10u) << x.process_id;
    ASSERT_EQ(fa.analyses.size(), 1u);
    EXPECT_EQ(fa.analyses[0].application, "app0.exe");  // 33 % 3
    EXPECT_EQ(fa.analyses[0].min_ms, 34.0);
    EXPECT_EQ(fa.analyses[0].max_ms, 34.0);
    EXPECT_EQ(fa.analyses[0].filtered_rows, 390u);
}

// ---- CSV corners ----------------------------------------------------------------------------

TEST(Reader, BomCrLfAndLowerCaseColumns) {
    const std::string s =
        "\xEF\xBB\xBF" "Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,Dropped,TimeInSeconds,"
        "msInPresentAPI,msBetweenPresents\r\n"
        "game.exe,42,0x1,DXGI,1,0,0,1.000,0.2,16.5\r\n"
        "game.exe,42,0x1,DXGI,1,0,0,1.017,0.3,17.5\r\n";
    AnalyzeOptions o;
    o.application = "GAME.EXE";
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(s, "mem.csv").ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::presentmon1);
    EXPECT_EQ(r.columns()[0], "Application");
    FileAnalysis fa;
    ASSERT_TRUE(pacer::tools::analyze_reader(r, o, fa).ok());
    EXPECT_EQ(fa.analyses[0].frames, 2u);
    EXPECT_NEAR(fa.analyses[0].mean_ms, 17.0, 1e-12);
}

// A writer killed mid-row leaves a fragment as the last line, without a line feed.
TEST(Reader, ARowCutShortAtTheEndIsLeftOutAndSaid) {
    // pacer's own capture: every row ends with a line feed, so an unterminated last line is a
    // fragment even when it parses ("16.17" of "16.487717").
    std::string s = pacer::CaptureWriter::header() + "\n";
    const std::string row =
        "app,1,NA,Other,NA,NA,NA,Unknown,NA,0.0,16.487717,NA,NA,NA,NA,1,1.0,6.0,hybrid,16.666667,0.1,5.0,0.5,0.1,0.2,0,0,hybrid,16.487717,frame_start,1,60.000,fixed,16.666667,0,16.5";
    s += row + "\n" + row + "\n" + row.substr(0, 50);
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(s, "cut.csv").ok()) << r.error().message();
    EXPECT_EQ(read_all(r).size(), 2u);
    EXPECT_TRUE(r.error().ok()) << r.error().message();
    EXPECT_TRUE(r.cut_last_line());
    CaptureReader r2;
    ASSERT_TRUE(r2.open_memory(s, "cut.csv").ok());
    FileAnalysis fa;
    ASSERT_TRUE(pacer::tools::analyze_reader(r2, {}, fa).ok());
    EXPECT_EQ(fa.analyses[0].frames, 2u);
    EXPECT_NE(fa.note.find("cut.csv:4: the last line is a row cut short"), std::string::npos) << fa.note;
    // The same whole row without its line feed is still a fragment in a pacer capture ...
    CaptureReader r3;
    ASSERT_TRUE(r3.open_memory(s.substr(0, s.size() - 50) + row, "whole.csv").ok());
    EXPECT_EQ(read_all(r3).size(), 2u);
    EXPECT_TRUE(r3.cut_last_line());
    // ... but another tool's file may simply lack the final line feed: a whole row is read.
    const std::string pm = "Application,ProcessID,TimeInSeconds,MsBetweenPresents\ng,1,0.1,10\ng,1,0.12,20";
    CaptureReader r4;
    ASSERT_TRUE(r4.open_memory(pm, "pm.csv").ok());
    EXPECT_EQ(read_all(r4).size(), 2u);
    EXPECT_FALSE(r4.cut_last_line());
    // A row with fewer fields than the header at the very end is a fragment there too, not an error.
    CaptureReader r5;
    ASSERT_TRUE(r5.open_memory(pm.substr(0, pm.size() - 3), "pm.csv").ok());
    EXPECT_EQ(read_all(r5).size(), 1u);
    EXPECT_TRUE(r5.error().ok()) << r5.error().message();
    EXPECT_TRUE(r5.cut_last_line());
}

TEST(Reader, PreambleOfAnyLength) {
    std::string s;
    for (int i = 0; i < 1000; ++i) s += "//Key" + std::to_string(i) + "=value, with a comma\n";
    s += "Application,ProcessID,SwapChainAddress,TimeInSeconds,MsBetweenPresents\ng,1,0x1,0.1,10\ng,1,0x1,0.12,20\n";
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(s, "mem.csv").ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::capframex_csv);
    EXPECT_EQ(r.header_line(), 1001u);
    const auto rows = read_all(r);
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[1].line, 1003u);
    EXPECT_EQ(rows[1].frame_ms, 20.0);
}

TEST(Reader, OcatQuotedCommaAndQuoteInTheFirstRow) {
    const std::string s =
        "Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,AllowsTearing,PresentMode,"
        "WasBatched,DwmNotified,Dropped,TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,"
        "MsUntilRenderComplete,MsUntilDisplayed,Motherboard,OS,Comment\n"
        "g.exe,7,0x1,DXGI,0,0,1,Hardware: Independent Flip,0,0,0,0.0100,10.5,10.0,0.2,1.0,12.0,"
        "\"ASUSTeK COMPUTER INC., ROG STRIX\",\"Windows 10 \"\"Pro\"\"\",\n"
        "g.exe,7,0x1,DXGI,0,0,1,Hardware: Independent Flip,0,0,0,0.0215,11.5,10.0,0.2,1.0,12.0\n";
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(s, "mem.csv").ok()) << r.error().message();
    EXPECT_EQ(r.format(), CaptureFormat::ocat);
    r.set_summary_only(false);
    FrameRecord f;
    ASSERT_TRUE(r.next(f));
    ASSERT_EQ(r.fields().size(), 20u);
    EXPECT_EQ(r.fields()[17], "ASUSTeK COMPUTER INC., ROG STRIX");
    EXPECT_EQ(r.fields()[18], "Windows 10 \"Pro\"");
    EXPECT_EQ(r.fields()[19], "");
    EXPECT_EQ(f.application, "g.exe");
    EXPECT_EQ(f.frame_ms, 10.5);
    EXPECT_EQ(f.time_s, 0.01);
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.frame_ms, 11.5);
    EXPECT_FALSE(r.next(f));
    EXPECT_TRUE(r.error().ok());
}

TEST(Reader, ProcessGpuLatencyAndWakeColumns) {
    const std::string s =
        "Application,ProcessID,SwapChainAddress,TimeInSeconds,MsBetweenPresents,MsGPUActive,MsPCLatency,"
        "MsAllInputToPhotonLatency,MsClickToPhotonLatency,MsBetweenWakes\n"
        "g,4242,0xABC,0.5,16.6,7.25,30.5,41.0,45.0,16.5\n";
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(s, "mem.csv").ok());
    FrameRecord f;
    ASSERT_TRUE(r.next(f));
    EXPECT_EQ(f.process_id, 4242);
    EXPECT_EQ(f.swapchain, "0xABC");
    EXPECT_EQ(f.gpu_busy_ms, 7.25);
    EXPECT_EQ(f.pc_latency_ms, 30.5);
    EXPECT_EQ(f.input_to_photon_ms, 41.0);  // the first such column, all inputs
    EXPECT_EQ(f.wake_interval_ms, 16.5);
    // Summary-only parsing keeps what the series selection and the summary need (GPU busy and
    // latency are reported) and drops the rest.
    CaptureReader s2;
    ASSERT_TRUE(s2.open_memory(s, "mem.csv").ok());
    s2.set_summary_only(true);
    ASSERT_TRUE(s2.next(f));
    EXPECT_EQ(f.process_id, 4242);
    EXPECT_EQ(f.swapchain, "0xABC");
    EXPECT_EQ(f.gpu_busy_ms, 7.25);
    EXPECT_EQ(f.pc_latency_ms, 30.5);
    EXPECT_EQ(f.input_to_photon_ms, 41.0);
    EXPECT_TRUE(std::isnan(f.wake_interval_ms));
}

TEST(Reader, FastNumbersAreTheDoublesFromCharsGives) {
    // Decimal texts of every shape a capture holds (and longer), each read back through the CSV
    // path and compared bit for bit with std::from_chars on the same text.
    std::uint64_t x = 0x9E3779B97F4A7C15ULL;
    auto rnd = [&] {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
    std::string s = "Application,TimeInSeconds,MsBetweenPresents\n";
    std::vector<std::string> texts;
    for (int i = 0; i < 3000; ++i) {
        // Up to 6 integer digits: below the one-hour limit on frame times.
        const int int_digits = static_cast<int>(rnd() % 7), frac_digits = static_cast<int>(rnd() % 16);
        std::string t;
        for (int k = 0; k < int_digits; ++k) t += static_cast<char>('0' + rnd() % 10);
        if (frac_digits || t.empty()) {
            t += '.';
            for (int k = 0; k < std::max(frac_digits, 1); ++k) t += static_cast<char>('0' + rnd() % 10);
        }
        if (i % 7 == 0) t += "e-3";  // not a fast-path number
        texts.push_back(t);
        s += "g,0," + t + "\n";
    }
    CaptureReader r;
    ASSERT_TRUE(r.open_memory(s, "mem.csv").ok());
    FrameRecord f;
    for (const std::string& t : texts) {
        ASSERT_TRUE(r.next(f)) << r.error().message();
        double want = 0;
        std::from_chars(t.data(), t.data() + t.size(), want);
        EXPECT_EQ(std::memcmp(&want, &f.frame_ms, sizeof want), 0) << t << " " << f.frame_ms;
    }
}

// ---- bad input ------------------------------------------------------------------------------

TEST(BadInput, QuotedFieldsThatDoNotClose) {
    const std::string head = "Application,TimeInSeconds,MsBetweenPresents\n";
    EXPECT_EQ(reader_error(head + "\"game,0.1,16\n"), "mem.csv:2: field 1: quoted field not closed on its line");
    EXPECT_EQ(reader_error(head + "\"game\"x,0.1,16\n"), "mem.csv:2: field 1: text after the closing quote");
}

TEST(BadInput, ShortRowsOnlyWhereTheHeaderHasSystemColumns) {
    const std::string ocat = "Application,TimeInSeconds,MsBetweenPresents,Motherboard,OS\n";
    EXPECT_EQ(reader_error(ocat + "g,0.1,16,x\n"),
              "mem.csv:2: row has 4 fields, the header has 5 (or 3 without the system columns)");
    EXPECT_EQ(reader_error("Application,TimeInSeconds,MsBetweenPresents,Comment\ng,0.1,16\n"),
              "mem.csv:2: row has 3 fields, the header has 4");
}

TEST(BadInput, CapFrameXJsonErrorsNameTheLine) {
    const std::string run = "{\"Info\": {\"ProcessName\": \"a.exe\"},\n \"Runs\": [{\"CaptureData\": {\n";
    EXPECT_EQ(reader_error(run + "\"MsBetweenPresents\": [10, -5]}}]}", "c.json"),
              "c.json:3: CapFrameX JSON: MsBetweenPresents[1] = -5: negative");
    EXPECT_EQ(reader_error(run + "\"MsBetweenPresents\": [10, \"x\"]}}]}", "c.json"),
              "c.json:3: CapFrameX JSON: expected a number, found '\"'");
    EXPECT_EQ(reader_error(run + "\"MsBetweenPresents\": [10, 12", "c.json"),
              "c.json:3: CapFrameX JSON: expected ']' at the end of the file");
    EXPECT_EQ(reader_error(run + "\"TimeInSeconds\": [1]}}]}", "c.json"),
              "c.json:3: CapFrameX JSON: run 1 has no CaptureData.MsBetweenPresents");
    EXPECT_EQ(reader_error("{\"Info\": {}}\n", "c.json"),
              "c.json:2: CapFrameX JSON without Runs[].CaptureData.MsBetweenPresents");
    EXPECT_EQ(reader_error("{\"Runs\": " + std::string(100, '[') + std::string(100, ']') + "}", "c.json"),
              "c.json:1: CapFrameX JSON: expected '{', found '['");
    EXPECT_EQ(reader_error("{\"X\": " + std::string(100, '[') + std::string(100, ']') + "}", "c.json"),
              "c.json:1: CapFrameX JSON: nested deeper than 64 levels");
    EXPECT_EQ(reader_error(run + "\"MsBetweenPresents\": [1]}}]} x", "c.json"),
              "c.json:3: CapFrameX JSON: text after the end of the JSON object");
}

TEST(Mutation, NewFormatsSurviveRandomEdits) {
    // Deterministic random edits of a CapFrameX JSON, an OCAT file with quoted first-row fields, a
    // preamble and a BOM: every outcome is frames or a "file:line"-style error, never a crash.
    const std::vector<std::string> seeds = {
        "{\"Info\":{\"ProcessName\":\"a.exe\"},\"Runs\":[{\"CaptureData\":{\"TimeInSeconds\":[0.01,0.02],"
        "\"MsBetweenPresents\":[10,10.5],\"Dropped\":[false,true],\"PcLatency\":[null,20]}},"
        "{\"CaptureData\":{\"MsBetweenPresents\":[8,9]}}]}",
        "Application,ProcessID,SwapChainAddress,TimeInSeconds,MsBetweenPresents,Motherboard,OS\n"
        "g.exe,7,0x1,0.01,10,\"A, B\",\"W \"\"X\"\"\"\ng.exe,7,0x1,0.02,11\ng.exe,8,0x2,0.02,12\n",
        "\xEF\xBB\xBF//K=V\n//K2=V2\r\napplication,processid,swapchainaddress,msbetweenpresents\r\n"
        "a,1,0x1,5\r\nb,2,0x2,6\r\n",
    };
    pacer_test::Mutator mutate(seeds, ",\n\r0123456789.-eNA \"x{}[]:/", 0x2545F4914F6CDD1DULL, 6);
    int ok = 0, errors = 0;
    for (int iter = 0; iter < 20000; ++iter) {
        const std::string s = mutate.next();
        CaptureReader r;
        FileAnalysis fa;
        AnalyzeOptions o;
        o.keep_frames = true;
        pacer::Status st = r.open_memory(s, "m.csv");
        if (st.ok()) st = pacer::tools::analyze_reader(r, o, fa);
        if (st.ok()) {
            ++ok;
            ASSERT_FALSE(fa.analyses.empty());
            for (const Analysis& a : fa.analyses) {
                EXPECT_GT(a.frames, 0u);
                EXPECT_TRUE(std::isfinite(a.avg_fps));
                EXPECT_EQ(a.time_s.size(), a.frames);
            }
        } else {
            ++errors;
            EXPECT_EQ(st.message().rfind("m.csv", 0), 0u) << st.message();
        }
    }
    EXPECT_GT(ok, 1000);
    EXPECT_GT(errors, 1000);
}

TEST(BadInput, CapFrameXJsonOverTheSizeLimitIsRefusedUnread) {
    // A sparse file (no disk used): "{", then zeros up to 1 byte over the limit.
    const pacer_test::TempDir dir("pacer-reader-test");  // removed with the file at the end
    const std::string p = dir.file("big.json");
    {
        std::ofstream out(p, std::ios::binary);
        out << "{";
    }
    std::filesystem::resize_file(p, CaptureReader::kMaxJsonBytes + 1);
    pacer::Status st;
    {
        CaptureReader r;  // closed before the file is removed (Windows will not remove an open file)
        st = r.open(p);
    }
    EXPECT_EQ(st.message(), p + ": a CapFrameX JSON file larger than 256 MiB is not read");
}

}  // namespace
