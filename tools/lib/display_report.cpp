// `pacer display`'s figures and report (tools/lib/display_report.hpp): the vblank stream a source
// delivered against the display's fit, the present-at-time outcome, and the text or JSON.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "display_report.hpp"
#include "format.hpp"

#include "pacer/stats.hpp"

namespace pacer::tools {

void VblankJudge::expect(const PacerStatus& before) noexcept {
    has_prediction_ = before.display.state == DisplayState::locked && before.display.period.count() > 0;
    predicted_ = before.next_vblank;
    period_ = before.display.period;
}

void VblankJudge::vblank(bool has_msc, std::uint64_t msc, clock::time_point t, const PacerStatus& after) {
    ++vblanks;
    if (has_msc && has_last_ && msc > last_msc_) ++msc_steps[msc - last_msc_];
    if (has_msc) {
        last_msc_ = msc;
        has_last_ = true;
    }
    std::int64_t e = 0;
    if (has_prediction_) {
        // Against the nearest predicted vblank: a late poll may see a later one than expected.
        const std::int64_t p = period_.count();
        e = (t - predicted_).count() % p;
        if (e < 0) e += p;
        if (2 * e >= p) e -= p;
        errors_us.push_back(static_cast<double>(std::llabs(e)) / 1e3);
    }
    if (keep_stamps) stamps.push_back({msc, has_msc, t, has_prediction_, std::chrono::nanoseconds(e)});
    has_prediction_ = false;
    if (!lock_vblanks && after.display.state == DisplayState::locked) lock_vblanks = vblanks;
}

void VblankJudge::requested(clock::time_point woke, std::uint64_t msc, clock::time_point at) {
    if (!keep_stamps || stamps.empty()) return;
    Stamp& s = stamps.back();
    s.woke = woke;
    s.requested_msc = msc;
    s.requested_at = at;
}

// The frame of present `id`, taken off the list: false when unknown, or when it is not counted
// (before the warm-up ended).
bool TargetJudge::take(std::uint64_t id, Frame* frame) {
    const auto it = target_of.find(id);
    if (it == target_of.end()) return false;
    *frame = it->second;
    target_of.erase(it);
    if (!counting) return false;
    ++presented;
    return true;
}

void TargetJudge::shown(std::uint64_t id, std::uint64_t msc, clock::time_point time) {
    Frame frame;
    if (!take(id, &frame)) return;
    if (msc == frame.target) ++on_target;
    else if (msc > frame.target) ++late;
    else ++early;
    if (keep_outcomes) outcomes.push_back({frame, true, msc, time});
}

void TargetJudge::dropped(std::uint64_t id) {
    Frame frame;
    if (!take(id, &frame)) return;
    ++skipped;
    if (keep_outcomes) outcomes.push_back({frame, false, 0, {}});
}

namespace {

std::optional<double> quantile_of(std::vector<double> v, double p) {
    if (v.empty()) return std::nullopt;
    std::sort(v.begin(), v.end());
    return percentile_sorted({v.data(), v.size()}, p);
}

std::string msc_steps_json(const std::map<std::uint64_t, std::uint64_t>& steps) {
    std::string out = "{";
    for (const auto& [step, n] : steps) {
        if (out.size() > 1) out += ", ";
        // Appended piece by piece: GCC 12 warns (-Wrestrict, release builds) on "\"" + std::string.
        out += '"';
        out += std::to_string(step);
        out += "\": ";
        out += std::to_string(n);
    }
    return out + "}";
}

struct Figures {
    std::optional<double> err_p50, err_p99, shown, dropped, shown_fps, submitted_fps, on_target_share, late;
};

Figures figures_of(const DisplayCmdResult& r) {
    Figures f;
    f.err_p50 = quantile_of(r.vblanks.errors_us, 0.5);
    f.err_p99 = quantile_of(r.vblanks.errors_us, 0.99);
    const PresentCounts& c = r.status.presents;
    if (r.seconds > 0 && c.submitted > 0) f.submitted_fps = static_cast<double>(c.submitted) / r.seconds;
    if (c.feedback) {
        f.shown = static_cast<double>(c.shown);
        f.dropped = static_cast<double>(c.dropped);
        if (r.seconds > 0) f.shown_fps = static_cast<double>(c.shown) / r.seconds;
    }
    if (r.targets && r.targets->presented > 0) {
        f.on_target_share = static_cast<double>(r.targets->on_target) / static_cast<double>(r.targets->presented);
        f.late = static_cast<double>(r.targets->late);
    }
    return f;
}

std::string format_json(const DisplayCmdResult& r) {
    const Figures f = figures_of(r);
    const DisplayStatus& d = r.status.display;
    std::string s = "{\"source\": \"" + r.source + "\", \"ahead\": " +
                    (r.ahead > 0 ? std::to_string(r.ahead) : std::string("null")) +
                    ", \"seconds\": " + json_number(r.seconds, 3) +
                    ", \"state\": \"" + to_string(d.state) + "\", \"reason\": \"" + d.reason + "\"";
    s += ", \"lock_vblanks\": " +
         (r.vblanks.lock_vblanks ? std::to_string(*r.vblanks.lock_vblanks) : std::string("null"));
    s += ", \"locks\": " + std::to_string(d.locks) + ", \"vblanks\": " + std::to_string(r.vblanks.vblanks);
    s += ", \"fitted_hz\": " + json_number(d.refresh_hz > 0 ? std::optional<double>(d.refresh_hz) : std::nullopt, 4);
    s += ", \"reported_hz\": " + json_number(d.reported_hz > 0 ? std::optional<double>(d.reported_hz) : std::nullopt, 4);
    s += ", \"shown_hz\": " + json_number(d.shown_hz > 0 ? std::optional<double>(d.shown_hz) : std::nullopt, 4);
    s += ", \"next_vblank_error_p50_us\": " + json_number(f.err_p50, 1);
    s += ", \"next_vblank_error_p99_us\": " + json_number(f.err_p99, 1);
    s += ", \"msc_step_counts\": " + msc_steps_json(r.vblanks.msc_steps);
    s += ", \"submitted\": " + std::to_string(r.status.presents.submitted) + ", \"shown\": " + json_number(f.shown, 0) +
         ", \"dropped\": " + json_number(f.dropped, 0);
    s += ", \"submitted_fps\": " + json_number(f.submitted_fps, 2) + ", \"shown_fps\": " + json_number(f.shown_fps, 2);
    s += ", \"rate_hz\": " + json_number(r.status.rate.hz, 4) + ", \"rate_reason\": \"" + to_string(r.status.rate.code) + "\"";
    if (r.targets) {
        s += ", \"presented\": " + std::to_string(r.targets->presented) + ", \"on_target_share\": " +
             json_number(f.on_target_share, 4) + ", \"late_frames\": " + json_number(f.late, 0) +
             ", \"early_frames\": " + std::to_string(r.targets->early) + ", \"skipped_frames\": " +
             std::to_string(r.targets->skipped) + ", \"untargeted_frames\": " + std::to_string(r.targets->untargeted);
    }
    return s + "}\n";
}

// Text: one way to say a value nobody measured, "unknown"; no JSON in it.
std::string text_or_unknown(std::optional<double> v, int decimals, const char* unit) {
    if (!v || !std::isfinite(*v)) return "unknown";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f%s", decimals, *v, unit);
    return buf;
}

std::optional<double> positive(double v) { return v > 0 ? std::optional<double>(v) : std::nullopt; }

// "1 (299 times), 2 (3 times)": how far the vblank counter advanced between vblanks seen.
std::string msc_steps_text(const std::map<std::uint64_t, std::uint64_t>& steps) {
    if (steps.empty()) return "unknown";
    std::string out;
    for (const auto& [step, n] : steps) {
        if (!out.empty()) out += ", ";
        out += std::to_string(step) + " (" + std::to_string(n) + (n == 1 ? " time)" : " times)");
    }
    return out;
}

std::string display_text(const DisplayCmdResult& r, const Figures& f) {
    const DisplayStatus& d = r.status.display;
    std::string s = "display " + std::string(to_string(d.state)) + ": " + d.reason + "\n";
    s += "fitted " + text_or_unknown(positive(d.refresh_hz), 4, " Hz") + ", reported " +
         text_or_unknown(positive(d.reported_hz), 4, " Hz") + ", shown " +
         text_or_unknown(positive(d.shown_hz), 4, " Hz") + "; ";
    s += r.vblanks.lock_vblanks ? "locked after " + std::to_string(*r.vblanks.lock_vblanks) + " vblanks, " +
                                      std::to_string(d.locks) + " lock(s)\n"
                                : std::string("never locked\n");
    s += "next-vblank error p50 " + text_or_unknown(f.err_p50, 1, " us") + ", p99 " +
         text_or_unknown(f.err_p99, 1, " us") + "; counter steps " + msc_steps_text(r.vblanks.msc_steps) + "\n";
    return s;
}

std::string presents_text(const DisplayCmdResult& r, const Figures& f) {
    std::string s = "presents submitted " + std::to_string(r.status.presents.submitted) + ", shown " +
                    text_or_unknown(f.shown, 0, "") + ", dropped " + text_or_unknown(f.dropped, 0, "");
    s += r.status.presents.feedback ? "\n" : " (no presentation feedback)\n";
    s += "rate in force " + text_or_unknown(r.status.rate.hz, 4, " Hz") + ": " + r.status.rate.reason + "\n";
    if (r.targets) {
        const std::string share = f.on_target_share ? text_or_unknown(*f.on_target_share * 100, 2, " %") : "unknown";
        s += "present at time: " + std::to_string(r.targets->on_target) + " of " + std::to_string(r.targets->presented) +
             " on their target counter (" + share + "), " + std::to_string(r.targets->late) +
             " late, " + std::to_string(r.targets->skipped) + " skipped, " + std::to_string(r.targets->untargeted) +
             " paced unlocked\n";
    }
    return s;
}

std::string format_text(const DisplayCmdResult& r) {
    const Figures f = figures_of(r);
    return "source " + r.source + ", " + std::to_string(r.vblanks.vblanks) + " vblanks in " +
           text_or_unknown(r.seconds, 1, " s") + "\n" + display_text(r, f) + presents_text(r, f);
}

}  // namespace

std::string format_display_result(const DisplayCmdResult& r, bool json) {
    return json ? format_json(r) : format_text(r);
}

std::string format_vblanks_csv(const VblankJudge& v) {
    std::string s = "msc,time_ns,error_ns,woke_ns,requested_msc,requested_ns\n";
    s.reserve(s.size() + 80 * v.stamps.size());
    for (const VblankJudge::Stamp& st : v.stamps) {
        s += (st.has_msc ? std::to_string(st.msc) : std::string()) + "," + std::to_string(clock::to_ns(st.time)) + ",";
        s += (st.predicted ? std::to_string(st.error.count()) : std::string()) + ",";
        if (st.requested_msc != 0)
            s += std::to_string(clock::to_ns(st.woke)) + "," + std::to_string(st.requested_msc) + "," +
                 std::to_string(clock::to_ns(st.requested_at));
        else
            s += ",,";
        s += "\n";
    }
    return s;
}

std::string format_presents_csv(const TargetJudge& t) {
    std::string s = "target_msc,deadline_ns,wake_ns,sent_ns,shown_msc,shown_ns\n";
    s.reserve(s.size() + 96 * t.outcomes.size());
    const auto ns = [](clock::time_point p) { return std::to_string(clock::to_ns(p)); };
    for (const TargetJudge::Outcome& o : t.outcomes) {
        s += std::to_string(o.frame.target) + "," + ns(o.frame.deadline) + "," + ns(o.frame.wake) + "," +
             ns(o.frame.sent) + ",";
        s += o.shown ? std::to_string(o.msc) + "," + ns(o.time) + "\n" : std::string(",\n");
    }
    return s;
}

}  // namespace pacer::tools
