// tools/lib/analyze.hpp - the summary `pacer analyze` prints.
//
// Two sets of definitions (AnalyzeOptions::definitions, `--definitions`):
//
// presentmon (the default; quantiles as PresentMon 2.x computes its own statistics, so its
// percentiles match PresentMon's; stutters by pacer's own rule):
//   * quantile Q(p): linear interpolation at h = (N - 1) p of the sorted frame times (0-based;
//     pacer::percentile_sorted, R's type 7);
//   * P1 FPS = 1000 / Q(0.99), P0.1 FPS = 1000 / Q(0.999);
//   * 1 % low (average) = 1000 / mean{ft >= Q(0.99)}; 0.1 %: Q(0.999);
//   * stutter: ft > 2.5 x the mean of the stutter_window (20) frame times before it; the first
//     stutter_window frames get no verdict (pacer::StutterCounter, pacer/stats.hpp, says why).
// capframex (what CapFrameX computes, from its source: FrametimeStatisticProvider.cs and
// SampleBasedMovingAverage.cs in github.com/CXWorld/CapFrameX, source/CapFrameX.Statistics.NetStandard/):
//   * quantile Q8(p): MathNet.Numerics' Statistics.Quantile, R's type 8: h = (N + 1/3) p + 1/3
//     (1-based), x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]); x1 below h = 1, xN from h = N;
//   * frame-time percentiles: Q8 of the frame times;
//   * P1 FPS = Q8(0.01) of the FPS values 1000 / ft (interpolated between FPS values, not frame
//     times), P0.1 FPS = Q8(0.001) of them;
//   * 1 % low (average) = 1000 / mean{ft >= Q8(0.99)}; 0.1 %: Q8(0.999);
//   * stutter: ft[i] > 2.5 x a moving average that includes frame i: the mean of v[k] over the
//     W = round(10 sqrt(mean ms)) frames k = i - W + 1 .. i (fewer at the start, so every frame
//     gets a verdict), where v[k] = ft[k - 1] when ft[k] > 3 x ft[k - 1], else ft[k].
// The same in both:
//   * average FPS = 1000 N / sum(frame time ms);
//   * 1 % low (integral, Afterburner) = 1000 / the frame time at which the frame times, sorted
//     longest first, add up to 1 % of the total time; 0.1 %: 0.1 %;
//   * stddev: population; jitter: |ft[i] - ft[i-1]| (its p99 and that of |error|: Q(p) above);
//   * pacing error = ft - target (per-frame target when the capture has one): bias (mean), RMS,
//     p99 of |error|, share of frames within +/- 0.5 ms;
//   * hitch (Unreal): ft > 60 ms and ft >= 1.5 x the previous frame time;
//   * Swappy histograms: share of frames whose frame time (and, pacer captures, whose lateness)
//     lasts N refresh periods: frame time bucket = clamp(floor(x / refresh period + 0.5), 0, 5),
//     bins centred on whole periods ("1 refresh period" = [0.5, 1.5)), so that a frame of exactly
//     one period lands in one bin whichever way its jitter goes; lateness bucket =
//     clamp(floor(x / refresh period), 0, 5) (whole periods late). The refresh period
//     is --refresh-hz, else the capture's (or --target-hz) target, else 60 Hz.
//   * displayed frames (files with Dropped, MsBetweenDisplayChange or DisplayedTime): a frame is
//     dropped when Dropped = 1, or, without a Dropped value, when DisplayedTime is NA; dropped share
//     over the frames whose status is known; displayed FPS = 1000 x displayed frames / sum(frame
//     time); displayed-frame percentiles: Q(p) of the display times (> 0) of displayed frames;
//   * CPU / GPU busy (CPUBusy / MsCPUBusy, GPUBusy): medians Q(0.5) of each, and the share of the
//     frames with both in which GPU busy >= CPU busy (the GPU, not the CPU, bound the frame);
//   * latency (PCLatency, input to photon): Q(0.5) and Q(0.99) of the frames that have one.
// Sampled logs (CaptureReader::sampled(): MangoHud with a log interval): each row is an average
// over an interval, not a frame. Reported: the samples, the time they cover (span of the time
// column + one mean interval), average FPS = mean of the samples' 1000 / frame time (samples are
// equally spaced), min and max of the sampled FPS. Nothing that needs consecutive frames
// (percentiles, lows, jitter, stutters, histograms) is computed.
// Rows whose frame time is NA (the first frame of a pacer capture) are counted and left out.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "capture_reader.hpp"
#include "pacer/status.hpp"

namespace pacer::tools {

enum class Definitions { presentmon, capframex };
const char* to_string(Definitions d) noexcept;

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
    bool keep_columns = true;    // with keep_frames, the other per-frame series too (display_ms, ...);
                                 // the report draws only the frame times
    Definitions definitions = Definitions::presentmon;
};

// Per-frame numbers in file order, kept compact. While every value is m / 10^d x f exactly (the
// double the reader made from a decimal text: |m| < 2^31, d <= 9 decimals, f 1 or 1e-3, the
// latter for a MangoHud frame time written in us), a value takes 4 bytes, the integer m; once one
// is not (more digits, an exponent), the column holds the doubles, 8 bytes each. Each value is
// checked as it is added: operator[] gives back the very double that was added, bit for bit, so
// every figure computed from the column is the one computed from the doubles. A capture's
// numbers have 3 to 6 decimals: a million frame times take 4 MB instead of 8.
class FrameColumn {
public:
    void push(double v);
    // v as frame i of a column that stays empty until its first value that is not NaN (so a
    // file without the column pays nothing); the frames before that value read NaN.
    void push_at(std::size_t i, double v);
    void pad(std::size_t n);  // NaN up to n values, unless the column is empty
    void reserve(std::size_t n);  // room for n values (compact: 4 bytes each)
    void set(std::size_t i, double v);
    std::size_t size() const noexcept { return wide_ ? wide_values_.size() : narrow_.size(); }
    bool empty() const noexcept { return size() == 0; }
    double operator[](std::size_t i) const noexcept { return wide_ ? wide_values_[i] : decode(narrow_[i]); }
    std::vector<double> doubles() const;  // every value, in order
    // The values that are not NaN, ascending, in place (operator[] then reads them in order).
    void sort();
    // The values that are not NaN, with the value a full sort would put at each of ranks in its
    // place (std::nth_element, in place: no scratch memory); the others in no given order.
    void select(std::vector<std::size_t> ranks);

private:
    double decode(std::int32_t m) const noexcept;
    bool fits(double v, int digits, double factor, std::int32_t& m) const noexcept;
    bool refit(double v, std::int32_t& m);
    bool more_digits(double v, std::int32_t& m);
    bool other_factor(double v, std::int32_t& m);
    void widen();

    std::vector<std::int32_t> narrow_;  // m, or kNaNCode
    std::vector<double> wide_values_;
    int digits_ = -1;                   // -1: no value that is not NaN yet
    double factor_ = 1.0;
    bool wide_ = false;
};

// Per-frame columns besides the frame time, for compute(). Each is empty (the file has no such
// column) or holds one value per frame in the frame times' order, NaN where the row has none.
struct FrameColumns {
    std::vector<double> target_ms, lateness_ms;
    std::vector<double> time_s;               // used for sampled logs (the time they cover)
    std::vector<double> display_ms;           // MsBetweenDisplayChange / DisplayedTime
    std::vector<double> dropped;              // 1 not displayed, 0 displayed, NaN unknown
    std::vector<double> cpu_busy_ms, gpu_busy_ms;
    std::vector<double> pc_latency_ms, input_to_photon_ms;
    bool sampled = false;                     // rows are interval averages (CaptureReader::sampled())
};

struct Analysis {
    std::string file;
    std::string format;
    // Which series of the file this is (a PresentMon log holds one per process and swap chain).
    std::string application, swapchain;
    std::int64_t process_id = -1;   // -1: the file has no ProcessID
    std::string frame_column;       // the column read as the frame time, e.g. MsBetweenPresents
    Definitions definitions = Definitions::presentmon;
    // A sampled log: frames = samples, duration_s = the time they cover, avg_fps, and the sampled
    // FPS range; the frame-level figures below are not computed (zero).
    bool sampled = false;           // a log of samples, not frames (CaptureReader::sampled())
    double sampled_fps_min = 0, sampled_fps_max = 0;
    std::uint64_t rows = 0, frames = 0, na_rows = 0, filtered_rows = 0;
    double duration_s = 0;
    double avg_fps = 0, mean_ms = 0, stddev_ms = 0, min_ms = 0, max_ms = 0;
    double p50_ms = 0, p90_ms = 0, p95_ms = 0, p99_ms = 0, p999_ms = 0;
    double p1_fps = 0, p01_fps = 0;
    double low1_avg_fps = 0, low01_avg_fps = 0, low1_integral_fps = 0, low01_integral_fps = 0;
    bool has_target = false;
    double target_ms = 0;        // mean target
    double bias_ms = 0, rms_ms = 0, abs_err_p99_ms = 0, within_05ms = 0;  // within: share [0,1]
    // The library's names (StatsSummary): |frame time - target| p99 is abs_err_p99_ms, the
    // interval error p99; off_100us_share the share of frames off by more than 100 us, [0,1].
    double off_100us_share = 0;
    double jitter_mean_ms = 0, jitter_p99_ms = 0, jitter_max_ms = 0;
    std::uint64_t stutters = 0, hitches = 0;
    double stutter_time_share = 0;
    bool has_missed = false;
    std::uint64_t missed = 0;
    double refresh_ms = 0;
    const char* refresh_source = "";  // "--refresh-hz", "target" or "60 Hz default"
    bool has_lateness = false;
    std::array<std::uint64_t, 6> lateness_hist{};  // in refresh periods, last bucket = 5+
    std::array<std::uint64_t, 6> interval_hist{};
    double hist_lo_ms = 0, hist_hi_ms = 0;         // frame-time histogram range
    std::vector<std::uint64_t> histogram;          // frame-time bins; values outside go to the ends
    // Displayed frames (has_displayed: some frame's status is known).
    bool has_displayed = false;
    std::uint64_t displayed = 0, dropped = 0;      // frames of known status
    double dropped_share = 0, displayed_fps = 0;
    bool has_display_times = false;                // display times of displayed frames
    double display_p50_ms = 0, display_p90_ms = 0, display_p99_ms = 0, display_p999_ms = 0;
    // CPU and GPU busy.
    bool has_cpu_busy = false, has_gpu_busy = false;
    double cpu_busy_p50_ms = 0, gpu_busy_p50_ms = 0;
    std::uint64_t busy_frames = 0;                 // frames with both
    double gpu_bound_share = 0;                    // of busy_frames: GPU busy >= CPU busy
    // Latency columns.
    bool has_pc_latency = false, has_input_latency = false;
    double pc_latency_p50_ms = 0, pc_latency_p99_ms = 0;
    double input_latency_p50_ms = 0, input_latency_p99_ms = 0;
    // With AnalyzeOptions::keep_frames: every analysed frame in file order, its frame time (ms) and
    // its time stamp (s since the first frame; from the file's time column, else the running sum).
    std::vector<double> frame_ms, time_s;
    std::vector<double> frame_ms_sorted;  // the same frame times, ascending (the report's plots)
    // With keep_frames, the other per-frame columns the summary reads, in the same order (empty
    // when the file has no such column; NaN where a row has none).
    std::vector<double> display_ms, dropped_flags, cpu_busy_ms, gpu_busy_ms, pc_latency_ms,
        input_to_photon_ms;
};

// Metrics from frame times (ms, finite, >= 0) and the other columns of the same frames.
void compute(const std::vector<double>& ft, const FrameColumns& c, const AnalyzeOptions& o, Analysis& a);
// The same with the frame time, target (per-frame or empty) and lateness (per-frame, NaN = unknown,
// or empty) only.
void compute(const std::vector<double>& ft, const std::vector<double>& target,
             const std::vector<double>& lateness, const AnalyzeOptions& o, Analysis& a);

// MathNet.Numerics' Statistics.Quantile (R's type 8) of an ascending range; 0 when empty.
double quantile_r8(const std::vector<double>& sorted, double p) noexcept;

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
    // the selection matched) and how to pick one; for a skipped file, why.
    std::string note;
    // Not a capture, and not an error either: pacer's stats sidecar (CaptureReader::stats_sidecar),
    // which a glob over a capture folder names beside each capture. Nothing else is filled.
    bool skipped = false;
};

// Reads and analyses one capture: each selected series on its own (AnalyzeOptions). Errors:
// "file:line: what"; a selection that matches nothing: "file: no frames of pid 77 (the file
// holds: ...)". pacer's stats sidecar is no error: ok, out.skipped, out.note "note: skipped
// FILE: pacer's stats sidecar of CAPTURE, not a capture" (list_file the same).
Status analyze_file(const std::string& path, const AnalyzeOptions& o, FileAnalysis& out);
Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, FileAnalysis& out);
// The same, keeping only the first analysed series (the main one, or the selected one).
Status analyze_file(const std::string& path, const AnalyzeOptions& o, Analysis& a);
Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, Analysis& a);
// What a capture holds, without the analysis (out.analyses stays empty): `pacer analyze --list`.
Status list_file(const std::string& path, FileAnalysis& out);
// "application  pid  swap chain  frames  duration s" table of a file's series.
std::string format_series(const FileAnalysis& fa);
// `pacer analyze --columns`: every column of the capture table (pacer/capture_columns.hpp), one a
// line: the name pacer writes (or reads), its unit, its origin (presentmon: PresentMon's classic
// header, written first; pacer: pacer's own, written after; other: read only) and the names
// other tools write for it ("TimeInMs (ms)": in another unit).
std::string format_columns();
// "dwm.exe (pid 10376, swap chain 0x1BF098B1ED0, 47 frames)".
std::string describe(const SeriesInfo& s);

// Text: one column per analysis (side by side), then the histograms. JSON: an array of objects;
// with frames, each object also holds "frames": {"time_s": [...], "frame_ms": [...], ...}, the
// series Analysis keeps with AnalyzeOptions::keep_frames (one array per column, in frame order).
std::string format_text(const std::vector<Analysis>& as);
std::string format_json(const std::vector<Analysis>& as, bool frames = false);

}  // namespace pacer::tools
