#include "replay.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "capture_reader.hpp"
#include "pacer/cadence.hpp"
#include "pacer/capture_columns.hpp"
#include "pacer/modes.hpp"
#include "pacer/stats.hpp"

namespace pacer_demo {

namespace {

// ms from the file -> ns; NaN (not in the file) -> 0.
std::chrono::nanoseconds ns_or_0(double ms) {
    return std::chrono::nanoseconds(std::isfinite(ms) ? std::llround(ms * 1e6) : 0);
}

// A column's value into the FrameTiming member the column table names for it
// (pacer/capture_columns.hpp, `timing`). A value the file does not have (NaN: no such column or
// NA; an empty text or a name pacer does not know) leaves the member as it was.
void set(std::chrono::nanoseconds& m, double ms) {
    if (std::isfinite(ms)) m = ns_or_0(ms);
}
void set(std::uint64_t& m, double v) {
    if (std::isfinite(v) && v >= 0) m = static_cast<std::uint64_t>(v);  // the reader: < 2^53
}
void set(std::uint32_t& m, double v) {
    if (std::isfinite(v) && v >= 0 && v <= 4294967295.0) m = static_cast<std::uint32_t>(v);
}
void set(bool& m, double v) {
    if (std::isfinite(v)) m = v != 0;
}
void set(double& m, double v) {
    if (std::isfinite(v)) m = v;
}
template <class E, std::size_t N>
void set_named(E& m, std::string_view text, const pacer::EnumName<E> (&names)[N]) {
    const std::string name(text);
    pacer::parse_name(names, name.c_str(), &m);
}
void set(pacer::WaitMode& m, std::string_view t) { set_named(m, t, pacer::kWaitModeNames); }
void set(pacer::PacingSource& m, std::string_view t) { set_named(m, t, pacer::kPacingSourceNames); }
void set(pacer::SyncMode& m, std::string_view t) { set_named(m, t, pacer::kSyncModeNames); }
void set(pacer::CadenceReason& m, std::string_view t) { set_named(m, t, pacer::kCadenceReasonNames); }

template <class M, class V>
void set_member(pacer::FrameTiming& t, M pacer::FrameTiming::*member, const V& v) {
    set(t.*member, v);
}
template <class V>
void set_member(pacer::FrameTiming&, std::nullptr_t, const V&) {}  // a column FrameTiming has not

// Every column of the table that mirrors a FrameTiming member, from the row.
void set_from_row(pacer::FrameTiming& t, const pacer::tools::FrameRecord& f) {
    using pacer::FrameTiming;  // the table names the members unqualified
#define PACER_REPLAY_SET(member, name, aliases, unit, origin, timing, value) set_member(t, timing, f.member);
    PACER_CAPTURE_COLUMNS(PACER_REPLAY_SET)
#undef PACER_REPLAY_SET
}

}  // namespace

pacer::Status Replay::load(const std::string& path) {
    *this = Replay();
    pacer::tools::CaptureReader r;
    if (pacer::Status st = r.open(path); !st) return st;
    has_target_ = r.has_target();
    has_lateness_ = r.has_lateness();
    has_missed_ = r.has(pacer::CaptureColumnId::missed);
    std::vector<pacer::FrameTiming> frames;
    std::vector<double> sorted;
    std::int64_t wake = 0;
    std::string mode;
    for (pacer::tools::FrameRecord f; r.next(f);) {
        if (!(f.frame_ms > 0)) continue;  // NA: no frame time
        if (frames.size() == kMaxFrames)
            return pacer::Status::error(path + ": more than " + std::to_string(kMaxFrames) + " frames");
        if (mode.empty() && !f.wait_mode.empty()) mode = std::string(f.wait_mode);
        pacer::FrameTiming t;
        t.index = frames.size();  // without a Frame column
        set_from_row(t, f);
        wake += t.interval.count();
        t.wake = pacer::clock::from_ns(wake);
        t.deadline = t.wake - t.lateness;
        frames.push_back(t);
        sorted.push_back(f.frame_ms);
    }
    if (!r.error().ok()) return r.error();
    if (frames.empty()) return pacer::Status::error(path + ": no frame with a frame time");
    if (!has_target_) {
        // No target in the file: its median frame time stands in (the target line of the panels).
        std::sort(sorted.begin(), sorted.end());
        const auto median = ns_or_0(pacer::percentile_sorted({sorted.data(), sorted.size()}, 0.5));
        for (auto& t : frames) t.period = median;
    }
    frames_ = std::move(frames);
    path_ = path;
    format_ = pacer::tools::to_string(r.format());
    mode_ = mode;
    target_ = frames_.back().period;
    duration_ = std::chrono::nanoseconds(wake);
    return {};
}

int print_replay_summary(const std::string& path) {
    Replay rp;
    if (pacer::Status st = rp.load(path); !st) {
        std::fprintf(stderr, "pacer_demo: %s\n", st.message().c_str());
        return 1;
    }
    // The whole file: a window as large as the file.
    pacer::FrameStats stats(rp.size());
    for (std::size_t i = 0; i < rp.size(); ++i) stats.add(rp[i]);
    const pacer::StatsSummary m = stats.summarize();
    char hz[32] = "NA", p99_late[32] = "NA", max_late[32] = "NA", missed[32] = "NA";
    if (rp.has_target() && rp.target().count() > 0)
        std::snprintf(hz, sizeof hz, "%g", 1e9 / static_cast<double>(rp.target().count()));
    if (rp.has_lateness()) {
        std::snprintf(p99_late, sizeof p99_late, "%.3f", pacer::to_ms(m.lateness.p99));
        std::snprintf(max_late, sizeof max_late, "%.3f", pacer::to_ms(m.lateness.max));
    }
    if (rp.has_missed()) std::snprintf(missed, sizeof missed, "%llu", static_cast<unsigned long long>(m.missed_total));
    std::printf("summary: frames=%zu seconds=%.2f ui=replay hz=%s mode=%s avg_fps=%.2f p50_interval_ms=%.3f "
                "p99_interval_ms=%.3f p99_lateness_ms=%s max_lateness_ms=%s missed=%s stutters=%llu file=\"%s\" "
                "format=\"%s\"\n",
                m.frames, static_cast<double>(rp.duration().count()) * 1e-9, hz,
                rp.mode().empty() ? "NA" : rp.mode().c_str(), m.avg_fps, pacer::to_ms(m.interval.p50), pacer::to_ms(m.interval.p99),
                p99_late, max_late, missed, static_cast<unsigned long long>(m.stutters_total), rp.path().c_str(),
                rp.format().c_str());
    std::fflush(stdout);
    return 0;
}

}  // namespace pacer_demo
