// pacer/stats.hpp - frame statistics over a fixed-size window, and CPU-cost accounting.
//
//   pacer::FrameStats stats(4096);            // the only allocation: the ring and its scratch
//   pacer::CpuMeter cpu;                       // construct on the pacing thread
//   stats.add(fp.wait());                       // per frame: O(1), no allocation
//   pacer::StatsSummary s = stats.summarize();  // twice a second: O(n log n), no allocation
//   pacer::CpuUsage u = cpu.sample();           // twice a second too
//
// Units: a FrameStats summary gives times as std::chrono::nanoseconds (TimeDistribution; print
// them with pacer::to_ms) and rates in frames per second. The helpers for plain numbers
// (percentile_sorted, describe_sorted, Distribution, StutterCounter) take values in any one unit,
// such as a capture file's milliseconds; `pacer analyze` uses them that way.
//
// Definitions (as PresentMon 2.x computes its own statistics):
//   * frame time = FrameTiming::interval (wake to wake);
//   * percentiles: linear interpolation at h = (N - 1) p of the sorted window;
//   * average FPS = N / sum(frame time), frame times in seconds;
//   * 1 % low FPS = 1 / mean of the frame times >= the 99th percentile (0.1 %: >= p99.9);
//   * missed: FrameTiming::missed (late by more than PacerConfig::miss_tolerance or skipped);
//   * stutter: a frame time above 2.5 x the mean of the 20 frame times before it (by default;
//     StutterCounter, which also says what the first 20 frames get).
//   * latency: FrameTiming::latency (input sample to shown, pacer/frame_pacer.hpp), over the
//     frames that have one (> 0).
//   * interval error: |frame time - FrameTiming::period| per frame, over the frames that have a
//     period (> 0). Each interval is judged against the period of its own frame, the one in force
//     when that frame was paced (FramePacer fills it: the target, the matched refresh, the
//     cadence's divisor, the background rate, the VRR cap), so across a rate change the first
//     interval meets the new period (the grid re-anchors at the last deadline, the next frame is
//     one new period later) and none is judged against a period it was not paced for. A frame
//     without a period (0: a FrameTiming built by hand, or from a source that does not know it)
//     has no interval error and is left out, as a frame without latency is; with none left, the
//     figures are 0 and interval_error_frames says so. `pacer compare` takes the same figure per
//     frame, so its table and a game's own FrameStats agree. Why beside the frame time: the
//     frame-time percentiles mix the pacing's error with the period itself (a 60 Hz and a 144 Hz
//     run cannot be compared, nor two halves of a run across a rate change); the error is what
//     pacing got wrong.
//   * intervals off: the share of those frames whose interval error is above
//     kIntervalOffThreshold (100 us; strictly above, as `pacer compare` counts), a share in
//     [0, 1] like the other shares. A p99 moves with the thin tail it sits in; the share of
//     intervals off by a visible amount is the tail's mass and moves less between runs.
// The first frame after reset (interval 0) is not a frame time and is left out.
//
// Thread safety: none; one thread adds and summarizes (or guard it yourself).
#pragma once

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <type_traits>
#include <utility>
#include <vector>

#include "pacer/frame_timing.hpp"
#include "pacer/time_source.hpp"

namespace pacer {

// A view of contiguous values, what the functions below take: the headers stay C++17, where
// std::span does not exist. It converts implicitly from anything with data() and size() whose
// elements fit (std::vector, std::array, a C array, a C++20 std::span) and from pointer + size:
//   stats.series_ms(pacer::FrameMetric::interval, plot_values);     // a std::vector<float>
//   pacer::percentile_sorted({samples, n}, 0.99);                   // const double*, size
// Like std::span it does not own what it shows: the values must outlive the call.
template <class T>
class Span {
public:
    constexpr Span() noexcept = default;
    constexpr Span(T* data, std::size_t size) noexcept : data_(data), size_(size) {}
    template <class C, class = std::enable_if_t<
                           !std::is_same_v<std::remove_cv_t<std::remove_reference_t<C>>, Span> &&
                           std::is_convertible_v<decltype(std::data(std::declval<C&>())), T*>>>
    constexpr Span(C&& values) noexcept : data_(std::data(values)), size_(std::size(values)) {}

    constexpr T* data() const noexcept { return data_; }
    constexpr std::size_t size() const noexcept { return size_; }
    constexpr bool empty() const noexcept { return size_ == 0; }
    constexpr T* begin() const noexcept { return data_; }
    constexpr T* end() const noexcept { return data_ + size_; }
    constexpr T& operator[](std::size_t i) const noexcept { return data_[i]; }
    constexpr T& front() const noexcept { return data_[0]; }
    constexpr T& back() const noexcept { return data_[size_ - 1]; }

private:
    T* data_ = nullptr;
    std::size_t size_ = 0;
};

// Linear-interpolation quantile of an ascending range (h = (N - 1) p); 0 for an empty range.
double percentile_sorted(Span<const double> sorted, double p) noexcept;
// The same on any ascending sequence with size() and operator[] giving doubles (a column stored
// in another form, such as `pacer analyze`'s compact frame times, read without a copy).
template <class Sorted>
double percentile_sorted_of(const Sorted& s, double p) noexcept {
    const std::size_t n = s.size();
    if (n == 0) return 0.0;
    if (!(p > 0.0)) return s[0];
    if (p >= 1.0) return s[n - 1];
    const double h = static_cast<double>(n - 1) * p;
    const auto lo = static_cast<std::size_t>(std::floor(h));
    const std::size_t hi = lo + 1 < n ? lo + 1 : n - 1;
    return s[lo] + (h - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

// Which per-frame quantity a histogram or a series reads.
enum class FrameMetric {
    interval,  // frame time (FrameTiming::interval)
    lateness,  // wake past deadline
    work,      // caller's work between waits
    slept,     // OS sleep
    spun,      // spin
    latency,   // input sample to shown (FrameTiming::latency); 0 in series_ms() where not known,
               // left out of histogram()
};

// Mean, spread and percentiles of plain numbers (describe_sorted); in the unit of the values.
struct Distribution {
    double mean = 0, stddev = 0, min = 0, max = 0;  // population stddev
    double p50 = 0, p90 = 0, p95 = 0, p99 = 0, p999 = 0;
};

// Mean, population stddev, min, max and percentiles of an ascending range; zeros when empty.
Distribution describe_sorted(Span<const double> sorted) noexcept;
// The same on any ascending sequence, as percentile_sorted_of.
template <class Sorted>
Distribution describe_sorted_of(const Sorted& s) noexcept {
    Distribution d;
    const std::size_t n = s.size();
    if (n == 0) return d;
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += s[i];
    d.mean = sum / static_cast<double>(n);
    double ss = 0;
    for (std::size_t i = 0; i < n; ++i) ss += (s[i] - d.mean) * (s[i] - d.mean);
    d.stddev = std::sqrt(ss / static_cast<double>(n));
    d.min = s[0];
    d.max = s[n - 1];
    d.p50 = percentile_sorted_of(s, 0.50);
    d.p90 = percentile_sorted_of(s, 0.90);
    d.p95 = percentile_sorted_of(s, 0.95);
    d.p99 = percentile_sorted_of(s, 0.99);
    d.p999 = percentile_sorted_of(s, 0.999);
    return d;
}

// Counts stutters: frames whose time is above `factor` x the mean of the `window` frame times
// before them. The one stutter rule of the library, the demo and `pacer analyze`. The rule is a
// ratio, so frame times may come in any one unit (a capture's ms; FrameStats feeds it its own).
//
//   pacer::StutterCounter stutters;                  // 20 frames, 2.5 x; allocates here only
//   ...per frame:  if (stutters.add(frame_ms)) mark_stutter();   // O(1), noexcept, no allocation
//   ...any time:   stutters.count(), stutters.time_sum()
//
// The baseline follows the frame rate, so a 30 ms frame is a stutter in a 10 ms run and not in a
// 25 ms one. CapFrameX (github.com/CXWorld/CapFrameX) draws its stuttering threshold the same
// way, as its stuttering factor (2.5 by default) x a moving average of the frame times; here the
// average is over a fixed count of preceding frames, so it is kept with a ring and a running sum.
//
// The first frames: a frame gets a verdict only when `window` frame times precede it (since
// construction or reset()), so the first `window` frames are never stutters. A mean over fewer
// frames would be a different, noisier rule: with one frame before it, any frame 2.5 x its
// predecessor would count (an ordinary 16.7 ms frame after a 5 ms catch-up frame), and the start
// of a run, its least regular part, would be judged against the least data. The price: a run of
// `window` frames or fewer has no verdict at all.
//
// A value that is NaN, infinite or negative is not a frame time: add() ignores it (no verdict,
// and it does not enter the average). The comparison is strict: exactly factor x the mean is not
// a stutter. Thread safety: none.
class StutterCounter {
public:
    static constexpr int kDefaultWindow = 20;
    static constexpr double kDefaultFactor = 2.5;

    // window: frames in the mean (a value below 1 is taken as 1); factor: as given. Allocates the
    // ring (window doubles) here and nowhere else.
    explicit StutterCounter(int window = kDefaultWindow, double factor = kDefaultFactor);

    // Judges frame_time (any one unit) against the frames before it, then adds it to the
    // window. Returns true when it is a stutter.
    bool add(double frame_time) noexcept;
    // Forgets the window, the count and the time.
    void reset() noexcept;

    std::uint64_t count() const noexcept { return count_; }  // stutters since construction / reset
    double time_sum() const noexcept { return time_sum_; }   // their frame times, summed
    int window() const noexcept { return static_cast<int>(ring_.size()); }
    double factor() const noexcept { return factor_; }

private:
    std::vector<double> ring_;
    std::size_t head_ = 0;    // next slot to write
    std::size_t filled_ = 0;  // frames in the ring, up to ring_.size()
    double sum_ = 0;          // of the frames in the ring
    double factor_;
    std::uint64_t count_ = 0;
    double time_sum_ = 0;
};

// The distribution of a time over FrameStats' window: mean, population stddev, min, max and
// percentiles (linear interpolation, as percentile_sorted), each rounded to the nearest ns.
struct TimeDistribution {
    std::chrono::nanoseconds mean{0}, stddev{0}, min{0}, max{0};
    std::chrono::nanoseconds p50{0}, p90{0}, p95{0}, p99{0}, p999{0};
};

// The interval error above which an interval counts as off (StatsSummary::off_100us_share).
inline constexpr std::chrono::nanoseconds kIntervalOffThreshold{100'000};

struct StatsSummary {
    std::size_t frames = 0;            // frame times in the window
    TimeDistribution interval;         // frame times
    TimeDistribution lateness;         // deadline lateness
    std::chrono::nanoseconds target{0};  // period of the newest frame
    double avg_fps = 0;
    double low1_fps = 0;               // 1 % low (average of the slowest 1 %)
    double low01_fps = 0;              // 0.1 % low
    std::size_t missed = 0;            // missed frames in the window
    std::uint64_t missed_total = 0;    // since reset
    std::uint64_t skipped_total = 0;   // grid slots skipped since reset
    std::uint64_t frames_total = 0;    // frames added since reset
    TimeDistribution latency;          // FrameTiming::latency of the window's frames that have one
    std::size_t latency_frames = 0;    // ... how many they are
    std::size_t shown_late = 0;        // frames with FrameTiming::shown_late in the window
    std::size_t stutters = 0;          // stutters (StutterCounter) among the window's frames
    std::uint64_t stutters_total = 0;  // since reset
    // Presentation feedback in the window (FrameTiming::presents_shown, presents_dropped):
    // present_feedback false means the host reports no outcomes: shown frames are unknown (then
    // shown_fps is 0, never the submitted rate). shown_fps: presents shown per second of the
    // window's wall time; below avg_fps where the compositor dropped frames.
    bool present_feedback = false;
    std::uint64_t presents_shown = 0, presents_dropped = 0;
    double shown_fps = 0;
    // Shares of the window's wall time (sum of intervals), each in [0, 1].
    double work_share = 0, sleep_share = 0, spin_share = 0;
    // Interval error (the definitions above): |frame time - period| of the window's frames that
    // have a period; its p99 is the README's "interval error p99".
    TimeDistribution interval_error;
    std::size_t interval_error_frames = 0;  // ... how many they are; 0: no period known, all 0
    double off_100us_share = 0;  // of them, the share off by more than kIntervalOffThreshold, [0, 1]
};

// What FrameStats::histogram() counted.
struct HistogramCounts {
    std::size_t placed = 0;  // values counted in the bins: the whole window, edge values included
                             // (latency: the frames that have one)
    std::size_t below = 0;   // of them, < lo: counted in the first bin
    std::size_t above = 0;   // of them, >= hi: counted in the last bin
};

class FrameStats {
public:
    // capacity: frames kept in the window, >= 2; stutter_window, stutter_factor: the stutter rule
    // (StutterCounter). Allocates here and nowhere else.
    explicit FrameStats(std::size_t capacity = 4096, int stutter_window = StutterCounter::kDefaultWindow,
                        double stutter_factor = StutterCounter::kDefaultFactor);

    void add(const FrameTiming& t) noexcept;
    void reset() noexcept;

    std::size_t size() const noexcept { return count_; }
    std::size_t capacity() const noexcept { return cap_; }

    StatsSummary summarize() const noexcept;

    // Counts of the window's values of `metric` in `bins.size()` equal bins over [lo, hi).
    // Values outside the range are counted in the first (below lo) or the last bin (at or above
    // hi), so the bins add up to every frame of the window; the result says how many of them are
    // such edge values, so a display can mark the edge bins ("< lo", ">= hi") instead of passing
    // them off as values in range. bins are overwritten; for hi <= lo or empty bins nothing
    // happens and all counts are 0. O(size()), no allocation.
    HistogramCounts histogram(FrameMetric metric, std::chrono::nanoseconds lo, std::chrono::nanoseconds hi,
                              Span<float> bins) const noexcept;

    // Copies the newest min(out.size(), size()) values of `metric` in milliseconds, oldest first,
    // as floats for a plot (ImGui::PlotLines takes them as they are); returns the count.
    std::size_t series_ms(FrameMetric metric, Span<float> out) const noexcept;

    // Stutters since reset, up to the last add() (summarize() not needed).
    std::uint64_t stutters() const noexcept { return stutter_.count(); }

private:
    const std::int64_t* column(FrameMetric m) const noexcept;
    std::size_t at(std::size_t i) const noexcept;  // ring slot of the i-th oldest
    // The interval error figures into s, sorting in buf (the scratch).
    void interval_error(StatsSummary& s, Span<std::int64_t> buf) const noexcept;

    std::size_t cap_;
    std::size_t head_ = 0;   // next slot to write
    std::size_t count_ = 0;
    std::vector<std::int64_t> interval_, lateness_, work_, slept_, spun_, latency_;
    std::vector<std::int64_t> period_;            // FrameTiming::period of each frame; 0: none
    std::vector<std::uint8_t> missed_, shown_late_, stutter_flag_;
    std::vector<std::uint32_t> shown_, dropped_;  // FrameTiming::presents_shown / presents_dropped
    std::vector<std::uint8_t> feedback_;          // FrameTiming::present_feedback
    StutterCounter stutter_;
    mutable std::vector<std::int64_t> scratch_;
    std::int64_t last_period_ = 0;
    std::uint64_t missed_total_ = 0, skipped_total_ = 0, frames_total_ = 0;
};

struct CpuUsage {
    double process_pct = 0;  // process CPU / wall time since the previous sample; 100 = one core
    double thread_pct = 0;   // the sampling thread's CPU / wall time
    std::chrono::nanoseconds wall{0};  // wall time covered
    bool valid = false;      // false if the OS gave no CPU times or no time passed
};

// CPU % between successive sample() calls. Construct and sample on the thread to account.
class CpuMeter {
public:
    explicit CpuMeter(TimeSource* ts = nullptr) noexcept;
    CpuUsage sample() noexcept;

private:
    TimeSource* ts_;
    std::int64_t wall_ = 0;
    CpuTimes cpu_;
};

}  // namespace pacer
