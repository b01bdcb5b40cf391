// `pacer display`: a real display's clock, read through a presentation source (X11 Present,
// Wayland's wp_presentation, or the swap's own return), and what the pacer makes of it.
#include "display_cmd.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "analyze.hpp"
#include "cli_options.hpp"
#include "pacer/log.hpp"
#include "pacer/stats.hpp"
#include "report.hpp"
#include "tools.hpp"

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

void TargetJudge::shown(std::uint64_t id, std::uint64_t msc, clock::time_point time) {
    const auto it = target_of.find(id);
    if (it == target_of.end()) return;
    const Frame frame = it->second;
    target_of.erase(it);
    if (!counting) return;
    ++presented;
    if (msc == frame.target) ++on_target;
    else if (msc > frame.target) ++late;
    else ++early;
    if (keep_outcomes) outcomes.push_back({frame, true, msc, time});
}

void TargetJudge::dropped(std::uint64_t id) {
    const auto it = target_of.find(id);
    if (it == target_of.end()) return;
    const Frame frame = it->second;
    target_of.erase(it);
    if (!counting) return;
    ++presented;
    ++skipped;
    if (keep_outcomes) outcomes.push_back({frame, false, 0, {}});
}

namespace {

std::string number_or_null(std::optional<double> v, int decimals = 3) {
    if (!v || !std::isfinite(*v)) return "null";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, *v);
    return buf;
}

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
                    ", \"seconds\": " + number_or_null(r.seconds) +
                    ", \"state\": \"" + to_string(d.state) + "\", \"reason\": \"" + d.reason + "\"";
    s += ", \"lock_vblanks\": " +
         (r.vblanks.lock_vblanks ? std::to_string(*r.vblanks.lock_vblanks) : std::string("null"));
    s += ", \"locks\": " + std::to_string(d.locks) + ", \"vblanks\": " + std::to_string(r.vblanks.vblanks);
    s += ", \"fitted_hz\": " + number_or_null(d.refresh_hz > 0 ? std::optional<double>(d.refresh_hz) : std::nullopt, 4);
    s += ", \"reported_hz\": " + number_or_null(d.reported_hz > 0 ? std::optional<double>(d.reported_hz) : std::nullopt, 4);
    s += ", \"shown_hz\": " + number_or_null(d.shown_hz > 0 ? std::optional<double>(d.shown_hz) : std::nullopt, 4);
    s += ", \"next_vblank_error_p50_us\": " + number_or_null(f.err_p50, 1);
    s += ", \"next_vblank_error_p99_us\": " + number_or_null(f.err_p99, 1);
    s += ", \"msc_step_counts\": " + msc_steps_json(r.vblanks.msc_steps);
    s += ", \"submitted\": " + std::to_string(r.status.presents.submitted) + ", \"shown\": " + number_or_null(f.shown, 0) +
         ", \"dropped\": " + number_or_null(f.dropped, 0);
    s += ", \"submitted_fps\": " + number_or_null(f.submitted_fps, 2) + ", \"shown_fps\": " + number_or_null(f.shown_fps, 2);
    s += ", \"rate_hz\": " + number_or_null(r.status.rate.hz, 4) + ", \"rate_reason\": \"" + to_string(r.status.rate.code) + "\"";
    if (r.targets) {
        s += ", \"presented\": " + std::to_string(r.targets->presented) + ", \"on_target_share\": " +
             number_or_null(f.on_target_share, 4) + ", \"late_frames\": " + number_or_null(f.late, 0) +
             ", \"early_frames\": " + std::to_string(r.targets->early) + ", \"skipped_frames\": " +
             std::to_string(r.targets->skipped) + ", \"untargeted_frames\": " + std::to_string(r.targets->untargeted);
    }
    return s + "}\n";
}

std::string format_text(const DisplayCmdResult& r) {
    const Figures f = figures_of(r);
    const DisplayStatus& d = r.status.display;
    char buf[512];
    std::string s = "source " + r.source + ", " + std::to_string(r.vblanks.vblanks) + " vblanks in " +
                    number_or_null(r.seconds, 1) + " s\n";
    s += "display " + std::string(to_string(d.state)) + ": " + d.reason + "\n";
    std::snprintf(buf, sizeof buf, "fitted %s Hz, reported %s Hz, shown %s Hz; locked after %s vblanks, %llu lock(s)\n",
                  number_or_null(d.refresh_hz, 4).c_str(), number_or_null(d.reported_hz, 4).c_str(),
                  number_or_null(d.shown_hz, 4).c_str(),
                  r.vblanks.lock_vblanks ? std::to_string(*r.vblanks.lock_vblanks).c_str() : "no",
                  static_cast<unsigned long long>(d.locks));
    s += buf;
    s += "next-vblank error p50 " + number_or_null(f.err_p50, 1) + " us, p99 " + number_or_null(f.err_p99, 1) +
         " us; counter steps " + msc_steps_json(r.vblanks.msc_steps) + "\n";
    s += "presents submitted " + std::to_string(r.status.presents.submitted) + ", shown " + number_or_null(f.shown, 0) +
         ", dropped " + number_or_null(f.dropped, 0) + " (unknown: no feedback)\n";
    s += "rate in force " + number_or_null(r.status.rate.hz, 4) + " Hz: " + r.status.rate.reason + "\n";
    if (r.targets)
        s += "present at time: " + std::to_string(r.targets->on_target) + " of " + std::to_string(r.targets->presented) +
             " on their target counter (" + number_or_null(f.on_target_share ? *f.on_target_share * 100 : f.on_target_share, 2) +
             " %), " + std::to_string(r.targets->late) + " late, " + std::to_string(r.targets->skipped) + " skipped, " +
             std::to_string(r.targets->untargeted) + " paced unlocked\n";
    return s;
}

}  // namespace

std::string format_display_result(const DisplayCmdResult& r, bool json) {
    return json ? format_json(r) : format_text(r);
}

std::string format_vblanks_csv(const VblankJudge& v) {
    std::string s = "msc,time_ns,error_ns\n";
    s.reserve(s.size() + 40 * v.stamps.size());
    for (const VblankJudge::Stamp& st : v.stamps) {
        s += (st.has_msc ? std::to_string(st.msc) : std::string()) + "," + std::to_string(clock::to_ns(st.time)) + ",";
        s += (st.predicted ? std::to_string(st.error.count()) : std::string()) + "\n";
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

int display_main(int argc, char** argv) {
    DisplayCmdOptions o;
    cli::Parser opts("pacer display", "",
                     "Opens a small window on the current display and reads its clock through a presentation\n"
                     "source: x11-present (X11's Present extension: vblank counter and time), wayland (the\n"
                     "compositor's wp_presentation feedback) or swap (the return of a vsync'd swap). Prints what\n"
                     "the pacer's display fit makes of it. With --present-at-time (x11-present), paces pixmap\n"
                     "presents with FramePacer at --hz and presents each at its target vblank counter.");
    opts.choice("--source", "the presentation source", &o.source,
                {{"x11-present", std::string("x11-present")}, {"wayland", std::string("wayland")},
                 {"swap", std::string("swap")}});
    opts.number("--hz", "HZ", "the pacer's target rate", &o.hz, cli::kNoLow, cli::kNoHigh, check_rate).range = rate_range();
    opts.flag("--present-at-time", "present pixmaps at their target counter (x11-present)", &o.present_at_time);
    opts.number("--ahead", "N", "x11-present: vblank requests kept queued (1: the quietest stamps on Xvfb;\n"
                "more: no vblank lost to a late poll)", &o.ahead, 1, kX11MaxAhead);
    opts.flag("--match-display", "pace at the display's rate (fitted, or the shown rate of a compositor's timer)",
              &o.match_display);
    opts.number("--seconds", "S", "run time (with --frames: the longest)", &o.seconds, 1.0, 3600.0);
    opts.number("--frames", "N", "--present-at-time: stop once N frames are judged", &o.frames, 1LL, 10000000LL);
    opts.flag("--json", "one JSON object instead of text", &o.json);
    opts.text("--vblanks-csv", "PATH",
              "each observed vblank to PATH: msc (the counter; empty when the source has none),\n"
              "time_ns (its time on the pacer's clock: CLOCK_MONOTONIC on Linux), error_ns (its\n"
              "time less the nearest vblank the locked fit predicted; empty until locked)", &o.vblanks_csv);
    opts.text("--presents-csv", "PATH",
              "--present-at-time: each judged present to PATH: target_msc, deadline_ns and wake_ns\n"
              "(its frame's), sent_ns (the present call), shown_msc, shown_ns (empty: skipped)",
              &o.presents_csv);
    opts.epilogue = "Exit status: 0 ok, 2 bad options, no display, or a source the display lacks.";
    const cli::Parsed parsed = opts.parse(argc, argv);
    if (parsed.stopped()) return cli::stop(opts, parsed.status);
    if (o.present_at_time && o.source != "x11-present")
        return cli::stop(opts, Status::error("--present-at-time: only with --source x11-present"));
    if (o.ahead != 1 && o.source != "x11-present")
        return cli::stop(opts, Status::error("--ahead: only with --source x11-present"));
    if (o.frames > 0 && !o.present_at_time) return cli::stop(opts, Status::error("--frames: only with --present-at-time"));
    if (!o.presents_csv.empty() && !o.present_at_time)
        return cli::stop(opts, Status::error("--presents-csv: only with --present-at-time"));
    for (const std::string* path : {&o.vblanks_csv, &o.presents_csv}) {
        if (std::string why; !path->empty() && !cli::path_writable(*path, &why)) {
            std::fprintf(stderr, "pacer display: cannot write %s: %s\n", path->c_str(), why.c_str());
            return 2;
        }
    }
    set_log_function(nullptr);  // the report says what the log would
    DisplayCmdResult r;
    r.source = o.source;
    r.vblanks.keep_stamps = !o.vblanks_csv.empty();
    std::string error;
    const bool ok = o.source == "x11-present" ? run_x11_present(o, &r, &error) : run_sdl_source(o, &r, &error);
    if (!ok) {
        std::fprintf(stderr, "pacer display: %s\n", error.c_str());
        return 2;
    }
    const std::pair<const std::string*, std::string> files[] = {
        {&o.vblanks_csv, o.vblanks_csv.empty() ? std::string() : format_vblanks_csv(r.vblanks)},
        {&o.presents_csv, o.presents_csv.empty() || !r.targets ? std::string() : format_presents_csv(*r.targets)}};
    for (const auto& [path, text] : files) {
        if (path->empty()) continue;
        if (const Status st = write_file_atomically(*path, text); !st) {
            std::fprintf(stderr, "pacer display: %s\n", st.message().c_str());
            return 2;
        }
    }
    const std::string out = format_display_result(r, o.json);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

}  // namespace pacer::tools
