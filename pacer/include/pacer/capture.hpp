// pacer/capture.hpp - frame-time capture files that CapFrameX, OCAT and PresentMon scripts read.
//
//   pacer::CaptureWriter cap;                                   // owns nothing until open()
//   if (pacer::Status st = cap.open("capture.csv", {.application = "mygame"}); !st) log(st.message());
//   while (running) {
//       pacer::FrameTiming t = pacer.wait();
//       cap.add(t);                    // one row; formats into a buffer, no allocation, noexcept
//       update_and_render();
//   }
//   cap.close();                       // flushes, writes capture-stats.csv beside it
//
// File. One row per frame, comma separated, LF line ends, no quoting, C locale whatever the global
// locale (numbers go through std::to_chars or integer arithmetic). The header starts with the
// classic PresentMon 1.x columns in their exact order and casing (kPresentMonColumns), so tools
// that read PresentMon logs read ours; pacer's own columns follow (kPacerColumns). None of them is
// a name CapFrameX takes for timing data (FrameTime, DisplayedTime, GPUBusy, ...); MsCPUBusy and
// MsCPUWait are PresentMon 2.x's own names for work and wait time. Values pacer does not measure
// are "NA", PresentMon's "not measured" (SwapChainAddress, PresentFlags, Dropped, the display
// columns unless the engine passes them in CaptureExtras).
//
//   TimeInSeconds      wake time of this frame since the first captured frame, s
//   MsBetweenPresents  FrameTiming::interval (wake to wake); NA for the first frame of a grid
//   MsCPUBusy          FrameTiming::work;        MsCPUWait = interval - work (time inside wait())
//   Frame              FrameTiming::index        WaitMode        FrameTiming::mode (sleep, spin,
//                                                                hybrid, vsync, auto)
//   MsTargetFrameTime  FrameTiming::period       MsLateness      FrameTiming::lateness
//   MsSleep, MsSpin    FrameTiming::slept, spun  MsOversleep     FrameTiming::oversleep
//   MsMargin           FrameTiming::margin       Skipped, Missed FrameTiming::skipped, missed (0/1)
//   PacingSource       what paced the frame: FrameTiming::source ("sleep", "spin", "hybrid",
//                      "vsync"; in auto mode it tells which one won), or CaptureExtras::pacing_source
// Durations are written in ms with 6 decimals, i.e. exactly in whole nanoseconds.
//
// Sidecar. close() also writes "<name>-stats.csv" ("capture.csv" -> "capture-stats.csv",
// skipped by CapFrameX): Key,Value rows with the summary over the whole capture (frames, average
// FPS, mean/stddev/min/max frame time, missed, work/sleep/spin shares), percentiles and 1 % lows
// over the newest CaptureOptions::stats_window frames, the pacer's settings and the machine.
// A value that holds a comma or a double quote is written as an RFC 4180 quoted field (RFC 4180
// section 2, rules 6 and 7: in double quotes, each quote doubled), so it reads back unaltered:
//   MachineSleepPrimitive,"clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)"
// Other values are written as they are. Line breaks in free text (Notes, the file name, an error
// message) become '_', so each key stays on one line.
//
// Cost. add() formats about 200 bytes into a buffer allocated by open() (no allocation per frame;
// tests/alloc_test.cpp) and writes the buffer with one write() when it is full: with the default
// 64 KiB, one system call every ~300 frames (bench/bench_capture.cpp measures add()).
//
// Errors never throw and never stop the frame loop. open() returns a Status for a path that
// cannot be written. A write that fails later (disk full, /dev/full, a removed device) is recorded
// once: failed() turns true, status() holds "capture: cannot write <path>: <reason>", every later
// row is counted in rows_dropped() instead of written, and the loop goes on. Rows written before
// the failure stay in the file.
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

#include "pacer/frame_pacer.hpp"
#include "pacer/stats.hpp"
#include "pacer/status.hpp"
#include "pacer/time_source.hpp"

namespace pacer {

// The classic PresentMon 1.x header, exactly (PresentMon's CSV output), then pacer's own columns.
inline constexpr const char* kPresentMonColumns =
    "Application,ProcessID,SwapChainAddress,Runtime,SyncInterval,PresentFlags,AllowsTearing,"
    "PresentMode,Dropped,TimeInSeconds,MsBetweenPresents,MsBetweenDisplayChange,MsInPresentAPI,"
    "MsUntilRenderComplete,MsUntilDisplayed";
inline constexpr const char* kPacerColumns =
    "Frame,MsCPUBusy,MsCPUWait,WaitMode,MsTargetFrameTime,MsLateness,MsSleep,MsSpin,MsOversleep,"
    "MsMargin,Skipped,Missed,PacingSource";

// What the engine knows about a frame and pacer does not. Negative durations: not measured (NA).
struct CaptureExtras {
    std::chrono::nanoseconds in_present{-1};              // MsInPresentAPI: inside the swap call
    std::chrono::nanoseconds until_render_complete{-1};   // MsUntilRenderComplete
    std::chrono::nanoseconds until_displayed{-1};         // MsUntilDisplayed
    std::chrono::nanoseconds between_display_change{-1};  // MsBetweenDisplayChange
    int sync_interval = -1;                               // SyncInterval; < 0: NA
    // PacingSource; nullptr: FrameTiming::source. Commas and line breaks become '_', at most 31 chars.
    const char* pacing_source = nullptr;
};

struct CaptureOptions {
    // Application column: commas, quotes and line breaks become '_', at most 64 chars, "" -> "pacer".
    std::string application = "pacer";
    std::string runtime = "Other";        // Runtime column (PresentMon: DXGI, D3D9, Other, ...)
    std::size_t buffer_bytes = 64 * 1024; // row buffer, clamped to [4 KiB, 64 MiB]
    bool write_stats = true;              // write <name>-stats.csv at close() (regular files only)
    std::size_t stats_window = 65'536;    // frames kept for the sidecar's percentiles, >= 2
    std::optional<PacerConfig> config{};  // settings written to the sidecar, if given
    std::string notes{};                  // free text for the sidecar (e.g. the load), <= 512 chars
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

    // One row. Does nothing when no capture is open; counts the row as dropped after a write error.
    void add(const FrameTiming& t, const CaptureExtras& extras = {}) noexcept;

    // Writes the buffered rows (a bounded write; add() does this itself when the buffer is full).
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
    const std::string& path() const noexcept { return path_; }

    // "dir/capture.csv" -> "dir/capture-stats.csv"; a name without ".csv" gets "-stats.csv".
    static std::string stats_path(const std::string& capture_path);
    // The header line, without the line feed.
    static std::string header();

    static constexpr std::size_t kMaxRow = 1024;  // bound on one formatted row, bytes

private:
    void fail(const char* what, int err) noexcept;
    bool write_all(const char* data, std::size_t n) noexcept;
    Status write_stats() const;

    std::FILE* file_ = nullptr;
    std::unique_ptr<char[]> buf_;
    std::size_t cap_ = 0, pos_ = 0;
    std::uint64_t rows_in_buf_ = 0;
    char prefix_[160] = {};      // "Application,pid,NA,Runtime,"
    std::size_t prefix_len_ = 0;
    char err_[256] = {};
    std::string path_;
    CaptureOptions opt_;
    std::string sleep_primitive_;
    std::unique_ptr<FrameStats> window_;
    std::int64_t t0_ = 0;
    bool have_t0_ = false;
    std::uint64_t rows_ = 0, written_ = 0, dropped_ = 0;
    // Whole-capture totals for the sidecar.
    std::uint64_t n_ = 0, missed_ = 0, skipped_ = 0;
    std::int64_t sum_ns_ = 0, work_ns_ = 0, slept_ns_ = 0, spun_ns_ = 0, min_ns_ = 0, max_ns_ = 0;
    std::int64_t max_late_ns_ = 0;
    double mean_ms_ = 0, m2_ = 0;  // Welford
};

}  // namespace pacer
