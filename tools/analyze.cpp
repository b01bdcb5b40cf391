#include "analyze.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "pacer/stats.hpp"

namespace pacer::tools {

const char* to_string(Definitions d) noexcept {
    return d == Definitions::capframex ? "capframex" : "presentmon";
}

// ArrayStatistics.QuantileInplace of MathNet.Numerics (src/Numerics/Statistics/ArrayStatistics.cs),
// which CapFrameX's GetPQuantileSequence calls through Statistics.Quantile.
double quantile_r8(const std::vector<double>& s, double p) noexcept {
    const std::size_t n = s.size();
    if (n == 0) return 0.0;
    const double h = (static_cast<double>(n) + 1.0 / 3.0) * p + 1.0 / 3.0;
    const double hf = std::floor(h);
    if (hf <= 0 || p <= 0) return s.front();
    if (hf >= static_cast<double>(n) || p >= 1) return s.back();
    const auto k = static_cast<std::size_t>(hf);  // 1-based x_k = s[k - 1]
    return s[k - 1] + (h - hf) * (s[k] - s[k - 1]);
}

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double low_avg(const std::vector<double>& sorted, double cut) {
    const auto first = std::lower_bound(sorted.begin(), sorted.end(), cut);
    const double n = static_cast<double>(sorted.end() - first);
    const double sum = std::accumulate(first, sorted.end(), 0.0);
    return sum > 0 ? 1000.0 * n / sum : 0.0;
}

// Longest frames first, accumulated until they cover `share` of the total time.
double low_integral(const std::vector<double>& sorted, double total, double share) {
    double acc = 0;
    for (auto it = sorted.rbegin(); it != sorted.rend(); ++it) {
        acc += *it;
        if (acc >= share * total) return *it > 0 ? 1000.0 / *it : 0.0;
    }
    return sorted.empty() || sorted.front() <= 0 ? 0.0 : 1000.0 / sorted.front();
}

// Q8(p) of the FPS values 1000 / ft, from the ascending frame times (the FPS values are the same
// list, descending): CapFrameX's P1 / P0.1 FPS.
double fps_quantile_r8(const std::vector<double>& sorted_ft, double p) {
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

// CapFrameX's stutter rule (FrametimeStatisticProvider.GetStutteringTimePercentage with
// GetMovingAverage and SampleBasedMovingAverage.ProcessSamples): the window is
// Convert.ToInt32(sqrt(mean) * 10) (round half to even: nearbyint in the default rounding mode),
// the average includes the frame itself, and a value more than 3 x its predecessor enters the
// average as the predecessor.
void capframex_stutters(const std::vector<double>& ft, double mean, double factor, Analysis& a) {
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

std::size_t bucket(double x, double period) {
    const double b = std::floor(x / period);
    return b < 0 ? 0 : b > 5 ? 5 : static_cast<std::size_t>(b);
}

// Finite values of v, ascending.
std::vector<double> sorted_finite(const std::vector<double>& v, bool positive_only = false) {
    std::vector<double> out;
    out.reserve(v.size());
    for (double x : v)
        if (std::isfinite(x) && (!positive_only || x > 0)) out.push_back(x);
    std::sort(out.begin(), out.end());
    return out;
}

void compute_sampled(const std::vector<double>& ft, const FrameColumns& c, Analysis& a) {
    const std::size_t n = ft.size();
    a.sampled = true;
    double fps_sum = 0, total = 0;
    std::size_t fps_n = 0;
    a.sampled_fps_min = std::numeric_limits<double>::infinity();
    a.sampled_fps_max = 0;
    for (double v : ft) {
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
    for (double t : c.time_s) {
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

}  // namespace

void compute(const std::vector<double>& ft, const std::vector<double>& target,
             const std::vector<double>& lateness, const AnalyzeOptions& o, Analysis& a) {
    FrameColumns c;
    c.target_ms = target;
    c.lateness_ms = lateness;
    compute(ft, c, o, a);
}

namespace {

// Frame-time figures: mean, spread, quantiles, P1 / P0.1 FPS, lows. `sorted` is ft sorted.
void frame_time_figures(const std::vector<double>& sorted, double total, bool cfx, Analysis& a) {
    const Distribution dist = describe_sorted(sorted);
    a.mean_ms = dist.mean;
    a.stddev_ms = dist.stddev;
    a.min_ms = dist.min;
    a.max_ms = dist.max;
    if (cfx) {
        a.p50_ms = quantile_r8(sorted, 0.50);
        a.p90_ms = quantile_r8(sorted, 0.90);
        a.p95_ms = quantile_r8(sorted, 0.95);
        a.p99_ms = quantile_r8(sorted, 0.99);
        a.p999_ms = quantile_r8(sorted, 0.999);
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

// Pacing error against the target (--target-hz, else the per-frame target). `buf`: scratch.
void pacing_error(const std::vector<double>& ft, const FrameColumns& c, const AnalyzeOptions& o,
                  std::vector<double>& err, Analysis& a) {
    const std::size_t n = ft.size();
    a.has_target = o.target_ms > 0 || c.target_ms.size() == n;
    if (!a.has_target) return;
    err.resize(n);
    double sum = 0, sq = 0, tsum = 0;
    std::size_t within = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double t = o.target_ms > 0 ? o.target_ms : c.target_ms[i];
        const double e = ft[i] - t;
        tsum += t;
        sum += e;
        sq += e * e;
        err[i] = std::fabs(e);
        if (err[i] <= 0.5) ++within;
    }
    std::sort(err.begin(), err.end());
    a.target_ms = tsum / static_cast<double>(n);
    a.bias_ms = sum / static_cast<double>(n);
    a.rms_ms = std::sqrt(sq / static_cast<double>(n));
    a.abs_err_p99_ms = percentile_sorted(err, 0.99);
    a.within_05ms = static_cast<double>(within) / static_cast<double>(n);
}

// Successive-frame jitter |ft[i] - ft[i-1]|. `d`: scratch.
void jitter(const std::vector<double>& ft, std::vector<double>& d, Analysis& a) {
    const std::size_t n = ft.size();
    if (n < 2) return;
    d.resize(n - 1);
    double sum = 0;
    for (std::size_t i = 1; i < n; ++i) {
        d[i - 1] = std::fabs(ft[i] - ft[i - 1]);
        sum += d[i - 1];
    }
    std::sort(d.begin(), d.end());
    a.jitter_mean_ms = sum / static_cast<double>(n - 1);
    a.jitter_p99_ms = percentile_sorted(d, 0.99);
    a.jitter_max_ms = d.back();
}

void stutters_and_hitches(const std::vector<double>& ft, double total, bool cfx, const AnalyzeOptions& o,
                          Analysis& a) {
    for (std::size_t i = 1; i < ft.size(); ++i)
        if (ft[i] > 60.0 && ft[i] >= 1.5 * ft[i - 1]) ++a.hitches;
    if (cfx) {
        capframex_stutters(ft, a.mean_ms, o.stutter_factor, a);
        a.stutter_time_share = total > 0 ? a.stutter_time_share / total : 0.0;
    } else {
        StutterCounter stutters(o.stutter_window, o.stutter_factor);
        for (double v : ft) (void)stutters.add(v);
        a.stutters = stutters.count();
        a.stutter_time_share = total > 0 ? stutters.time_ms() / total : 0.0;
    }
}

// Swappy histograms in refresh periods, and the frame-time histogram from min to p99.9 (longer
// frames land in the last bin).
void histograms(const std::vector<double>& ft, const FrameColumns& c, const AnalyzeOptions& o, Analysis& a) {
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
    a.interval_hist.fill(0);
    a.lateness_hist.fill(0);
    for (double v : ft) ++a.interval_hist[bucket(v, a.refresh_ms)];
    if (c.lateness_ms.size() == ft.size()) {
        for (double v : c.lateness_ms) {
            if (std::isnan(v)) continue;
            a.has_lateness = true;
            ++a.lateness_hist[bucket(v, a.refresh_ms)];
        }
    }
    const int bins = std::max(1, o.histogram_bins);
    a.histogram.assign(static_cast<std::size_t>(bins), 0);
    a.hist_lo_ms = a.min_ms;
    a.hist_hi_ms = a.p999_ms > a.min_ms ? a.p999_ms : a.min_ms + 1.0;
    const double scale = bins / (a.hist_hi_ms - a.hist_lo_ms);
    for (double v : ft) {
        const double b = std::floor((v - a.hist_lo_ms) * scale);
        const std::size_t k = b < 0 ? 0 : b >= bins ? static_cast<std::size_t>(bins - 1) : static_cast<std::size_t>(b);
        ++a.histogram[k];
    }
}

void displayed_frames(const FrameColumns& c, std::size_t n, double total, Analysis& a) {
    if (c.dropped.size() != n) return;
    std::vector<double> shown;
    const bool times = c.display_ms.size() == n;
    for (std::size_t i = 0; i < n; ++i) {
        const double d = c.dropped[i];
        if (std::isnan(d)) continue;
        if (d != 0) {
            ++a.dropped;
            continue;
        }
        ++a.displayed;
        if (times && std::isfinite(c.display_ms[i]) && c.display_ms[i] > 0) shown.push_back(c.display_ms[i]);
    }
    a.has_displayed = a.displayed + a.dropped > 0;
    if (a.has_displayed) {
        a.dropped_share = static_cast<double>(a.dropped) / static_cast<double>(a.displayed + a.dropped);
        a.displayed_fps = total > 0 ? 1000.0 * static_cast<double>(a.displayed) / total : 0.0;
    }
    std::sort(shown.begin(), shown.end());
    a.has_display_times = !shown.empty();
    a.display_p50_ms = percentile_sorted(shown, 0.50);
    a.display_p90_ms = percentile_sorted(shown, 0.90);
    a.display_p99_ms = percentile_sorted(shown, 0.99);
    a.display_p999_ms = percentile_sorted(shown, 0.999);
}

// CPU busy against GPU busy, and the latency columns.
void busy_and_latency(const FrameColumns& c, std::size_t n, Analysis& a) {
    if (c.cpu_busy_ms.size() == n) {
        const std::vector<double> s = sorted_finite(c.cpu_busy_ms);
        a.has_cpu_busy = !s.empty();
        a.cpu_busy_p50_ms = percentile_sorted(s, 0.5);
    }
    if (c.gpu_busy_ms.size() == n) {
        const std::vector<double> s = sorted_finite(c.gpu_busy_ms);
        a.has_gpu_busy = !s.empty();
        a.gpu_busy_p50_ms = percentile_sorted(s, 0.5);
    }
    if (a.has_cpu_busy && a.has_gpu_busy) {
        std::uint64_t gpu = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (std::isnan(c.cpu_busy_ms[i]) || std::isnan(c.gpu_busy_ms[i])) continue;
            ++a.busy_frames;
            if (c.gpu_busy_ms[i] >= c.cpu_busy_ms[i]) ++gpu;
        }
        a.gpu_bound_share = a.busy_frames ? static_cast<double>(gpu) / static_cast<double>(a.busy_frames) : 0.0;
    }
    if (c.pc_latency_ms.size() == n) {
        const std::vector<double> s = sorted_finite(c.pc_latency_ms);
        a.has_pc_latency = !s.empty();
        a.pc_latency_p50_ms = percentile_sorted(s, 0.5);
        a.pc_latency_p99_ms = percentile_sorted(s, 0.99);
    }
    if (c.input_to_photon_ms.size() == n) {
        const std::vector<double> s = sorted_finite(c.input_to_photon_ms);
        a.has_input_latency = !s.empty();
        a.input_latency_p50_ms = percentile_sorted(s, 0.5);
        a.input_latency_p99_ms = percentile_sorted(s, 0.99);
    }
}

}  // namespace

void compute(const std::vector<double>& ft, const FrameColumns& c, const AnalyzeOptions& o, Analysis& a) {
    const std::size_t n = ft.size();
    a.frames = n;
    a.definitions = o.definitions;
    if (n == 0) return;
    if (c.sampled) return compute_sampled(ft, c, a);
    const bool cfx = o.definitions == Definitions::capframex;
    const double total = std::accumulate(ft.begin(), ft.end(), 0.0);
    a.duration_s = total / 1000.0;
    a.avg_fps = total > 0 ? 1000.0 * static_cast<double>(n) / total : 0.0;
    std::vector<double> buf(ft);
    std::sort(buf.begin(), buf.end());
    frame_time_figures(buf, total, cfx, a);
    pacing_error(ft, c, o, buf, a);  // buf is scratch from here on
    jitter(ft, buf, a);
    stutters_and_hitches(ft, total, cfx, o, a);
    histograms(ft, c, o, a);
    displayed_frames(c, n, total, a);
    busy_and_latency(c, n, a);
}

namespace {

// Appends x as frame i of a column that stays empty until its first value (so a file without the
// column pays nothing); the frames before that value read NaN.
void put(std::vector<double>& v, std::size_t i, double x) {
    if (v.empty() && std::isnan(x)) return;
    if (v.size() < i) v.resize(i, kNaN);
    v.push_back(x);
}

void pad(std::vector<double>& v, std::size_t n) {
    if (!v.empty() && v.size() < n) v.resize(n, kNaN);
}

bool ci_equal(std::string_view x, std::string_view y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(x[i])) != std::tolower(static_cast<unsigned char>(y[i]))) return false;
    return true;
}

bool has_column(const CaptureReader& r, std::string_view name) {
    for (const std::string& c : r.columns())
        if (ci_equal(c, name)) return true;
    return false;
}

// A swap chain address as a number: "0x0000021D5B1C2F40" (PresentMon 1.x) and "0x21D5B1C2F40"
// (2.x) are the same swap chain.
bool hex_value(std::string_view s, std::uint64_t& v) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool same_swapchain(std::string_view x, std::string_view y) {
    std::uint64_t a = 0, b = 0;
    if (hex_value(x, a) && hex_value(y, b)) return a == b;
    return ci_equal(x, y);
}

struct Group {
    SeriesInfo info;
    double pid = std::nan("");  // as read (NaN: none), for the per-row comparison
    std::string swapchain_raw;  // as read
    std::string key;            // application, pid, swap chain: the hash key
    double ms = 0;              // sum of the frame times
    double t_first = std::nan(""), t_last = std::nan("");  // time stamps, for a sampled log
    std::vector<double> ft;
    FrameColumns c;             // target, lateness, times, display, busy, latency of the same frames
    bool any_target = false, any_lateness = false, has_missed = false;
    std::uint64_t missed = 0, na_rows = 0;
};

std::string selection_text(const AnalyzeOptions& o) {
    std::string s;
    auto add = [&](const std::string& t) { s += (s.empty() ? "" : " and ") + t; };
    if (!o.application.empty()) add("application " + o.application);
    if (o.process_id >= 0) add("pid " + std::to_string(o.process_id));
    if (!o.swapchain.empty()) add("swap chain " + o.swapchain);
    return s;
}

std::string holds_list(const std::vector<SeriesInfo>& series, std::size_t from, std::size_t max) {
    std::string s;
    std::size_t shown = 0;
    for (std::size_t i = from; i < series.size() && shown < max; ++i, ++shown)
        s += (shown ? ", " : "") + describe(series[i]);
    if (series.size() - from > shown) s += " and " + std::to_string(series.size() - from - shown) + " more";
    return s;
}

// Reads every row, grouped by (application, process, swap chain). Frames are kept only for the
// selected series (and not at all when listing).
Status collect(CaptureReader& r, const AnalyzeOptions& o, bool keep, std::vector<Group>& groups, std::uint64_t& rows) {
    r.set_summary_only(true);
    // Without a Dropped value, PresentMon 2.x's DisplayedTime says NA for a frame never displayed.
    const bool na_display_is_dropped = !has_column(r, "Dropped") && has_column(r, "DisplayedTime");
    const bool keep_times = o.keep_frames || r.sampled();
    std::size_t kept = 0, cur = static_cast<std::size_t>(-1);
    std::string key;
    std::unordered_map<std::string, std::size_t> index;
    const bool sampled = r.sampled();
    FrameRecord f;
    while (r.next(f)) {
        ++rows;
        const bool same = cur < groups.size() &&
                          (f.process_id == groups[cur].pid || (std::isnan(f.process_id) && std::isnan(groups[cur].pid))) &&
                          same_text(f.swapchain, groups[cur].swapchain_raw) &&
                          same_text(f.application, groups[cur].info.application);
        if (!same) {
            // Rows of a few series interleave (a game and dwm.exe take turns): a short linear
            // search; past 16 series, a hash of (application, pid, swap chain).
            cur = groups.size();
            if (groups.size() <= 16) {
                for (std::size_t i = 0; i < groups.size(); ++i) {
                    const Group& g = groups[i];
                    if (f.application == g.info.application && f.swapchain == g.swapchain_raw &&
                        (f.process_id == g.pid || (std::isnan(f.process_id) && std::isnan(g.pid)))) {
                        cur = i;
                        break;
                    }
                }
            }
            if (cur == groups.size()) {
                key.assign(f.application.data(), f.application.size());
                key += '\x1f';
                if (!std::isnan(f.process_id)) key += std::to_string(static_cast<std::int64_t>(f.process_id));
                key += '\x1f';
                key.append(f.swapchain.data(), f.swapchain.size());
            }
            if (groups.size() > 16) {
                if (index.empty())  // the first time past 16: index what is there
                    for (std::size_t i = 0; i < groups.size(); ++i) index.emplace(groups[i].key, i);
                if (const auto it = index.find(key); it != index.end()) cur = it->second;
            }
            if (cur == groups.size()) {
                if (groups.size() >= 100000)
                    return Status::error(r.name() + ":" + std::to_string(f.line) +
                                         ": more than 100000 processes and swap chains");
                Group g;
                g.key = key;
                if (!index.empty()) index.emplace(key, groups.size());
                g.info.application = std::string(f.application);
                g.swapchain_raw = std::string(f.swapchain);
                if (g.swapchain_raw != "NA") g.info.swapchain = g.swapchain_raw;
                g.pid = f.process_id;
                if (std::isfinite(f.process_id)) g.info.process_id = static_cast<std::int64_t>(f.process_id);
                g.info.selected =
                    (o.application.empty() || ci_equal(g.info.application, o.application)) &&
                    (o.process_id < 0 || g.info.process_id == o.process_id) &&
                    (o.swapchain.empty() || same_swapchain(g.info.swapchain, o.swapchain));
                groups.push_back(std::move(g));
            }
        }
        Group& g = groups[cur];
        ++g.info.rows;
        if (std::isnan(f.frame_ms)) {
            ++g.na_rows;
            continue;
        }
        ++g.info.frames;
        g.ms += f.frame_ms;
        if (sampled && std::isfinite(f.time_s)) {
            if (std::isnan(g.t_first)) g.t_first = f.time_s;
            g.t_last = f.time_s;
        }
        if (!keep || !g.info.selected) continue;
        if (kept >= o.max_frames)
            return Status::error(r.name() + ":" + std::to_string(f.line) + ": more than " +
                                 std::to_string(o.max_frames) + " frames; analyze a part of the capture");
        ++kept;
        const std::size_t i = g.ft.size();
        g.ft.push_back(f.frame_ms);
        FrameColumns& c = g.c;
        if (keep_times) c.time_s.push_back(f.time_s);
        // Only captures that have the columns pay for them (8 bytes a frame each).
        if (r.has_target()) c.target_ms.push_back(f.target_ms);
        if (r.has_lateness()) c.lateness_ms.push_back(f.lateness_ms);
        g.any_target = g.any_target || !std::isnan(f.target_ms);
        g.any_lateness = g.any_lateness || !std::isnan(f.lateness_ms);
        if (!std::isnan(f.missed)) {
            g.has_missed = true;
            if (f.missed > 0) ++g.missed;
        }
        put(c.display_ms, i, f.display_change_ms);
        put(c.dropped, i, !std::isnan(f.dropped) ? f.dropped
                          : na_display_is_dropped ? (std::isnan(f.display_change_ms) ? 1.0 : 0.0)
                                                  : kNaN);
        put(c.cpu_busy_ms, i, f.busy_ms);
        put(c.gpu_busy_ms, i, f.gpu_busy_ms);
        put(c.pc_latency_ms, i, f.pc_latency_ms);
        put(c.input_to_photon_ms, i, f.input_to_photon_ms);
    }
    if (!r.error().ok()) return r.error();
    // A log of samples spans its time stamps; its rows' frame times add up to far less.
    for (Group& g : groups)
        g.info.duration_s = sampled && std::isfinite(g.t_first) ? g.t_last - g.t_first : g.ms / 1000.0;
    // The main series first: most frames, then the first in the file.
    std::stable_sort(groups.begin(), groups.end(),
                     [](const Group& x, const Group& y) { return x.info.frames > y.info.frames; });
    return {};
}

// The column the reader takes as the frame time: the first frame-time column of the header.
std::string frame_column(const CaptureReader& r) {
    for (const std::string& c : r.columns())
        if (ci_equal(c, "MsBetweenPresents") || ci_equal(c, "FrameTime") || ci_equal(c, "MsBetweenAppStart"))
            return c;
    return std::string();
}

void analyze_group(Group& g, const CaptureReader& r, const AnalyzeOptions& o, std::uint64_t rows, Analysis& a) {
    a.file = r.name();
    a.format = to_string(r.format());
    a.frame_column = frame_column(r);
    a.application = g.info.application;
    a.swapchain = g.info.swapchain;
    a.process_id = g.info.process_id;
    a.rows = g.info.rows;
    a.na_rows = g.na_rows;
    a.filtered_rows = rows - g.info.rows;
    FrameColumns& c = g.c;
    c.sampled = r.sampled();
    std::vector<double>& target = c.target_ms;
    if (g.any_target) {
        // Frames without a target use the last known one (a capture starts with it).
        double last = kNaN;
        for (double& t : target) {
            if (std::isnan(t)) t = last;
            else last = t;
        }
        last = kNaN;
        for (auto it = target.rbegin(); it != target.rend(); ++it) {
            if (std::isnan(*it)) *it = last;
            else last = *it;
        }
    } else {
        target.clear();
    }
    if (!g.any_lateness) c.lateness_ms.clear();
    // CPU busy is reported beside GPU busy (which of the two bound the frame); a capture without
    // GPU busy (pacer's own: MsCPUBusy is the work time) does not pay for its sort.
    if (c.gpu_busy_ms.empty()) c.cpu_busy_ms = std::vector<double>();
    for (auto* v : {&c.display_ms, &c.dropped, &c.cpu_busy_ms, &c.gpu_busy_ms, &c.pc_latency_ms,
                    &c.input_to_photon_ms})
        pad(*v, g.ft.size());
    compute(g.ft, c, o, a);
    a.has_missed = g.has_missed;
    a.missed = g.missed;
    if (o.keep_frames) {
        // Seconds since the first frame; a file without a time column (or with gaps in it) gets
        // the running sum of frame times.
        std::vector<double>& times = c.time_s;
        const double t0 = times.empty() ? 0.0 : times.front();
        double sum = 0;
        for (std::size_t i = 0; i < times.size(); ++i) {
            sum += i ? g.ft[i] / 1000.0 : 0.0;
            times[i] = std::isfinite(times[i]) && std::isfinite(t0) ? times[i] - t0 : sum;
        }
        a.frame_ms = std::move(g.ft);
        a.time_s = std::move(times);
        a.display_ms = std::move(c.display_ms);
        a.dropped_flags = std::move(c.dropped);
        a.cpu_busy_ms = std::move(c.cpu_busy_ms);
        a.gpu_busy_ms = std::move(c.gpu_busy_ms);
        a.pc_latency_ms = std::move(c.pc_latency_ms);
        a.input_to_photon_ms = std::move(c.input_to_photon_ms);
    }
    g.ft = {};
    g.c = FrameColumns();
}

}  // namespace

std::string describe(const SeriesInfo& s) {
    std::string d = s.application.empty() ? std::string("(no application)") : s.application;
    std::string in;
    if (s.process_id >= 0) in += "pid " + std::to_string(s.process_id);
    if (!s.swapchain.empty()) in += (in.empty() ? "" : ", ") + std::string("swap chain ") + s.swapchain;
    in += (in.empty() ? "" : ", ") + std::to_string(s.frames) + " frames";
    return d + " (" + in + ")";
}

Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, FileAnalysis& out) {
    out = FileAnalysis();
    out.file = r.name();
    out.format = to_string(r.format());
    out.sampled = r.sampled();
    std::vector<Group> groups;
    std::uint64_t rows = 0;
    if (Status st = collect(r, o, true, groups, rows); !st) return st;
    for (const Group& g : groups) out.series.push_back(g.info);
    const bool selecting = !o.application.empty() || o.process_id >= 0 || !o.swapchain.empty();
    std::vector<std::size_t> chosen;  // selected series with frames, main first
    for (std::size_t i = 0; i < groups.size(); ++i)
        if (groups[i].info.selected && groups[i].info.frames > 0) chosen.push_back(i);
    if (chosen.empty()) {
        if (!selecting || groups.empty()) return Status::error(r.name() + ": no frames");
        return Status::error(r.name() + ": no frames of " + selection_text(o) + " (the file holds: " +
                             holds_list(out.series, 0, 8) + ")");
    }
    const std::size_t n = std::min(chosen.size(), std::max<std::size_t>(1, o.max_series));
    for (std::size_t k = 0; k < n; ++k) {
        Analysis a;
        analyze_group(groups[chosen[k]], r, o, rows, a);
        out.analyses.push_back(std::move(a));
    }
    // The note: what else is there, and how to pick.
    auto names = [&](std::size_t from, std::size_t to) {
        std::string s;
        for (std::size_t k = from; k < to; ++k) s += (k > from ? ", " : "") + describe(groups[chosen[k]].info);
        return s;
    };
    const std::string how = "pick one with --app NAME, --pid N or --swapchain ADDR; `pacer analyze --list " +
                            r.name() + "` lists them";
    if (!selecting && groups.size() > 1) {
        out.note = "note: " + r.name() + " holds " + std::to_string(groups.size()) +
                   " series (process, swap chain), each analysed on its own: " + names(0, n);
        if (chosen.size() > n)
            out.note += "; not shown: " + std::to_string(chosen.size() - n) + " more with " +
                        std::to_string([&] {
                            std::uint64_t s = 0;
                            for (std::size_t k = n; k < chosen.size(); ++k) s += groups[chosen[k]].info.frames;
                            return s;
                        }()) +
                        " frames";
        out.note += "; " + how;
    } else if (selecting && chosen.size() > 1) {
        out.note = "note: " + std::to_string(chosen.size()) + " series of " + r.name() + " match " +
                   selection_text(o) + ", each analysed on its own: " + names(0, n) +
                   (chosen.size() > n ? " and " + std::to_string(chosen.size() - n) + " more" : std::string()) +
                   "; " + how;
    }
    if (r.cut_last_line())
        out.note += (out.note.empty() ? "" : "\n") + std::string("note: ") + r.name() + ":" +
                    std::to_string(r.line()) +
                    ": the last line is a row cut short (its writer stopped mid-row) and was left out";
    return {};
}

Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, Analysis& a) {
    FileAnalysis fa;
    AnalyzeOptions one = o;
    one.max_series = 1;
    if (Status st = analyze_reader(r, one, fa); !st) return st;
    a = std::move(fa.analyses.front());
    return {};
}

Status analyze_file(const std::string& path, const AnalyzeOptions& o, FileAnalysis& out) {
    CaptureReader r;
    if (Status st = r.open(path); !st) return st;
    return analyze_reader(r, o, out);
}

Status analyze_file(const std::string& path, const AnalyzeOptions& o, Analysis& a) {
    CaptureReader r;
    if (Status st = r.open(path); !st) return st;
    return analyze_reader(r, o, a);
}

Status list_file(const std::string& path, FileAnalysis& out) {
    out = FileAnalysis();
    CaptureReader r;
    if (Status st = r.open(path); !st) return st;
    out.file = r.name();
    out.format = to_string(r.format());
    out.sampled = r.sampled();
    std::vector<Group> groups;
    std::uint64_t rows = 0;
    if (Status st = collect(r, {}, false, groups, rows); !st) return st;
    for (const Group& g : groups) out.series.push_back(g.info);
    return {};
}

std::string format_series(const FileAnalysis& fa) {
    std::string out = fa.file + ": " + fa.format + ", " + std::to_string(fa.series.size()) + " series" +
                      (fa.sampled ? " (a log of samples: one row per interval, not per frame)" : "") + "\n";
    std::size_t app_w = 11, sc_w = 10;
    for (const SeriesInfo& s : fa.series) {
        app_w = std::max(app_w, s.application.size());
        sc_w = std::max(sc_w, s.swapchain.size());
    }
    char b[1024];
    std::snprintf(b, sizeof b, "  %-*s  %10s  %-*s  %10s  %10s\n", static_cast<int>(app_w), "application", "pid",
                  static_cast<int>(sc_w), "swap chain", "frames", "duration s");
    out += b;
    for (const SeriesInfo& s : fa.series) {
        const std::string pid = s.process_id >= 0 ? std::to_string(s.process_id) : std::string("NA");
        const std::string app = s.application.empty() ? std::string("(none)") : s.application;
        std::snprintf(b, sizeof b, "  %-*s  %10s  %-*s  %10llu  %10.3f\n", static_cast<int>(app_w), app.c_str(),
                      pid.c_str(), static_cast<int>(sc_w), s.swapchain.empty() ? "NA" : s.swapchain.c_str(),
                      static_cast<unsigned long long>(s.frames), s.duration_s);
        out += b;
    }
    return out;
}

namespace {

std::string num(double v, int prec) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", prec, v);
    return b;
}

// One row of the text table: which analyses have it (the row is printed when any has), and the cell.
struct Line {
    std::string label;
    bool (*has)(const Analysis&);
    std::string (*get)(const Analysis&);
};

bool always(const Analysis&) { return true; }
bool per_frame(const Analysis& a) { return !a.sampled; }
bool sampled(const Analysis& a) { return a.sampled; }
bool displayed(const Analysis& a) { return !a.sampled && a.has_displayed; }
bool display_times(const Analysis& a) { return !a.sampled && a.has_display_times; }
bool cpu_busy(const Analysis& a) { return !a.sampled && a.has_cpu_busy; }
bool gpu_busy(const Analysis& a) { return !a.sampled && a.has_gpu_busy; }
bool both_busy(const Analysis& a) { return !a.sampled && a.busy_frames > 0; }
bool pc_latency(const Analysis& a) { return !a.sampled && a.has_pc_latency; }
bool input_latency(const Analysis& a) { return !a.sampled && a.has_input_latency; }
bool lateness(const Analysis& a) { return !a.sampled && a.has_lateness; }

std::string hist_share(const Analysis& a, const std::array<std::uint64_t, 6>& h, std::size_t b) {
    return a.frames ? num(100.0 * static_cast<double>(h[b]) / static_cast<double>(a.frames), 2) : std::string("NA");
}

}  // namespace

std::string format_text(const std::vector<Analysis>& as) {
    using A = const Analysis&;
    std::vector<Line> lines = {
        {"format", always, [](A a) { return a.format; }},
        {"application", always, [](A a) { return a.application.empty() ? std::string("NA") : a.application; }},
        {"process id", always, [](A a) { return a.process_id >= 0 ? std::to_string(a.process_id) : std::string("NA"); }},
        {"swap chain", always, [](A a) { return a.swapchain.empty() ? std::string("NA") : a.swapchain; }},
        {"frame time column", always, [](A a) { return a.frame_column.empty() ? std::string("?") : a.frame_column; }},
        {"definitions", per_frame, [](A a) { return std::string(to_string(a.definitions)); }},
        {"samples (sampled log)", sampled, [](A a) { return std::to_string(a.frames); }},
        {"frames", per_frame, [](A a) { return std::to_string(a.frames); }},
        {"rows without frame time", always, [](A a) { return std::to_string(a.na_rows); }},
        {"duration s", always, [](A a) { return num(a.duration_s, 3); }},
        {"average FPS", always, [](A a) { return num(a.avg_fps, 2); }},
        {"sampled FPS min", sampled, [](A a) { return num(a.sampled_fps_min, 2); }},
        {"sampled FPS max", sampled, [](A a) { return num(a.sampled_fps_max, 2); }},
        {"P1 FPS", per_frame, [](A a) { return num(a.p1_fps, 2); }},
        {"P0.1 FPS", per_frame, [](A a) { return num(a.p01_fps, 2); }},
        {"1% low FPS (average)", per_frame, [](A a) { return num(a.low1_avg_fps, 2); }},
        {"0.1% low FPS (average)", per_frame, [](A a) { return num(a.low01_avg_fps, 2); }},
        {"1% low FPS (integral)", per_frame, [](A a) { return num(a.low1_integral_fps, 2); }},
        {"0.1% low FPS (integral)", per_frame, [](A a) { return num(a.low01_integral_fps, 2); }},
        {"frame time mean ms", per_frame, [](A a) { return num(a.mean_ms, 3); }},
        {"frame time stddev ms", per_frame, [](A a) { return num(a.stddev_ms, 3); }},
        {"frame time min ms", per_frame, [](A a) { return num(a.min_ms, 3); }},
        {"frame time p50 ms", per_frame, [](A a) { return num(a.p50_ms, 3); }},
        {"frame time p90 ms", per_frame, [](A a) { return num(a.p90_ms, 3); }},
        {"frame time p95 ms", per_frame, [](A a) { return num(a.p95_ms, 3); }},
        {"frame time p99 ms", per_frame, [](A a) { return num(a.p99_ms, 3); }},
        {"frame time p99.9 ms", per_frame, [](A a) { return num(a.p999_ms, 3); }},
        {"frame time max ms", per_frame, [](A a) { return num(a.max_ms, 3); }},
        {"target ms", per_frame, [](A a) { return a.has_target ? num(a.target_ms, 3) : std::string("NA"); }},
        {"pacing error bias ms", per_frame, [](A a) { return a.has_target ? num(a.bias_ms, 3) : std::string("NA"); }},
        {"pacing error RMS ms", per_frame, [](A a) { return a.has_target ? num(a.rms_ms, 3) : std::string("NA"); }},
        {"pacing |error| p99 ms", per_frame, [](A a) { return a.has_target ? num(a.abs_err_p99_ms, 3) : std::string("NA"); }},
        {"within +/-0.5 ms %", per_frame, [](A a) { return a.has_target ? num(100 * a.within_05ms, 2) : std::string("NA"); }},
        {"jitter mean ms", per_frame, [](A a) { return num(a.jitter_mean_ms, 3); }},
        {"jitter p99 ms", per_frame, [](A a) { return num(a.jitter_p99_ms, 3); }},
        {"jitter max ms", per_frame, [](A a) { return num(a.jitter_max_ms, 3); }},
        {"stutters (>2.5x avg)", per_frame, [](A a) { return std::to_string(a.stutters); }},
        {"stutter time %", per_frame, [](A a) { return num(100 * a.stutter_time_share, 3); }},
        {"hitches (>60ms, >=1.5x prev)", per_frame, [](A a) { return std::to_string(a.hitches); }},
        {"missed frames", per_frame, [](A a) { return a.has_missed ? std::to_string(a.missed) : std::string("NA"); }},
        {"dropped frames %", displayed, [](A a) { return num(100 * a.dropped_share, 2); }},
        {"displayed FPS", displayed, [](A a) { return num(a.displayed_fps, 2); }},
        {"displayed time p50 ms", display_times, [](A a) { return num(a.display_p50_ms, 3); }},
        {"displayed time p90 ms", display_times, [](A a) { return num(a.display_p90_ms, 3); }},
        {"displayed time p99 ms", display_times, [](A a) { return num(a.display_p99_ms, 3); }},
        {"displayed time p99.9 ms", display_times, [](A a) { return num(a.display_p999_ms, 3); }},
        {"CPU busy p50 ms", cpu_busy, [](A a) { return num(a.cpu_busy_p50_ms, 3); }},
        {"GPU busy p50 ms", gpu_busy, [](A a) { return num(a.gpu_busy_p50_ms, 3); }},
        {"GPU busy >= CPU busy % frames", both_busy, [](A a) { return num(100 * a.gpu_bound_share, 2); }},
        {"PC latency p50 ms", pc_latency, [](A a) { return num(a.pc_latency_p50_ms, 3); }},
        {"PC latency p99 ms", pc_latency, [](A a) { return num(a.pc_latency_p99_ms, 3); }},
        {"input to photon p50 ms", input_latency, [](A a) { return num(a.input_latency_p50_ms, 3); }},
        {"input to photon p99 ms", input_latency, [](A a) { return num(a.input_latency_p99_ms, 3); }},
        {"refresh period ms", per_frame, [](A a) { return num(a.refresh_ms, 3); }},
        {"refresh period from", per_frame, [](A a) { return std::string(a.refresh_source); }},
    };
    // Swappy's histograms: the share of frames whose frame time (lateness) lasts N refresh periods.
    static const std::string kFrameHist[6] = {"% frames lasting [0,1) refresh periods", "% frames lasting [1,2) refresh periods",
                                              "% frames lasting [2,3) refresh periods", "% frames lasting [3,4) refresh periods",
                                              "% frames lasting [4,5) refresh periods", "% frames lasting >= 5 refresh periods"};
    static const std::string kLateHist[6] = {"% frames late by [0,1) refresh periods", "% frames late by [1,2) refresh periods",
                                             "% frames late by [2,3) refresh periods", "% frames late by [3,4) refresh periods",
                                             "% frames late by [4,5) refresh periods", "% frames late by >= 5 refresh periods"};
    static std::string (*const kFrameGet[6])(A) = {
        [](A a) { return hist_share(a, a.interval_hist, 0); }, [](A a) { return hist_share(a, a.interval_hist, 1); },
        [](A a) { return hist_share(a, a.interval_hist, 2); }, [](A a) { return hist_share(a, a.interval_hist, 3); },
        [](A a) { return hist_share(a, a.interval_hist, 4); }, [](A a) { return hist_share(a, a.interval_hist, 5); }};
    static std::string (*const kLateGet[6])(A) = {
        [](A a) { return hist_share(a, a.lateness_hist, 0); }, [](A a) { return hist_share(a, a.lateness_hist, 1); },
        [](A a) { return hist_share(a, a.lateness_hist, 2); }, [](A a) { return hist_share(a, a.lateness_hist, 3); },
        [](A a) { return hist_share(a, a.lateness_hist, 4); }, [](A a) { return hist_share(a, a.lateness_hist, 5); }};
    for (std::size_t b = 0; b < 6; ++b) lines.push_back({kFrameHist[b], per_frame, kFrameGet[b]});
    for (std::size_t b = 0; b < 6; ++b) lines.push_back({kLateHist[b], lateness, kLateGet[b]});

    std::string out;
    const std::size_t label_w = 40;
    std::vector<std::size_t> width;
    for (const Analysis& a : as) width.push_back(std::max<std::size_t>(17, std::min<std::size_t>(a.file.size(), 40)));
    auto row = [&](const std::string& label, const std::vector<std::string>& cells) {
        std::string l = label;
        l.resize(std::max(label_w, l.size()), ' ');
        out += l;
        for (std::size_t i = 0; i < cells.size(); ++i) {
            std::string c = cells[i];
            if (c.size() < width[i]) c.insert(0, width[i] - c.size(), ' ');
            out += "  " + c;
        }
        out += '\n';
    };
    std::vector<std::string> cells;
    for (const Analysis& a : as) cells.push_back(a.file.size() > 40 ? "..." + a.file.substr(a.file.size() - 37) : a.file);
    row("", cells);
    for (const Line& l : lines) {
        bool any = false;
        for (const Analysis& a : as) any = any || l.has(a);
        if (!any) continue;
        cells.clear();
        // "NA": the file has no such data; "-": not meaningful for a sampled log.
        for (const Analysis& a : as) cells.push_back(l.has(a) ? l.get(a) : std::string(a.sampled ? "-" : "NA"));
        row(l.label, cells);
    }
    for (const Analysis& a : as) {
        if (!a.sampled) continue;
        out += "\n" + a.file + ": sampled: " + std::to_string(a.frames) + " samples over " + num(a.duration_s, 1) +
               " s (one row per log interval, each an average of many frames): only the average FPS and the"
               " sampled FPS range are shown\n";
    }
    for (const Analysis& a : as) {
        if (a.sampled) continue;
        out += "\nframe-time histogram of " + a.file + " (ms)\n";
        std::uint64_t peak = 1;
        for (auto c : a.histogram) peak = std::max(peak, c);
        const double step = (a.hist_hi_ms - a.hist_lo_ms) / static_cast<double>(a.histogram.size());
        for (std::size_t b = 0; b < a.histogram.size(); ++b) {
            const double lo = a.hist_lo_ms + step * static_cast<double>(b);
            char head[64];
            std::snprintf(head, sizeof head, "%9.3f %s %-9s", lo, b + 1 == a.histogram.size() ? "+ " : "- ",
                          b + 1 == a.histogram.size() ? "" : num(lo + step, 3).c_str());
            const auto len = static_cast<std::size_t>(std::llround(50.0 * static_cast<double>(a.histogram[b]) / static_cast<double>(peak)));
            out += std::string(head) + " |" + std::string(len, '#') + " " + std::to_string(a.histogram[b]) + "\n";
        }
    }
    return out;
}

namespace {
std::string json_str(const std::string& s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += static_cast<char>(c);
        } else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else {
            o += static_cast<char>(c);
        }
    }
    return o + "\"";
}
std::string jnum(double v) {
    if (!std::isfinite(v)) return "null";
    char b[64];
    auto r = std::to_chars(b, b + sizeof b, v);
    return std::string(b, r.ptr);
}
template <class C>
std::string jarr(const C& c) {
    std::string o = "[";
    for (std::size_t i = 0; i < c.size(); ++i) o += (i ? "," : "") + std::to_string(c[i]);
    return o + "]";
}

// "name": [v, ...] with `decimals` decimals at most (trailing zeros dropped), null for NaN.
// Linear in the length: one growing buffer, no temporaries per value.
void append_series(std::string& o, const char* name, const std::vector<double>& v, int decimals, bool& first) {
    if (v.empty()) return;
    o += first ? "\n    " : ",\n    ";
    first = false;
    o += '"';
    o += name;
    o += "\": [";
    char b[64];
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (i) o += ',';
        if (!std::isfinite(v[i])) {
            o += "null";
            continue;
        }
        char* end = std::to_chars(b, b + sizeof b, v[i], std::chars_format::fixed, decimals).ptr;
        if (std::find(b, end, '.') != end) {
            while (end[-1] == '0') --end;
            if (end[-1] == '.') --end;
        }
        o.append(b, end);
    }
    o += ']';
}
}  // namespace

std::string format_json(const std::vector<Analysis>& as, bool frames) {
    std::string o = "[\n";
    const double nan = std::nan("");
    for (std::size_t i = 0; i < as.size(); ++i) {
        const Analysis& a = as[i];
        // A sampled log has no frame-level figures: null.
        auto f = [&](double v) { return a.sampled ? std::string("null") : jnum(v); };
        auto u = [&](std::uint64_t v) { return a.sampled ? std::string("null") : std::to_string(v); };
        o += "  {\"file\": " + json_str(a.file) + ", \"format\": " + json_str(a.format) +
             ", \"application\": " + json_str(a.application) +
             ", \"process_id\": " + (a.process_id >= 0 ? std::to_string(a.process_id) : std::string("null")) +
             ", \"swapchain\": " + (a.swapchain.empty() ? std::string("null") : json_str(a.swapchain)) +
             ",\n   \"frame_column\": " + json_str(a.frame_column) +
             ", \"definitions\": " + json_str(to_string(a.definitions)) +
             ", \"sampled\": " + (a.sampled ? "true" : "false") +
             ",\n   \"rows\": " + std::to_string(a.rows) + ", \"frames\": " + u(a.frames) +
             ", \"samples\": " + (a.sampled ? std::to_string(a.frames) : std::string("null")) +
             ", \"na_rows\": " + std::to_string(a.na_rows) + ", \"duration_s\": " + jnum(a.duration_s) +
             ",\n   \"avg_fps\": " + jnum(a.avg_fps) +
             ", \"sampled_fps\": " + (a.sampled ? "{\"min\": " + jnum(a.sampled_fps_min) + ", \"max\": " + jnum(a.sampled_fps_max) + "}" : std::string("null")) +
             ", \"p1_fps\": " + f(a.p1_fps) +
             ", \"p01_fps\": " + f(a.p01_fps) + ", \"low1_avg_fps\": " + f(a.low1_avg_fps) +
             ", \"low01_avg_fps\": " + f(a.low01_avg_fps) + ", \"low1_integral_fps\": " + f(a.low1_integral_fps) +
             ", \"low01_integral_fps\": " + f(a.low01_integral_fps) +
             ",\n   \"frame_time_ms\": " +
             (a.sampled ? std::string("null")
                        : "{\"mean\": " + jnum(a.mean_ms) + ", \"stddev\": " + jnum(a.stddev_ms) +
                              ", \"min\": " + jnum(a.min_ms) + ", \"p50\": " + jnum(a.p50_ms) + ", \"p90\": " + jnum(a.p90_ms) +
                              ", \"p95\": " + jnum(a.p95_ms) + ", \"p99\": " + jnum(a.p99_ms) + ", \"p99.9\": " + jnum(a.p999_ms) +
                              ", \"max\": " + jnum(a.max_ms) + "}") +
             ",\n   \"pacing_error_ms\": " +
             (a.sampled || !a.has_target
                  ? std::string("null")
                  : "{\"target\": " + jnum(a.target_ms) + ", \"bias\": " + jnum(a.bias_ms) + ", \"rms\": " + jnum(a.rms_ms) +
                        ", \"abs_p99\": " + jnum(a.abs_err_p99_ms) + ", \"within_0.5ms_share\": " + jnum(a.within_05ms) + "}") +
             ",\n   \"jitter_ms\": " +
             (a.sampled ? std::string("null")
                        : "{\"mean\": " + jnum(a.jitter_mean_ms) + ", \"p99\": " + jnum(a.jitter_p99_ms) +
                              ", \"max\": " + jnum(a.jitter_max_ms) + "}") +
             ", \"stutters\": " + u(a.stutters) + ", \"stutter_time_share\": " + f(a.stutter_time_share) +
             ", \"hitches\": " + u(a.hitches) +
             ", \"missed\": " + (a.has_missed && !a.sampled ? std::to_string(a.missed) : std::string("null")) +
             ",\n   \"displayed\": " +
             (a.has_displayed && !a.sampled
                  ? "{\"displayed\": " + std::to_string(a.displayed) + ", \"dropped\": " + std::to_string(a.dropped) +
                        ", \"dropped_share\": " + jnum(a.dropped_share) + ", \"displayed_fps\": " + jnum(a.displayed_fps) +
                        ", \"display_ms\": " +
                        (a.has_display_times ? "{\"p50\": " + jnum(a.display_p50_ms) + ", \"p90\": " + jnum(a.display_p90_ms) +
                                                   ", \"p99\": " + jnum(a.display_p99_ms) + ", \"p99.9\": " + jnum(a.display_p999_ms) + "}"
                                             : std::string("null")) +
                        "}"
                  : std::string("null")) +
             ", \"busy_ms\": " +
             ((a.has_cpu_busy || a.has_gpu_busy) && !a.sampled
                  ? "{\"cpu_p50\": " + jnum(a.has_cpu_busy ? a.cpu_busy_p50_ms : nan) +
                        ", \"gpu_p50\": " + jnum(a.has_gpu_busy ? a.gpu_busy_p50_ms : nan) +
                        ", \"frames_with_both\": " + std::to_string(a.busy_frames) +
                        ", \"gpu_ge_cpu_share\": " + jnum(a.busy_frames ? a.gpu_bound_share : nan) + "}"
                  : std::string("null")) +
             ",\n   \"latency_ms\": " +
             ((a.has_pc_latency || a.has_input_latency) && !a.sampled
                  ? "{\"pc_p50\": " + jnum(a.has_pc_latency ? a.pc_latency_p50_ms : nan) +
                        ", \"pc_p99\": " + jnum(a.has_pc_latency ? a.pc_latency_p99_ms : nan) +
                        ", \"input_to_photon_p50\": " + jnum(a.has_input_latency ? a.input_latency_p50_ms : nan) +
                        ", \"input_to_photon_p99\": " + jnum(a.has_input_latency ? a.input_latency_p99_ms : nan) + "}"
                  : std::string("null")) +
             ",\n   \"refresh_ms\": " + f(a.refresh_ms) +
             ", \"refresh_source\": " + (a.sampled ? std::string("null") : json_str(a.refresh_source)) +
             ", \"frame_time_refresh_histogram\": " + (a.sampled ? std::string("null") : jarr(a.interval_hist)) +
             ", \"lateness_refresh_histogram\": " + (a.has_lateness && !a.sampled ? jarr(a.lateness_hist) : std::string("null")) +
             ",\n   \"histogram\": " +
             (a.sampled ? std::string("null")
                        : "{\"lo_ms\": " + jnum(a.hist_lo_ms) + ", \"hi_ms\": " + jnum(a.hist_hi_ms) +
                              ", \"counts\": " + jarr(a.histogram) + "}");
        if (frames) {
            o += ",\n   \"frames\": {";
            bool first = true;
            std::size_t bytes = 0;
            for (const auto* v : {&a.time_s, &a.frame_ms, &a.display_ms, &a.dropped_flags, &a.cpu_busy_ms,
                                  &a.gpu_busy_ms, &a.pc_latency_ms, &a.input_to_photon_ms})
                bytes += v->size() * 12;
            o.reserve(o.size() + bytes);
            append_series(o, "time_s", a.time_s, 9, first);
            append_series(o, "frame_ms", a.frame_ms, 6, first);
            append_series(o, "display_ms", a.display_ms, 6, first);
            append_series(o, "dropped", a.dropped_flags, 0, first);
            append_series(o, "cpu_busy_ms", a.cpu_busy_ms, 6, first);
            append_series(o, "gpu_busy_ms", a.gpu_busy_ms, 6, first);
            append_series(o, "pc_latency_ms", a.pc_latency_ms, 6, first);
            append_series(o, "input_to_photon_ms", a.input_to_photon_ms, 6, first);
            o += "}";
        }
        o += i + 1 < as.size() ? "},\n" : "}\n";
    }
    o += "]\n";
    return o;
}

}  // namespace pacer::tools
