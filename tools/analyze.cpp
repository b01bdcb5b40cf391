#include "analyze.hpp"

#include <algorithm>
#include <charconv>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <unordered_map>

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

namespace {

bool ci_equal(std::string_view x, std::string_view y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(x[i])) != std::tolower(static_cast<unsigned char>(y[i]))) return false;
    return true;
}

// A swap chain address as a number: "0x0000021D5B1C2F40" (PresentMon 1.x) and "0x21D5B1C2F40"
// (2.x) are the same swap chain.
bool hex_value(std::string_view s, std::uint64_t& v) {
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    if (s.empty()) return false;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v, 16);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

// Equality of short texts (a process id, an exe name, a swap chain address) without a call to
// memcmp: up to 16 bytes as two overlapping 8-byte words.
inline bool same_text(std::string_view a, std::string_view b) noexcept {
    const std::size_t n = a.size();
    if (n != b.size()) return false;
    if (n >= 8 && n <= 16) {
        std::uint64_t x0, y0, x1, y1;
        std::memcpy(&x0, a.data(), 8);
        std::memcpy(&y0, b.data(), 8);
        std::memcpy(&x1, a.data() + n - 8, 8);
        std::memcpy(&y1, b.data() + n - 8, 8);
        return ((x0 ^ y0) | (x1 ^ y1)) == 0;
    }
    if (n < 8) {
        for (std::size_t i = 0; i < n; ++i)
            if (a[i] != b[i]) return false;
        return true;
    }
    return std::memcmp(a.data(), b.data(), n) == 0;
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
    std::vector<double> ft, target, lateness, times;
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
        g.ft.push_back(f.frame_ms);
        if (o.keep_frames) g.times.push_back(f.time_s);
        // Only captures that have the columns pay for them (8 bytes a frame each).
        if (r.has_target()) g.target.push_back(f.target_ms);
        if (r.has_lateness()) g.lateness.push_back(f.lateness_ms);
        g.any_target = g.any_target || !std::isnan(f.target_ms);
        g.any_lateness = g.any_lateness || !std::isnan(f.lateness_ms);
        if (!std::isnan(f.missed)) {
            g.has_missed = true;
            if (f.missed > 0) ++g.missed;
        }
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

void analyze_group(Group& g, const CaptureReader& r, const AnalyzeOptions& o, std::uint64_t rows, Analysis& a) {
    a.file = r.name();
    a.format = to_string(r.format());
    a.application = g.info.application;
    a.swapchain = g.info.swapchain;
    a.process_id = g.info.process_id;
    a.sampled = r.sampled();
    a.rows = g.info.rows;
    a.na_rows = g.na_rows;
    a.filtered_rows = rows - g.info.rows;
    std::vector<double>& target = g.target;
    if (g.any_target) {
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
    if (!g.any_lateness) g.lateness.clear();
    compute(g.ft, target, g.lateness, o, a);
    a.has_missed = g.has_missed;
    a.missed = g.missed;
    if (o.keep_frames) {
        // Seconds since the first frame; a file without a time column (or with gaps in it) gets
        // the running sum of frame times.
        std::vector<double>& times = g.times;
        const double t0 = times.empty() ? 0.0 : times.front();
        double sum = 0;
        for (std::size_t i = 0; i < times.size(); ++i) {
            sum += i ? g.ft[i] / 1000.0 : 0.0;
            times[i] = std::isfinite(times[i]) && std::isfinite(t0) ? times[i] - t0 : sum;
        }
        a.frame_ms = std::move(g.ft);
        a.time_s = std::move(times);
    }
    g.ft = {};
    g.target = {};
    g.lateness = {};
    g.times = {};
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

struct Line {
    const char* label;
    std::string (*get)(const Analysis&);
};

}  // namespace

std::string format_text(const std::vector<Analysis>& as) {
    static const Line kLines[] = {
        {"format", [](const Analysis& a) { return a.format; }},
        {"application", [](const Analysis& a) { return a.application.empty() ? std::string("NA") : a.application; }},
        {"process id", [](const Analysis& a) { return a.process_id >= 0 ? std::to_string(a.process_id) : std::string("NA"); }},
        {"swap chain", [](const Analysis& a) { return a.swapchain.empty() ? std::string("NA") : a.swapchain; }},
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
