// tools/analyze.hpp - the summary `pacer analyze` prints, computed with the definitions PresentMon,
// OCAT and CapFrameX document:
//   * quantile Q(p): linear interpolation at h = (N - 1) p of the sorted frame times
//     (pacer::percentile_sorted);
//   * average FPS = 1000 N / sum(frame time ms); P1 FPS = 1000 / Q(0.99), P0.1 FPS = 1000 / Q(0.999);
//   * 1 % low (average) = 1000 / mean{ft >= Q(0.99)}; 0.1 %: Q(0.999);
//   * 1 % low (integral, Afterburner) = 1000 / the frame time at which the frame times, sorted
//     longest first, add up to 1 % of the total time; 0.1 %: 0.1 %;
//   * stddev: population; jitter: |ft[i] - ft[i-1]|;
//   * pacing error = ft - target (per-frame target when the capture has one): bias (mean), RMS,
//     p99 of |error|, share of frames within +/- 0.5 ms;
//   * stutter: ft > 2.5 x the mean of the stutter_window frame times before it; the first
//     stutter_window frames get no verdict (pacer::StutterCounter, pacer/stats.hpp, says why);
//   * hitch (Unreal): ft > 60 ms and ft >= 1.5 x the previous frame time;
//   * Swappy-style histograms: bucket = clamp(floor(x / refresh period), 0, 5) of the lateness
//     (pacer captures only) and of the frame time.
// Rows whose frame time is NA (the first frame of a pacer capture) are counted and left out.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "capture_reader.hpp"
#include "pacer/status.hpp"

namespace pacer::tools {

struct AnalyzeOptions {
    double target_ms = 0;        // > 0: pacing error against this instead of the file's target
    double refresh_hz = 0;       // > 0: refresh period for the histograms (else target, else 60 Hz)
    double stutter_factor = 2.5;
    int stutter_window = 20;     // frames in the moving average
    // Which series to analyse. A PresentMon log holds one per process and swap chain; by default
    // each is analysed on its own, the one with the most frames first, at most max_series of them.
    std::string application;     // non-empty: only this Application (any case)
    long long process_id = -1;   // >= 0: only this ProcessID
    std::string swapchain;       // non-empty: only this SwapChainAddress (hex: 0x1F = 0x0000001f)
    std::size_t max_series = 4;  // the main series and up to 3 others (the note names the rest)
    int histogram_bins = 20;
    std::size_t max_frames = 50'000'000;  // a larger capture is refused (memory stays bounded)
    bool keep_frames = false;    // fill Analysis::frame_ms / time_s (plots, analyze --json --frames)
};

struct Analysis {
    std::string file;
    std::string format;
    // Which series of the file this is (a PresentMon log holds one per process and swap chain).
    std::string application, swapchain;
    std::int64_t process_id = -1;   // -1: the file has no ProcessID
    bool sampled = false;           // a log of samples, not frames (CaptureReader::sampled())
    std::uint64_t rows = 0, frames = 0, na_rows = 0, filtered_rows = 0;
    double duration_s = 0;
    double avg_fps = 0, mean_ms = 0, stddev_ms = 0, min_ms = 0, max_ms = 0;
    double p50_ms = 0, p90_ms = 0, p95_ms = 0, p99_ms = 0, p999_ms = 0;
    double p1_fps = 0, p01_fps = 0;
    double low1_avg_fps = 0, low01_avg_fps = 0, low1_integral_fps = 0, low01_integral_fps = 0;
    bool has_target = false;
    double target_ms = 0;        // mean target
    double bias_ms = 0, rms_ms = 0, abs_err_p99_ms = 0, within_05ms = 0;  // within: share [0,1]
    double jitter_mean_ms = 0, jitter_p99_ms = 0, jitter_max_ms = 0;
    std::uint64_t stutters = 0, hitches = 0;
    double stutter_time_share = 0;
    bool has_missed = false;
    std::uint64_t missed = 0;
    double refresh_ms = 0;
    bool has_lateness = false;
    std::array<std::uint64_t, 6> lateness_hist{};  // in refresh periods, last bucket = 5+
    std::array<std::uint64_t, 6> interval_hist{};
    double hist_lo_ms = 0, hist_hi_ms = 0;         // frame-time histogram range
    std::vector<std::uint64_t> histogram;          // frame-time bins; values outside go to the ends
    // With AnalyzeOptions::keep_frames: every analysed frame in file order, its frame time (ms) and
    // its time stamp (s since the first frame; from the file's time column, else the running sum).
    std::vector<double> frame_ms, time_s;
};

// Metrics from frame times (ms, finite, >= 0); targets: per-frame or empty; lateness: same size as
// ft (NaN = unknown) or empty.
void compute(const std::vector<double>& ft, const std::vector<double>& target,
             const std::vector<double>& lateness, const AnalyzeOptions& o, Analysis& a);

// One series of a capture: the frames of one (application, process, swap chain).
struct SeriesInfo {
    std::string application, swapchain;  // swapchain empty when the file has none (or NA)
    std::int64_t process_id = -1;        // -1: no ProcessID column (or NA)
    std::uint64_t rows = 0, frames = 0;  // frames: rows with a frame time
    double duration_s = 0;               // sum of the frame times (sampled: last - first time stamp)
    bool selected = false;               // matches AnalyzeOptions' selection
};

struct FileAnalysis {
    std::string file, format;
    bool sampled = false;             // CaptureReader::sampled(): rows are samples, not frames
    std::vector<SeriesInfo> series;   // every series in the file, the most frames first
    std::vector<Analysis> analyses;   // the analysed series, in the same order
    // Empty, or one line for the reader of the text output: what else the file holds (or what else
    // the selection matched) and how to pick one.
    std::string note;
};

// Reads and analyses one capture: each selected series on its own (AnalyzeOptions). Errors:
// "file:line: what"; a selection that matches nothing: "file: no frames of pid 77 (the file
// holds: ...)".
Status analyze_file(const std::string& path, const AnalyzeOptions& o, FileAnalysis& out);
Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, FileAnalysis& out);
// The same, keeping only the first analysed series (the main one, or the selected one).
Status analyze_file(const std::string& path, const AnalyzeOptions& o, Analysis& a);
Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, Analysis& a);
// What a capture holds, without the analysis (out.analyses stays empty): `pacer analyze --list`.
Status list_file(const std::string& path, FileAnalysis& out);
// "application  pid  swap chain  frames  duration s" table of a file's series.
std::string format_series(const FileAnalysis& fa);
// "dwm.exe (pid 10376, swap chain 0x1BF098B1ED0, 47 frames)".
std::string describe(const SeriesInfo& s);

// Text: one column per analysis (side by side), then the histograms. JSON: an array.
std::string format_text(const std::vector<Analysis>& as);
std::string format_json(const std::vector<Analysis>& as);

}  // namespace pacer::tools
