// pacer/capture.hpp - frame-time capture files that CapFrameX, OCAT and PresentMon scripts read.
//
//   pacer::CaptureWriter cap;                                   // owns nothing until open()
//   if (pacer::Status st = cap.open("capture.csv", {.application = "mygame"}); !st) log(st.message());
//   while (running) {
//       pacer::FrameTiming t = fp.wait();
//       cap.add(t);                    // one row; formats into a buffer, no allocation, noexcept
//       update_and_render();
//   }
//   if (pacer::Status st = cap.close(); !st) log(st.message());  // flushes; capture-stats.csv
//
// File. One row per frame that has a frame time, comma separated, LF line ends, no quoting, C
// locale whatever the global locale (numbers go through std::to_chars or integer arithmetic). The
// columns are those of the table in pacer/capture_columns.hpp, in its order: the classic
// PresentMon 1.x header first, in its exact order and casing, so tools that read PresentMon logs
// read ours, then pacer's own columns. The table also says what each row holds (its `value`
// column); the notes below explain the columns whose value needs more than its name. Values
// nobody measured are "NA", PresentMon's "not measured".
//
// Presents. PresentMon's MsBetweenPresents is the time between two presents (swap calls), and the
// tools that read the column take it as that. A host that presents passes each frame's present
// in CaptureExtras::present, timed on the pacer's clock (the PresentInfo it gives
// FramePacer::report_present); the row then holds the present's figures:
//   TimeInSeconds      the present's begin, since the first captured frame's wake, s
//   MsBetweenPresents  this present's begin - the previous present's begin
//   MsInPresentAPI     end - begin (unless CaptureExtras::in_present says otherwise)
//   SyncInterval       PresentInfo::swap_interval when >= 0 (unless CaptureExtras::sync_interval)
//   Dropped            1 when the swap call failed (PresentInfo::ok false)
// The first present has no previous one: its frame is not written. Once a capture has seen a
// present, a frame without one writes no row either (PresentMon writes one row per present) and
// the next present's MsBetweenPresents spans both frames. Without presents (a headless loop, a
// host that does not pass them) MsBetweenPresents is wake to wake (FrameTiming::interval) and
// TimeInSeconds the wake time: what paced the loop, not what reached the display.
//
// No row without a frame time: CapFrameX reads NA in MsBetweenPresents as a 0 ms frame, and
// PresentMon writes no row before it has one. The first frame of a capture and of every new grid
// (FramePacer::reset, a time-source change: FrameTiming::interval == 0) is counted in
// rows_without_frame_time() instead, unless it has a present to measure from.
//
// The columns whose value needs more than the table's `value`:
//   Application, Runtime  CaptureOptions; ProcessID the real process id
//   Dropped            CaptureExtras::dropped (0/1); else the present's outcome (its feedback:
//                      1 skipped or discarded, 0 shown), 1 for a failed swap, 0 when a displayed
//                      time says the frame was displayed, NA otherwise. (CapFrameX
//                      reads NA as dropped: it then shows no input-lag estimate, which without
//                      MsUntilDisplayed it could not make anyway.)
//   MsCPUBusy, MsCPUWait, MsBetweenWakes   work, interval - work (the time inside wait()) and
//                      the interval, wake to wake; NA when the frame has no interval
//   WaitMode, PacingSource   the configured mode (sleep, spin, hybrid, vsync, auto), and what
//                      paced the frame (in auto mode: which one won), or CaptureExtras::pacing_source
//   CadenceHz          FrameTiming::cadence_hz, the rate in force (3 decimals)
//   MsPCLatency        the frame's latency: its input sample (FramePacer::mark_input(), else the
//                      wake that started it) to the moment it was shown (reported displayed time,
//                      else the vblank its synchronised swap was shown at, else the present call's
//                      return: FrameTiming::latency, pacer/frame_timing.hpp). PresentMon 2.x's name
//                      for the age of the input the application sampled when its frame reaches the
//                      screen. pacer knows it at the next wait() (FrameTiming::latency of the next
//                      frame), so a row is formatted at the next add(). No present reported, no
//                      latency: NA when no present of the frame reached FramePacer::report_present
//                      (a headless loop, a host that does not report), and for the last row of a
//                      capture.
//   MsUntilDisplayed   CaptureExtras::until_displayed, else the present's displayed time
//                      (PresentInfo::displayed, given with the present or by its feedback) minus
//                      its begin; NA when neither is known
//   MsBetweenDisplayChange   CaptureExtras::between_display_change, else the displayed time minus
//                      that of the previous row shown; NA for the first shown row and a dropped one
// Durations are written in ms with 6 decimals, i.e. exactly in whole nanoseconds.
//
// Feedback. A presentation-feedback API (X11 Present's CompleteNotify, wp_presentation, DXGI
// frame statistics) says what became of a present frames after it was made. Hand each report to
// feedback() as well as to FramePacer::report_present (the same PresentInfo: the present's id,
// its outcome, its displayed time): the row of the present with that id then writes Dropped 1
// (skipped or discarded) or 0 (shown) and the displayed-time columns above. Rows whose present
// has an id wait for their feedback (not yet in the buffer) once the capture has received any,
// or from the first frame with CaptureOptions::await_feedback; a row waits at most kHeldRows
// frames (it is written then without, Dropped NA, and counted in rows_without_feedback()), and
// rows are written in their order, so one late report holds the rows after it. Feedback for a
// row already written, without an id, or with PresentOutcome::unknown is ignored.
//
// Sidecar. close() also writes "<name>-stats.csv" ("capture.csv" -> "capture-stats.csv",
// skipped by CapFrameX): Key,Value rows with the summary over the whole capture (frames, average
// FPS, mean/stddev/min/max frame time as written in MsBetweenPresents and FrameTimeSource saying
// whether that is presents or wakes, missed, work/sleep/spin shares of the wake-to-wake time),
// percentiles, 1 % lows and MsPCLatency's p50 / p99 and shown-late share (FrameTiming::shown_late
// over the rows with a latency) over the newest CaptureOptions::stats_window frames, the pacer's
// settings and the machine. A value that holds a comma or a double quote is written as an RFC 4180
// quoted field (RFC 4180 section 2, rules 6 and 7: in double quotes, each quote doubled), so it
// reads back unaltered:
//   MachineSleepPrimitive,"clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)"
// Other values are written as they are. Line breaks in free text (Notes, the file name, an error
// message) become '_', so each key stays on one line.
//
// Durability. A process that is killed (kill -9, a crash) loses only the rows still in the buffer:
// add() hands the buffered rows to the OS with one write() once there are at least 64 of them and
// they cover at least 0.2 s (TimeInSeconds of the newest row - of the newest row written before),
// or when the buffer is full. So at most max(64 rows, ~0.2 s + one frame) of frames are lost:
// 63 rows at 144 Hz (0.44 s), 0.2 s at 1 kHz, ~50 ms at 10 kHz (a full 128 KiB buffer), and never
// more than one write() per 64 rows (plus the newest row, which waits for its MsPCLatency, and
// the rows waiting for their feedback: kHeldRows at most).
// open() writes the header at once. The write goes to the page
// cache (nothing waits for the disk: a machine that loses power may lose more; no fsync). A kill
// that lands inside a write() may leave it cut part-way (Linux stops a many-page write at a page
// boundary), so the file can end in a fragment of a row; pacer's reader drops it (tools/
// capture_reader.hpp, cut_last_line), other tools may report the last row as malformed.
//
// Cost. add() formats about 320 bytes into the buffer open() allocated (no allocation per frame;
// tests/alloc_test.cpp) and never blocks but in that write(): a 16-128 KiB copy into the page
// cache, a few microseconds, once per 64 or more frames (bench/bench_capture.cpp measures add()
// with its writes, amortised: docs/capture.md#capture-from-an-engine). No thread is started.
//
// Errors never throw and never stop the frame loop. open() returns a Status for a path that
// cannot be opened for writing. A write that fails (disk full, /dev/full, a removed device; the
// header's included) is recorded once: failed() turns true, status() holds "capture: cannot write
// <path>: <reason>", every later row is counted in rows_dropped() instead of written, and the loop
// goes on. Rows written before the failure stay in the file.
//
// Thread safety: none. One thread adds (the pacing thread); open/close from that thread too.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "pacer/capture_columns.hpp"
#include "pacer/config.hpp"
#include "pacer/frame_timing.hpp"
#include "pacer/present.hpp"
#include "pacer/stats.hpp"
#include "pacer/status.hpp"
#include "pacer/time_source.hpp"

namespace pacer {

// What the engine knows about a frame and pacer does not. Negative durations: not measured (NA).
struct CaptureExtras {
    // This frame's present (swap call) on the pacer's clock: see "Presents" above.
    std::optional<PresentInfo> present{};
    std::chrono::nanoseconds in_present{-1};              // MsInPresentAPI: inside the swap call
    std::chrono::nanoseconds until_render_complete{-1};   // MsUntilRenderComplete
    std::chrono::nanoseconds until_displayed{-1};         // MsUntilDisplayed
    std::chrono::nanoseconds between_display_change{-1};  // MsBetweenDisplayChange
    int sync_interval = -1;                               // SyncInterval; < 0: from present, else NA
    int dropped = -1;                                     // Dropped: 1 not displayed, 0 displayed; < 0: see above
    // PacingSource; nullptr: FrameTiming::source. Commas and line breaks become '_', at most 31 chars.
    const char* pacing_source = nullptr;
};

struct CaptureOptions {
    // Application column: commas, quotes and line breaks become '_', at most 64 chars, "" -> "pacer".
    std::string application = "pacer";
    std::string runtime = "Other";        // Runtime column (PresentMon: DXGI, D3D9, Other, ...)
    // Row buffer, clamped to [CaptureWriter::kMinBuffer (65 KiB: 64 rows of the longest kind), 64 MiB].
    std::size_t buffer_bytes = 128 * 1024;
    bool write_stats = true;              // write <name>-stats.csv at close() (regular files only)
    std::size_t stats_window = 65'536;    // frames kept for the sidecar's percentiles, >= 2
    std::optional<PacerConfig> config{};  // settings written to the sidecar, if given
    std::string notes{};                  // free text for the sidecar (e.g. the load), <= 512 chars
    bool await_feedback = false;          // rows with a present id wait for feedback() from the first frame
};

class CaptureWriter {
public:
    CaptureWriter() noexcept;
    ~CaptureWriter();  // close(), ignoring its status
    CaptureWriter(const CaptureWriter&) = delete;
    CaptureWriter& operator=(const CaptureWriter&) = delete;

    // Creates (truncates) path and writes the header. An open capture is closed first.
    // ts: whose sleep primitive the sidecar names (nullptr: the real OS).
    Status open(const std::string& path, const CaptureOptions& options = {}, TimeSource* ts = nullptr);

    // One frame: a row, unless it has no frame time (see above). Does nothing when no capture is
    // open; counts the row as dropped after a write error.
    void add(const FrameTiming& t, const CaptureExtras& extras = {}) noexcept;

    // What a presentation-feedback API said of an earlier present (see Feedback above): its row
    // writes Dropped and the displayed times from it. Call it from the thread that adds.
    void feedback(const PresentInfo& f) noexcept;

    // Writes the buffered rows now (one bounded write; add() does this itself, see Durability).
    void flush() noexcept;

    // Flushes, closes the file, writes the sidecar. Returns the first error of this capture, if
    // any (write error, close error, sidecar error). Closing a closed writer returns ok.
    Status close();

    bool is_open() const noexcept { return file_ != nullptr; }
    bool failed() const noexcept { return err_[0] != '\0'; }
    Status status() const;                                             // ok, or the first error
    std::uint64_t rows() const noexcept { return rows_; }              // add() calls while open
    std::uint64_t rows_written() const noexcept { return written_; }   // rows handed to the OS
    std::uint64_t rows_dropped() const noexcept { return dropped_; }   // lost after a write error
    std::uint64_t rows_without_frame_time() const noexcept { return no_time_; }  // not written
    // Rows that waited for their feedback and were written without it (kHeldRows passed, close()).
    std::uint64_t rows_without_feedback() const noexcept { return no_feedback_; }
    // Not yet handed to the OS: the newest row (which waits for its MsPCLatency) and the rows
    // waiting for their feedback included.
    std::uint64_t rows_buffered() const noexcept { return rows_in_buf_ + held_n_; }
    const std::string& path() const noexcept { return path_; }

    // "dir/capture.csv" -> "dir/capture-stats.csv"; a name without ".csv" gets "-stats.csv".
    static std::string stats_path(const std::string& capture_path);
    // The header line, without the line feed.
    static std::string header();

    static constexpr std::size_t kMaxRow = 1024;  // bound on one formatted row, bytes
    static constexpr std::size_t kMinBuffer = 65 * kMaxRow;
    static constexpr std::uint64_t kRowsPerWrite = 64;          // at least, between two writes
    static constexpr std::chrono::nanoseconds kWriteAfter{200'000'000};  // buffered time that makes a write
    // Rows kept unformatted at most: the newest (its MsPCLatency comes with the next frame) and
    // those waiting for feedback (1-3 frames in practice; 16 covers a triple-buffered queue
    // at 240 Hz several times over).
    static constexpr std::size_t kHeldRows = 16;

private:
    // A row not yet formatted: it waits for the next frame's latency figures or its feedback.
    struct HeldRow {
        FrameTiming t{};
        CaptureExtras x{};            // x.pacing_source is not kept: source holds its text
        char source[32] = {};         // CaptureExtras::pacing_source, sanitized ("" when none)
        std::size_t source_len = 0;
        std::int64_t frame_ns = 0;    // MsBetweenPresents
        std::int64_t time_ns = 0;     // TimeInSeconds, since the first captured frame's wake
        bool has_next = false;        // the next frame came (its latency figures below)
        bool awaits_feedback = false; // its present's feedback has not come yet
        std::chrono::nanoseconds latency{0}, input_to_present{0};
        bool latency_measured = false, shown_late = false;
    };

    void reset_counts() noexcept;
    Status apply_options(const CaptureOptions& options, TimeSource* ts);
    void fail(const char* what, int err) noexcept;
    HeldRow& held(std::size_t i) noexcept { return held_[(held_first_ + i) % kHeldRows]; }
    // The newest held row takes next's latency figures (nullptr: it has none).
    void take_next(const FrameTiming* next) noexcept;
    // Formats the held rows that wait for nothing more, oldest first (all: every one).
    void release(bool all) noexcept;
    // Formats one row (its feedback applied) and adds its frame to window_.
    void write_row(HeldRow& h) noexcept;
    void count_wake(const FrameTiming& t) noexcept;
    // The row's frame time (MsBetweenPresents; <= 0: none) and time stamp, from t and its present.
    std::int64_t frame_time(const FrameTiming& t, const CaptureExtras& x, std::int64_t& at) noexcept;
    void hold(const FrameTiming& t, const CaptureExtras& x, std::int64_t frame, std::int64_t at) noexcept;
    void count_row(std::int64_t frame) noexcept;
    bool write_all(const char* data, std::size_t n) noexcept;
    Status write_stats() const;
    std::string stats_text() const;

    std::FILE* file_ = nullptr;
    std::unique_ptr<char[]> buf_;
    std::size_t cap_ = 0, pos_ = 0;
    std::uint64_t rows_in_buf_ = 0;
    char pid_[24] = {};               // ProcessID, formatted once
    std::size_t pid_len_ = 0;
    char err_[256] = {};
    std::string path_;
    CaptureOptions opt_;
    std::string sleep_primitive_;
    std::unique_ptr<FrameStats> window_;
    std::int64_t t0_ = 0;
    bool have_t0_ = false;
    std::int64_t written_until_ = 0;  // time of the newest row handed to the OS (or t0_)
    std::int64_t newest_ = 0;         // time of the newest formatted row
    std::unique_ptr<HeldRow[]> held_;  // kHeldRows, a ring from held_first_
    std::size_t held_first_ = 0, held_n_ = 0;
    bool feedback_ = false;            // rows with a present id wait for their feedback
    std::int64_t last_shown_ = -1;     // displayed time of the newest written row shown (ns)
    std::uint64_t no_feedback_ = 0;
    std::int64_t last_present_ = 0;   // begin of the previous present
    bool have_present_ = false;
    std::uint64_t rows_ = 0, written_ = 0, dropped_ = 0, no_time_ = 0;
    // Whole-capture totals for the sidecar: frame times as written (n_ rows), and the wake-to-wake
    // intervals (wakes_ frames) for the pacer's own figures.
    std::uint64_t n_ = 0, wakes_ = 0, missed_ = 0, skipped_ = 0, presents_ = 0;
    std::int64_t sum_ns_ = 0, min_ns_ = 0, max_ns_ = 0;
    std::int64_t wake_ns_ = 0, work_ns_ = 0, slept_ns_ = 0, spun_ns_ = 0;
    std::int64_t max_late_ns_ = 0;
    double mean_ms_ = 0, m2_ = 0;  // Welford
};

}  // namespace pacer
