// tools/lib/analyze_read.cpp - a capture read into series (one per process and swap chain), and
// each series analysed.
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
#include "capture_reader.hpp"
#include "analyze_internal.hpp"

namespace pacer::tools {

using namespace detail;

namespace {

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
    SeriesFrames frames;        // the frames of a selected series
    bool any_target = false, any_lateness = false, has_missed = false;
    std::uint64_t missed = 0, na_rows = 0;
    // The file's rows (CaptureReader::rows_hint()) for the first series: its columns are reserved
    // at once, not grown by doubling (each doubling copies the column into fresh pages).
    std::uint64_t rows_hint = 0;
};

bool same_pid(double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); }

bool same_series(const FrameRecord& f, const Group& g) {
    return same_pid(f.process_id, g.pid) && same_text(f.swapchain, g.swapchain_raw) &&
           same_text(f.application, g.info.application);
}

// The series of each row. Rows of a few series interleave (a game and dwm.exe take turns): the
// last row's series, else a short linear search; past 16 series, a hash of (application, pid,
// swap chain).
class SeriesLookup {
public:
    // Index of f's series in groups; groups.size() when it is a new one (key() is its hash key).
    std::size_t find(const FrameRecord& f, const std::vector<Group>& groups) {
        if (cur_ < groups.size() && same_series(f, groups[cur_])) return cur_;
        cur_ = groups.size();
        if (groups.size() <= 16) {
            for (std::size_t i = 0; i < groups.size(); ++i)
                if (same_series(f, groups[i])) return cur_ = i;
        }
        key_.assign(f.application.data(), f.application.size());
        key_ += '\x1f';
        if (!std::isnan(f.process_id)) key_ += std::to_string(static_cast<std::int64_t>(f.process_id));
        key_ += '\x1f';
        key_.append(f.swapchain.data(), f.swapchain.size());
        if (groups.size() > 16) {
            if (index_.empty())  // the first time past 16: index what is there
                for (std::size_t i = 0; i < groups.size(); ++i) index_.emplace(groups[i].key, i);
            if (const auto it = index_.find(key_); it != index_.end()) return cur_ = it->second;
        }
        return cur_;
    }
    void added(const std::vector<Group>& groups) {
        if (!index_.empty()) index_.emplace(groups.back().key, groups.size() - 1);
    }
    const std::string& key() const noexcept { return key_; }

private:
    std::size_t cur_ = static_cast<std::size_t>(-1);
    std::string key_;
    std::unordered_map<std::string, std::size_t> index_;
};

Group new_group(const FrameRecord& f, const std::string& key, const AnalyzeOptions& o) {
    Group g;
    g.key = key;
    g.info.application = std::string(f.application);
    g.swapchain_raw = std::string(f.swapchain);
    if (g.swapchain_raw != "NA") g.info.swapchain = g.swapchain_raw;
    g.pid = f.process_id;
    if (std::isfinite(f.process_id)) g.info.process_id = static_cast<std::int64_t>(f.process_id);
    g.info.selected = (o.application.empty() || ci_equal(g.info.application, o.application)) &&
                      (o.process_id < 0 || g.info.process_id == o.process_id) &&
                      (o.swapchain.empty() || same_swapchain(g.info.swapchain, o.swapchain));
    return g;
}

// What collect() keeps of each frame of a selected series, decided once from the file and the options.
struct Keep {
    bool frames = false;     // any (not when listing)
    bool times = false;      // time stamps: the per-frame series, a sampled log's span
    bool per_frame = false;  // AnalyzeOptions::keep_frames: the other columns per frame too
    bool target = false, lateness = false;
    bool na_display_is_dropped = false;
    bool sampled = false;
};

Keep keep_of(const CaptureReader& r, const AnalyzeOptions& o, bool keep) {
    Keep k;
    k.frames = keep;
    k.sampled = r.sampled();
    k.times = o.keep_frames || k.sampled;
    k.per_frame = o.keep_frames && o.keep_columns;
    k.target = r.has_target();
    k.lateness = r.has_lateness();
    // Without a Dropped value, PresentMon 2.x's DisplayedTime says NA for a frame never displayed.
    k.na_display_is_dropped = !has_column(r, "Dropped") && has_column(r, "DisplayedTime");
    return k;
}

void add_frame(Group& g, const FrameRecord& f, const Keep& k) {
    SeriesFrames& s = g.frames;
    const std::size_t i = s.ft.size();
    if (i == 0 && g.rows_hint > 0) {
        const auto n = static_cast<std::size_t>(g.rows_hint);
        s.ft.reserve(n);
        if (k.times) s.time_s.reserve(n);
        if (k.target) s.target.reserve(n);
        if (k.lateness) s.lateness.reserve(n);
    }
    s.ft.push(f.frame_ms);
    if (k.times) s.time_s.push(f.time_s);
    if (k.target) s.target.push(f.target_ms);
    if (k.lateness) s.lateness.push(f.lateness_ms);
    g.any_target = g.any_target || !std::isnan(f.target_ms);
    g.any_lateness = g.any_lateness || !std::isnan(f.lateness_ms);
    if (!std::isnan(f.missed)) {
        g.has_missed = true;
        if (f.missed > 0) ++g.missed;
    }
    const double dropped = !std::isnan(f.dropped)     ? f.dropped
                           : k.na_display_is_dropped ? (std::isnan(f.display_change_ms) ? 1.0 : 0.0)
                                                     : kNaN;
    const OtherColumns c{dropped, f.display_change_ms, f.busy_ms, f.gpu_busy_ms, f.pc_latency_ms, f.input_to_photon_ms};
    add_other_columns(s, c);
    if (!k.per_frame) return;
    s.display.push_at(i, c.display);
    s.dropped.push_at(i, c.dropped);
    s.cpu.push_at(i, c.cpu);
    s.gpu.push_at(i, c.gpu);
    s.pc.push_at(i, c.pc);
    s.input.push_at(i, c.input);
}

// One row into its series: counted, and its frame kept when the series is selected.
Status add_row(Group& g, const FrameRecord& f, const Keep& k, const AnalyzeOptions& o, std::size_t& kept,
               const CaptureReader& r) {
    ++g.info.rows;
    if (std::isnan(f.frame_ms)) {
        ++g.na_rows;
        return {};
    }
    ++g.info.frames;
    g.ms += f.frame_ms;
    if (k.sampled && std::isfinite(f.time_s)) {
        if (std::isnan(g.t_first)) g.t_first = f.time_s;
        g.t_last = f.time_s;
    }
    if (!k.frames || !g.info.selected) return {};
    if (kept >= o.max_frames)
        return Status::error(r.name() + ":" + std::to_string(f.line) + ": more than " + std::to_string(o.max_frames) +
                             " frames; analyze a part of the capture");
    ++kept;
    add_frame(g, f, k);
    return {};
}

// Reads every row, grouped by (application, process, swap chain). Frames are kept only for the
// selected series (and not at all when listing).
Status collect(CaptureReader& r, const AnalyzeOptions& o, bool keep, std::vector<Group>& groups, std::uint64_t& rows) {
    const Keep k = keep_of(r, o, keep);
    r.set_summary_only(true, k.times);
    SeriesLookup lookup;
    std::size_t kept = 0;
    FrameRecord f;
    while (r.next(f)) {
        ++rows;
        const std::size_t cur = lookup.find(f, groups);
        if (cur == groups.size()) {
            if (groups.size() >= 100000)
                return Status::error(r.name() + ":" + std::to_string(f.line) + ": more than 100000 processes and swap chains");
            groups.push_back(new_group(f, lookup.key(), o));
            if (groups.size() == 1) groups.back().rows_hint = r.rows_hint();
            lookup.added(groups);
        }
        if (Status st = add_row(groups[cur], f, k, o, kept, r); !st) return st;
    }
    if (!r.error().ok()) return r.error();
    // A log of samples spans its time stamps; its rows' frame times add up to far less.
    for (Group& g : groups)
        g.info.duration_s = k.sampled && std::isfinite(g.t_first) ? g.t_last - g.t_first : g.ms / 1000.0;
    // The main series first: most frames, then the first in the file.
    std::stable_sort(groups.begin(), groups.end(),
                     [](const Group& x, const Group& y) { return x.info.frames > y.info.frames; });
    return {};
}

// The column the reader takes as the frame time: the first frame-time column of the header.
std::string frame_column(const CaptureReader& r) {
    const int k = r.field_of(pacer::CaptureColumnId::frame_ms);
    return k >= 0 ? r.columns()[static_cast<std::size_t>(k)] : std::string();
}

// Frames without a target use the last known one; those before the first known one, that one
// (a capture starts with it).
void fill_targets(FrameColumn& target) {
    double last = kNaN;
    for (std::size_t i = 0; i < target.size(); ++i) {
        if (std::isnan(target[i])) target.set(i, last);
        else last = target[i];
    }
    last = kNaN;
    for (std::size_t i = target.size(); i-- > 0;) {
        if (std::isnan(target[i])) target.set(i, last);
        else last = target[i];
    }
}

// AnalyzeOptions::keep_frames: the series per frame, before the figures consume the columns.
// Times are seconds since the first frame; a file without a time column (or with gaps in it)
// gets the running sum of frame times.
void keep_series(SeriesFrames& s, Analysis& a) {
    const std::size_t n = s.ft.size();
    a.frame_ms = s.ft.doubles();
    a.time_s = s.time_s.doubles();
    const double t0 = a.time_s.empty() ? 0.0 : a.time_s.front();
    double sum = 0;
    for (std::size_t i = 0; i < a.time_s.size(); ++i) {
        sum += i ? a.frame_ms[i] / 1000.0 : 0.0;
        a.time_s[i] = std::isfinite(a.time_s[i]) && std::isfinite(t0) ? a.time_s[i] - t0 : sum;
    }
    // CPU busy is reported beside GPU busy (which of the two bound the frame).
    if (s.gpu.empty()) s.cpu = FrameColumn();
    const std::pair<FrameColumn*, std::vector<double>*> columns[] = {
        {&s.display, &a.display_ms}, {&s.dropped, &a.dropped_flags}, {&s.cpu, &a.cpu_busy_ms},
        {&s.gpu, &a.gpu_busy_ms},    {&s.pc, &a.pc_latency_ms},      {&s.input, &a.input_to_photon_ms}};
    for (const auto& [column, out] : columns) {
        column->pad(n);
        *out = column->doubles();
        *column = FrameColumn();
    }
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
    SeriesFrames& s = g.frames;
    s.sampled = r.sampled();
    // A capture without GPU busy (pacer's own: MsCPUBusy is the work time) does not report CPU busy.
    s.cpu_needs_gpu = true;
    if (g.any_target) fill_targets(s.target);
    else s.target = FrameColumn();
    if (!g.any_lateness) s.lateness = FrameColumn();
    if (o.keep_frames) keep_series(s, a);
    analyze_frames(s, o, a);
    a.has_missed = g.has_missed;
    a.missed = g.missed;
    g.frames = SeriesFrames();
}

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

}  // namespace

std::string describe(const SeriesInfo& s) {
    std::string d = s.application.empty() ? std::string("(no application)") : s.application;
    std::string in;
    if (s.process_id >= 0) in += "pid " + std::to_string(s.process_id);
    if (!s.swapchain.empty()) in += (in.empty() ? "" : ", ") + std::string("swap chain ") + s.swapchain;
    in += (in.empty() ? "" : ", ") + std::to_string(s.frames) + " frames";
    return d + " (" + in + ")";
}

namespace {

// The note under the table: what else the file holds, or what else the selection matched, and
// how to pick; and a last row left out.
std::string series_note(const CaptureReader& r, const AnalyzeOptions& o, const std::vector<Group>& groups,
                        const std::vector<std::size_t>& chosen, std::size_t shown) {
    const bool selecting = !o.application.empty() || o.process_id >= 0 || !o.swapchain.empty();
    std::string names, note;
    std::uint64_t hidden_frames = 0;
    for (std::size_t k = 0; k < chosen.size(); ++k) {
        if (k < shown) names += (k > 0 ? ", " : "") + describe(groups[chosen[k]].info);
        else hidden_frames += groups[chosen[k]].info.frames;
    }
    const std::string how = "pick one with --app NAME, --pid N or --swapchain ADDR; `pacer analyze --list " +
                            r.name() + "` lists them";
    if (!selecting && groups.size() > 1) {
        note = "note: " + r.name() + " holds " + std::to_string(groups.size()) +
               " series (process, swap chain), each analysed on its own: " + names;
        if (chosen.size() > shown)
            note += "; not shown: " + std::to_string(chosen.size() - shown) + " more with " +
                    std::to_string(hidden_frames) + " frames";
        note += "; " + how;
    } else if (selecting && chosen.size() > 1) {
        note = "note: " + std::to_string(chosen.size()) + " series of " + r.name() + " match " + selection_text(o) +
               ", each analysed on its own: " + names +
               (chosen.size() > shown ? " and " + std::to_string(chosen.size() - shown) + " more" : std::string()) +
               "; " + how;
    }
    if (r.cut_last_line())
        note += (note.empty() ? "" : "\n") + std::string("note: ") + r.name() + ":" + std::to_string(r.line()) +
                ": the last line is a row cut short (its writer stopped mid-row) and was left out";
    return note;
}

}  // namespace

Status analyze_reader(CaptureReader& r, const AnalyzeOptions& o, FileAnalysis& out) {
    out = FileAnalysis();
    out.file = r.name();
    out.format = to_string(r.format());
    out.sampled = r.sampled();
    std::vector<Group> groups;
    std::uint64_t rows = 0;
    if (Status st = collect(r, o, true, groups, rows); !st) return st;
    for (const Group& g : groups) out.series.push_back(g.info);
    std::vector<std::size_t> chosen;  // selected series with frames, main first
    for (std::size_t i = 0; i < groups.size(); ++i)
        if (groups[i].info.selected && groups[i].info.frames > 0) chosen.push_back(i);
    if (chosen.empty()) {
        const bool selecting = !o.application.empty() || o.process_id >= 0 || !o.swapchain.empty();
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
    out.note = series_note(r, o, groups, chosen, n);
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

namespace {

// A file the reader refused: its error, or, for pacer's stats sidecar, a skip with a note.
Status refused(const CaptureReader& r, const Status& st, FileAnalysis& out) {
    if (!r.stats_sidecar()) return st;
    out = FileAnalysis();
    out.file = r.name();
    out.skipped = true;
    out.note = "note: skipped " + r.name() + ": pacer's stats sidecar" +
               (r.sidecar_of().empty() ? std::string() : " of " + r.sidecar_of()) + ", not a capture";
    return {};
}

}  // namespace

Status analyze_file(const std::string& path, const AnalyzeOptions& o, FileAnalysis& out) {
    CaptureReader r;
    if (Status st = r.open(path); !st) return refused(r, st, out);
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
    if (Status st = r.open(path); !st) return refused(r, st, out);
    out.file = r.name();
    out.format = to_string(r.format());
    out.sampled = r.sampled();
    std::vector<Group> groups;
    std::uint64_t rows = 0;
    if (Status st = collect(r, {}, false, groups, rows); !st) return st;
    for (const Group& g : groups) out.series.push_back(g.info);
    return {};
}

}  // namespace pacer::tools
