#include "analyze.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "pacer/stats.hpp"

namespace pacer::tools {
namespace {

double low_avg(const std::vector<double>& sorted, double q) {
    const double cut = percentile_sorted(sorted, q);
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

std::size_t bucket(double x, double period) {
    const double b = std::floor(x / period);
    return b < 0 ? 0 : b > 5 ? 5 : static_cast<std::size_t>(b);
}

}  // namespace

void compute(const std::vector<double>& ft, const std::vector<double>& target,
             const std::vector<double>& lateness, const AnalyzeOptions& o, Analysis& a) {
    const std::size_t n = ft.size();
    a.frames = n;
    if (n == 0) return;
    const double total = std::accumulate(ft.begin(), ft.end(), 0.0);
    a.duration_s = total / 1000.0;
    a.avg_fps = total > 0 ? 1000.0 * static_cast<double>(n) / total : 0.0;
    std::vector<double> sorted(ft);
    std::sort(sorted.begin(), sorted.end());
    const Distribution dist = describe_sorted(sorted);
    a.mean_ms = dist.mean;
    a.stddev_ms = dist.stddev;
    a.min_ms = dist.min;
    a.max_ms = dist.max;
    a.p50_ms = dist.p50;
    a.p90_ms = dist.p90;
    a.p95_ms = dist.p95;
    a.p99_ms = dist.p99;
    a.p999_ms = dist.p999;
    a.p1_fps = a.p99_ms > 0 ? 1000.0 / a.p99_ms : 0.0;
    a.p01_fps = a.p999_ms > 0 ? 1000.0 / a.p999_ms : 0.0;
    a.low1_avg_fps = low_avg(sorted, 0.99);
    a.low01_avg_fps = low_avg(sorted, 0.999);
    a.low1_integral_fps = low_integral(sorted, total, 0.01);
    a.low01_integral_fps = low_integral(sorted, total, 0.001);

    // Pacing error against the target.
    const bool per_frame = target.size() == n;
    a.has_target = o.target_ms > 0 || per_frame;
    if (a.has_target) {
        std::vector<double>& err = sorted;  // reuse the buffer
        double sum = 0, sq = 0, tsum = 0;
        std::size_t within = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const double t = o.target_ms > 0 ? o.target_ms : target[i];
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

    // Successive-frame jitter.
    if (n >= 2) {
        std::vector<double>& d = sorted;
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

    // Stutters (the library's rule, pacer::StutterCounter) and hitches.
    StutterCounter stutters(o.stutter_window, o.stutter_factor);
    for (std::size_t i = 0; i < n; ++i) {
        (void)stutters.add(ft[i]);
        if (i > 0 && ft[i] > 60.0 && ft[i] >= 1.5 * ft[i - 1]) ++a.hitches;
    }
    a.stutters = stutters.count();
    a.stutter_time_share = total > 0 ? stutters.time_ms() / total : 0.0;

    // Swappy-style histograms in refresh periods.
    a.refresh_ms = o.refresh_hz > 0 ? 1000.0 / o.refresh_hz
                   : a.has_target && a.target_ms > 0 ? a.target_ms
                                                      : 1000.0 / 60.0;
    a.interval_hist.fill(0);
    a.lateness_hist.fill(0);
    for (double v : ft) ++a.interval_hist[bucket(v, a.refresh_ms)];
    if (lateness.size() == n) {
        for (double v : lateness) {
            if (std::isnan(v)) continue;
            a.has_lateness = true;
            ++a.lateness_hist[bucket(v, a.refresh_ms)];
        }
    }

    // Frame-time histogram from min to p99.9 (longer frames land in the last bin).
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

Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, Analysis& a) {
    r.set_summary_only(true);
    a.file = r.name();
    a.format = to_string(r.format());
    std::vector<double> ft, target, lateness, times;
    bool any_target = false, any_lateness = false;
    FrameRecord f;
    while (r.next(f)) {
        ++a.rows;
        if (!o.application.empty() && f.application != o.application) {
            ++a.filtered_rows;
            continue;
        }
        if (std::isnan(f.frame_ms)) {
            ++a.na_rows;
            continue;
        }
        if (ft.size() >= o.max_frames)
            return Status::error(r.name() + ":" + std::to_string(f.line) + ": more than " +
                                 std::to_string(o.max_frames) + " frames; analyze a part of the capture");
        ft.push_back(f.frame_ms);
        if (o.keep_frames) times.push_back(f.time_s);
        // Only captures that have the columns pay for them (8 bytes a frame each).
        if (r.has_target()) target.push_back(f.target_ms);
        if (r.has_lateness()) lateness.push_back(f.lateness_ms);
        any_target = any_target || !std::isnan(f.target_ms);
        any_lateness = any_lateness || !std::isnan(f.lateness_ms);
        if (!std::isnan(f.missed)) {
            a.has_missed = true;
            if (f.missed > 0) ++a.missed;
        }
    }
    if (!r.error().ok()) return r.error();
    if (any_target) {
        // Frames without a target use the last known one (a capture starts with it).
        double last = std::nan("");
        for (double& t : target) {
            if (std::isnan(t)) t = last;
            else last = t;
        }
        last = std::nan("");
        for (auto it = target.rbegin(); it != target.rend(); ++it) {
            if (std::isnan(*it)) *it = last;
            else last = *it;
        }
    } else {
        target.clear();
    }
    if (!any_lateness) lateness.clear();
    if (ft.empty())
        return Status::error(r.name() + ": no frames" +
                             (a.filtered_rows ? " of application " + o.application : std::string()));
    compute(ft, target, lateness, o, a);
    if (o.keep_frames) {
        // Seconds since the first frame; a file without a time column (or with gaps in it) gets
        // the running sum of frame times.
        const double t0 = times.empty() ? 0.0 : times.front();
        double sum = 0;
        for (std::size_t i = 0; i < times.size(); ++i) {
            sum += i ? ft[i] / 1000.0 : 0.0;
            times[i] = std::isfinite(times[i]) && std::isfinite(t0) ? times[i] - t0 : sum;
        }
        a.frame_ms = std::move(ft);
        a.time_s = std::move(times);
    }
    return {};
}

Status analyze_file(const std::string& path, const AnalyzeOptions& o, Analysis& a) {
    CaptureReader r;
    if (Status st = r.open(path); !st) return st;
    return analyze_reader(r, o, a);
}

namespace {

std::string num(double v, int prec) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", prec, v);
    return b;
}

struct Line {
    const char* label;
    std::string (*get)(const Analysis&);
};

}  // namespace

std::string format_text(const std::vector<Analysis>& as) {
    static const Line kLines[] = {
        {"format", [](const Analysis& a) { return a.format; }},
        {"frames", [](const Analysis& a) { return std::to_string(a.frames); }},
        {"rows without frame time", [](const Analysis& a) { return std::to_string(a.na_rows); }},
        {"duration s", [](const Analysis& a) { return num(a.duration_s, 3); }},
        {"average FPS", [](const Analysis& a) { return num(a.avg_fps, 2); }},
        {"P1 FPS (1000/p99)", [](const Analysis& a) { return num(a.p1_fps, 2); }},
        {"P0.1 FPS (1000/p99.9)", [](const Analysis& a) { return num(a.p01_fps, 2); }},
        {"1% low FPS (average)", [](const Analysis& a) { return num(a.low1_avg_fps, 2); }},
        {"0.1% low FPS (average)", [](const Analysis& a) { return num(a.low01_avg_fps, 2); }},
        {"1% low FPS (integral)", [](const Analysis& a) { return num(a.low1_integral_fps, 2); }},
        {"0.1% low FPS (integral)", [](const Analysis& a) { return num(a.low01_integral_fps, 2); }},
        {"frame time mean ms", [](const Analysis& a) { return num(a.mean_ms, 3); }},
        {"frame time stddev ms", [](const Analysis& a) { return num(a.stddev_ms, 3); }},
        {"frame time min ms", [](const Analysis& a) { return num(a.min_ms, 3); }},
        {"frame time p50 ms", [](const Analysis& a) { return num(a.p50_ms, 3); }},
        {"frame time p90 ms", [](const Analysis& a) { return num(a.p90_ms, 3); }},
        {"frame time p95 ms", [](const Analysis& a) { return num(a.p95_ms, 3); }},
        {"frame time p99 ms", [](const Analysis& a) { return num(a.p99_ms, 3); }},
        {"frame time p99.9 ms", [](const Analysis& a) { return num(a.p999_ms, 3); }},
        {"frame time max ms", [](const Analysis& a) { return num(a.max_ms, 3); }},
        {"target ms", [](const Analysis& a) { return a.has_target ? num(a.target_ms, 3) : std::string("NA"); }},
        {"pacing error bias ms", [](const Analysis& a) { return a.has_target ? num(a.bias_ms, 3) : std::string("NA"); }},
        {"pacing error RMS ms", [](const Analysis& a) { return a.has_target ? num(a.rms_ms, 3) : std::string("NA"); }},
        {"pacing |error| p99 ms", [](const Analysis& a) { return a.has_target ? num(a.abs_err_p99_ms, 3) : std::string("NA"); }},
        {"within +/-0.5 ms %", [](const Analysis& a) { return a.has_target ? num(100 * a.within_05ms, 2) : std::string("NA"); }},
        {"jitter mean ms", [](const Analysis& a) { return num(a.jitter_mean_ms, 3); }},
        {"jitter p99 ms", [](const Analysis& a) { return num(a.jitter_p99_ms, 3); }},
        {"jitter max ms", [](const Analysis& a) { return num(a.jitter_max_ms, 3); }},
        {"stutters (>2.5x avg)", [](const Analysis& a) { return std::to_string(a.stutters); }},
        {"stutter time %", [](const Analysis& a) { return num(100 * a.stutter_time_share, 3); }},
        {"hitches (>60ms, >=1.5x prev)", [](const Analysis& a) { return std::to_string(a.hitches); }},
        {"missed frames", [](const Analysis& a) { return a.has_missed ? std::to_string(a.missed) : std::string("NA"); }},
    };
    std::string out;
    const std::size_t label_w = 30;
    std::vector<std::size_t> width;
    for (const Analysis& a : as) width.push_back(std::max<std::size_t>(12, std::min<std::size_t>(a.file.size(), 40)));
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
    for (const Line& l : kLines) {
        cells.clear();
        for (const Analysis& a : as) cells.push_back(l.get(a));
        row(l.label, cells);
    }
    for (int which = 0; which < 2; ++which) {
        bool any = false;
        for (const Analysis& a : as) any = any || which == 0 || a.has_lateness;
        if (!any) continue;
        for (std::size_t b = 0; b < 6; ++b) {
            cells.clear();
            for (const Analysis& a : as) {
                const auto& h = which == 0 ? a.interval_hist : a.lateness_hist;
                const bool has = which == 0 || a.has_lateness;
                cells.push_back(has && a.frames ? num(100.0 * static_cast<double>(h[b]) / static_cast<double>(a.frames), 2)
                                                : std::string("NA"));
            }
            row(std::string(which == 0 ? "frame time " : "lateness ") + (b == 5 ? ">= 5" : std::to_string(b)) +
                    " refresh %",
                cells);
        }
    }
    for (const Analysis& a : as) {
        out += "\nframe-time histogram of " + a.file + " (ms, refresh period " + num(a.refresh_ms, 3) + " ms)\n";
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
}  // namespace

std::string format_json(const std::vector<Analysis>& as) {
    std::string o = "[\n";
    for (std::size_t i = 0; i < as.size(); ++i) {
        const Analysis& a = as[i];
        const double nan = std::nan("");
        o += "  {\"file\": " + json_str(a.file) + ", \"format\": " + json_str(a.format) +
             ", \"rows\": " + std::to_string(a.rows) + ", \"frames\": " + std::to_string(a.frames) +
             ", \"na_rows\": " + std::to_string(a.na_rows) + ", \"duration_s\": " + jnum(a.duration_s) +
             ",\n   \"avg_fps\": " + jnum(a.avg_fps) + ", \"p1_fps\": " + jnum(a.p1_fps) +
             ", \"p01_fps\": " + jnum(a.p01_fps) + ", \"low1_avg_fps\": " + jnum(a.low1_avg_fps) +
             ", \"low01_avg_fps\": " + jnum(a.low01_avg_fps) + ", \"low1_integral_fps\": " + jnum(a.low1_integral_fps) +
             ", \"low01_integral_fps\": " + jnum(a.low01_integral_fps) +
             ",\n   \"frame_time_ms\": {\"mean\": " + jnum(a.mean_ms) + ", \"stddev\": " + jnum(a.stddev_ms) +
             ", \"min\": " + jnum(a.min_ms) + ", \"p50\": " + jnum(a.p50_ms) + ", \"p90\": " + jnum(a.p90_ms) +
             ", \"p95\": " + jnum(a.p95_ms) + ", \"p99\": " + jnum(a.p99_ms) + ", \"p99.9\": " + jnum(a.p999_ms) +
             ", \"max\": " + jnum(a.max_ms) + "}" +
             ",\n   \"pacing_error_ms\": {\"target\": " + jnum(a.has_target ? a.target_ms : nan) +
             ", \"bias\": " + jnum(a.has_target ? a.bias_ms : nan) + ", \"rms\": " + jnum(a.has_target ? a.rms_ms : nan) +
             ", \"abs_p99\": " + jnum(a.has_target ? a.abs_err_p99_ms : nan) +
             ", \"within_0.5ms_share\": " + jnum(a.has_target ? a.within_05ms : nan) + "}" +
             ",\n   \"jitter_ms\": {\"mean\": " + jnum(a.jitter_mean_ms) + ", \"p99\": " + jnum(a.jitter_p99_ms) +
             ", \"max\": " + jnum(a.jitter_max_ms) + "}, \"stutters\": " + std::to_string(a.stutters) +
             ", \"stutter_time_share\": " + jnum(a.stutter_time_share) + ", \"hitches\": " + std::to_string(a.hitches) +
             ", \"missed\": " + (a.has_missed ? std::to_string(a.missed) : std::string("null")) +
             ",\n   \"refresh_ms\": " + jnum(a.refresh_ms) + ", \"frame_time_refresh_histogram\": " + jarr(a.interval_hist) +
             ", \"lateness_refresh_histogram\": " + (a.has_lateness ? jarr(a.lateness_hist) : std::string("null")) +
             ",\n   \"histogram\": {\"lo_ms\": " + jnum(a.hist_lo_ms) + ", \"hi_ms\": " + jnum(a.hist_hi_ms) +
             ", \"counts\": " + jarr(a.histogram) + "}}" + (i + 1 < as.size() ? ",\n" : "\n");
    }
    return o + "]\n";
}

}  // namespace pacer::tools
