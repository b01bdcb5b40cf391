// tools/lib/analyze_figures.cpp - the figures of one series: percentiles, lows, pacing error, jitter,
// stutters, histograms, displayed frames, busy times and latencies.
#include "analyze.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "pacer/stats.hpp"

#include "analyze_internal.hpp"

namespace pacer::tools {

using namespace detail;

namespace detail {

void add_other_columns(SeriesFrames& s, const OtherColumns& c) {
    if (!std::isnan(c.dropped)) {
        if (c.dropped != 0) {
            ++s.dropped_frames;
        } else {
            ++s.displayed;
            if (std::isfinite(c.display) && c.display > 0) s.shown.add(c.display);
        }
    }
    if (std::isfinite(c.cpu)) s.cpu_busy.add(c.cpu);
    if (std::isfinite(c.gpu)) s.gpu_busy.add(c.gpu);
    s.any_gpu = s.any_gpu || !std::isnan(c.gpu);
    if (!std::isnan(c.cpu) && !std::isnan(c.gpu)) {
        ++s.busy_frames;
        if (c.gpu >= c.cpu) ++s.gpu_bound;
    }
    if (std::isfinite(c.pc)) s.pc_latency.add(c.pc);
    if (std::isfinite(c.input)) s.input_latency.add(c.input);
}

}  // namespace detail

namespace {

template <class S>
double low_avg(const S& sorted, double cut) {
    const std::size_t first = lower_index(sorted, cut);
    const double n = static_cast<double>(sorted.size() - first);
    double sum = 0.0;
    for (std::size_t i = first; i < sorted.size(); ++i) sum += sorted[i];
    return sum > 0 ? 1000.0 * n / sum : 0.0;
}

// Longest frames first, accumulated until they cover `share` of the total time.
template <class S>
double low_integral(const S& sorted, double total, double share) {
    double acc = 0;
    for (std::size_t i = sorted.size(); i-- > 0;) {
        const double v = sorted[i];
        acc += v;
        if (acc >= share * total) return v > 0 ? 1000.0 / v : 0.0;
    }
    return sorted.empty() || sorted[0] <= 0 ? 0.0 : 1000.0 / sorted[0];
}

// Q8(p) of the FPS values 1000 / ft, from the ascending frame times (the FPS values are the same
// list, descending): CapFrameX's P1 / P0.1 FPS.
template <class S>
double fps_quantile_r8(const S& sorted_ft, double p) {
    const std::size_t n = sorted_ft.size();
    if (n == 0) return 0.0;
    auto fps = [&](std::size_t k) {  // k-th smallest FPS value, 0-based
        const double ft = sorted_ft[n - 1 - k];
        return ft > 0 ? 1000.0 / ft : std::numeric_limits<double>::infinity();
    };
    const double h = (static_cast<double>(n) + 1.0 / 3.0) * p + 1.0 / 3.0;
    const double hf = std::floor(h);
    if (hf <= 0 || p <= 0) return fps(0);
    if (hf >= static_cast<double>(n) || p >= 1) return fps(n - 1);
    const auto k = static_cast<std::size_t>(hf);
    return fps(k - 1) + (h - hf) * (fps(k) - fps(k - 1));
}

// pacer::percentile_sorted(values, p) of `count` values that come one at a time, without keeping
// them: only the largest count - floor((count - 1) p) are kept (a min-heap), the values at ranks
// floor(h) and floor(h) + 1 that a full sort would give. For p = 0.99: 1 % of the values, 80 KB
// for a million frames where the values would take 8 MB.
class UpperPercentile {
public:
    UpperPercentile(std::size_t count, double p) : count_(count), p_(p) {
        const double h = count > 0 ? static_cast<double>(count - 1) * p : 0.0;
        const auto lo = static_cast<std::size_t>(std::floor(h));
        keep_ = !(p > 0) ? count : p >= 1 ? 1 : count - lo;
        heap_.reserve(keep_);
    }
    void add(double v) {
        if (heap_.size() < keep_) {
            heap_.push_back(v);
            std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        } else if (v > heap_.front()) {
            std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
            heap_.back() = v;
            std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
        }
    }
    // After `count` add()s.
    double value() {
        std::sort(heap_.begin(), heap_.end());
        if (heap_.empty()) return 0.0;
        if (!(p_ > 0) || p_ >= 1) return !(p_ > 0) ? heap_.front() : heap_.back();
        const double h = static_cast<double>(count_ - 1) * p_;
        const double frac = h - std::floor(h);
        const double lo = heap_[0], hi = heap_.size() > 1 ? heap_[1] : heap_[0];
        return lo + frac * (hi - lo);
    }

private:
    std::size_t count_, keep_;
    double p_;
    std::vector<double> heap_;
};

// CapFrameX's stutter rule (FrametimeStatisticProvider.GetStutteringTimePercentage with
// GetMovingAverage and SampleBasedMovingAverage.ProcessSamples): the window is
// Convert.ToInt32(sqrt(mean) * 10) (round half to even: nearbyint in the default rounding mode),
// the average includes the frame itself, and a value more than 3 x its predecessor enters the
// average as the predecessor.
void capframex_stutters(const FrameColumn& ft, double mean, double factor, Analysis& a) {
    const std::size_t n = ft.size();
    const double w = std::nearbyint(std::sqrt(mean) * 10.0);
    const std::size_t window = w < 1 ? 1 : static_cast<std::size_t>(w);
    auto v = [&](std::size_t k) { return k > 0 && ft[k] > ft[k - 1] * 3 ? ft[k - 1] : ft[k]; };
    double sum = 0, time = 0;
    std::uint64_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
        sum += v(i);
        if (i >= window) sum -= v(i - window);
        const double len = static_cast<double>(std::min(i + 1, window));
        if (ft[i] > factor * (sum / len)) {
            ++count;
            time += ft[i];
        }
    }
    a.stutters = count;
    a.stutter_time_share = time;  // divided by the total by the caller
}

// Refresh periods: the frame-time histogram's bins are centred on whole periods (a frame of
// exactly one period is in the bin of 1, whichever way the jitter goes); lateness counts whole
// periods late ([0, 1): less than one period late).
std::size_t periods_nearest(double x, double period) {
    const double b = std::floor(x / period + 0.5);
    return b < 0 ? 0 : b > 5 ? 5 : static_cast<std::size_t>(b);
}
std::size_t periods_late(double x, double period) {
    const double b = std::floor(x / period);
    return b < 0 ? 0 : b > 5 ? 5 : static_cast<std::size_t>(b);
}

void compute_sampled(const SeriesFrames& s, Analysis& a) {
    const std::size_t n = s.ft.size();
    a.sampled = true;
    double fps_sum = 0, total = 0;
    std::size_t fps_n = 0;
    a.sampled_fps_min = std::numeric_limits<double>::infinity();
    a.sampled_fps_max = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double v = s.ft[i];
        total += v;
        if (!(v > 0)) continue;
        const double fps = 1000.0 / v;
        fps_sum += fps;
        ++fps_n;
        a.sampled_fps_min = std::min(a.sampled_fps_min, fps);
        a.sampled_fps_max = std::max(a.sampled_fps_max, fps);
    }
    if (fps_n == 0) a.sampled_fps_min = 0;
    a.avg_fps = fps_n ? fps_sum / static_cast<double>(fps_n) : 0.0;
    // The time the samples cover: the span of the time column plus one mean interval (the first
    // sample covers one interval before its own time stamp).
    double first = kNaN, last = kNaN;
    for (std::size_t i = 0; i < s.time_s.size(); ++i) {
        const double t = s.time_s[i];
        if (!std::isfinite(t)) continue;
        if (std::isnan(first)) first = t;
        last = t;
    }
    if (n >= 2 && std::isfinite(first) && last > first) {
        const double span = last - first;
        a.duration_s = span + span / static_cast<double>(n - 1);
    } else {
        a.duration_s = total / 1000.0;  // no usable time column: the samples' own frame times
    }
}

// Frame-time figures: mean, spread, quantiles, P1 / P0.1 FPS, lows. `sorted` is ft sorted.
template <class S>
void frame_time_figures(const S& sorted, double total, bool cfx, Analysis& a) {
    const Distribution dist = pacer::describe_sorted_of(sorted);
    a.mean_ms = dist.mean;
    a.stddev_ms = dist.stddev;
    a.min_ms = dist.min;
    a.max_ms = dist.max;
    if (cfx) {
        a.p50_ms = quantile_r8_of(sorted, 0.50);
        a.p90_ms = quantile_r8_of(sorted, 0.90);
        a.p95_ms = quantile_r8_of(sorted, 0.95);
        a.p99_ms = quantile_r8_of(sorted, 0.99);
        a.p999_ms = quantile_r8_of(sorted, 0.999);
        a.p1_fps = fps_quantile_r8(sorted, 0.01);
        a.p01_fps = fps_quantile_r8(sorted, 0.001);
    } else {
        a.p50_ms = dist.p50;
        a.p90_ms = dist.p90;
        a.p95_ms = dist.p95;
        a.p99_ms = dist.p99;
        a.p999_ms = dist.p999;
        a.p1_fps = a.p99_ms > 0 ? 1000.0 / a.p99_ms : 0.0;
        a.p01_fps = a.p999_ms > 0 ? 1000.0 / a.p999_ms : 0.0;
    }
    a.low1_avg_fps = low_avg(sorted, a.p99_ms);
    a.low01_avg_fps = low_avg(sorted, a.p999_ms);
    a.low1_integral_fps = low_integral(sorted, total, 0.01);
    a.low01_integral_fps = low_integral(sorted, total, 0.001);
}

// Pacing error against the target (--target-hz, else the per-frame target).
void pacing_error(const SeriesFrames& s, const AnalyzeOptions& o, Analysis& a) {
    const std::size_t n = s.ft.size();
    a.has_target = o.target_ms > 0 || s.target.size() == n;
    if (!a.has_target) return;
    UpperPercentile err_p99(n, 0.99);
    double sum = 0, sq = 0, tsum = 0;
    std::size_t within = 0, off = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double t = o.target_ms > 0 ? o.target_ms : s.target[i];
        const double e = s.ft[i] - t;
        tsum += t;
        sum += e;
        sq += e * e;
        err_p99.add(std::fabs(e));
        if (std::fabs(e) <= 0.5) ++within;
        if (std::fabs(e) > 0.1) ++off;  // the library's kIntervalOffThreshold, 100 us
    }
    a.target_ms = tsum / static_cast<double>(n);
    a.bias_ms = sum / static_cast<double>(n);
    a.rms_ms = std::sqrt(sq / static_cast<double>(n));
    a.abs_err_p99_ms = err_p99.value();
    a.within_05ms = static_cast<double>(within) / static_cast<double>(n);
    a.off_100us_share = static_cast<double>(off) / static_cast<double>(n);
}

// Successive-frame jitter |ft[i] - ft[i-1]|.
void jitter(const FrameColumn& ft, Analysis& a) {
    const std::size_t n = ft.size();
    if (n < 2) return;
    UpperPercentile p99(n - 1, 0.99);
    double sum = 0, prev = ft[0], max = 0;
    for (std::size_t i = 1; i < n; ++i) {
        const double cur = ft[i];
        const double d = std::fabs(cur - prev);
        p99.add(d);
        sum += d;
        max = std::max(max, d);
        prev = cur;
    }
    a.jitter_mean_ms = sum / static_cast<double>(n - 1);
    a.jitter_p99_ms = p99.value();
    a.jitter_max_ms = max;
}

// Hitches, and stutters by pacer's rule (CapFrameX's: capframex_stutters, once the mean is known).
void stutters_and_hitches(const FrameColumn& ft, double total, bool cfx, const AnalyzeOptions& o, Analysis& a) {
    StutterCounter stutters(o.stutter_window, o.stutter_factor);
    double prev = 0;
    for (std::size_t i = 0; i < ft.size(); ++i) {
        const double v = ft[i];
        if (i > 0 && v > 60.0 && v >= 1.5 * prev) ++a.hitches;
        if (!cfx) (void)stutters.add(v);
        prev = v;
    }
    if (cfx) return;
    a.stutters = stutters.count();
    a.stutter_time_share = total > 0 ? stutters.time_sum() / total : 0.0;
}

void refresh_period(const AnalyzeOptions& o, Analysis& a) {
    if (o.refresh_hz > 0) {
        a.refresh_ms = 1000.0 / o.refresh_hz;
        a.refresh_source = "--refresh-hz";
    } else if (a.has_target && a.target_ms > 0) {
        a.refresh_ms = a.target_ms;
        a.refresh_source = o.target_ms > 0 ? "--target-hz" : "capture's target";
    } else {
        a.refresh_ms = 1000.0 / 60.0;
        a.refresh_source = "60 Hz default";
    }
}

// Swappy's histograms: frame time and lateness in refresh periods.
void swappy_histograms(const SeriesFrames& s, Analysis& a) {
    a.interval_hist.fill(0);
    a.lateness_hist.fill(0);
    for (std::size_t i = 0; i < s.ft.size(); ++i) ++a.interval_hist[periods_nearest(s.ft[i], a.refresh_ms)];
    if (s.lateness.size() != s.ft.size()) return;
    for (std::size_t i = 0; i < s.lateness.size(); ++i) {
        const double v = s.lateness[i];
        if (std::isnan(v)) continue;
        a.has_lateness = true;
        ++a.lateness_hist[periods_late(v, a.refresh_ms)];
    }
}

// The frame-time histogram from min to p99.9 (longer frames land in the last bin).
template <class S>
void frame_time_histogram(const S& sorted, const AnalyzeOptions& o, Analysis& a) {
    const int bins = std::max(1, o.histogram_bins);
    a.histogram.assign(static_cast<std::size_t>(bins), 0);
    a.hist_lo_ms = a.min_ms;
    a.hist_hi_ms = a.p999_ms > a.min_ms ? a.p999_ms : a.min_ms + 1.0;
    const double scale = bins / (a.hist_hi_ms - a.hist_lo_ms);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const double b = std::floor((sorted[i] - a.hist_lo_ms) * scale);
        const std::size_t k = b < 0 ? 0 : b >= bins ? static_cast<std::size_t>(bins - 1) : static_cast<std::size_t>(b);
        ++a.histogram[k];
    }
}

void displayed_frames(SeriesFrames& s, double total, Analysis& a) {
    a.displayed = s.displayed;
    a.dropped = s.dropped_frames;
    a.has_displayed = a.displayed + a.dropped > 0;
    if (a.has_displayed) {
        a.dropped_share = static_cast<double>(a.dropped) / static_cast<double>(a.displayed + a.dropped);
        a.displayed_fps = total > 0 ? 1000.0 * static_cast<double>(a.displayed) / total : 0.0;
    }
    const SortedBag shown(std::move(s.shown), {0.50, 0.90, 0.99, 0.999});
    a.has_display_times = !shown.empty();
    a.display_p50_ms = shown.percentile(0.50);
    a.display_p90_ms = shown.percentile(0.90);
    a.display_p99_ms = shown.percentile(0.99);
    a.display_p999_ms = shown.percentile(0.999);
}

// CPU busy against GPU busy, and the latency columns.
void busy_and_latency(SeriesFrames& s, Analysis& a) {
    if (s.cpu_needs_gpu && !s.any_gpu) s.cpu_busy = ValueBag();
    {
        const SortedBag v(std::move(s.cpu_busy), {0.5});
        a.has_cpu_busy = !v.empty();
        a.cpu_busy_p50_ms = v.percentile(0.5);
    }
    {
        const SortedBag v(std::move(s.gpu_busy), {0.5});
        a.has_gpu_busy = !v.empty();
        a.gpu_busy_p50_ms = v.percentile(0.5);
    }
    if (a.has_cpu_busy && a.has_gpu_busy) {
        a.busy_frames = s.busy_frames;
        a.gpu_bound_share = a.busy_frames ? static_cast<double>(s.gpu_bound) / static_cast<double>(a.busy_frames) : 0.0;
    }
    {
        const SortedBag v(std::move(s.pc_latency), {0.5, 0.99});
        a.has_pc_latency = !v.empty();
        a.pc_latency_p50_ms = v.percentile(0.5);
        a.pc_latency_p99_ms = v.percentile(0.99);
    }
    const SortedBag v(std::move(s.input_latency), {0.5, 0.99});
    a.has_input_latency = !v.empty();
    a.input_latency_p50_ms = v.percentile(0.5);
    a.input_latency_p99_ms = v.percentile(0.99);
}

}  // namespace

namespace detail {

void analyze_frames(SeriesFrames& s, const AnalyzeOptions& o, Analysis& a) {
    const std::size_t n = s.ft.size();
    a.frames = n;
    a.definitions = o.definitions;
    if (n == 0) return;
    if (s.sampled) return compute_sampled(s, a);
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) total += s.ft[i];
    a.duration_s = total / 1000.0;
    a.avg_fps = total > 0 ? 1000.0 * static_cast<double>(n) / total : 0.0;
    displayed_frames(s, total, a);
    busy_and_latency(s, a);
    const bool cfx = o.definitions == Definitions::capframex;
    pacing_error(s, o, a);
    jitter(s.ft, a);
    stutters_and_hitches(s.ft, total, cfx, o, a);
    refresh_period(o, a);
    swappy_histograms(s, a);
    s.target = FrameColumn();
    s.lateness = FrameColumn();
    // CapFrameX's stutters need the mean first, and the frames in their order after it.
    FrameColumn sorted = cfx ? FrameColumn(s.ft) : std::move(s.ft);
    sorted.sort();
    if (o.keep_frames) a.frame_ms_sorted = sorted.doubles();
    frame_time_figures(sorted, total, cfx, a);
    frame_time_histogram(sorted, o, a);
    if (!cfx) return;
    capframex_stutters(s.ft, a.mean_ms, o.stutter_factor, a);
    a.stutter_time_share = total > 0 ? a.stutter_time_share / total : 0.0;
}

}  // namespace detail

namespace {

// The public compute()'s columns as a series: each column of another length than ft is left out.
SeriesFrames series_of(const std::vector<double>& ft, const FrameColumns& c) {
    const std::size_t n = ft.size();
    SeriesFrames s;
    s.sampled = c.sampled;
    auto at = [n](const std::vector<double>& v, std::size_t i) { return v.size() == n ? v[i] : kNaN; };
    for (const double t : c.time_s) s.time_s.push(t);
    for (std::size_t i = 0; i < n; ++i) {
        s.ft.push(ft[i]);
        if (c.target_ms.size() == n) s.target.push(c.target_ms[i]);
        if (c.lateness_ms.size() == n) s.lateness.push(c.lateness_ms[i]);
        add_other_columns(s, {at(c.dropped, i), c.dropped.size() == n ? at(c.display_ms, i) : kNaN, at(c.cpu_busy_ms, i),
                              at(c.gpu_busy_ms, i), at(c.pc_latency_ms, i), at(c.input_to_photon_ms, i)});
    }
    return s;
}


}  // namespace

void compute(const std::vector<double>& ft, const FrameColumns& c, const AnalyzeOptions& o, Analysis& a) {
    SeriesFrames s = series_of(ft, c);
    analyze_frames(s, o, a);
}

void compute(const std::vector<double>& ft, const std::vector<double>& target,
             const std::vector<double>& lateness, const AnalyzeOptions& o, Analysis& a) {
    FrameColumns c;
    c.target_ms = target;
    c.lateness_ms = lateness;
    compute(ft, c, o, a);
}

}  // namespace pacer::tools
