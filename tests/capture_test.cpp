// CaptureWriter: the file format (PresentMon header, CapFrameX's acceptance rules, NA, C locale),
// the sidecar, and what happens when the target cannot be written.
#include <gtest/gtest.h>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#define PACER_TEST_LINUX 1
#else
#include <process.h>
#define getpid _getpid
#endif

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <algorithm>
#include <cmath>
#include <locale>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "pacer/pacer.hpp"
#include "temp_dir.hpp"

using namespace std::chrono_literals;

namespace {

namespace fs = std::filesystem;

using pacer_test::temp_path;

using pacer_test::read_lines;

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
        if (c == ',') {
            out.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    out.push_back(cur);
    return out;
}

// The values of column `name` in the rows of a capture read with read_lines (the header first).
std::vector<std::string> column(const std::vector<std::string>& lines, const char* name) {
    const std::vector<std::string> cols = split(lines.at(0));
    const auto k = static_cast<std::size_t>(std::find(cols.begin(), cols.end(), name) - cols.begin());
    std::vector<std::string> v;
    for (std::size_t i = 1; i < lines.size(); ++i) v.push_back(split(lines[i]).at(k));
    return v;
}

// One RFC 4180 record without line breaks in its fields: a field in double quotes may hold
// commas, and "" inside it is one quote. The sidecar is read with this.
std::vector<std::string> parse_record(const std::string& s) {
    std::vector<std::string> out(1);
    bool quoted = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (quoted) {
            if (c != '"') out.back() += c;
            else if (i + 1 < s.size() && s[i + 1] == '"') out.back() += s[++i];
            else quoted = false;
        } else if (c == '"' && out.back().empty()) {
            quoted = true;
        } else if (c == ',') {
            out.emplace_back();
        } else {
            out.back() += c;
        }
    }
    return out;
}

std::map<std::string, std::string> read_sidecar(const std::string& capture_path) {
    std::map<std::string, std::string> kv;
    for (const auto& l : read_lines(pacer::CaptureWriter::stats_path(capture_path))) {
        const auto f = parse_record(l);
        EXPECT_EQ(f.size(), 2u) << l;
        if (f.size() == 2) kv[f[0]] = f[1];
    }
    return kv;
}

// Frames from a pacer in virtual time: deterministic and with every field populated.
std::vector<pacer::FrameTiming> frames(int n, pacer::WaitMode mode = pacer::WaitMode::hybrid) {
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 1ms, .jitter_mean = 30us, .preempt_probability = 0.02});
    pacer::FramePacer fp({.target_hz = 144.0, .mode = mode}, &os);
    std::vector<pacer::FrameTiming> out;
    for (int i = 0; i < n; ++i) {
        os.advance(std::chrono::nanoseconds(2'000'000 + (i % 7) * 500'000 + (i % 97 == 0 ? 9'000'000 : 0)));
        out.push_back(fp.wait());
    }
    return out;
}

TEST(Capture, HeaderIsClassicPresentMonThenPacerColumns) {
    const std::string h = pacer::CaptureWriter::header();
    EXPECT_EQ(h.rfind("Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,AllowsTearing,"
                      "PresentMode,Dropped,TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,"
                      "MsUntilRenderComplete,MsUntilDisplayed,",
                      0),
              0u);
    // Names CapFrameX reads as timing data must not appear as extra columns.
    for (const std::string& col : split(h))
        for (const char* banned : {"FrameTime", "frametime", "DisplayedTime", "GPUBusy", "CPUStartTimeInMs", "PresentRuntime"})
            EXPECT_NE(col, banned);
    for (const char* needed : {"Frame", "MsCPUBusy", "MsCPUWait", "WaitMode", "MsTargetFrameTime", "MsLateness",
                               "MsSleep", "MsSpin", "MsOversleep", "PacingSource", "Missed"}) {
        const auto cols = split(h);
        EXPECT_NE(std::find(cols.begin(), cols.end(), needed), cols.end()) << needed;
    }
}

TEST(Capture, PassesCapFrameXAcceptanceRules) {
    const std::string path = temp_path("accept.csv");
    pacer::CaptureWriter cap;
    pacer::CaptureOptions co;
    co.application = "my,game\n\"x\"";
    ASSERT_TRUE(cap.open(path, co).ok());
    for (const auto& t : frames(50)) cap.add(t);
    ASSERT_TRUE(cap.close().ok());
    const auto lines = read_lines(path);
    ASSERT_GT(lines.size(), 20u);                      // more than 20 lines
    const auto cols = split(lines[0]);
    EXPECT_EQ(cols[0], "Application");                 // Application first
    for (const char* req : {"Application", "Dropped", "TimeInSeconds", "MsBetweenPresents", "MsBetweenDisplayChange"})
        EXPECT_NE(std::find(cols.begin(), cols.end(), req), cols.end()) << req;
    const std::set<std::string> text_cols{"Application", "Runtime",      "PresentMode",  "WaitMode",
                                          "PacingSource", "SyncMode", "CadenceReason"};
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        EXPECT_EQ(l.find('"'), std::string::npos);      // no quoting
        EXPECT_EQ(l.find('\r'), std::string::npos);     // LF only
        const auto f = split(l);
        ASSERT_EQ(f.size(), cols.size()) << "line " << i + 1;
        EXPECT_EQ(f[0], "my_game__x_");                 // sanitized, no commas
        EXPECT_EQ(f[1], std::to_string(getpid()));
        for (std::size_t k = 0; k < f.size(); ++k) {
            if (text_cols.count(cols[k]) || f[k] == "NA") continue;
            std::size_t used = 0;
            double v = std::stod(f[k], &used);           // numeric columns parse
            EXPECT_EQ(used, f[k].size()) << cols[k] << " = " << f[k];
            EXPECT_TRUE(std::isfinite(v));
        }
    }
}

TEST(Capture, NotMeasuredIsNAAndTheFirstFrameIsNotWritten) {
    const std::string path = temp_path("na.csv");
    pacer::CaptureWriter cap;
    ASSERT_TRUE(cap.open(path).ok());
    const auto fs_ = frames(3);
    ASSERT_EQ(fs_[0].interval.count(), 0);
    cap.add(fs_[0]);  // no frame time yet: no row (CapFrameX would read NA as a 0 ms frame)
    cap.add(fs_[1]);
    pacer::CaptureExtras x;
    x.in_present = std::chrono::microseconds(250);
    x.sync_interval = 1;
    x.pacing_source = "vsync,late";
    cap.add(fs_[2], x);
    EXPECT_EQ(cap.rows(), 3u);
    EXPECT_EQ(cap.rows_without_frame_time(), 1u);
    ASSERT_TRUE(cap.close().ok());
    EXPECT_EQ(cap.rows_written(), 2u);
    const auto lines = read_lines(path);
    ASSERT_EQ(lines.size(), 3u);
    const auto cols = split(lines[0]);
    auto at = [&](int line, const char* name) {
        const auto f = split(lines[static_cast<std::size_t>(line)]);
        return f[static_cast<std::size_t>(std::find(cols.begin(), cols.end(), name) - cols.begin())];
    };
    const auto ms6 = [](std::chrono::nanoseconds d) {
        char b[32];
        std::snprintf(b, sizeof b, "%lld.%06lld", static_cast<long long>(d.count() / 1'000'000),
                      static_cast<long long>(d.count() % 1'000'000));
        return std::string(b);
    };
    EXPECT_EQ(at(1, "Frame"), std::to_string(fs_[1].index));
    EXPECT_EQ(at(1, "MsBetweenPresents"), ms6(fs_[1].interval));  // no presents: wake to wake
    EXPECT_EQ(at(1, "MsBetweenWakes"), ms6(fs_[1].interval));
    EXPECT_EQ(at(1, "SwapChainAddress"), "NA");
    EXPECT_EQ(at(1, "Dropped"), "NA");
    EXPECT_EQ(at(1, "MsInPresentAPI"), "NA");
    EXPECT_EQ(at(1, "SyncInterval"), "NA");
    // Since the first frame's wake, which has no row of its own.
    const auto since = std::chrono::nanoseconds(fs_[1].wake - fs_[0].wake).count();
    char s9[32];
    std::snprintf(s9, sizeof s9, "%lld.%09lld", static_cast<long long>(since / 1'000'000'000),
                  static_cast<long long>(since % 1'000'000'000));
    EXPECT_EQ(at(1, "TimeInSeconds"), s9);
    EXPECT_EQ(at(1, "Runtime"), "Other");
    EXPECT_EQ(at(1, "PacingSource"), "hybrid");
    EXPECT_EQ(at(2, "MsInPresentAPI"), "0.250000");
    EXPECT_EQ(at(2, "SyncInterval"), "1");
    EXPECT_EQ(at(2, "PacingSource"), "vsync_late");
    EXPECT_EQ(at(2, "MsBetweenPresents"), ms6(fs_[2].interval));
}

// Frames and presents built by hand: every figure below is known exactly.
pacer::FrameTiming frame_at(std::uint64_t index, std::int64_t wake_ns, std::int64_t interval_ns) {
    pacer::FrameTiming t;
    t.index = index;
    t.wake = pacer::clock::from_ns(wake_ns);
    t.deadline = t.wake;
    t.interval = std::chrono::nanoseconds(interval_ns);
    t.work = std::chrono::nanoseconds(interval_ns / 2);
    t.period = std::chrono::nanoseconds(10'000'000);
    return t;
}
pacer::CaptureExtras present_at(std::int64_t begin_ns, std::int64_t end_ns, int swap_interval = 1, bool ok = true) {
    pacer::CaptureExtras x;
    x.present = pacer::PresentInfo{pacer::clock::from_ns(begin_ns), pacer::clock::from_ns(end_ns), swap_interval,
                                   100.0, ok};
    return x;
}

TEST(Capture, PresentsMakeMsBetweenPresentsAndWakesGetTheirOwnColumn) {
    const std::string path = temp_path("presents.csv");
    pacer::CaptureWriter cap;
    ASSERT_TRUE(cap.open(path).ok());
    const std::int64_t ms = 1'000'000;
    // Wakes every 10 ms from t = 1000 ms; presents begin 4 ms after the wake and take 0.5 ms,
    // except frame 3 (presents 7.25 ms after its wake) and frame 4 (no present at all).
    cap.add(frame_at(0, 1000 * ms, 0), present_at(1004 * ms, 1004 * ms + 500'000));  // no previous present
    cap.add(frame_at(1, 1010 * ms, 10 * ms), present_at(1014 * ms, 1014 * ms + 500'000));
    cap.add(frame_at(2, 1020 * ms, 10 * ms), present_at(1024 * ms, 1024 * ms + 500'000, 0, false));
    cap.add(frame_at(3, 1030 * ms, 10 * ms), present_at(1037 * ms + 250'000, 1038 * ms));
    cap.add(frame_at(4, 1040 * ms, 10 * ms));  // a frame without a present: no row
    pacer::CaptureExtras x = present_at(1054 * ms, 1055 * ms);
    x.until_displayed = std::chrono::microseconds(8000);
    x.in_present = std::chrono::microseconds(300);  // the engine's own figure wins
    cap.add(frame_at(5, 1050 * ms, 10 * ms), x);
    x = present_at(1064 * ms, 1064 * ms + 500'000);
    x.dropped = 1;
    x.sync_interval = 2;
    cap.add(frame_at(6, 1060 * ms, 10 * ms), x);
    EXPECT_EQ(cap.rows_without_frame_time(), 2u);
    ASSERT_TRUE(cap.close().ok());

    const auto lines = read_lines(path);
    ASSERT_EQ(lines.size(), 6u);  // header + frames 1, 2, 3, 5, 6
    auto col = [&](const char* name) { return column(lines, name); };
    using V = std::vector<std::string>;
    EXPECT_EQ(col("Frame"), (V{"1", "2", "3", "5", "6"}));
    // Present begin to present begin; frame 5's spans frame 4, which presented nothing.
    EXPECT_EQ(col("MsBetweenPresents"), (V{"10.000000", "10.000000", "13.250000", "16.750000", "10.000000"}));
    EXPECT_EQ(col("MsBetweenWakes"), (V{"10.000000", "10.000000", "10.000000", "10.000000", "10.000000"}));
    // The present's begin, since the first frame's wake (1000 ms).
    EXPECT_EQ(col("TimeInSeconds"), (V{"0.014000000", "0.024000000", "0.037250000", "0.054000000", "0.064000000"}));
    EXPECT_EQ(col("MsInPresentAPI"), (V{"0.500000", "0.500000", "0.750000", "0.300000", "0.500000"}));
    EXPECT_EQ(col("SyncInterval"), (V{"1", "0", "1", "1", "2"}));
    // A failed swap shows nothing; a frame with a display time was displayed; the engine's word.
    EXPECT_EQ(col("Dropped"), (V{"NA", "1", "NA", "0", "1"}));
    EXPECT_EQ(col("MsUntilDisplayed"), (V{"NA", "NA", "NA", "8.000000", "NA"}));
    EXPECT_EQ(col("MsCPUBusy"), (V{"5.000000", "5.000000", "5.000000", "5.000000", "5.000000"}));

    auto kv = read_sidecar(path);
    EXPECT_EQ(kv["Rows"], "7");
    EXPECT_EQ(kv["RowsWritten"], "5");
    EXPECT_EQ(kv["RowsWithoutFrameTime"], "2");
    EXPECT_EQ(kv["Frames"], "5");
    EXPECT_EQ(kv["FrameTimeSource"], "presents");
    EXPECT_EQ(kv["DurationSeconds"], "0.060000");        // 10 + 10 + 13.25 + 16.75 + 10 ms
    EXPECT_EQ(kv["AverageFPS"], "83.333333");            // 5 frames / 60 ms
    EXPECT_EQ(kv["MsFrameTimeMax"], "16.750000");
    EXPECT_EQ(kv["WorkShare"], "0.500000");              // of the wake-to-wake time
}

// MsPCLatency: pacer knows a frame's latency at the next wait() (FrameTiming::latency describes
// the frame presented before it), so each row gets the latency the next add() brings.
TEST(Capture, EachRowGetsItsLatencyFromTheNextFrameAndItsSyncMode) {
    const std::string path = temp_path("latency.csv");
    pacer::CaptureWriter cap;
    ASSERT_TRUE(cap.open(path).ok());
    const std::int64_t ms = 1'000'000;
    auto frame = [&](std::uint64_t i, std::int64_t latency_us, pacer::SyncMode sync) {
        pacer::FrameTiming t = frame_at(i, (1000 + 10 * static_cast<std::int64_t>(i)) * ms, i == 0 ? 0 : 10 * ms);
        t.latency = std::chrono::microseconds(latency_us);
        t.sync = sync;
        return t;
    };
    using S = pacer::SyncMode;
    auto present = [&](std::uint64_t i) {
        const std::int64_t b = (1004 + 10 * static_cast<std::int64_t>(i)) * ms;
        return present_at(b, b + 500'000);
    };
    cap.add(frame(0, 0, S::frame_start), present(0));          // no row (first present)
    cap.add(frame(1, 21'000, S::frame_start), present(1));     // its latency: frame 0's (no row)
    cap.add(frame(2, 22'500, S::just_in_time), present(2));    // row 1: 22.5 ms
    cap.add(frame(3, 7'250, S::just_in_time));                 // row 2: 7.25 ms; no present: no row
    cap.add(frame(4, 0, S::present), present(4));              // nothing presented in 3: no figure
    cap.add(frame(5, 0, S::present), present(5));              // row 4: 0 = not known: NA
    pacer::FrameTiming t6 = frame(6, 16'666, S::present);
    t6.shown_late = true;                                      // frame 5 was shown late
    cap.add(t6, present(6));                                   // row 5: 16.666 ms; row 6 the last: NA
    ASSERT_TRUE(cap.close().ok());
    EXPECT_EQ(cap.rows_written(), 5u);

    const auto lines = read_lines(path);
    ASSERT_EQ(lines.size(), 6u);  // header + frames 1, 2, 4, 5, 6
    const auto cols = split(lines[0]);
    ASSERT_EQ(cols.size(), split(lines[1]).size());
    EXPECT_EQ(cols[cols.size() - 7], "SyncMode");
    EXPECT_EQ(cols.back(), "MsPCLatency");
    auto col = [&](const char* name) { return column(lines, name); };
    using V = std::vector<std::string>;
    EXPECT_EQ(col("Frame"), (V{"1", "2", "4", "5", "6"}));
    EXPECT_EQ(col("SyncMode"), (V{"frame_start", "just_in_time", "present", "present", "present"}));
    EXPECT_EQ(col("MsPCLatency"), (V{"22.500000", "7.250000", "NA", "16.666000", "NA"}));
    // The sidecar over the same rows: 7.25, 16.666, 22.5 -> p50 16.666; p99 (type 7) at rank
    // 0.99 x 2 = 1.98: 16.666 + 0.98 x (22.5 - 16.666) = 22.38332.
    auto kv = read_sidecar(path);
    EXPECT_EQ(kv["WindowLatencyFrames"], "3");
    EXPECT_EQ(kv["WindowMsPCLatencyP50"], "16.666000");
    EXPECT_EQ(kv["WindowMsPCLatencyP99"], "22.383320");
    EXPECT_EQ(kv["WindowShownLateShare"], "0.333333");  // frame 5 of the three
}

// Presentation feedback comes frames after its present: each row waits for its own (in order),
// then writes Dropped and the displayed times from it; a row whose feedback never comes is
// written without it.
TEST(Capture, FeedbackWritesDroppedAndTheDisplayedTimes) {
    const std::string path = temp_path("feedback.csv");
    pacer::CaptureWriter cap;
    ASSERT_TRUE(cap.open(path).ok());
    const std::int64_t ms = 1'000'000;
    auto begin = [&](std::uint64_t i) { return (1004 + 10 * static_cast<std::int64_t>(i)) * ms; };
    auto add = [&](std::uint64_t i) {
        pacer::FrameTiming t = frame_at(i, (1000 + 10 * static_cast<std::int64_t>(i)) * ms, i == 0 ? 0 : 10 * ms);
        t.latency = std::chrono::microseconds(20'000 + static_cast<std::int64_t>(i));  // frame i - 1's
        pacer::CaptureExtras x = present_at(begin(i), begin(i) + 500'000);
        x.present->id = i + 1;
        cap.add(t, x);
    };
    auto feedback = [&](std::uint64_t i, pacer::PresentOutcome o, std::int64_t shown_after_ms = 0) {
        pacer::PresentInfo f;
        f.id = i + 1;
        f.outcome = o;
        if (o == pacer::PresentOutcome::shown) f.displayed = pacer::clock::from_ns(begin(i) + shown_after_ms * ms);
        cap.feedback(f);
    };
    using O = pacer::PresentOutcome;
    add(0);  // the first present: no row
    feedback(0, O::shown, 12);  // from now on rows with an id wait for theirs
    add(1);
    add(2);
    EXPECT_EQ(cap.rows_buffered(), 2u);  // both wait, none formatted
    feedback(1, O::shown, 12);
    feedback(2, O::discarded);
    add(3);
    add(4);
    feedback(4, O::shown, 12);  // before 3's: row 4 waits behind row 3
    cap.flush();                // rows 1 and 2 out
    EXPECT_EQ(cap.rows_written(), 2u);
    EXPECT_EQ(cap.rows_buffered(), 2u);  // rows 3 and 4 wait
    feedback(3, O::skipped);
    feedback(3, O::shown, 5);  // a second report for a written row: ignored
    add(5);                    // its feedback never comes
    feedback(99, O::shown, 1);  // an id no row has: ignored
    ASSERT_TRUE(cap.close().ok());
    EXPECT_EQ(cap.rows_without_feedback(), 1u);

    const auto lines = read_lines(path);
    ASSERT_EQ(lines.size(), 6u);  // header + frames 1-5
    auto col = [&](const char* name) { return column(lines, name); };
    using V = std::vector<std::string>;
    EXPECT_EQ(col("Frame"), (V{"1", "2", "3", "4", "5"}));
    EXPECT_EQ(col("Dropped"), (V{"0", "1", "1", "0", "NA"}));
    EXPECT_EQ(col("MsUntilDisplayed"), (V{"12.000000", "NA", "NA", "12.000000", "NA"}));
    // Display to display: frame 1 shown at 1026 ms, frame 4 at 1056 ms (2 and 3 never shown).
    EXPECT_EQ(col("MsBetweenDisplayChange"), (V{"NA", "NA", "NA", "30.000000", "NA"}));
    // Each row still has the latency the next frame brought (the last row none).
    EXPECT_EQ(col("MsPCLatency"), (V{"20.002000", "20.003000", "20.004000", "20.005000", "NA"}));
}

// A row waits kHeldRows frames at most: a host whose feedback stopped still gets its rows, in
// order, with NA where the feedback would be.
TEST(Capture, RowsWaitForFeedbackBoundedFrames) {
    const std::string path = temp_path("feedback-bounded.csv");
    pacer::CaptureWriter cap;
    pacer::CaptureOptions o;
    o.await_feedback = true;
    ASSERT_TRUE(cap.open(path, o).ok());
    const std::int64_t ms = 1'000'000;
    const int frames = 40;
    for (int i = 0; i < frames; ++i) {
        const std::int64_t b = (1004 + 10 * i) * ms;
        pacer::CaptureExtras x = present_at(b, b + 500'000);
        x.present->id = static_cast<std::uint64_t>(i + 1);
        cap.add(frame_at(static_cast<std::uint64_t>(i), (1000 + 10 * i) * ms, i == 0 ? 0 : 10 * ms), x);
        cap.flush();  // the formatted rows out: what stays waits for its feedback
        EXPECT_LE(cap.rows_buffered(), pacer::CaptureWriter::kHeldRows);
        if (i == 30) {  // frame 2's feedback, long after its row was written: ignored
            pacer::PresentInfo f;
            f.id = 3;
            f.outcome = pacer::PresentOutcome::discarded;
            cap.feedback(f);
        }
    }
    ASSERT_TRUE(cap.close().ok());
    EXPECT_EQ(cap.rows_written(), static_cast<std::uint64_t>(frames - 1));
    EXPECT_EQ(cap.rows_without_feedback(), static_cast<std::uint64_t>(frames - 1));
    const auto lines = read_lines(path);
    const auto frame = column(lines, "Frame");
    ASSERT_EQ(frame.size(), static_cast<std::size_t>(frames - 1));
    for (int i = 1; i < frames; ++i) EXPECT_EQ(frame[static_cast<std::size_t>(i - 1)], std::to_string(i));
    for (const std::string& d : column(lines, "Dropped")) EXPECT_EQ(d, "NA");
}

// The cadence governor's columns: the divisor, the rate in force, the reason and the display delta.
TEST(Capture, CadenceColumnsCarryTheDivisorRateReasonAndDisplayDelta) {
    const std::string path = temp_path("cadence.csv");
    pacer::CaptureWriter cap;
    ASSERT_TRUE(cap.open(path).ok());
    const std::int64_t ms = 1'000'000;
    struct Row {
        std::uint32_t cadence;
        double hz;
        pacer::CadenceReason reason;
        std::int64_t dt;
    };
    const Row rows[] = {{1, 60.0, pacer::CadenceReason::fits, 16'666'667},
                        {2, 30.0, pacer::CadenceReason::overrun, 33'333'334},
                        {3, 59.94 / 3, pacer::CadenceReason::rebased, 50'050'050},
                        {1, 60.0, pacer::CadenceReason::fixed, 0}};
    cap.add(frame_at(0, 1000 * ms, 0));  // no frame time: no row
    for (std::uint64_t i = 0; i < 4; ++i) {
        pacer::FrameTiming t = frame_at(i + 1, (1000 + 20 * static_cast<std::int64_t>(i + 1)) * ms, 20 * ms);
        t.cadence = rows[i].cadence;
        t.cadence_hz = rows[i].hz;
        t.cadence_reason = rows[i].reason;
        t.display_dt = std::chrono::nanoseconds(rows[i].dt);
        cap.add(t);
    }
    ASSERT_TRUE(cap.close().ok());
    const auto lines = read_lines(path);
    ASSERT_EQ(lines.size(), 5u);
    auto col = [&](const char* name) { return column(lines, name); };
    using V = std::vector<std::string>;
    EXPECT_EQ(col("Cadence"), (V{"1", "2", "3", "1"}));
    EXPECT_EQ(col("CadenceHz"), (V{"60.000", "30.000", "19.980", "60.000"}));  // 59.94 / 3 = 19.98
    EXPECT_EQ(col("CadenceReason"), (V{"fits", "overrun", "rebased", "fixed"}));
    EXPECT_EQ(col("MsDisplayDelta"), (V{"16.666667", "33.333334", "50.050050", "0.000000"}));
}

// A row waiting for its latency survives the buffer's writes: the rows before it go out, it
// stays, and the next add() completes it.
TEST(Capture, ThePendingRowSurvivesAWrite) {
    const std::string path = temp_path("pending.csv");
    pacer::CaptureWriter cap;
    pacer::CaptureOptions o;
    o.write_stats = false;
    ASSERT_TRUE(cap.open(path, o).ok());
    const std::int64_t ms = 1'000'000;
    const int n = 300;
    for (int i = 0; i < n; ++i) {
        pacer::FrameTiming t = frame_at(static_cast<std::uint64_t>(i), 1000 * ms + i * 10 * ms, i == 0 ? 0 : 10 * ms);
        t.latency = std::chrono::microseconds(1000 + i);  // row i - 1's: 1.000 + (i - 1 + 1) / 1000 ms
        cap.add(t);
        if (i == 100) {
            cap.flush();
            EXPECT_EQ(cap.rows_written(), 99u);  // rows 1..99; row 100 waits for its latency
        }
    }
    ASSERT_TRUE(cap.close().ok());
    const auto lines = read_lines(path);
    ASSERT_EQ(lines.size(), static_cast<std::size_t>(n));  // header + rows 1..n-1
    for (int r = 1; r < n - 1; ++r) {
        char want[32];
        std::snprintf(want, sizeof want, "%d.%03d000", (1001 + r) / 1000, (1001 + r) % 1000);
        EXPECT_EQ(split(lines[static_cast<std::size_t>(r)]).back(), want) << r;
        EXPECT_EQ(split(lines[static_cast<std::size_t>(r)])[15], std::to_string(r));  // Frame
    }
    EXPECT_EQ(split(lines.back()).back(), "NA");
}

// The writes that make a killed process lose little (see "Durability" in pacer/capture.hpp):
// at least 64 rows per write, and once 64 rows are buffered, a write as soon as they cover 0.2 s.
TEST(Capture, WritesEvery64RowsOrAFifthOfASecondWhicheverComesLater) {
    struct Case {
        double hz;
        std::uint64_t rows_per_write;  // hand-computed; 0: the buffer fills first
    };
    // 10 Hz and 144 Hz: 64 rows cover more than 0.2 s. 1 kHz: the 200th row is 0.2 s after the
    // last row written. 10 kHz: 0.2 s is 2000 rows, more than the 128 KiB buffer holds.
    for (const Case c : {Case{10, 64}, Case{144, 64}, Case{1000, 200}, Case{10000, 0}}) {
        SCOPED_TRACE("hz " + std::to_string(c.hz));
        const std::string path = temp_path("durable.csv");
        pacer::CaptureWriter cap;
        pacer::CaptureOptions o;
        o.write_stats = false;
        ASSERT_TRUE(cap.open(path, o).ok());
        EXPECT_EQ(read_lines(path).size(), 1u);  // the header is written at once
        const auto period = static_cast<std::int64_t>(1e9 / c.hz);
        std::uint64_t last = 0, writes = 0;
        for (std::uint64_t k = 0; k <= 3000; ++k) {
            cap.add(frame_at(k, static_cast<std::int64_t>(k) * period, k == 0 ? 0 : period));
            const std::uint64_t now = cap.rows_written();
            if (now == last) continue;
            ++writes;
            if (c.rows_per_write) {
                EXPECT_EQ(now - last, c.rows_per_write) << "row " << k;
            } else {
                EXPECT_GE(now - last, 64u) << "row " << k;
            }
            // Handed to the OS means in the file, whole.
            EXPECT_EQ(read_lines(path).size(), 1 + now) << "row " << k;
            last = now;
        }
        EXPECT_GT(writes, 2u);
        EXPECT_EQ(cap.rows_written() + cap.rows_buffered(), 3000u);
        if (c.rows_per_write == 0) {
            EXPECT_LT(static_cast<double>(cap.rows_buffered()), 0.2 * c.hz);
        }
        ASSERT_TRUE(cap.close().ok());
        EXPECT_EQ(read_lines(path).size(), 3001u);
    }
}

TEST(Capture, NumbersIgnoreTheGlobalLocale) {
    struct CommaDecimal : std::numpunct<char> {
        char do_decimal_point() const override { return ','; }
    };
    const std::locale old = std::locale::global(std::locale(std::locale::classic(), new CommaDecimal));
    const std::string path = temp_path("locale.csv");
    pacer::CaptureWriter cap;
    ASSERT_TRUE(cap.open(path).ok());
    for (const auto& t : frames(30)) cap.add(t);
    ASSERT_TRUE(cap.close().ok());
    std::locale::global(old);
    const auto lines = read_lines(path);
    const std::size_t cols = split(lines[0]).size();
    for (std::size_t i = 1; i < lines.size(); ++i) EXPECT_EQ(split(lines[i]).size(), cols);
    const auto stats = read_lines(pacer::CaptureWriter::stats_path(path));
    for (const auto& l : stats) EXPECT_EQ(parse_record(l).size(), 2u) << l;
}

TEST(Capture, SidecarHasSummarySettingsAndMachine) {
    EXPECT_EQ(pacer::CaptureWriter::stats_path("a/capture.csv"), "a/capture-stats.csv");
    EXPECT_EQ(pacer::CaptureWriter::stats_path("log"), "log-stats.csv");
    const std::string path = temp_path("side.csv");
    pacer::CaptureWriter cap;
    pacer::CaptureOptions o;
    o.config = pacer::PacerConfig{.target_hz = 144.0};
    ASSERT_TRUE(cap.open(path, o).ok());
    const auto fs_ = frames(200);
    for (const auto& t : fs_) cap.add(t);
    ASSERT_TRUE(cap.close().ok());
    auto kv = read_sidecar(path);
    EXPECT_EQ(kv["Rows"], "200");
    EXPECT_EQ(kv["Frames"], "199");  // the first frame has no frame time
    EXPECT_EQ(kv["SettingTargetHz"], "144.000000");
#if defined(__linux__)
    EXPECT_EQ(kv["MachineOS"], "Linux");
#endif
    EXPECT_FALSE(kv["MachineSleepPrimitive"].empty());
    EXPECT_FALSE(kv["AverageFPS"].empty());
    EXPECT_FALSE(kv["WindowMsFrameTimeP99"].empty());
    std::int64_t sum = 0;
    for (std::size_t i = 1; i < fs_.size(); ++i) sum += fs_[i].interval.count();
    EXPECT_NEAR(std::stod(kv["AverageFPS"]), 199e9 / static_cast<double>(sum), 1e-5);
}

TEST(Capture, SidecarQuotesCommasAndQuotesInsteadOfAlteringThem) {
    // The Linux primitive's own name has a comma; notes are free text with commas and quotes.
    struct LinuxNamedOs : pacer::TimeSource {
        pacer::SimulatedOs sim;
        pacer::clock::time_point now() noexcept override { return sim.now(); }
        void sleep_until(pacer::clock::time_point deadline) noexcept override { sim.sleep_until(deadline); }
        void relax() noexcept override { sim.relax(); }
        pacer::CpuTimes cpu_times() noexcept override { return sim.cpu_times(); }
        const char* sleep_primitive() const noexcept override {
            return "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)";
        }
    } os;
    const std::string notes = R"(work 2 ms, busy threads 3, "coarse" scheduler)";
    const std::string path = temp_path("quoted.csv");
    pacer::CaptureWriter cap;
    pacer::CaptureOptions o;
    o.notes = notes;
    ASSERT_TRUE(cap.open(path, o, &os).ok());
    for (const auto& t : frames(30)) cap.add(t);
    ASSERT_TRUE(cap.close().ok());

    const auto lines = read_lines(pacer::CaptureWriter::stats_path(path));
    auto line_of = [&](const std::string& key) {
        for (const auto& l : lines)
            if (l.rfind(key + ",", 0) == 0) return l;
        return std::string();
    };
    EXPECT_EQ(line_of("MachineSleepPrimitive"), R"x(MachineSleepPrimitive,"clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)")x");
    EXPECT_EQ(line_of("Notes"), R"x(Notes,"work 2 ms, busy threads 3, ""coarse"" scheduler")x");
    EXPECT_EQ(line_of("Rows"), "Rows,30");  // nothing to quote: written as before

    auto kv = read_sidecar(path);
    EXPECT_EQ(kv["MachineSleepPrimitive"], "clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)");
    EXPECT_EQ(kv["Notes"], notes);
}

TEST(Capture, OffUntilOpenedAndAfterClose) {
    pacer::CaptureWriter cap;
    const auto fs_ = frames(3);
    cap.add(fs_[0]);  // not open: ignored
    EXPECT_EQ(cap.rows(), 0u);
    EXPECT_FALSE(cap.is_open());
    const std::string path = temp_path("toggle.csv");
    ASSERT_TRUE(cap.open(path).ok());
    cap.add(fs_[1]);
    ASSERT_TRUE(cap.close().ok());
    cap.add(fs_[2]);  // closed again: ignored
    EXPECT_TRUE(cap.close().ok());
    EXPECT_EQ(read_lines(path).size(), 2u);
}

TEST(Capture, DestructorFlushesAndWritesTheSidecar) {
    const std::string path = temp_path("dtor.csv");
    {
        pacer::CaptureWriter cap;
        ASSERT_TRUE(cap.open(path).ok());
        for (const auto& t : frames(25)) cap.add(t);
        EXPECT_EQ(cap.rows_written(), 0u);  // still in the buffer: fewer than 64 rows
        EXPECT_EQ(read_lines(path).size(), 1u);
    }
    EXPECT_EQ(read_lines(path).size(), 25u);  // the first frame has no row
    EXPECT_TRUE(fs::exists(pacer::CaptureWriter::stats_path(path)));
}

TEST(Capture, UnwritablePathIsAClearError) {
    pacer::CaptureWriter cap;
    const pacer::Status st = cap.open("/nonexistent-dir-of-pacer/capture.csv");
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.message().find("/nonexistent-dir-of-pacer/capture.csv"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("No such file"), std::string::npos) << st.message();
    EXPECT_FALSE(cap.is_open());
    cap.add(frames(1)[0]);  // harmless
}

#if defined(PACER_TEST_LINUX)  // /dev/full and RLIMIT_FSIZE
TEST(Capture, FullDiskKeepsTheLoopRunning) {
    pacer::CaptureWriter cap;
    pacer::CaptureOptions o;
    o.buffer_bytes = 4096;
    o.write_stats = false;  // no sidecar beside /dev/full
    ASSERT_TRUE(cap.open("/dev/full", o).ok());
    pacer::set_log_function(nullptr);
    pacer::SimulatedOs os({.granularity = 1ms});
    pacer::FramePacer fp({.target_hz = 144.0}, &os);
    int frames_run = 0;
    for (int i = 0; i < 1000; ++i) {  // the loop goes on after the error
        os.advance(1ms);
        cap.add(fp.wait());
        ++frames_run;
    }
    EXPECT_EQ(frames_run, 1000);
    EXPECT_TRUE(cap.failed());
    EXPECT_NE(cap.status().message().find("/dev/full"), std::string::npos) << cap.status().message();
    EXPECT_NE(cap.status().message().find("No space left"), std::string::npos) << cap.status().message();
    EXPECT_EQ(cap.rows(), 1000u);
    EXPECT_EQ(cap.rows_written(), 0u);
    const pacer::Status st = cap.close();
    EXPECT_FALSE(st.ok());
    EXPECT_EQ(cap.rows_dropped(), 999u);  // the first frame has no row to drop
    EXPECT_EQ(cap.rows_without_frame_time(), 1u);
}
#endif

#if defined(PACER_TEST_LINUX)  // /dev/full and RLIMIT_FSIZE
TEST(Capture, RowsBeforeAWriteErrorStayInTheFile) {
    // A file-size limit makes the disk "fill up" after ~20 KiB: writes then fail with EFBIG.
    const std::string path = temp_path("limit.csv");
    rlimit old{};
    ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
    auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lim = old;
    lim.rlim_cur = 20 * 1024;
    ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
    pacer::CaptureWriter cap;
    pacer::CaptureOptions o;
    o.buffer_bytes = 4096;
    o.write_stats = false;
    ASSERT_TRUE(cap.open(path, o).ok());
    const auto fs_ = frames(1000);
    for (const auto& t : fs_) cap.add(t);
    const pacer::Status st = cap.close();
    setrlimit(RLIMIT_FSIZE, &old);
    std::signal(SIGXFSZ, old_handler);
    EXPECT_FALSE(st.ok());
    EXPECT_NE(st.message().find("File too large"), std::string::npos) << st.message();
    EXPECT_GT(cap.rows_written(), 0u);
    EXPECT_EQ(cap.rows_written() + cap.rows_dropped(), 999u);
    // Every row reported written is in the file, whole.
    const auto lines = read_lines(path);
    const std::size_t cols = split(lines[0]).size();
    std::size_t whole = 0;
    for (std::size_t i = 1; i < lines.size(); ++i) whole += split(lines[i]).size() == cols;
    EXPECT_GE(whole, cap.rows_written());
}
#endif

TEST(Capture, ReopenStartsANewFile) {
    const std::string a = temp_path("a.csv"), b = temp_path("b.csv");
    pacer::CaptureWriter cap;
    const auto fs_ = frames(10);
    ASSERT_TRUE(cap.open(a).ok());
    for (int i = 0; i < 5; ++i) cap.add(fs_[static_cast<std::size_t>(i)]);
    ASSERT_TRUE(cap.open(b).ok());  // closes a
    for (int i = 5; i < 10; ++i) cap.add(fs_[static_cast<std::size_t>(i)]);
    ASSERT_TRUE(cap.close().ok());
    EXPECT_EQ(read_lines(a).size(), 5u);  // frames 1-4: frame 0 has no frame time
    EXPECT_EQ(read_lines(b).size(), 6u);  // frames 5-9: the grid goes on
    EXPECT_EQ(split(read_lines(b)[1])[9], "0.000000000");  // TimeInSeconds restarts
}

}  // namespace

// ---- the column table (pacer/capture_columns.hpp) ---------------------------------------------

TEST(Columns, TheWriterWritesTheTableInItsOrder) {
    // The header line of a capture is the names of the columns pacer writes, in the table's order,
    // and a row has a field for each.
    std::string header;
    for (const pacer::CaptureColumn& c : pacer::kCaptureColumns) {
        if (c.origin == pacer::CaptureOrigin::other) continue;
        header += (header.empty() ? "" : ",") + std::string(c.name);
    }
    std::string written = pacer::CaptureWriter::header();
    while (!written.empty() && (written.back() == '\n' || written.back() == '\r')) written.pop_back();
    EXPECT_EQ(written, header);
}

TEST(Columns, DocsNameEveryColumnPacerWrites) {
    // docs/capture.md's "The file" table has a row naming each written column in its first cell.
    const std::vector<std::string> doc = read_lines(std::string(PACER_SAMPLES_DIR) + "/../../docs/capture.md");
    ASSERT_FALSE(doc.empty());
    for (const pacer::CaptureColumn& c : pacer::kCaptureColumns) {
        if (c.origin == pacer::CaptureOrigin::other) continue;
        bool found = false;
        for (const std::string& l : doc) {
            if (l.rfind("| ", 0) != 0) continue;
            const std::string first = l.substr(0, l.find(" | ", 2));
            for (const std::string& name : split(std::string(first.substr(2))))
                found = found || name == c.name || name == " " + std::string(c.name);
        }
        EXPECT_TRUE(found) << c.name << " has no row in docs/capture.md";
    }
}
