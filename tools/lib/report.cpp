#include "report.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "format.hpp"
#include "pacer/stats.hpp"

namespace pacer::tools {

Series reduce_m4(const std::vector<double>& x, const std::vector<double>& y, double x0, double x1,
                 int columns) {
    Series out;
    const std::size_t n = std::min(x.size(), y.size());
    if (n == 0) return out;
    columns = std::max(columns, 1);
    const double scale = x1 > x0 ? columns / (x1 - x0) : 0.0;
    // Per column the indices of its first, lowest, highest and last point. Kept per column rather
    // than streamed, so that times that step back (rows of a log out of order) cannot make the
    // result grow past 4 points a column.
    constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    struct Col {
        std::size_t first = kNone, lo = 0, hi = 0, last = 0;
    };
    std::vector<Col> cols(static_cast<std::size_t>(columns));
    for (std::size_t i = 0; i < n; ++i) {
        const double c = std::floor((x[i] - x0) * scale);
        Col& k = cols[c <= 0 || std::isnan(c) ? 0 : c >= columns ? static_cast<std::size_t>(columns - 1) : static_cast<std::size_t>(c)];
        if (k.first == kNone) {
            k.first = k.lo = k.hi = k.last = i;
            continue;
        }
        if (y[i] < y[k.lo]) k.lo = i;
        if (y[i] > y[k.hi]) k.hi = i;
        k.last = i;
    }
    for (const Col& k : cols) {
        if (k.first == kNone) continue;
        std::size_t idx[4] = {k.first, k.lo, k.hi, k.last};
        std::sort(idx, idx + 4);
        for (int j = 0; j < 4; ++j) {
            if (j > 0 && idx[j] == idx[j - 1]) continue;
            out.x.push_back(x[idx[j]]);
            out.y.push_back(y[idx[j]]);
        }
    }
    return out;
}

Series moving_fps(const std::vector<double>& time_s, const std::vector<double>& frame_ms, double window_s) {
    Series out;
    const std::size_t n = std::min(time_s.size(), frame_ms.size());
    if (n == 0 || !(window_s > 0)) return out;
    std::size_t begin = 0;  // first frame inside the window of frame i
    double sum = 0;         // frame times of [begin, i]
    for (std::size_t i = 0; i < n; ++i) {
        sum += frame_ms[i];
        while (begin < i && time_s[begin] <= time_s[i] - window_s) sum -= frame_ms[begin++];
        if (time_s[i] - time_s[0] < window_s) continue;
        // Summing and subtracting in turn can leave a rounding residue; an empty-looking window
        // is left out rather than drawn as an absurd rate.
        if (sum > 1e-9) {
            out.x.push_back(time_s[i]);
            out.y.push_back(1000.0 * static_cast<double>(i - begin + 1) / sum);
        }
    }
    return out;
}

std::string html_escape(std::string_view text) {
    std::string o;
    o.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '&': o += "&amp;"; break;
            case '<': o += "&lt;"; break;
            case '>': o += "&gt;"; break;
            case '"': o += "&quot;"; break;
            case '\'': o += "&#39;"; break;
            default:
                if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f) o += "\xEF\xBF\xBD";
                else o += ch;
        }
    }
    return o;
}

Status write_file_atomically(const std::string& path, std::string_view data) {
    const std::string tmp = path + ".tmp";
    auto fail = [&](const std::string& why) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        return Status::error("cannot write " + path + ": " + why);
    };
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) return Status::error("cannot write " + path + ": " + std::strerror(errno));
    const bool wrote = std::fwrite(data.data(), 1, data.size(), f) == data.size() && std::fflush(f) == 0;
    const int write_errno = errno;
    if (std::fclose(f) != 0 || !wrote) return fail(std::strerror(wrote ? errno : write_errno));
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) return fail(ec.message());
    return {};
}

namespace {

// ---- text --------------------------------------------------------------------------------------

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void appendf(std::string& out, const char* fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) out.append(buf, std::min(static_cast<std::size_t>(n), sizeof buf - 1));
}


// A tick label: as few decimals as the step needs.
std::string tick_label(double v, double step) {
    const int prec = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
    return fixed(std::fabs(v) < step * 1e-6 ? 0.0 : v, std::clamp(prec, 0, 6));
}

// 1, 2 or 5 x 10^k, about range / count.
double nice_step(double range, int count) {
    if (!(range > 0)) return 1;
    const double raw = range / count;
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

double nice_ceil(double v, int count) {
    const double step = nice_step(v, count);
    return std::max(step, std::ceil(v / step - 1e-9) * step);
}

// The directory part every file name shares ("" if none): left out of the labels, so that
// /home/me/runs/a.csv and /home/me/runs/b.csv show as a.csv and b.csv, and runs/1/x.csv and
// runs/2/x.csv as 1/x.csv and 2/x.csv.
std::size_t common_dir_length(const std::vector<Analysis>& as) {
    if (as.empty()) return 0;
    std::size_t n = as[0].file.size();
    for (const Analysis& a : as) {
        std::size_t k = 0;
        while (k < n && k < a.file.size() && a.file[k] == as[0].file[k]) ++k;
        n = k;
    }
    while (n > 0 && as[0].file[n - 1] != '/' && as[0].file[n - 1] != '\\') --n;
    return n;
}

std::string seconds(double s) { return fixed(s, s < 0.1 ? 3 : s < 1 ? 2 : 1); }

std::string series_label(const Analysis& a, std::size_t strip) {
    std::string s = a.file.substr(std::min(strip, a.file.size()));
    if (!a.application.empty()) s += " \xE2\x80\x94 " + a.application;
    if (a.process_id >= 0) s += " (PID " + std::to_string(a.process_id) + ")";
    if (!a.swapchain.empty()) s += " swap chain " + a.swapchain;
    return s;
}

// Okabe-Ito colours (told apart with the common colour-vision deficiencies), then darker ones.
constexpr const char* kColours[] = {"#0072b2", "#d55e00", "#009e73", "#cc79a7",
                                    "#e69f00", "#56b4e9", "#7a5195", "#555555"};
constexpr std::size_t kNumColours = sizeof kColours / sizeof kColours[0];
const char* colour(std::size_t i) { return kColours[i % kNumColours]; }
// Beyond the palette the lines repeat the colours dashed.
std::string dash(std::size_t i) {
    return i < kNumColours ? std::string() : std::string(" stroke-dasharray=\"6 3\"");
}

// ---- plot frame --------------------------------------------------------------------------------

constexpr double kPageWidth = 1360;  // SVG user units; the page scales them to the window

struct Plot {
    double left, top, width, height;  // plot area in the SVG
    double x0, x1, y0, y1;            // data range
    double px(double x) const { return left + (x - x0) / (x1 - x0) * width; }
    double py(double y) const {
        const double v = std::clamp(y, y0, y1);
        return top + height - (v - y0) / (y1 - y0) * height;
    }
};

struct Tick {
    double at;
    std::string label;
};

std::vector<Tick> linear_ticks(double lo, double hi, int count) {
    std::vector<Tick> t;
    const double step = nice_step(hi - lo, count);
    for (double v = std::ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) t.push_back({v, tick_label(v, step)});
    return t;
}

// Grid, ticks, labels and the frame of a plot.
void draw_axes(std::string& o, const Plot& p, const std::vector<Tick>& xt, const std::vector<Tick>& yt,
               const std::string& xlabel, const std::string& ylabel) {
    o += "<g class=\"grid\">";
    for (const Tick& t : yt)
        appendf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" />", p.left, p.py(t.at), p.left + p.width, p.py(t.at));
    for (const Tick& t : xt)
        appendf(o, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" />", p.px(t.at), p.top, p.px(t.at), p.top + p.height);
    o += "</g><g class=\"ticks\">";
    for (const Tick& t : yt)
        appendf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", p.left - 6, p.py(t.at) + 4, t.label.c_str());
    // x labels: one that would touch the previous is left out; the last may end at the right edge.
    double prev_end = -1e9;
    for (const Tick& t : xt) {
        const double x = p.px(t.at), half = 3.5 * static_cast<double>(t.label.size());
        const bool at_end = x + half > p.left + p.width + 8;
        const double begin = at_end ? x - 2 * half : x - half;
        if (begin < prev_end + 8) continue;
        prev_end = at_end ? x : x + half;
        appendf(o, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">%s</text>", x, p.top + p.height + 16,
                at_end ? "end" : "middle", html_escape(t.label).c_str());
    }
    o += "</g>";
    appendf(o, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" />", p.left, p.top, p.width, p.height);
    appendf(o, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", p.left + p.width / 2,
            p.top + p.height + 36, html_escape(xlabel).c_str());
    appendf(o, "<text class=\"label\" transform=\"translate(%.1f %.1f) rotate(-90)\" text-anchor=\"middle\">%s</text>",
            p.left - 46, p.top + p.height / 2, html_escape(ylabel).c_str());
}

void polyline(std::string& o, const Plot& p, const Series& s, std::size_t i, double width) {
    if (s.x.empty()) return;
    appendf(o, "<polyline class=\"series\" stroke=\"%s\" stroke-width=\"%.1f\"%s points=\"", colour(i), width, dash(i).c_str());
    for (std::size_t k = 0; k < s.x.size(); ++k) appendf(o, "%s%.1f,%.1f", k ? " " : "", p.px(s.x[k]), p.py(s.y[k]));
    o += "\" />\n";
}

// ---- per-series data ---------------------------------------------------------------------------

struct Mark {
    double t, ms;
    bool hitch;
};

struct Prepared {
    std::string label;
    std::vector<Mark> marks;     // stutters and hitches, at most one per pixel column
    pacer::Span<const double> sorted;  // frame times, ascending: the Analysis' own, or owned_sorted
    std::vector<double> owned_sorted;  // an Analysis made without keep_frames: sorted here
    double body_p999 = 0;        // p99.9 of the frames that are neither stutters nor hitches
};

// Stutters (pacer::StutterCounter, as `pacer analyze` counts them) and hitches (Unreal: > 60 ms and
// >= 1.5 x the previous frame); per pixel column only the longest is kept. Also the p99.9 of the
// other frames: what the frame-time axes must show in full.
void find_marks(const Analysis& a, const ReportOptions& o, double t0, double t1, int columns, Prepared& p) {
    std::vector<Mark> per_col(static_cast<std::size_t>(columns), Mark{0, -1, false});
    std::vector<double> body;
    body.reserve(a.frame_ms.size());
    StutterCounter sc(o.stutter_window, o.stutter_factor);
    const std::vector<double>& ft = a.frame_ms;
    const double scale = t1 > t0 ? columns / (t1 - t0) : 0.0;
    for (std::size_t i = 0; i < ft.size(); ++i) {
        const bool stutter = sc.add(ft[i]);
        const bool hitch = i > 0 && ft[i] > 60.0 && ft[i] >= 1.5 * ft[i - 1];
        if (!stutter && !hitch) {
            body.push_back(ft[i]);
            continue;
        }
        const double t = i < a.time_s.size() ? a.time_s[i] : 0.0;
        const int c = std::clamp(static_cast<int>(std::floor((t - t0) * scale)), 0, columns - 1);
        Mark& m = per_col[static_cast<std::size_t>(c)];
        if (ft[i] > m.ms) m = {t, ft[i], hitch};
    }
    for (const Mark& m : per_col)
        if (m.ms >= 0) p.marks.push_back(m);
    if (!body.empty()) {
        const auto k = static_cast<std::ptrdiff_t>(std::floor(0.999 * static_cast<double>(body.size() - 1)));
        std::nth_element(body.begin(), body.begin() + k, body.end());
        p.body_p999 = body[static_cast<std::size_t>(k)];
    }
}

// ---- the plots ---------------------------------------------------------------------------------

struct Layout {
    double t_end = 1;      // time axis end, s
    double ft_top = 1;     // frame-time axis end, ms
    double body_top = 1;   // the largest p99.9 of the frames that are neither stutters nor hitches
    bool clipped = false;  // some frames are above ft_top
};

// Frames above the frame-time axis: a triangle on the top edge, the longest few labelled.
void draw_clipped(std::string& o, const Plot& p, const std::vector<Prepared>& ps,
                  const std::vector<std::vector<Mark>>& over) {
    struct Item {
        double x, ms;
        std::size_t series;
    };
    std::vector<Item> items;
    for (std::size_t i = 0; i < over.size(); ++i)
        for (const Mark& m : over[i]) items.push_back({m.t, m.ms, i});
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.ms > b.ms; });
    const double y = p.top;
    std::vector<double> label_x;  // labels placed, to keep them apart
    for (std::size_t k = 0; k < items.size(); ++k) {
        const Item& it = items[k];
        const double x = p.px(it.x);
        appendf(o, "<path class=\"over\" fill=\"%s\" d=\"M%.1f %.1fl-5 9h10z\"><title>", colour(it.series), x, y - 11);
        o += html_escape(ps[it.series].label) + ": " + fixed(it.ms, 1) + " ms at " + fixed(it.x, 2) + " s</title></path>";
        const bool crowded = std::any_of(label_x.begin(), label_x.end(), [&](double lx) { return std::fabs(lx - x) < 60; });
        if (label_x.size() < 12 && !crowded) {
            label_x.push_back(x);
            appendf(o, "<text class=\"overlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">%s ms</text>",
                    std::clamp(x, p.left + 24, p.left + p.width - 24), y - 14, colour(it.series), fixed(it.ms, it.ms < 100 ? 1 : 0).c_str());
        }
    }
}

void frame_time_plot(std::string& o, const std::vector<Analysis>& as, const std::vector<Prepared>& ps,
                     const Layout& L) {
    const double h = 380;
    Plot p{64, 30, kPageWidth - 64 - 16, h - 30 - 46, 0, L.t_end, 0, L.ft_top};
    appendf(o, "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"frame time over time\">\n", kPageWidth, h);
    draw_axes(o, p, linear_ticks(0, L.t_end, 12), linear_ticks(0, L.ft_top, 6), "time since the first frame (s)", "frame time (ms)");
    const int columns = static_cast<int>(p.width);
    std::vector<std::vector<Mark>> over(as.size());
    for (std::size_t i = 0; i < as.size(); ++i) {
        polyline(o, p, reduce_m4(as[i].time_s, as[i].frame_ms, 0, L.t_end, columns), i, 1.2);
        if (L.clipped) {
            // Per column the longest frame above the axis.
            std::vector<Mark> col(static_cast<std::size_t>(columns), Mark{0, -1, false});
            for (std::size_t k = 0; k < as[i].frame_ms.size() && k < as[i].time_s.size(); ++k) {
                const double ms = as[i].frame_ms[k];
                if (ms <= L.ft_top) continue;
                const int c = std::clamp(static_cast<int>((p.px(as[i].time_s[k]) - p.left)), 0, columns - 1);
                if (ms > col[static_cast<std::size_t>(c)].ms) col[static_cast<std::size_t>(c)] = {as[i].time_s[k], ms, false};
            }
            for (const Mark& m : col)
                if (m.ms >= 0) over[i].push_back(m);
        }
    }
    for (std::size_t i = 0; i < ps.size(); ++i) {
        for (const Mark& m : ps[i].marks) {
            // A mark above the axis sits just under its top edge, below the frame's ▲ and label.
            const double x = p.px(m.t), y = m.ms > p.y1 ? p.top + 9 : p.py(m.ms);
            if (m.hitch)
                appendf(o, "<path class=\"hitch\" fill=\"%s\" d=\"M%.1f %.1fl6 6 -6 6 -6 -6z\">", colour(i), x, y - 6);
            else
                appendf(o, "<circle class=\"stutter\" stroke=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\">", colour(i), x, y);
            o += "<title>" + html_escape(ps[i].label) + ": " + (m.hitch ? "hitch " : "stutter ") + fixed(m.ms, 2) +
                 " ms at " + fixed(m.t, 3) + " s</title>" + (m.hitch ? "</path>" : "</circle>");
        }
    }
    draw_clipped(o, p, ps, over);
    o += "</svg>\n";
}

void fps_plot(std::string& o, const std::vector<Analysis>& as, const Layout& L, double window_s) {
    const double h = 270;
    const int columns = static_cast<int>(kPageWidth - 64 - 16);
    std::vector<Series> curves;
    double top = 1;
    for (const Analysis& a : as) {
        Series s = moving_fps(a.time_s, a.frame_ms, window_s);
        curves.push_back(reduce_m4(s.x, s.y, 0, L.t_end, columns));
        for (double v : curves.back().y) top = std::max(top, v);
    }
    top = nice_ceil(top * 1.05, 5);
    Plot p{64, 12, kPageWidth - 64 - 16, h - 12 - 46, 0, L.t_end, 0, top};
    appendf(o, "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"frame rate over time\">\n", kPageWidth, h);
    draw_axes(o, p, linear_ticks(0, L.t_end, 12), linear_ticks(0, top, 5), "time since the first frame (s)",
              "FPS (last " + seconds(window_s) + " s)");
    for (std::size_t i = 0; i < curves.size(); ++i) polyline(o, p, curves[i], i, 1.6);
    o += "</svg>\n";
}

// The histogram's bins: shared, from the shortest frame to the largest p99.9 of the frames that
// are neither stutters nor hitches (L.body_top), on a nice step; longer frames in the last bin.
struct HistogramBins {
    static constexpr int kBins = 60;
    double lo = 0, hi = 1, width = 1.0 / kBins;
};

HistogramBins histogram_bins(const std::vector<Prepared>& ps, const Layout& L) {
    double lo = std::numeric_limits<double>::infinity(), hi = L.body_top;
    for (const Prepared& s : ps)
        if (!s.sorted.empty()) lo = std::min(lo, s.sorted.front());
    if (!std::isfinite(lo)) lo = 0;
    if (!(hi > lo)) hi = lo + 1;
    const double span_step = nice_step(hi - lo, 8);
    HistogramBins b;
    b.lo = std::max(0.0, std::floor(lo / span_step) * span_step);
    b.hi = std::ceil(hi / span_step - 1e-9) * span_step;
    if (!(b.hi > b.lo)) b.hi = b.lo + span_step;
    b.width = (b.hi - b.lo) / HistogramBins::kBins;
    return b;
}

// Each capture's share of frames (%) per bin.
std::vector<std::vector<double>> histogram_shares(const std::vector<Prepared>& ps, const HistogramBins& b, double& peak) {
    constexpr int n = HistogramBins::kBins;
    std::vector<std::vector<double>> shares;
    peak = 1;
    for (const Prepared& s : ps) {
        std::vector<double> c(n, 0.0);
        for (double v : s.sorted) c[static_cast<std::size_t>(std::clamp(static_cast<int>((v - b.lo) / b.width), 0, n - 1))] += 1;
        for (double& v : c) {
            v = s.sorted.empty() ? 0 : 100.0 * v / static_cast<double>(s.sorted.size());
            peak = std::max(peak, v);
        }
        shares.push_back(std::move(c));
    }
    return shares;
}

void histogram_plot(std::string& o, const std::vector<Prepared>& ps, const Layout& L, double h) {
    const double half = kPageWidth / 2;
    const HistogramBins b = histogram_bins(ps, L);
    double peak = 1;
    const std::vector<std::vector<double>> shares = histogram_shares(ps, b, peak);
    peak = nice_ceil(peak * 1.05, 5);
    Plot hp{64, 12, half - 64 - 24, h - 12 - 46, b.lo, b.hi, 0, peak};
    draw_axes(o, hp, linear_ticks(b.lo, b.hi, 8), linear_ticks(0, peak, 5),
              "frame time (ms); the last bin holds every frame \xE2\x89\xA5 " + fixed(b.hi - b.width, 1) + " ms",
              "share of frames (%)");
    for (std::size_t i = 0; i < shares.size(); ++i) {
        appendf(o, "<path class=\"hist\" stroke=\"%s\" fill=\"%s\"%s d=\"M%.1f %.1f", colour(i), colour(i), dash(i).c_str(),
                hp.px(b.lo), hp.py(0));
        for (int k = 0; k < HistogramBins::kBins; ++k) {
            const double y = hp.py(shares[i][static_cast<std::size_t>(k)]);
            appendf(o, "V%.1fH%.1f", y, hp.px(b.lo + b.width * (k + 1)));
        }
        appendf(o, "V%.1fZ\" />\n", hp.py(0));
    }
}

// The percentile curve's plot: x = -log10(1 - p), from 0 % to the last frame of the longest capture.
Plot percentile_axes(std::string& o, const std::vector<Prepared>& ps, const Layout& L, double h) {
    const double half = kPageWidth / 2;
    double xmax = 2;
    for (const Prepared& s : ps) xmax = std::max(xmax, std::log10(static_cast<double>(std::max<std::size_t>(s.sorted.size(), 1))));
    xmax = std::min(xmax, 7.0);
    Plot pp{half + 64, 12, half - 64 - 16, h - 12 - 46, 0, xmax, 0, L.ft_top};
    std::vector<Tick> xt = {{0, "0 %"}, {std::log10(2.0), "50 %"}, {1, "90 %"}, {2, "99 %"}, {3, "99.9 %"},
                            {4, "99.99 %"}, {5, "99.999 %"}, {6, "99.9999 %"}};
    xt.erase(std::remove_if(xt.begin(), xt.end(), [&](const Tick& t) { return t.at > xmax + 1e-9; }), xt.end());
    draw_axes(o, pp, xt, linear_ticks(0, L.ft_top, 6), "percentile (the tail stretched: 90, 99, 99.9 % equally spaced)",
              "frame time (ms)");
    return pp;
}

void percentile_plot(std::string& o, const std::vector<Prepared>& ps, const Layout& L, double h) {
    const Plot pp = percentile_axes(o, ps, L, h);
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const pacer::Span<const double> s = ps[i].sorted;
        if (s.empty()) continue;
        const double xend = std::log10(static_cast<double>(s.size()));
        Series c;
        constexpr int kPoints = 400;
        for (int k = 0; k < kPoints; ++k) {
            const double x = xend * k / kPoints;
            c.x.push_back(x);
            c.y.push_back(percentile_sorted(s, 1.0 - std::pow(10.0, -x)));
        }
        c.x.push_back(xend);  // the longest frame ends the curve
        c.y.push_back(s.back());
        polyline(o, pp, c, i, 1.8);
    }
    // Same marks as the frame-time plot, over every curve, at the percentile axis (x is the
    // stretched percentile of the longest frame).
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const pacer::Span<const double> s = ps[i].sorted;
        if (s.empty() || s.back() <= L.ft_top) continue;
        const double x = pp.px(std::log10(static_cast<double>(s.size()))), ms = s.back();
        appendf(o, "<path class=\"over\" fill=\"%s\" d=\"M%.1f %.1fl-5 9h10z\"><title>", colour(i), x, pp.top - 1);
        o += html_escape(ps[i].label) + ": longest frame " + fixed(ms, 1) + " ms</title></path>";
        appendf(o, "<text class=\"overlabel\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" fill=\"%s\">max %s ms</text>", x - 6,
                pp.top + 18 + 14.0 * static_cast<double>(i), colour(i), fixed(ms, ms < 100 ? 1 : 0).c_str());
    }
}

void distribution_plots(std::string& o, const std::vector<Prepared>& ps, const Layout& L) {
    const double h = 350;
    appendf(o, "<svg class=\"plot\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"histogram and percentiles\">\n", kPageWidth, h);
    histogram_plot(o, ps, L, h);
    percentile_plot(o, ps, L, h);
    o += "</svg>\n";
}

void summary_table(std::string& o, const std::vector<Analysis>& as, const std::vector<Prepared>& ps) {
    struct Row {
        const char* label;
        std::string (*get)(const Analysis&);
    };
    static const Row kRows[] = {
        {"format", [](const Analysis& a) { return html_escape(a.format); }},
        {"frames", [](const Analysis& a) { return std::to_string(a.frames); }},
        {"duration (s)", [](const Analysis& a) { return fixed(a.duration_s, 2); }},
        {"average FPS", [](const Analysis& a) { return fixed(a.avg_fps, 1); }},
        {"1 % low FPS", [](const Analysis& a) { return fixed(a.low1_avg_fps, 1); }},
        {"0.1 % low FPS", [](const Analysis& a) { return fixed(a.low01_avg_fps, 1); }},
        {"frame time p50 (ms)", [](const Analysis& a) { return fixed(a.p50_ms, 2); }},
        {"frame time p99 (ms)", [](const Analysis& a) { return fixed(a.p99_ms, 2); }},
        {"frame time p99.9 (ms)", [](const Analysis& a) { return fixed(a.p999_ms, 2); }},
        {"frame time max (ms)", [](const Analysis& a) { return fixed(a.max_ms, 2); }},
        // The library's pacing figures (pacer/stats.hpp), against the capture's target column
        // (pacer's captures have one): none without one.
        {"interval_error p99 (us)", [](const Analysis& a) {
             return a.has_target && !a.sampled ? fixed(1000 * a.abs_err_p99_ms, 1) : std::string("-");
         }},
        {"off_100us_share (%)", [](const Analysis& a) {
             return a.has_target && !a.sampled ? fixed(100 * a.off_100us_share, 2) : std::string("-");
         }},
        {"stutters", [](const Analysis& a) {
             return std::to_string(a.stutters) + " <span class=\"dim\">(" + fixed(100 * a.stutter_time_share, 2) + " % of the time)</span>";
         }},
        {"hitches", [](const Analysis& a) { return std::to_string(a.hitches); }},
        // The share of frames in the refresh-period bin of 1 period (pacer analyze's histogram).
        {"lasting 1 refresh period [0.5,1.5) (%)", [](const Analysis& a) {
             if (a.sampled || a.frames == 0) return std::string("-");
             return fixed(100.0 * static_cast<double>(a.interval_hist[1]) / static_cast<double>(a.frames), 2) +
                    " <span class=\"dim\">(of " + fixed(a.refresh_ms, 3) + " ms)</span>";
         }},
    };
    o += "<table>\n<thead><tr><th></th>";
    for (std::size_t i = 0; i < ps.size(); ++i)
        appendf(o, "<th><span class=\"sw\" style=\"background:%s\"></span>%s</th>", colour(i), html_escape(ps[i].label).c_str());
    o += "</tr></thead>\n<tbody>\n";
    for (const Row& r : kRows) {
        o += "<tr><th>" + html_escape(r.label) + "</th>";
        for (const Analysis& a : as) o += "<td>" + r.get(a) + "</td>";
        o += "</tr>\n";
    }
    o += "</tbody>\n</table>\n";
}

constexpr const char* kStyle = R"(
body { margin: 0; background: #fff; color: #222; font: 14px/1.4 system-ui, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1380px; margin: 0 auto; padding: 12px 10px 24px; }
h1 { font-size: 22px; margin: 4px 0 8px; }
h2 { font-size: 16px; margin: 18px 0 2px; }
p.note { margin: 0 0 4px; color: #555; font-size: 13px; }
ul.legend { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 6px 28px; }
ul.legend li { font-size: 14px; }
.dim { color: #666; }
.sw { display: inline-block; width: 14px; height: 14px; border-radius: 3px; margin-right: 7px; vertical-align: -2px; }
svg.plot { display: block; width: 100%; height: auto; }
svg text { font: 12px system-ui, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; fill: #444; }
svg text.label { font-size: 13px; fill: #222; }
svg text.overlabel { font-size: 12px; font-weight: 600; }
.grid line { stroke: #e4e4e4; stroke-width: 1; }
rect.frame { fill: none; stroke: #999; stroke-width: 1; }
polyline.series { fill: none; stroke-linejoin: round; stroke-linecap: round; }
path.hist { fill-opacity: 0.10; stroke-width: 1.6; stroke-linejoin: round; }
circle.stutter { fill: #fff; fill-opacity: 0.6; stroke-width: 1.6; }
path.hitch { stroke: #222; stroke-width: 1; }
table { border-collapse: collapse; margin-top: 6px; font-variant-numeric: tabular-nums; }
th, td { padding: 4px 14px; border-bottom: 1px solid #e4e4e4; text-align: right; }
thead th { text-align: left; font-weight: 600; border-bottom: 2px solid #bbb; }
tbody th { text-align: left; font-weight: normal; color: #444; white-space: nowrap; }
)";

}  // namespace

namespace {

// The plots' shared layout and each capture's prepared series (label, marks, sorted frame times).
Layout prepare(const std::vector<Analysis>& as, const ReportOptions& opt, std::vector<Prepared>& ps) {
    const int columns = static_cast<int>(kPageWidth - 64 - 16);
    Layout L;
    double t_end = 0, longest = 0;
    for (const Analysis& a : as) {
        if (!a.time_s.empty()) t_end = std::max(t_end, a.time_s.back());
        longest = std::max(longest, a.max_ms);
    }
    L.t_end = t_end > 0 ? nice_ceil(t_end, 12) : 1.0;
    ps.assign(as.size(), Prepared());
    const std::size_t strip = common_dir_length(as);
    L.body_top = 0;
    for (std::size_t i = 0; i < as.size(); ++i) {
        ps[i].label = series_label(as[i], strip);
        find_marks(as[i], opt, 0, L.t_end, columns, ps[i]);
        ps[i].sorted = as[i].frame_ms_sorted;  // a view: `as` outlives the page
        if (ps[i].sorted.size() != as[i].frame_ms.size()) {  // an Analysis made without keep_frames
            ps[i].owned_sorted = as[i].frame_ms;
            std::sort(ps[i].owned_sorted.begin(), ps[i].owned_sorted.end());
            ps[i].sorted = ps[i].owned_sorted;
        }
        L.body_top = std::max(L.body_top, ps[i].body_p999);
    }
    if (!(L.body_top > 0)) L.body_top = std::max(longest, 1e-3);
    // The frame-time axes reach the longest frame unless that would squash the rest: then they end
    // a nice step above the p99.9 of every capture's ordinary frames (neither stutters nor
    // hitches), and the longer frames are marked on the top edge with their frame time.
    const double bound = opt.max_ms > 0 ? opt.max_ms : nice_ceil(L.body_top * 1.25, 6);
    L.ft_top = opt.max_ms > 0 || longest > 1.6 * bound ? bound : nice_ceil(std::max(longest, 1e-3) * 1.05, 6);
    L.clipped = longest > L.ft_top;
    return L;
}

// FPS window: 0.5 s, shorter for a capture too short to fill two.
double fps_window(const std::vector<Analysis>& as) {
    double shortest = std::numeric_limits<double>::infinity();
    for (const Analysis& a : as)
        if (a.time_s.size() > 1) shortest = std::min(shortest, a.time_s.back());
    return std::isfinite(shortest) && shortest < 1.0 ? std::max(shortest / 4, 1e-3) : 0.5;
}

// The page up to the frame-time plot: head, title, legend, the frame-time note.
void page_head(std::string& o, const std::vector<Analysis>& as, const std::vector<Prepared>& ps, const Layout& L,
               const ReportOptions& opt) {
    o += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n<title>";
    o += html_escape(opt.title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<main>\n<h1>" +
         html_escape(opt.title) + "</h1>\n<ul class=\"legend\">\n";
    for (std::size_t i = 0; i < as.size(); ++i) {
        appendf(o, "<li><span class=\"sw\" style=\"background:%s\"></span>", colour(i));
        o += html_escape(ps[i].label) + " <span class=\"dim\">" + html_escape(as[i].format) + ", " +
             std::to_string(as[i].frames) + " frames, " + fixed(as[i].duration_s, 1) + " s</span></li>\n";
    }
    o += "</ul>\n<h2>Frame time</h2>\n<p class=\"note\">Reduced to the shortest and longest frame of each pixel "
         "column, so no frame is lost. &#9675; stutter: longer than " +
         fixed(opt.stutter_factor, 2) + " &#215; the mean of the " + std::to_string(opt.stutter_window) +
         " frames before it. &#9670; hitch: longer than 60 ms and at least 1.5 &#215; the frame before.";
    if (L.clipped) o += " Frames above " + fixed(L.ft_top, 0) + " ms are marked &#9650; on the top edge with their frame time.";
    o += " Hover over a mark for its time.</p>\n";
}

}  // namespace

std::string render_report(const std::vector<Analysis>& as, const ReportOptions& opt) {
    std::vector<Prepared> ps;
    const Layout L = prepare(as, opt, ps);
    const double window = fps_window(as);
    std::string o;
    o.reserve(256 * 1024);
    page_head(o, as, ps, L, opt);
    frame_time_plot(o, as, ps, L);
    o += "<h2>Frame rate</h2>\n<p class=\"note\">Average FPS of the frames in the last " + seconds(window) +
         " s (1000 &#215; frames / their frame times summed).</p>\n";
    fps_plot(o, as, L, window);
    o += "<h2>Distribution</h2>\n<p class=\"note\">Left: share of frames per frame-time bin. Right: frame time at "
         "each percentile; the right end of each curve is its longest frame.</p>\n";
    distribution_plots(o, ps, L);
    o += "<h2>Summary</h2>\n";
    summary_table(o, as, ps);
    o += "<p class=\"note\">1 % / 0.1 % low: 1000 / the mean of the frame times at or above the 99th / 99.9th "
         "percentile. Percentiles interpolate linearly between sorted frame times. The same numbers, and more, "
         "from <code>pacer analyze</code>.</p>\n</main>\n</body>\n</html>\n";
    return o;
}

}  // namespace pacer::tools
