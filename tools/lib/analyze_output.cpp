// tools/lib/analyze_output.cpp - the tables `pacer analyze` prints: the columns and series a file
// holds, the summary as text and as JSON.
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
#include "format.hpp"

namespace pacer::tools {

using namespace detail;

namespace {

// "CPUStartTime, TimeInMs (ms)": a column's aliases as the table writes them ("Name:ms").
std::string aliases_text(std::string_view aliases) {
    std::string out;
    while (!aliases.empty()) {
        const std::size_t bar = aliases.find('|');
        std::string_view one = aliases.substr(0, bar);
        aliases = bar == std::string_view::npos ? std::string_view() : aliases.substr(bar + 1);
        const std::size_t colon = one.find(':');
        if (!out.empty()) out += ", ";
        out += std::string(one.substr(0, colon));
        if (colon != std::string_view::npos) out += " (" + std::string(one.substr(colon + 1)) + ")";
    }
    return out;
}

}  // namespace

std::string format_columns() {
    std::string out = "column                     unit           origin      also read as\n";
    char b[256];
    for (const pacer::CaptureColumn& c : pacer::kCaptureColumns) {
        std::snprintf(b, sizeof b, "%-26s %-14s %-11s ", c.name, pacer::to_string(c.unit), pacer::to_string(c.origin));
        out += b + aliases_text(c.aliases);
        while (out.back() == ' ') out.pop_back();
        out += '\n';
    }
    return out;
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

// ---- text --------------------------------------------------------------------------------------

namespace {


using A = const Analysis&;

// One row of the text table: which analyses have it (the row is printed when any has), and the cell.
struct Line {
    const char* label;
    bool (*has)(A);
    std::string (*get)(A);
};

bool always(A) { return true; }
bool per_frame(A a) { return !a.sampled; }
bool sampled(A a) { return a.sampled; }
bool displayed(A a) { return !a.sampled && a.has_displayed; }
bool display_times(A a) { return !a.sampled && a.has_display_times; }
bool cpu_busy(A a) { return !a.sampled && a.has_cpu_busy; }
bool gpu_busy(A a) { return !a.sampled && a.has_gpu_busy; }
bool both_busy(A a) { return !a.sampled && a.busy_frames > 0; }
bool pc_latency(A a) { return !a.sampled && a.has_pc_latency; }
bool input_latency(A a) { return !a.sampled && a.has_input_latency; }
bool lateness(A a) { return !a.sampled && a.has_lateness; }
std::string target_or_na(A a, double v, int prec) { return a.has_target ? fixed(v, prec) : std::string("NA"); }

const Line kLines[] = {
    {"format", always, [](A a) { return a.format; }},
    {"application", always, [](A a) { return a.application.empty() ? std::string("NA") : a.application; }},
    {"process id", always, [](A a) { return a.process_id >= 0 ? std::to_string(a.process_id) : std::string("NA"); }},
    {"swap chain", always, [](A a) { return a.swapchain.empty() ? std::string("NA") : a.swapchain; }},
    {"frame time column", always, [](A a) { return a.frame_column.empty() ? std::string("?") : a.frame_column; }},
    {"definitions", per_frame, [](A a) { return std::string(to_string(a.definitions)); }},
    {"samples (sampled log)", sampled, [](A a) { return std::to_string(a.frames); }},
    {"frames", per_frame, [](A a) { return std::to_string(a.frames); }},
    {"rows without frame time", always, [](A a) { return std::to_string(a.na_rows); }},
    {"duration s", always, [](A a) { return fixed(a.duration_s, 3); }},
    {"average FPS", always, [](A a) { return fixed(a.avg_fps, 2); }},
    {"sampled FPS min", sampled, [](A a) { return fixed(a.sampled_fps_min, 2); }},
    {"sampled FPS max", sampled, [](A a) { return fixed(a.sampled_fps_max, 2); }},
    {"P1 FPS", per_frame, [](A a) { return fixed(a.p1_fps, 2); }},
    {"P0.1 FPS", per_frame, [](A a) { return fixed(a.p01_fps, 2); }},
    {"1% low FPS (average)", per_frame, [](A a) { return fixed(a.low1_avg_fps, 2); }},
    {"0.1% low FPS (average)", per_frame, [](A a) { return fixed(a.low01_avg_fps, 2); }},
    {"1% low FPS (integral)", per_frame, [](A a) { return fixed(a.low1_integral_fps, 2); }},
    {"0.1% low FPS (integral)", per_frame, [](A a) { return fixed(a.low01_integral_fps, 2); }},
    {"frame time mean ms", per_frame, [](A a) { return fixed(a.mean_ms, 3); }},
    {"frame time stddev ms", per_frame, [](A a) { return fixed(a.stddev_ms, 3); }},
    {"frame time min ms", per_frame, [](A a) { return fixed(a.min_ms, 3); }},
    {"frame time p50 ms", per_frame, [](A a) { return fixed(a.p50_ms, 3); }},
    {"frame time p90 ms", per_frame, [](A a) { return fixed(a.p90_ms, 3); }},
    {"frame time p95 ms", per_frame, [](A a) { return fixed(a.p95_ms, 3); }},
    {"frame time p99 ms", per_frame, [](A a) { return fixed(a.p99_ms, 3); }},
    {"frame time p99.9 ms", per_frame, [](A a) { return fixed(a.p999_ms, 3); }},
    {"frame time max ms", per_frame, [](A a) { return fixed(a.max_ms, 3); }},
    {"target ms", per_frame, [](A a) { return target_or_na(a, a.target_ms, 3); }},
    {"pacing error bias ms", per_frame, [](A a) { return target_or_na(a, a.bias_ms, 3); }},
    {"pacing error RMS ms", per_frame, [](A a) { return target_or_na(a, a.rms_ms, 3); }},
    {"pacing |error| p99 ms", per_frame, [](A a) { return target_or_na(a, a.abs_err_p99_ms, 3); }},
    {"within +/-0.5 ms %", per_frame, [](A a) { return target_or_na(a, 100 * a.within_05ms, 2); }},
    {"interval_error p99 us", per_frame, [](A a) { return target_or_na(a, 1000 * a.abs_err_p99_ms, 1); }},
    {"off_100us_share %", per_frame, [](A a) { return target_or_na(a, 100 * a.off_100us_share, 2); }},
    {"jitter mean ms", per_frame, [](A a) { return fixed(a.jitter_mean_ms, 3); }},
    {"jitter p99 ms", per_frame, [](A a) { return fixed(a.jitter_p99_ms, 3); }},
    {"jitter max ms", per_frame, [](A a) { return fixed(a.jitter_max_ms, 3); }},
    {"stutters (>2.5x avg)", per_frame, [](A a) { return std::to_string(a.stutters); }},
    {"stutter time %", per_frame, [](A a) { return fixed(100 * a.stutter_time_share, 3); }},
    {"hitches (>60ms, >=1.5x prev)", per_frame, [](A a) { return std::to_string(a.hitches); }},
    {"missed frames", per_frame, [](A a) { return a.has_missed ? std::to_string(a.missed) : std::string("NA"); }},
    {"dropped frames %", displayed, [](A a) { return fixed(100 * a.dropped_share, 2); }},
    {"displayed FPS", displayed, [](A a) { return fixed(a.displayed_fps, 2); }},
    {"displayed time p50 ms", display_times, [](A a) { return fixed(a.display_p50_ms, 3); }},
    {"displayed time p90 ms", display_times, [](A a) { return fixed(a.display_p90_ms, 3); }},
    {"displayed time p99 ms", display_times, [](A a) { return fixed(a.display_p99_ms, 3); }},
    {"displayed time p99.9 ms", display_times, [](A a) { return fixed(a.display_p999_ms, 3); }},
    {"CPU busy p50 ms", cpu_busy, [](A a) { return fixed(a.cpu_busy_p50_ms, 3); }},
    {"GPU busy p50 ms", gpu_busy, [](A a) { return fixed(a.gpu_busy_p50_ms, 3); }},
    {"GPU busy >= CPU busy % frames", both_busy, [](A a) { return fixed(100 * a.gpu_bound_share, 2); }},
    {"PC latency p50 ms", pc_latency, [](A a) { return fixed(a.pc_latency_p50_ms, 3); }},
    {"PC latency p99 ms", pc_latency, [](A a) { return fixed(a.pc_latency_p99_ms, 3); }},
    {"input to photon p50 ms", input_latency, [](A a) { return fixed(a.input_latency_p50_ms, 3); }},
    {"input to photon p99 ms", input_latency, [](A a) { return fixed(a.input_latency_p99_ms, 3); }},
    {"refresh period ms", per_frame, [](A a) { return fixed(a.refresh_ms, 3); }},
    {"refresh period from", per_frame, [](A a) { return std::string(a.refresh_source); }},
};

// Swappy's histograms: the share of frames whose frame time (lateness) lasts N refresh periods.
// Frame times in bins centred on whole periods, lateness in whole periods late.
struct HistogramLine {
    const char* label;
    bool (*has)(A);
    std::array<std::uint64_t, 6> Analysis::*counts;
    std::size_t bin;
};

const HistogramLine kHistogramLines[] = {
    {"% frames lasting < 0.5 refreshes", per_frame, &Analysis::interval_hist, 0},
    {"% frames lasting 1 refresh [0.5,1.5)", per_frame, &Analysis::interval_hist, 1},
    {"% frames lasting 2 refreshes [1.5,2.5)", per_frame, &Analysis::interval_hist, 2},
    {"% frames lasting 3 refreshes [2.5,3.5)", per_frame, &Analysis::interval_hist, 3},
    {"% frames lasting 4 refreshes [3.5,4.5)", per_frame, &Analysis::interval_hist, 4},
    {"% frames lasting >= 4.5 refreshes", per_frame, &Analysis::interval_hist, 5},
    {"% frames late by [0,1) refresh periods", lateness, &Analysis::lateness_hist, 0},
    {"% frames late by [1,2) refresh periods", lateness, &Analysis::lateness_hist, 1},
    {"% frames late by [2,3) refresh periods", lateness, &Analysis::lateness_hist, 2},
    {"% frames late by [3,4) refresh periods", lateness, &Analysis::lateness_hist, 3},
    {"% frames late by [4,5) refresh periods", lateness, &Analysis::lateness_hist, 4},
    {"% frames late by >= 5 refresh periods", lateness, &Analysis::lateness_hist, 5},
};

// A label column and one right-aligned column per analysis, headed by its file name.
class TextTable {
public:
    explicit TextTable(const std::vector<Analysis>& as) : as_(as) {
        std::vector<std::string> names;
        for (const Analysis& a : as) {
            width_.push_back(std::max<std::size_t>(17, std::min<std::size_t>(a.file.size(), 40)));
            names.push_back(a.file.size() > 40 ? "..." + a.file.substr(a.file.size() - 37) : a.file);
        }
        row("", names);
    }
    // The row, when any analysis has it. "NA": the file has no such data; "-": not meaningful
    // for a sampled log.
    template <class Cell>
    void row_if(const char* label, bool (*has)(A), Cell cell) {
        if (std::none_of(as_.begin(), as_.end(), has)) return;
        std::vector<std::string> cells;
        for (const Analysis& a : as_) cells.push_back(has(a) ? cell(a) : std::string(a.sampled ? "-" : "NA"));
        row(label, cells);
    }
    std::string text() && { return std::move(out_); }

private:
    void row(const std::string& label, const std::vector<std::string>& cells) {
        out_ += label;
        if (label.size() < kLabelWidth) out_.append(kLabelWidth - label.size(), ' ');
        for (std::size_t i = 0; i < cells.size(); ++i) {
            out_ += "  ";
            if (cells[i].size() < width_[i]) out_.append(width_[i] - cells[i].size(), ' ');
            out_ += cells[i];
        }
        out_ += '\n';
    }
    static constexpr std::size_t kLabelWidth = 40;
    const std::vector<Analysis>& as_;
    std::vector<std::size_t> width_;
    std::string out_;
};

// A frame-time histogram as bars of '#', the longest 50 wide.
std::string text_histogram(A a) {
    std::string out = "\nframe-time histogram of " + a.file + " (ms)\n";
    std::uint64_t peak = 1;
    for (auto c : a.histogram) peak = std::max(peak, c);
    const double step = (a.hist_hi_ms - a.hist_lo_ms) / static_cast<double>(a.histogram.size());
    for (std::size_t b = 0; b < a.histogram.size(); ++b) {
        const double lo = a.hist_lo_ms + step * static_cast<double>(b);
        const bool last = b + 1 == a.histogram.size();
        char head[64];
        std::snprintf(head, sizeof head, "%9.3f %s %-9s", lo, last ? "+ " : "- ", last ? "" : fixed(lo + step, 3).c_str());
        const auto len = static_cast<std::size_t>(
            std::llround(50.0 * static_cast<double>(a.histogram[b]) / static_cast<double>(peak)));
        out += std::string(head) + " |" + std::string(len, '#') + " " + std::to_string(a.histogram[b]) + "\n";
    }
    return out;
}

}  // namespace

std::string format_text(const std::vector<Analysis>& as) {
    TextTable table(as);
    for (const Line& l : kLines) table.row_if(l.label, l.has, l.get);
    for (const HistogramLine& h : kHistogramLines)
        table.row_if(h.label, h.has, [&h](A a) {
            const std::uint64_t count = (a.*h.counts)[h.bin];
            return a.frames ? fixed(100.0 * static_cast<double>(count) / static_cast<double>(a.frames), 2) : std::string("NA");
        });
    std::string out = std::move(table).text();
    for (const Analysis& a : as) {
        if (!a.sampled) continue;
        out += "\n" + a.file + ": sampled: " + std::to_string(a.frames) + " samples over " + fixed(a.duration_s, 1) +
               " s (one row per log interval, each an average of many frames): only the average FPS and the"
               " sampled FPS range are shown\n";
    }
    for (const Analysis& a : as)
        if (!a.sampled) out += text_histogram(a);
    return out;
}

// ---- JSON --------------------------------------------------------------------------------------

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


template <class C>
std::string jarr(const C& c) {
    std::string o = "[";
    for (std::size_t i = 0; i < c.size(); ++i) o += (i ? "," : "") + std::to_string(c[i]);
    return o + "]";
}

// A sampled log has no frame-level figures: null.
std::string jframe(A a, double v) { return a.sampled ? std::string("null") : json_shortest(v); }
std::string jframe(A a, std::uint64_t v) { return a.sampled ? std::string("null") : std::to_string(v); }
std::string jnull_or(bool cond, const std::string& v) { return cond ? v : std::string("null"); }

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

// Which series, and its counts and rates.
std::string json_head(A a) {
    return "  {\"file\": " + json_str(a.file) + ", \"format\": " + json_str(a.format) +
           ", \"application\": " + json_str(a.application) +
           ", \"process_id\": " + (a.process_id >= 0 ? std::to_string(a.process_id) : std::string("null")) +
           ", \"swapchain\": " + (a.swapchain.empty() ? std::string("null") : json_str(a.swapchain)) +
           ",\n   \"frame_column\": " + json_str(a.frame_column) + ", \"definitions\": " + json_str(to_string(a.definitions)) +
           ", \"sampled\": " + (a.sampled ? "true" : "false") + ",\n   \"rows\": " + std::to_string(a.rows) +
           ", \"frames\": " + jframe(a, a.frames) +
           ", \"samples\": " + (a.sampled ? std::to_string(a.frames) : std::string("null")) +
           ", \"na_rows\": " + std::to_string(a.na_rows) + ", \"duration_s\": " + json_shortest(a.duration_s) +
           ",\n   \"avg_fps\": " + json_shortest(a.avg_fps) + ", \"sampled_fps\": " +
           jnull_or(a.sampled, "{\"min\": " + json_shortest(a.sampled_fps_min) + ", \"max\": " + json_shortest(a.sampled_fps_max) + "}") +
           ", \"p1_fps\": " + jframe(a, a.p1_fps) + ", \"p01_fps\": " + jframe(a, a.p01_fps) +
           ", \"low1_avg_fps\": " + jframe(a, a.low1_avg_fps) + ", \"low01_avg_fps\": " + jframe(a, a.low01_avg_fps) +
           ", \"low1_integral_fps\": " + jframe(a, a.low1_integral_fps) +
           ", \"low01_integral_fps\": " + jframe(a, a.low01_integral_fps);
}

// Frame times, pacing error, jitter, stutters.
std::string json_frame_times(A a) {
    return ",\n   \"frame_time_ms\": " +
           jnull_or(!a.sampled, "{\"mean\": " + json_shortest(a.mean_ms) + ", \"stddev\": " + json_shortest(a.stddev_ms) +
                                    ", \"min\": " + json_shortest(a.min_ms) + ", \"p50\": " + json_shortest(a.p50_ms) +
                                    ", \"p90\": " + json_shortest(a.p90_ms) + ", \"p95\": " + json_shortest(a.p95_ms) +
                                    ", \"p99\": " + json_shortest(a.p99_ms) + ", \"p99.9\": " + json_shortest(a.p999_ms) +
                                    ", \"max\": " + json_shortest(a.max_ms) + "}") +
           ",\n   \"pacing_error_ms\": " +
           jnull_or(!a.sampled && a.has_target,
                    "{\"target\": " + json_shortest(a.target_ms) + ", \"bias\": " + json_shortest(a.bias_ms) + ", \"rms\": " +
                        json_shortest(a.rms_ms) + ", \"abs_p99\": " + json_shortest(a.abs_err_p99_ms) +
                        ", \"within_0.5ms_share\": " + json_shortest(a.within_05ms) + "}") +
           ",\n   \"interval_error_p99_us\": " + jnull_or(!a.sampled && a.has_target, json_shortest(1000 * a.abs_err_p99_ms)) +
           ", \"off_100us_share\": " + jnull_or(!a.sampled && a.has_target, json_shortest(a.off_100us_share)) +
           ",\n   \"jitter_ms\": " +
           jnull_or(!a.sampled, "{\"mean\": " + json_shortest(a.jitter_mean_ms) + ", \"p99\": " + json_shortest(a.jitter_p99_ms) +
                                    ", \"max\": " + json_shortest(a.jitter_max_ms) + "}") +
           ", \"stutters\": " + jframe(a, a.stutters) + ", \"stutter_time_share\": " + jframe(a, a.stutter_time_share) +
           ", \"hitches\": " + jframe(a, a.hitches) +
           ", \"missed\": " + (a.has_missed && !a.sampled ? std::to_string(a.missed) : std::string("null"));
}

// Displayed frames, CPU / GPU busy, latency.
std::string json_display_busy_latency(A a) {
    const double nan = std::nan("");
    const std::string display_ms =
        jnull_or(a.has_display_times, "{\"p50\": " + json_shortest(a.display_p50_ms) + ", \"p90\": " + json_shortest(a.display_p90_ms) +
                                          ", \"p99\": " + json_shortest(a.display_p99_ms) + ", \"p99.9\": " + json_shortest(a.display_p999_ms) + "}");
    return ",\n   \"displayed\": " +
           jnull_or(a.has_displayed && !a.sampled,
                    "{\"displayed\": " + std::to_string(a.displayed) + ", \"dropped\": " + std::to_string(a.dropped) +
                        ", \"dropped_share\": " + json_shortest(a.dropped_share) + ", \"displayed_fps\": " + json_shortest(a.displayed_fps) +
                        ", \"display_ms\": " + display_ms + "}") +
           ", \"busy_ms\": " +
           jnull_or((a.has_cpu_busy || a.has_gpu_busy) && !a.sampled,
                    "{\"cpu_p50\": " + json_shortest(a.has_cpu_busy ? a.cpu_busy_p50_ms : nan) +
                        ", \"gpu_p50\": " + json_shortest(a.has_gpu_busy ? a.gpu_busy_p50_ms : nan) +
                        ", \"frames_with_both\": " + std::to_string(a.busy_frames) +
                        ", \"gpu_ge_cpu_share\": " + json_shortest(a.busy_frames ? a.gpu_bound_share : nan) + "}") +
           ",\n   \"latency_ms\": " +
           jnull_or((a.has_pc_latency || a.has_input_latency) && !a.sampled,
                    "{\"pc_p50\": " + json_shortest(a.has_pc_latency ? a.pc_latency_p50_ms : nan) +
                        ", \"pc_p99\": " + json_shortest(a.has_pc_latency ? a.pc_latency_p99_ms : nan) +
                        ", \"input_to_photon_p50\": " + json_shortest(a.has_input_latency ? a.input_latency_p50_ms : nan) +
                        ", \"input_to_photon_p99\": " + json_shortest(a.has_input_latency ? a.input_latency_p99_ms : nan) + "}");
}

// frame_time_refresh_histogram's bins, [lo, hi) in refresh periods: centred on whole periods.
constexpr const char* kRefreshBinsJson = "[[0, 0.5], [0.5, 1.5], [1.5, 2.5], [2.5, 3.5], [3.5, 4.5], [4.5, null]]";

std::string json_histograms(A a) {
    return ",\n   \"refresh_ms\": " + jframe(a, a.refresh_ms) +
           ", \"refresh_source\": " + (a.sampled ? std::string("null") : json_str(a.refresh_source)) +
           ", \"frame_time_refresh_histogram\": " + (a.sampled ? std::string("null") : jarr(a.interval_hist)) +
           ", \"frame_time_refresh_bins\": " + (a.sampled ? std::string("null") : std::string(kRefreshBinsJson)) +
           ", \"lateness_refresh_histogram\": " + (a.has_lateness && !a.sampled ? jarr(a.lateness_hist) : std::string("null")) +
           ",\n   \"histogram\": " +
           jnull_or(!a.sampled, "{\"lo_ms\": " + json_shortest(a.hist_lo_ms) + ", \"hi_ms\": " + json_shortest(a.hist_hi_ms) +
                                    ", \"counts\": " + jarr(a.histogram) + "}");
}

// The per-frame series Analysis keeps with AnalyzeOptions::keep_frames.
void append_frames(std::string& o, A a) {
    o += ",\n   \"frames\": {";
    bool first = true;
    std::size_t bytes = 0;
    for (const auto* v : {&a.time_s, &a.frame_ms, &a.display_ms, &a.dropped_flags, &a.cpu_busy_ms, &a.gpu_busy_ms,
                          &a.pc_latency_ms, &a.input_to_photon_ms})
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

}  // namespace

std::string format_json(const std::vector<Analysis>& as, bool frames) {
    std::string o = "[\n";
    for (std::size_t i = 0; i < as.size(); ++i) {
        const Analysis& a = as[i];
        o += json_head(a) + json_frame_times(a) + json_display_busy_latency(a) + json_histograms(a);
        if (frames) append_frames(o, a);
        o += i + 1 < as.size() ? "},\n" : "}\n";
    }
    o += "]\n";
    return o;
}

}  // namespace pacer::tools
